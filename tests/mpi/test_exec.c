/* exec/ without the shim: plans whose pieces cut messages at arbitrary byte offsets (through
 * elements of every datatype pair), run by exec with windows 1, 2, 3, 8 and unlimited, each
 * with no limit on the steps in flight or with 1 or 2 steps in flight (exec_opts.steps), and
 * compared with PMPI_Alltoallv byte for byte, guard bytes included. Plan kinds, in turn:
 *   direct     random pieces, 1..2 per transfer, no forwarding;
 *   transpose  plan_transpose with a random grain of 1..4096 bytes (element-cutting ones
 *              mostly): round-1 transfers carry several messages' shares, round 2 forwards;
 *   forward    random routes through intermediates, full duplex: pieces of one message reach
 *              their target from different ranks in non-increasing offset order, transfers
 *              mix own and forwarded segments of several origins in random order;
 *   half       the same with half-duplex steps (a rank only sends or only receives);
 *   family     plan_forward (the forwarding family) with a random small packet size.
 * Every case also checks exec_view_staging against a replay of the plan. Also MPI_IN_PLACE
 * staging (exec_stage) and the errors exec reports before any communication.
 *
 * Usage: test_exec [--seed N] [--cases N] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/families.h"
#include "plan/local.h"
#include "plan/plan.h"
#include "plans.h"
#include "testlib.h"

enum { K_DIRECT, K_TRANSPOSE, K_FORWARD, K_HALF, K_FAMILY, KINDS };
static const char *const kind_names[KINDS] = {"direct", "transpose", "forward", "half",
                                              "family"};

static long forwarded_cases; /* cases in which this rank held data for others */

/* Builds the plan of kind `kind` for m from the shared generator. Returns 1 if the plan moves
 * every held piece in one send (so that tp_forward_peak must equal the view's staging). */
static int build_plan(int kind, const plan_matrix *m, tl_rng *shared, plan *pl)
{
    static const uint64_t grains[] = {1, 2, 3, 5, 7, 8, 13, 24, 4096};
    static const uint64_t packets[] = {5, 7, 10, 64, 100, 1000};
    plan_error err;
    switch (kind) {
    case K_TRANSPOSE:
        tp_need(plan_transpose(m, grains[tl_below(shared, 9)], pl, &err) == 0,
                "plan_transpose", &err);
        break;
    case K_FORWARD:
    case K_HALF:
        tp_random_forward(m, shared, kind == K_HALF ? PLAN_DUPLEX_HALF : PLAN_DUPLEX_FULL, pl);
        return 1;
    case K_FAMILY:
        tp_need(plan_forward(m, packets[tl_below(shared, 6)], pl, &err) == 0, "plan_forward",
                &err);
        tp_need(plan_verify(m, pl, &err) == 0, "plan_verify of plan_forward", &err);
        return 0;
    default:
        tp_random_direct(m, shared, pl);
        break;
    }
    return 1;
}

/* Fills an exec side from a test side (displacements converted to bytes in a new array). */
static void exec_side_of(exec_side *e, const tl_side *s)
{
    int rc = exec_type_init(&e->type, s->type);
    if (rc != MPI_SUCCESS)
        tl_fail("exec_type_init returned %d", rc);
    MPI_Aint *d = malloc((size_t)s->p * sizeof *d);
    for (int j = 0; j < s->p; j++)
        d[j] = s->displ[j] * (MPI_Aint)e->type.extent;
    e->base = s->base;
    e->count = s->count;
    e->displ = d;
}

/* Runs lo for x through the view API and checks the view's staging against the replayed
 * peak (when exact) before running. */
static int run_view(const plan_local *lo, const exec_exchange *x, MPI_Comm comm,
                    const exec_opts *o, uint64_t peak, int exact, const char *what)
{
    exec_view *v;
    int e = exec_view_create(lo, x, &v);
    if (e != MPI_SUCCESS) {
        tl_fail("%s: exec_view_create returned %d", what, e);
        return e;
    }
    uint64_t staging = exec_view_staging(v);
    if (exact && staging != peak)
        tl_fail("%s: exec_view_staging %llu, replayed peak %llu", what,
                (unsigned long long)staging, (unsigned long long)peak);
    forwarded_cases += staging > 0;
    e = exec_view_run(v, comm, o);
    exec_view_free(v);
    return e;
}

/* One case: plan kind x pattern x type pair x window, optionally in place. Returns nothing;
 * failures are counted. */
static void run_case(MPI_Comm comm, int c, uint64_t seed, const tl_types *ty, int pattern,
                     int kind, int window, int steps, int inplace)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    char what[256];
    snprintf(what, sizeof what, "case %d (%s plan, %s, %s, window %d, steps %d%s)", c,
             kind_names[kind], tl_pattern_name(pattern), ty->name, window, steps,
             inplace ? ", in place" : "");

    long *units = malloc((size_t)p * p * sizeof *units);
    tl_pattern(pattern, p, seed + (uint64_t)c, inplace, units);
    MPI_Datatype stype = inplace ? ty->rtype : ty->stype;
    int sper = inplace ? ty->rper : ty->sper;
    int ssize;
    MPI_Type_size(stype, &ssize);

    plan_matrix m;
    plan_error err;
    tp_need(plan_matrix_init(&m, p, &err) == 0, "plan_matrix_init", &err);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            m.bytes[(size_t)i * p + j] = (uint64_t)units[(size_t)i * p + j] * sper * ssize;
    tl_rng shared;
    tl_seed(&shared, seed * 7919 + (uint64_t)c);
    plan pl;
    int exact = build_plan(kind, &m, &shared, &pl);
    plan_local lo;
    tp_need(plan_local_extract(&pl, me, &lo, &err) == 0, "plan_local_extract", &err);

    tl_rng local;
    tl_seed(&local, seed * 104729 + (uint64_t)c * 1000 + (uint64_t)me);
    MPI_Count *sc = malloc((size_t)p * sizeof *sc), *rc = malloc((size_t)p * sizeof *rc);
    for (int j = 0; j < p; j++) {
        sc[j] = units[(size_t)me * p + j] * sper;
        rc[j] = units[(size_t)j * p + me] * ty->rper;
    }
    tl_side send, recv, ref;
    tl_side_init(&send, p, sc, stype, &local, 0);
    tl_side_init(&recv, p, rc, ty->rtype, &local, 0);
    tl_side_fill(&send, &local);
    if (inplace)
        tl_side_fill(&recv, &local);
    tl_side_copy(&ref, &recv);

    /* The reference for MPI_IN_PLACE is the out-of-place exchange from a copy of the receive
     * buffer: MPICH 4.0.2's own in-place alltoall(v) fails with "Message truncated" for
     * datatypes mixing basic types beyond about 10 kB per message. */
    int e;
    tl_side orig;
    tl_side_copy(&orig, &recv);
    if (inplace)
        e = PMPI_Alltoallv(orig.base, orig.icount, orig.idispl, ty->rtype, ref.base, ref.icount,
                           ref.idispl, ty->rtype, comm);
    else
        e = PMPI_Alltoallv(send.base, send.icount, send.idispl, stype, ref.base, ref.icount,
                           ref.idispl, ty->rtype, comm);
    tl_side_free(&orig);
    if (e != MPI_SUCCESS)
        tl_fail("%s: reference PMPI_Alltoallv returned %d", what, e);

    exec_exchange x = {.p = p, .rank = me};
    exec_side_of(&x.recv, &recv);
    void *stage = NULL;
    MPI_Count *stc = malloc((size_t)p * sizeof *stc);
    MPI_Aint *std = malloc((size_t)p * sizeof *std);
    if (inplace) {
        x.send.displ = NULL;
        e = exec_stage(&x.recv, p, comm, &x.send, stc, std, &stage);
        if (e != MPI_SUCCESS)
            tl_fail("%s: exec_stage returned %d", what, e);
    } else {
        exec_side_of(&x.send, &send);
    }
    exec_opts o = {.window = window, .steps = steps, .tag = 7};
    e = exec_self_copy(&x, comm);
    if (e != MPI_SUCCESS)
        tl_fail("%s: exec_self_copy returned %d", what, e);
    if (c % 3 == 0) /* the one-call form */
        e = exec_run(&lo, &x, comm, &o);
    else
        e = run_view(&lo, &x, comm, &o, tp_forward_peak(&pl, me), exact, what);
    if (e != MPI_SUCCESS)
        tl_fail("%s: exec returned %d", what, e);
    tl_side_check(&recv, &ref, what);

    free(stage);
    free(stc);
    free(std);
    if (!inplace)
        free((void *)x.send.displ);
    free((void *)x.recv.displ);
    tl_side_free(&send);
    tl_side_free(&recv);
    tl_side_free(&ref);
    free(sc);
    free(rc);
    plan_local_free(&lo);
    plan_free(&pl);
    plan_matrix_free(&m);
    free(units);
}

/* Errors exec_run reports from the view alone, before communicating: a forwarded segment never
 * received, one forwarded in the step it arrives, one received and never sent on, own data
 * for this rank in a send, a receive range outside the region, a send range outside the
 * region. */
static void error_cases(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int other = (me + 1) % p;
    MPI_Count count[64] = {0};
    MPI_Aint displ[64] = {0};
    char buf[64];
    exec_exchange x = {.p = p, .rank = me};
    exec_type_init(&x.send.type, MPI_BYTE);
    exec_type_init(&x.recv.type, MPI_BYTE);
    x.send.base = x.recv.base = buf;
    x.send.count = x.recv.count = count;
    x.send.displ = x.recv.displ = displ;
    if (p > 64)
        return;
    for (int j = 0; j < p; j++)
        count[j] = 4;
    exec_opts o = {.window = 2, .tag = 9};

    plan_segment fwd = {.origin = (me + 2) % p, .target = other, .offset = 0, .bytes = 4};
    if (fwd.origin == me)
        fwd.origin = -1;
    plan_local_op op = {.step = 0, .peer = other, .segs = &fwd, .nsegs = 1, .bytes = 4};
    plan_local lo = {.rank = me, .nsends = 1, .sends = &op};
    int e = exec_run(&lo, &x, comm, &o);
    if (e != MPI_ERR_INTERN)
        tl_fail("forwarded segment never received: exec_run returned %d, expected "
                "MPI_ERR_INTERN", e);

    if (p >= 3) {
        int third = (me + 2) % p;
        plan_segment pass = {.origin = other, .target = third, .offset = 0, .bytes = 4};
        plan_local_op in = {.step = 3, .peer = other, .segs = &pass, .nsegs = 1, .bytes = 4};
        plan_local_op on = {.step = 3, .peer = third, .segs = &pass, .nsegs = 1, .bytes = 4};
        plan_local same = {.rank = me, .nsends = 1, .sends = &on, .nrecvs = 1, .recvs = &in};
        if ((e = exec_run(&same, &x, comm, &o)) != MPI_ERR_INTERN)
            tl_fail("forwarded in the step it arrives: exec_run returned %d, expected "
                    "MPI_ERR_INTERN", e);
        plan_local kept = {.rank = me, .nrecvs = 1, .recvs = &in};
        if ((e = exec_run(&kept, &x, comm, &o)) != MPI_ERR_INTERN)
            tl_fail("received for forwarding, never sent on: exec_run returned %d, expected "
                    "MPI_ERR_INTERN", e);
    }
    plan_segment mine = {.origin = me, .target = me, .offset = 0, .bytes = 4};
    plan_local_op self = {.step = 0, .peer = other, .segs = &mine, .nsegs = 1, .bytes = 4};
    plan_local lself = {.rank = me, .nsends = 1, .sends = &self};
    if ((e = exec_run(&lself, &x, comm, &o)) != MPI_ERR_INTERN)
        tl_fail("own data for this rank in a send: exec_run returned %d, expected "
                "MPI_ERR_INTERN", e);

    plan_segment big = {.origin = other, .target = me, .offset = 2, .bytes = 3};
    plan_local_op rop = {.step = 0, .peer = other, .segs = &big, .nsegs = 1, .bytes = 3};
    plan_local lr = {.rank = me, .nrecvs = 1, .recvs = &rop};
    if ((e = exec_run(&lr, &x, comm, &o)) != MPI_ERR_TRUNCATE)
        tl_fail("receive past the region: exec_run returned %d, expected MPI_ERR_TRUNCATE", e);

    plan_segment over = {.origin = me, .target = other, .offset = 4, .bytes = 1};
    plan_local_op sop = {.step = 0, .peer = other, .segs = &over, .nsegs = 1, .bytes = 1};
    plan_local ls = {.rank = me, .nsends = 1, .sends = &sop};
    if ((e = exec_run(&ls, &x, comm, &o)) != MPI_ERR_INTERN)
        tl_fail("send past the region: exec_run returned %d, expected MPI_ERR_INTERN", e);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int cases = 60;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--cases"))
            cases = atoi(argv[i + 1]);
    }
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

    tl_types types[TL_MAX_TYPES];
    int ntypes = tl_types_create(types);
    static const int windows[] = {1, 2, 3, 8, INT_MAX};
    for (int c = 0; c < cases; c++) {
        int pattern = c % TL_PATTERNS;
        const tl_types *ty = &types[(c + c / TL_PATTERNS) % ntypes];
        run_case(comm, c, seed, ty, pattern, c % KINDS, windows[c / KINDS % 5],
                 c / 3 % 3, c % 7 == 3);
    }
    error_cases(comm);
    tl_types_free(types, ntypes);
    MPI_Comm_free(&comm);

    long forwarded = 0;
    MPI_Allreduce(&forwarded_cases, &forwarded, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && p >= 3 && cases >= 20 && forwarded == 0)
        tl_fail("no case made any rank hold data for others");
    int total = tl_total_failures();
    if (me == 0)
        printf("test_exec: P=%d, %d cases, seed %llu, %ld rank-cases forwarding: %s (%d "
               "failures)\n",
               p, cases, (unsigned long long)seed, forwarded, total ? "FAIL" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
