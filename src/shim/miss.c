/* The miss path of an agreed call, in its phases: gather and check the pattern; fill a cache
 * slot for it (sharing a slot of the same pattern, else deciding) and prepare the likely run;
 * agree on truncation, staging and the prepared run; settle the choice (fallbacks planned and
 * agreed); finish the slot and the run. */
#include <stdlib.h>
#include <string.h>

#include "plan/hash.h"
#include "plan/learn.h"
#include "shim/decide.h"
#include "shim/log.h"
#include "shim/miss.h"
#include "shim/state.h"
#include "shim/validate.h"

/* Words before the row of bytes in each rank's gathered block: the argument status, and the
 * type facts (shim_type_facts). */
enum { HDR_STATUS, HDR_TYPES, HDR_WORDS };

/* What the miss path knows about the new pattern. */
typedef struct miss_pattern {
    plan_matrix m;      /* the gathered p x p matrix (in rec->gather) */
    plan_options po;    /* the options its plans are built with */
    uint64_t hash;      /* of the matrix and the type facts (the same on every rank) */
    int trunc_here;     /* some rank sends this rank more than its receive region holds */
    int src;            /* a slot holding the same pattern, -1 if none */
    int slot;           /* the slot filled, -1 if none */
    plan_algo likely;   /* the run this rank prepared before agreeing */
    int likely_variant;
    const plan_forecast *fc; /* auto: what was forecast before gathering */
} miss_pattern;

/* The agreement of a new pattern: every field combined by maximum over ranks. */
typedef struct miss_agreement {
    int truncated;                     /* some rank's receive region is too small */
    int failed;                        /* a rank could not prepare the likely run */
    int likely;                        /* the likely run every rank prepared (family +
                                          PLAN_ALGO_COUNT * variant), -1: they differ */
    uint64_t staging[PLAN_ALGO_COUNT]; /* staging a family needs (STAGING_FAILED: failed) */
} miss_agreement;

/* Its wire form: MISS_WORDS words, all combined by MPI_MAX. */
enum { MW_TRUNCATED, MW_FAILED, MW_LIKELY_HI, MW_LIKELY_LO, MW_STAGING,
       MISS_WORDS = MW_STAGING + PLAN_ALGO_COUNT };

/* Values of `likely`. */
enum { LIKELY_LIMIT = PLAN_ALGO_COUNT * PLAN_LEARN_VARIANTS };

/* Packs a (`likely` a candidate's number, or -1 for a truncated rank, which prepared
 * nothing). */
static void miss_pack(const miss_agreement *a, uint64_t w[MISS_WORDS])
{
    w[MW_TRUNCATED] = (uint64_t)(a->truncated != 0);
    w[MW_FAILED] = (uint64_t)(a->failed != 0);
    w[MW_LIKELY_HI] = a->likely >= 0 ? 1 + (uint64_t)a->likely : 0;
    w[MW_LIKELY_LO] = a->likely >= 0 ? LIKELY_LIMIT - (uint64_t)a->likely : 0;
    memcpy(w + MW_STAGING, a->staging, sizeof a->staging);
}

/* Unpacks the maxima over ranks. */
static void miss_unpack(const uint64_t w[MISS_WORDS], miss_agreement *a)
{
    uint64_t hi = w[MW_LIKELY_HI], lo = w[MW_LIKELY_LO];
    a->truncated = (int)w[MW_TRUNCATED];
    a->failed = (int)w[MW_FAILED];
    a->likely = hi >= 1 && hi - 1 == LIKELY_LIMIT - lo ? (int)(hi - 1) : -1;
    memcpy(a->staging, w + MW_STAGING, sizeof a->staging);
}

/* A result saying the call is over with rc. */
static shim_miss_result done(int rc)
{
    return (shim_miss_result){.outcome = SHIM_MISS_DONE, .slot = -1, .rc = rc};
}

/* After the allgather: the lowest rank's error class, else SHIM_STATUS_NATIVE if some rank
 * asks for it, else 0; the combined type facts (*size_gcd over all ranks, *dense if every
 * rank's types are dense), then the gathered blocks compacted in place into the p x p matrix
 * at the start of the buffer. */
static int gathered_status_and_compact(uint64_t *g, int p, uint64_t *size_gcd, int *dense)
{
    size_t stride = (size_t)p + HDR_WORDS;
    int status = 0;
    *size_gcd = 0;
    *dense = 1;
    for (int i = 0; i < p; i++) {
        const uint64_t *h = g + (size_t)i * stride;
        int s = (int)(int64_t)h[HDR_STATUS];
        if (s > 0 ? status <= 0 : !status)
            status = s;
        *size_gcd = plan_gcd(*size_gcd, h[HDR_TYPES] / 2);
        *dense &= (int)(h[HDR_TYPES] & 1);
    }
    for (int i = 0; i < p; i++)
        memmove(g + (size_t)i * p, g + (size_t)i * stride + HDR_WORDS, (size_t)p * sizeof *g);
    return status;
}

/* 1 if some rank sends this rank more than its receive region for that rank holds. */
static int truncated(const plan_matrix *m, const exec_exchange *x)
{
    for (int i = 0; i < m->p; i++)
        if (plan_matrix_at(m, i, x->rank) >
            (uint64_t)x->recv.count[i] * (uint64_t)x->recv.type.size)
            return 1;
    return 0;
}

/* Phase 1: gathers [status, type facts, row] of every rank into rec->gather and checks them.
 * Returns 0 with pat's matrix, options and hash set; else 1 with *res the call's outcome. */
static int gather(shim_call *c, miss_pattern *pat, shim_miss_result *res)
{
    shim_comm *rec = c->rec;
    int p = rec->p, dense;
    size_t stride = (size_t)p + HDR_WORDS;
    uint64_t *mine = rec->gather + (size_t)rec->rank * stride, size_gcd;
    mine[HDR_STATUS] = (uint64_t)(int64_t)c->status;
    mine[HDR_TYPES] = c->facts.types;
    memcpy(mine + HDR_WORDS, rec->row, (size_t)p * sizeof *mine);
    int rc = PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rec->gather, (int)stride,
                            MPI_UINT64_T, rec->priv);
    if (rc != MPI_SUCCESS) {
        *res = done(shim_raise(c->a, rc));
        return 1;
    }
    int status = gathered_status_and_compact(rec->gather, p, &size_gcd, &dense);
    if (status == SHIM_STATUS_NATIVE) { /* a byte displacement overflows somewhere */
        *res = (shim_miss_result){.outcome = SHIM_MISS_NATIVE, .slot = -1};
        return 1;
    }
    if (status != 0) { /* this rank's own error, else the lowest erroneous rank's */
        *res = done(shim_raise(c->a, c->status > 0 ? c->status : status));
        return 1;
    }
    pat->m = (plan_matrix){.p = p, .bytes = rec->gather};
    pat->po = (plan_options){.min_step_bytes = shim_g.cfg.min_step,
                             .duplex = shim_g.cfg.duplex,
                             .grain_bytes = shim_grain(shim_g.cfg.grain, size_gcd, dense),
                             .packet_bytes = shim_g.cfg.packet,
                             .max_segments = (size_t)shim_g.cfg.max_plan,
                             .topo = shim_topo_plan(&rec->topo), /* node-shim: node families */
                             .node_step_bytes = shim_topo_step_bytes(p)};
    pat->hash = plan_hash_words(plan_hash_words(PLAN_HASH_START, &c->facts.types, 1),
                                pat->m.bytes, (size_t)p * p);
    return 0;
}

/* What a rank agrees as the staging of a family that failed there: below 2^63 (MPICH 4.0.2
 * compares unsigned integers as signed in MPI_MAX, pmodels/mpich#6083: UINT64_MAX would lose
 * to every other rank's figure, and the ranks would disagree on the family), above any
 * staging a rank can hold. */
#define STAGING_FAILED ((uint64_t)INT64_MAX)

/* The staging word of a family planned on this rank (shim_prog_staging's UINT64_MAX, a view
 * that could not be made: STAGING_FAILED). */
static uint64_t staging_word(uint64_t staging)
{
    return staging < STAGING_FAILED ? staging : STAGING_FAILED;
}

/* Fills slot s from the new pattern: shares the choice and plans of src_slot (a copy of the
 * slot with the same pattern) if there is one, else decides (plans the candidates) and records
 * in staging[a] what family a needs on this rank (STAGING_FAILED: it failed here). */
static void fill_slot(shim_call *c, shim_slot *s, const shim_slot *src_slot,
                      const miss_pattern *pat, uint64_t staging[PLAN_ALGO_COUNT])
{
    if (src_slot) {
        shim_slot_share(s, src_slot);
        return;
    }
    shim_decide(c->rec, s, &pat->m, &pat->po, shim_args_native_kind(c->a), pat->fc);
    for (int a = 0; a < PLAN_ALGO_COUNT; a++)
        if (s->failed & (1u << a))
            staging[a] = STAGING_FAILED;
        else if (s->prog[a])
            staging[a] = s->prog[a]->staging = staging_word(shim_prog_staging(s->prog[a], &c->x));
}

/* The candidate the new pattern's first call runs: the family the forecast explores (pat->fc)
 * if it was planned and exploring it, as the gathered pattern models it, still fits the budget
 * (plan_choice_explore_wait: the forecast's estimate came from the summary alone), else the
 * choice's best model (plan_choice_opening: on a drifting site, the one winner planned). The
 * family explored runs with its small window where that is a candidate estimated below it
 * (plan_forecast.small_first). A function of agreed values: the same before and after the
 * agreement. */
static plan_candidate first_run(const shim_comm *rec, const shim_slot *s, const miss_pattern *pat)
{
    const plan_choice *ch = &s->choice;
    plan_algo a = pat->fc && pat->src < 0 ? pat->fc->explore : PLAN_ALGO_NATIVE;
    if (a == PLAN_ALGO_NATIVE || !s->prog[a])
        return *plan_choice_opening(ch);
    const plan_candidate *c = plan_choice_find(ch, a, 0);
    const plan_candidate *v = plan_choice_find(ch, a, PLAN_VARIANT_SMALL_WINDOW);
    plan_candidate run = {.algo = a};
    if (c && v && v->model_ps < c->model_ps)
        run = *v;
    if (!c) /* once gathered, its plan was not worth measuring (shim_decide_choose) */
        return *plan_choice_opening(ch);
    if (c == plan_choice_incumbent(ch))
        return run;
    plan_wait w = plan_choice_explore_wait(ch, c);
    return plan_wait_allows(&rec->budget, &w, (uint32_t)shim_g.cfg.budget)
               ? run
               : *plan_choice_opening(ch);
}

/* Phase 2 (unless a message to this rank is truncated): takes a slot for the pattern, fills it
 * and prepares the likely run; this rank's part of the agreement in *ag. */
static void propose(shim_call *c, miss_pattern *pat, miss_agreement *ag)
{
    shim_comm *rec = c->rec;
    memset(ag, 0, sizeof *ag);
    ag->likely = -1;
    pat->src = pat->slot = -1;
    pat->likely = PLAN_ALGO_NATIVE;
    pat->trunc_here = truncated(&pat->m, &c->x);
    if ((ag->truncated = pat->trunc_here))
        return;
    /* the source slot's plans are referenced before a victim is chosen (it may be src) */
    shim_slot copy;
    pat->src = shim_cache_find_pattern(rec, pat->hash, &c->facts);
    if (pat->src >= 0) {
        copy = rec->slot[pat->src];
        for (int k = 0; k < PLAN_ALGO_COUNT; k++)
            if (copy.prog[k])
                copy.prog[k]->refs++;
    }
    pat->slot = shim_cache_victim(rec, pat->src);
    shim_slot *s = &rec->slot[pat->slot];
    s->facts = c->facts;
    fill_slot(c, s, pat->src >= 0 ? &copy : NULL, pat, ag->staging);
    for (int k = 0; pat->src >= 0 && k < PLAN_ALGO_COUNT; k++)
        shim_prog_release(copy.prog[k]);
    /* the likely run, prepared before agreeing (saves a round in the common case) */
    if (pat->src < 0)
        shim_decide_choose(rec, s, s->failed);
    plan_candidate first = first_run(rec, s, pat);
    pat->likely = first.algo;
    pat->likely_variant = first.variant;
    ag->failed = pat->likely != PLAN_ALGO_NATIVE &&
                 shim_run_prepare(c->a, rec, &c->x, s->prog[pat->likely], &c->run) != 0;
    ag->likely = (int)pat->likely + PLAN_ALGO_COUNT * first.variant;
}

/* Phase 3: the agreement over ranks (maxima of *ag). Returns an MPI error code. */
static int agree(const shim_call *c, miss_agreement *ag)
{
    uint64_t w[MISS_WORDS];
    miss_pack(ag, w);
    int rc = PMPI_Allreduce(MPI_IN_PLACE, w, MISS_WORDS, MPI_UINT64_T, MPI_MAX, c->rec->priv);
    if (rc == MPI_SUCCESS)
        miss_unpack(w, ag);
    return rc;
}

/* Plans the fallbacks the choice of s may run next that are not planned yet (direct for a
 * fixed family over the staging limit), agreeing on each one's staging; one over the limit
 * somewhere is dropped. Returns an MPI error code (of an allreduce). */
static int plan_fallbacks(shim_call *c, shim_slot *s, const miss_pattern *pat)
{
    shim_comm *rec = c->rec;
    plan_algo next;
    while ((next = plan_choice_next(&s->choice)) != PLAN_ALGO_NATIVE && !s->prog[next]) {
        int built = 0;
        uint64_t need =
            shim_slot_prog(rec, s, next, &pat->m, &pat->po, &built) != 0
                ? STAGING_FAILED
                : (s->prog[next]->staging = staging_word(shim_prog_staging(s->prog[next], &c->x)));
        s->planned += built;
        int rc = PMPI_Allreduce(MPI_IN_PLACE, &need, 1, MPI_UINT64_T, MPI_MAX, rec->priv);
        if (rc != MPI_SUCCESS)
            return rc;
        if (need > shim_g.cfg.max_staging || need == STAGING_FAILED) {
            shim_prog_release(s->prog[next]);
            s->prog[next] = NULL;
            plan_choice_drop(&s->choice, next);
        }
    }
    return MPI_SUCCESS;
}

/* Phase 4, for a pattern decided here (not shared): drops the families over the staging limit
 * on some rank or failed anywhere, settles the choice, plans what it may fall back to. Returns
 * an MPI error code. */
static int settle(shim_call *c, shim_slot *s, const miss_pattern *pat, const miss_agreement *ag)
{
    uint32_t drop = 0;
    for (int k = 0; k < PLAN_ALGO_COUNT; k++) {
        if (ag->staging[k] <= shim_g.cfg.max_staging && ag->staging[k] != STAGING_FAILED)
            continue;
        drop |= 1u << k;
        if (ag->staging[k] != STAGING_FAILED)
            shim_log(2, "%s on %d ranks: %s needs %llu staging bytes on some rank, over "
                        "HRELAY_MAX_STAGING=%llu; not used",
                     shim_args_name(c->a), c->rec->p, plan_algo_name((plan_algo)k),
                     (unsigned long long)ag->staging[k],
                     (unsigned long long)shim_g.cfg.max_staging);
    }
    if (drop != s->failed)
        shim_decide_choose(c->rec, s, drop);
    shim_decide_trim(c->rec, s, &pat->m, drop, pat->fc ? pat->fc->explore : PLAN_ALGO_NATIVE);
    return plan_fallbacks(c, s, pat);
}

/* Phase 5: the slot's keys for the calls to come, and the run of this call: what every rank
 * prepared if that is what the choice runs (native if a rank failed), else the choice's next
 * family, prepared and agreed now. */
static shim_miss_result finish(shim_call *c, shim_slot *s, const miss_pattern *pat,
                               const miss_agreement *ag)
{
    shim_comm *rec = c->rec;
    s->used = s->gen = rec->calls;
    s->row_hash = c->row_hash;
    s->site = c->site ? c->site->key : 0;
    s->matrix_hash = pat->hash;
    memcpy(s->row, rec->row, (size_t)rec->p * sizeof *s->row);
    for (int i = 0; i < rec->p; i++)
        s->col[i] = plan_matrix_at(&pat->m, i, rec->rank);
    shim_miss_result res = {.outcome = SHIM_MISS_RUN, .slot = pat->slot,
                            .planned = pat->src < 0 ? s->planned : 0};
    plan_candidate next = first_run(rec, s, pat);
    int id = (int)next.algo + PLAN_ALGO_COUNT * next.variant;
    if (ag->likely == id && next.algo == pat->likely && next.variant == pat->likely_variant) {
        c->run.algo = ag->failed ? PLAN_ALGO_NATIVE : pat->likely;
        c->run.variant = ag->failed ? 0 : next.variant;
    } else {
        int rc = shim_run_prepare_agreed(c->a, rec, &c->x, s, next.algo, next.variant, &c->run);
        if (rc != MPI_SUCCESS)
            return done(shim_raise(c->a, rc));
    }
    res.algo = c->run.algo;
    res.explored = pat->src < 0 && pat->fc && pat->fc->explore != PLAN_ALGO_NATIVE &&
                   c->run.algo == pat->fc->explore;
    return res;
}

shim_miss_result shim_miss(shim_call *c, const plan_forecast *fc)
{
    shim_comm *rec = c->rec;
    miss_pattern pat = {.fc = fc};
    miss_agreement ag;
    shim_miss_result res;
    if (gather(c, &pat, &res))
        return res;
    propose(c, &pat, &ag);
    int rc = agree(c, &ag);
    if (rc != MPI_SUCCESS || ag.truncated) {
        if (pat.slot >= 0)
            shim_slot_clear(&rec->slot[pat.slot]);
        return done(rc != MPI_SUCCESS ? shim_raise(c->a, rc)
                                      : shim_truncated_call(c->a, pat.trunc_here));
    }
    shim_slot *s = &rec->slot[pat.slot];
    if (pat.src < 0) {
        if ((rc = settle(c, s, &pat, &ag)) != MPI_SUCCESS) {
            shim_slot_clear(s);
            return done(shim_raise(c->a, rc));
        }
        rec->patterns++;
    }
    return finish(c, s, &pat, &ag);
}
