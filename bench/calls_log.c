/* Every call's time, for looking at a run call by call (--calls). */
#include <math.h>

#include "bench/bench.h"

const char bench_calls_header[] =
    "pattern,bytes_per_rank,run,round,position,algorithm,ran,seconds,bound_s\n";

void bench_calls_write(FILE *f, const bench_ctx *ctx, const char *pattern, uint64_t bytes, int run,
                       const bench_sequence *seq, const bench_log *l)
{
    const bench_opts *o = ctx->opts;
    int order[BENCH_MAX_CANDIDATES];
    for (int r = 0; r < l->rounds; r++) {
        double bound = ctx->rate_bps > 0 ? (double)seq->bound_bytes[bench_sequence_call(seq, r)] *
                                               8 / ctx->rate_bps
                                         : NAN;
        bench_call_order(o, run, r, order, l->nslots);
        for (int pos = 0; pos < l->nslots; pos++) {
            int k = order[pos];
            size_t i = (size_t)r * (size_t)l->nslots + (size_t)k;
            if (l->t[i] <= 0) /* the slot did not run this round */
                continue;
            fprintf(f, "%s,%llu,%d,%d,%d,%s,%s%s,%.9g,", pattern, (unsigned long long)bytes, run, r,
                    pos, bench_candidates[o->candidates[k]].name, bench_ran_name(l->ran[i]),
                    bench_ran_variant(l->ran[i]), l->t[i]);
            if (isfinite(bound))
                fprintf(f, "%.9g", bound);
            fputc('\n', f);
        }
    }
}
