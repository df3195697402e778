/* The widest-step decomposition with a whole-message tail (plan_direct_widest_priced,
 * plan/families.h). The exact widest plan ends in short steps: on a skewed node matrix the
 * busiest node's last pieces each take a step of their own (powerlaw, 8 nodes: 5 of its 12
 * steps move 2.8 % of the bytes). Where a step has a price, the rest of every message after
 * the first k widest steps may go whole instead, in the fewest steps (stepwise) or heaviest
 * first (greedy); this file tries every k and keeps the cheapest plan. */
#include <stdint.h>
#include <stdlib.h>

#include "plan/families.h"
#include "plan/plan.h"

/* The largest transfer of step s of pl: the step's share of the bandwidth term. */
static uint64_t step_length(const plan *pl, size_t s)
{
    uint64_t longest = 0;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
        longest = pl->transfers[t].bytes > longest ? pl->transfers[t].bytes : longest;
    return longest;
}

/* Moves step s of pl off the remainder: subtracts its bytes from r and adds them to done. */
static void take_step(const plan *pl, size_t s, plan_matrix *r, uint64_t *done)
{
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
        const plan_transfer *tr = &pl->transfers[t];
        size_t k = (size_t)tr->src * (size_t)r->p + (size_t)tr->dst;
        r->bytes[k] -= tr->bytes;
        done[k] += tr->bytes;
    }
}

/* The cheaper at price of the whole-message plans of r (stepwise, then greedy; stepwise on a
 * tie) into *out. Returns 0, or -1 with err set (*out then holds no memory). */
static int whole_tail(const plan_matrix *r, uint64_t price, plan *out, plan_error *err)
{
    plan greedy;
    if (plan_stepwise(r, out, err))
        return -1;
    if (plan_greedy(r, &greedy, err)) {
        plan_free(out);
        return -1;
    }
    if (plan_priced(&greedy, price) < plan_priced(out, price)) {
        plan_free(out);
        *out = greedy;
    } else {
        plan_free(&greedy);
    }
    return 0;
}

/* Appends the steps of src to pl, every segment's offset raised by done[origin, target] (src
 * plans what remains of each message after done bytes). Returns 0 or -1 with err set. */
static int append_steps(plan *pl, const plan *src, const uint64_t *done, plan_error *err)
{
    for (size_t s = 0; s < src->nsteps; s++) {
        if (plan_begin_step(pl, err))
            return -1;
        for (size_t t = src->step_begin[s]; t < src->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &src->transfers[t];
            if (plan_add_transfer(pl, tr->src, tr->dst, err))
                return -1;
            for (size_t g = tr->seg_begin; g < tr->seg_begin + tr->nsegs; g++) {
                const plan_segment *sg = &src->segments[g];
                uint64_t base = done ? done[(size_t)sg->origin * (size_t)pl->p + sg->target] : 0;
                if (plan_add_segment(pl, sg->origin, sg->target, base + sg->offset, sg->bytes, err))
                    return -1;
            }
        }
    }
    return 0;
}

/* The plan of wd's first k steps, then tail (what remains after them, done bytes of every
 * message moved) into *out. Returns 0, or -1 with err set (*out then holds no memory). */
static int splice(const plan *wd, size_t k, const plan *tail, const uint64_t *done, plan *out,
                  plan_error *err)
{
    plan head = *wd;
    head.nsteps = k;
    int rc = plan_init(out, wd->p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, err);
    if (rc == 0)
        rc = plan_reserve(out, wd->ntransfers + tail->ntransfers, wd->nsegments + tail->nsegments,
                          err);
    if (rc == 0)
        rc = append_steps(out, &head, NULL, err);
    if (rc == 0)
        rc = append_steps(out, tail, done, err);
    if (rc)
        plan_free(out);
    return rc;
}

/* The first k at which wd's first k steps and a whole-message tail cost least at price, with
 * that tail in *tail and the bytes wd's first k steps move per message in done (k == nsteps:
 * wd alone, *tail empty). Returns 0, or -1 with err set. */
static int cheapest_split(const plan_matrix *m, const plan *wd, uint64_t price, size_t *best_k,
                          plan *tail, uint64_t *done, plan_error *err)
{
    size_t pp = (size_t)m->p * (size_t)m->p;
    plan_matrix r;
    *tail = (plan){0};
    uint64_t *moved = calloc(pp, sizeof *moved);
    if (!moved || plan_matrix_init(&r, m->p, err)) {
        free(moved);
        return moved ? -1 : plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    }
    for (size_t k = 0; k < pp; k++)
        r.bytes[k] = k % ((size_t)m->p + 1) ? m->bytes[k] : 0; /* no diagonal */
    unsigned __int128 best = plan_priced(wd, price), head = 0;
    *best_k = wd->nsteps;
    int rc = 0;
    for (size_t k = 0; k < wd->nsteps && rc == 0; k++) {
        plan t;
        if (head + (unsigned __int128)price * k >= best)
            break; /* the head alone costs as much as the best plan */
        rc = whole_tail(&r, price, &t, err);
        if (rc == 0 && head + (unsigned __int128)price * k + plan_priced(&t, price) < best) {
            best = head + (unsigned __int128)price * k + plan_priced(&t, price);
            *best_k = k;
            plan_free(tail);
            *tail = t;
            for (size_t e = 0; e < pp; e++)
                done[e] = moved[e];
        } else if (rc == 0) {
            plan_free(&t);
        }
        head += step_length(wd, k);
        take_step(wd, k, &r, moved);
    }
    if (rc)
        plan_free(tail);
    plan_matrix_free(&r);
    free(moved);
    return rc;
}

int plan_direct_widest_priced(const plan_matrix *m, uint64_t price, size_t max_segments, plan *pl,
                              plan_error *err)
{
    plan wd, tail;
    if (plan_direct_widest(m, max_segments, &wd, err))
        return -1;
    if (!price || wd.nsteps == 0) {
        *pl = wd;
        return 0;
    }
    size_t k = 0;
    uint64_t *done = calloc((size_t)m->p * (size_t)m->p, sizeof *done);
    if (!done) {
        plan_free(&wd);
        return plan_error_set(err, 0, "out of memory planning %d ranks", m->p);
    }
    int rc = cheapest_split(m, &wd, price, &k, &tail, done, err);
    plan split = {0};
    if (rc == 0 && k < wd.nsteps)
        rc = splice(&wd, k, &tail, done, &split, err);
    if (rc == 0 && k < wd.nsteps && !(max_segments && split.nsegments > max_segments)) {
        plan_free(&wd);
        *pl = split;
    } else if (rc == 0) {
        plan_free(&split); /* none, or too large: the widest plan, which fits */
        *pl = wd;
    } else {
        plan_free(&wd);
    }
    plan_free(&tail);
    free(done);
    return rc;
}
