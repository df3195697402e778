/* The cost model (see cost.h): native and plan times, bounds, and the calibration file. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/cost_math.h"

plan_cost_params plan_cost_defaults(void)
{
    return (plan_cost_params){.alpha_ps = 5000000,
                              .gap_ps = 1000000,
                              .beta_fs = 1000000,
                              .duplex_pct = 100,
                              .step_ps = 2000000,
                              .native_pct = 50,
                              .throttle = 32,
                              .plan_ps = 10000,
                              .local_alpha_ps = 1000000,
                              .local_beta_fs = 100000,
                              .window_make_ps = 5000000000,
                              .window_make_fs = 4000000};
}

/* ceil(log2(p)) for p >= 1. */
static unsigned ceil_log2(int p)
{
    unsigned k = 0;
    while ((1ull << k) < (unsigned long long)p)
        k++;
    return k;
}

/* One rank's time in one block of MPICH's scattered algorithm: it receives from rank + off
 * (col[(rank + off) * stride]) and sends to rank - off (row[]) for off in [b0, b0 + ss), all
 * at once (0 when it has no message in the block). */
static uint64_t native_block(int p, int r, int b0, int ss, const uint64_t *row,
                             const uint64_t *col, size_t stride, const plan_cost_params *c)
{
    uint64_t sent = 0, recvd = 0, n = 0;
    for (int j = 0; j < ss; j++) {
        int off = b0 + j;
        if (off == 0)
            continue; /* the message to itself is a local copy */
        uint64_t in = col[(size_t)((r + off) % p) * stride];
        uint64_t out = row[(r - off % p + p) % p];
        n += (in != 0) + (out != 0);
        recvd = sat_add(recvd, in);
        sent = sat_add(sent, out);
    }
    if (n == 0)
        return 0;
    uint64_t big = sent > recvd ? sent : recvd, small = sent > recvd ? recvd : sent;
    return sat_add(sat_add(c->alpha_ps, sat_mul(c->gap_ps, n - 1)),
                   sat_add(bytes_ps(big, c->beta_fs, 100),
                           bytes_ps(small, c->beta_fs, c->native_pct)));
}

/* Peers per block of the scattered algorithm. */
static int throttle(const plan_cost_params *c)
{
    return c->throttle ? (int)c->throttle : 1;
}

size_t plan_cost_native_blocks(int p, const plan_cost_params *c)
{
    return p < 1 ? 0 : ((size_t)p + (size_t)throttle(c) - 1) / (size_t)throttle(c);
}

void plan_cost_native_rank(int p, int rank, const uint64_t *row, const uint64_t *col,
                           const plan_cost_params *c, uint64_t *block)
{
    int t = throttle(c);
    for (int b0 = 0, b = 0; b0 < p; b0 += t, b++)
        block[b] = native_block(p, rank, b0, p - b0 < t ? p - b0 : t, row, col, 1, c);
}

/* MPICH's scattered algorithm (see plan_cost_native). */
static uint64_t native_scattered(const plan_matrix *m, const plan_cost_params *c)
{
    int p = m->p, t = throttle(c);
    uint64_t total = 0;
    for (int b0 = 0; b0 < p; b0 += t) {
        uint64_t worst = 0;
        for (int r = 0; r < p; r++) {
            uint64_t tr = native_block(p, r, b0, p - b0 < t ? p - b0 : t,
                                       m->bytes + (size_t)r * (size_t)p, m->bytes + r,
                                       (size_t)p, c);
            worst = tr > worst ? tr : worst;
        }
        total = sat_add(total, worst);
    }
    return total;
}

/* The largest message between one pair in either direction. */
static uint64_t largest_pair(const plan_matrix *m)
{
    uint64_t big = 0;
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++)
            if (i != j && plan_matrix_at(m, i, j) > big)
                big = plan_matrix_at(m, i, j);
    return big;
}

/* MPI_IN_PLACE: 2p - 3 pairwise exchanges of the largest message between one pair. */
static uint64_t native_inplace(int p, uint64_t largest, const plan_cost_params *c)
{
    uint64_t one = sat_add(c->alpha_ps, bytes_ps(largest, c->beta_fs, c->duplex_pct));
    return sat_mul(one, 2 * (uint64_t)p - 3);
}

/* MPI_Alltoall of `per` bytes per pair: Bruck's or the pairwise algorithm's time in *ps and 1,
 * or 0 where MPICH runs the scattered algorithm. */
static int native_alltoall(int p, uint64_t per, const plan_cost_params *c, uint64_t *ps)
{
    if (per <= 256 && p >= 8) {
        uint64_t round =
            sat_add(c->alpha_ps, bytes_ps(sat_mul(per, (uint64_t)p) / 2, c->beta_fs, c->duplex_pct));
        *ps = sat_mul(round, ceil_log2(p));
        return 1;
    }
    if (per > 32768) {
        *ps = sat_mul(sat_add(c->alpha_ps, bytes_ps(per, c->beta_fs, c->duplex_pct)),
                      (uint64_t)p - 1);
        return 1;
    }
    return 0;
}

uint64_t plan_cost_native(const plan_matrix *m, plan_native_kind kind, const plan_cost_params *c)
{
    int p = m->p;
    if (p < 2)
        return 0;
    uint64_t per = 0, ps;
    if (kind == PLAN_NATIVE_INPLACE)
        return native_inplace(p, largest_pair(m), c);
    if (kind == PLAN_NATIVE_ALLTOALL && plan_matrix_is_uniform(m, &per) &&
        native_alltoall(p, per, c, &ps))
        return ps;
    return native_scattered(m, c);
}

uint64_t plan_cost_native_figures(int p, plan_native_kind kind, uint64_t uniform,
                                  uint64_t largest, const uint64_t *block, size_t nblocks,
                                  const plan_cost_params *c)
{
    uint64_t ps = 0;
    if (p < 2)
        return 0;
    if (kind == PLAN_NATIVE_INPLACE)
        return native_inplace(p, largest, c);
    if (kind == PLAN_NATIVE_ALLTOALL && uniform && native_alltoall(p, uniform, c, &ps))
        return ps;
    for (size_t b = 0; b < nblocks; b++)
        ps = sat_add(ps, block[b]);
    return ps;
}

uint64_t plan_cost_bytes(uint64_t bytes, const plan_cost_params *c)
{
    return bytes_ps(bytes, c->beta_fs, 100);
}

/* The synchronous model: per step step_ps plus its largest transfer (see plan_cost_plan). */
static uint64_t steps_in_sequence(const plan *pl, const plan_cost_params *c)
{
    uint32_t *sends = NULL;
    if (pl->duplex == PLAN_DUPLEX_FULL && c->duplex_pct != 100)
        sends = calloc((size_t)pl->p, sizeof *sends); /* step + 1 of a rank's last send */
    uint64_t total = 0;
    for (size_t s = 0; s < pl->nsteps; s++) {
        uint64_t big = 0;
        int both = pl->duplex == PLAN_DUPLEX_FULL && !sends; /* unknown: assume both */
        size_t t0 = pl->step_begin[s], t1 = pl->step_begin[s + 1];
        for (size_t t = t0; t < t1; t++) {
            if (pl->transfers[t].bytes > big)
                big = pl->transfers[t].bytes;
            if (sends)
                sends[pl->transfers[t].src] = (uint32_t)s + 1;
        }
        for (size_t t = t0; sends && t < t1 && !both; t++)
            both = sends[pl->transfers[t].dst] == (uint32_t)s + 1;
        total = sat_add(total, sat_add(c->step_ps, bytes_ps(big, c->beta_fs,
                                                            both ? c->duplex_pct : 100)));
    }
    free(sends);
    return total;
}

/* The overlapped model of a half-duplex plan on links that carry both directions at once:
 * the busiest rank's time, its bytes sent and received over the whole plan combined by
 * both_ways_ps; plus step_ps per step. UINT64_MAX when memory runs out. */
static uint64_t steps_overlapped(const plan *pl, const plan_cost_params *c)
{
    size_t p = (size_t)pl->p;
    uint64_t *side = calloc(2 * p, sizeof *side); /* bytes sent, then received */
    if (!side)
        return UINT64_MAX;
    for (size_t t = 0; t < pl->ntransfers; t++) {
        const plan_transfer *x = &pl->transfers[t];
        side[x->src] = sat_add(side[x->src], x->bytes);
        side[p + (size_t)x->dst] = sat_add(side[p + (size_t)x->dst], x->bytes);
    }
    uint64_t worst = 0;
    for (size_t r = 0; r < p; r++) {
        uint64_t t = both_ways_ps(side[r], side[p + r], c->beta_fs, c->duplex_pct);
        worst = t > worst ? t : worst;
    }
    free(side);
    return sat_add(worst, sat_mul(c->step_ps, pl->nsteps));
}

uint64_t plan_cost_plan(const plan *pl, const plan_cost_params *c)
{
    uint64_t sequence = steps_in_sequence(pl, c);
    if (pl->duplex != PLAN_DUPLEX_HALF || c->duplex_pct >= 200)
        return sequence;
    uint64_t overlapped = steps_overlapped(pl, c);
    return overlapped < sequence ? overlapped : sequence;
}

uint64_t plan_cost_overlap_bound(const plan_matrix *m, const plan_cost_params *c)
{
    uint32_t share = (c->duplex_pct < 200 ? c->duplex_pct : 200) - 100;
    return bytes_ps(plan_matrix_shared_load(m, share), c->beta_fs, 100);
}

uint64_t plan_cost_bound(const plan_matrix *m, plan_duplex duplex, const plan_cost_params *c)
{
    return bytes_ps(plan_matrix_lower_bound(m, duplex), c->beta_fs, 100);
}

uint64_t plan_cost_planning(const plan_matrix *m, size_t nsegments, const plan_cost_params *c)
{
    uint64_t units = sat_add(sat_mul((uint64_t)m->p, (uint64_t)m->p), nsegments);
    return sat_mul(units, c->plan_ps);
}

uint64_t plan_cost_planning_forward(const plan_matrix *m, uint64_t packet_bytes,
                                    const plan_cost_params *c)
{
    uint64_t packets = 0;
    for (int i = 0; i < m->p; i++)
        for (int j = 0; j < m->p; j++) {
            uint64_t b = i == j ? 0 : plan_matrix_at(m, i, j);
            packets = sat_add(packets, b / packet_bytes + (b % packet_bytes != 0));
        }
    return plan_cost_planning(m, sat_mul(packets, PLAN_COST_FORWARD_UNITS), c);
}

uint64_t plan_cost_barrier(int p, const plan_cost_params *c)
{
    return sat_mul(c->alpha_ps, ceil_log2(p));
}

uint64_t plan_cost_node_gather(int p, int n, int l, const plan_cost_params *c)
{
    uint64_t hops = 2 * ceil_log2(l) + ceil_log2(n) + ceil_log2(p);
    uint64_t words = sat_add(sat_mul((uint64_t)n, (uint64_t)n + 1), (uint64_t)p);
    return sat_add(sat_mul(c->alpha_ps, hops), bytes_ps(sat_mul(words, 8), c->beta_fs, 100));
}

uint64_t plan_cost_gather(int p, const plan_cost_params *c)
{
    uint64_t bytes = sat_mul(sat_mul((uint64_t)p, (uint64_t)p), 8);
    return sat_add(sat_mul(c->alpha_ps, ceil_log2(p)), bytes_ps(bytes, c->beta_fs, 100));
}

/* One field of the calibration file: its name, where it lives, its unit and range. */
typedef struct field {
    const char *name;
    size_t at;      /* offsetof in plan_cost_params */
    int is32;       /* a uint32_t field (else uint64_t) */
    double scale;   /* file value * scale = stored integer */
    double lo, hi;  /* accepted file values */
} field;

static const field fields[] = {
    {"alpha_s", offsetof(plan_cost_params, alpha_ps), 0, 1e12, 0, 1},
    {"gap_s", offsetof(plan_cost_params, gap_ps), 0, 1e12, 0, 1},
    {"beta_s_per_byte", offsetof(plan_cost_params, beta_fs), 0, 1e15, 1e-15, 1e-3},
    {"duplex_percent", offsetof(plan_cost_params, duplex_pct), 1, 1, 100, 400},
    {"step_s", offsetof(plan_cost_params, step_ps), 0, 1e12, 0, 1},
    {"native_percent", offsetof(plan_cost_params, native_pct), 1, 1, 0, 1000},
    {"throttle", offsetof(plan_cost_params, throttle), 1, 1, 1, 1 << 20},
    {"plan_s_per_unit", offsetof(plan_cost_params, plan_ps), 0, 1e12, 0, 1e-3},
    {"local_alpha_s", offsetof(plan_cost_params, local_alpha_ps), 0, 1e12, 0, 1},
    {"local_beta_s_per_byte", offsetof(plan_cost_params, local_beta_fs), 0, 1e15, 1e-15, 1e-3},
    {"window_make_s", offsetof(plan_cost_params, window_make_ps), 0, 1e12, 0, 1e4},
    {"window_make_s_per_byte", offsetof(plan_cost_params, window_make_fs), 0, 1e15, 0, 1e-3},
};
/* Indexes of the NIC figures the on-node ones default from, and of those (see fields). */
enum { F_ALPHA = 0, F_BETA = 2, F_LOCAL_ALPHA = 8, F_LOCAL_BETA = 9 };
enum { NFIELDS = sizeof fields / sizeof fields[0] };
_Static_assert(F_LOCAL_BETA + 3 == NFIELDS, "the on-node figures, then the node window's");

/* Stores file value v of field f into c. */
static void store(plan_cost_params *c, const field *f, double v)
{
    double x = nearbyint(v * f->scale);
    if (f->is32)
        *(uint32_t *)((char *)c + f->at) = (uint32_t)x;
    else
        *(uint64_t *)((char *)c + f->at) = (uint64_t)x;
}

/* The file value of field f in c. */
static double load(const plan_cost_params *c, const field *f)
{
    double x = f->is32 ? (double)*(const uint32_t *)((const char *)c + f->at)
                       : (double)*(const uint64_t *)((const char *)c + f->at);
    return x / f->scale;
}

/* Strips a '#' comment and surrounding blanks from line in place; returns the start. */
static char *trim(char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    while (isspace((unsigned char)*line))
        line++;
    size_t n = strlen(line);
    while (n > 0 && isspace((unsigned char)line[n - 1]))
        line[--n] = '\0';
    return line;
}

int plan_cost_parse(FILE *in, plan_cost_params *c, plan_error *err)
{
    char buf[512];
    int lineno = 0, seen[NFIELDS] = {0};
    plan_cost_params out = *c;
    while (fgets(buf, sizeof buf, in)) {
        lineno++;
        if (!strchr(buf, '\n') && !feof(in))
            return plan_error_set(err, lineno, "line longer than %zu bytes", sizeof buf - 2);
        char *line = trim(buf);
        if (!*line)
            continue;
        char *eq = strchr(line, '=');
        if (!eq)
            return plan_error_set(err, lineno, "expected 'name = value'");
        *eq = '\0';
        char *name = trim(line), *value = trim(eq + 1), *end;
        const field *f = NULL;
        for (int i = 0; i < NFIELDS; i++)
            if (!strcmp(name, fields[i].name))
                f = &fields[i];
        if (!f)
            return plan_error_set(err, lineno, "unknown parameter '%s'", name);
        errno = 0;
        double v = strtod(value, &end);
        if (end == value || *end || errno || !isfinite(v))
            return plan_error_set(err, lineno, "%s: '%s' is not a number", name, value);
        if (v < f->lo || v > f->hi)
            return plan_error_set(err, lineno, "%s = %s is outside [%g, %g]", name, value, f->lo,
                                  f->hi);
        store(&out, f, v);
        seen[f - fields] = 1;
    }
    if (ferror(in))
        return plan_error_set(err, lineno, "read error");
    if (seen[F_ALPHA] && !seen[F_LOCAL_ALPHA]) /* files older than the on-node figures */
        out.local_alpha_ps = plan_cost_local_alpha(out.alpha_ps);
    if (seen[F_BETA] && !seen[F_LOCAL_BETA])
        out.local_beta_fs = plan_cost_local_beta(out.beta_fs);
    *c = out;
    return 0;
}

uint64_t plan_cost_local_alpha(uint64_t alpha_ps)
{
    return alpha_ps / 5;
}

uint64_t plan_cost_local_beta(uint64_t beta_fs)
{
    return beta_fs / 10 ? beta_fs / 10 : 1;
}

int plan_cost_field(const plan_cost_params *c, int i, const char **name, double *value)
{
    if (i < 0 || i >= NFIELDS)
        return 0;
    *name = fields[i].name;
    *value = load(c, &fields[i]);
    return 1;
}

int plan_cost_write(FILE *out, const plan_cost_params *c)
{
    const char *name;
    double v;
    for (int i = 0; plan_cost_field(c, i, &name, &v); i++)
        if (fprintf(out, "%s = %.17g\n", name, v) < 0)
            return -1;
    return ferror(out) ? -1 : 0;
}

plan_model plan_cost_display(const plan_cost_params *c)
{
    return (plan_model){.alpha_s = (double)c->step_ps * 1e-12,
                        .beta_s_per_byte = (double)c->beta_fs * 1e-15};
}
