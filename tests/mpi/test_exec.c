/* exec/ without the shim: random plans whose pieces cut messages at arbitrary byte offsets
 * (through elements of every datatype pair), with several segments per transfer and random
 * step interleavings, run by exec_run with windows 1, 2, 3 and 8, and compared with
 * PMPI_Alltoallv byte for byte, guard bytes included. Also MPI_IN_PLACE staging (exec_stage)
 * and the errors exec_run reports before any communication.
 *
 * Usage: test_exec [--seed N] [--cases N] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "plan/local.h"
#include "plan/plan.h"
#include "testlib.h"

/* Aborts on an unexpected failure of the plan builder (a bug in this test). */
static void need(int cond, const char *what, const plan_error *err)
{
    if (!cond) {
        fprintf(stderr, "FAIL: %s: %s\n", what, err ? err->text : "");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* One transfer of a message being scheduled: pieces [first, first + n) of its cut list. */
typedef struct msg_state {
    int src, dst;
    int npieces, next;     /* pieces and the next one to schedule */
    uint64_t cut[6];       /* piece k is [cut[k], cut[k + 1]) */
} msg_state;

/* Builds a random plan for m: every message cut into 1..5 pieces at random byte offsets,
 * consecutive pieces grouped 1..2 per transfer, transfers of different messages interleaved at
 * random (each message's pieces in order), packed into full-duplex steps. Identical on every
 * rank for the same rng state. */
static void random_plan(const plan_matrix *m, tl_rng *rng, plan *pl)
{
    int p = m->p, nmsg = 0;
    plan_error err;
    msg_state *msgs = malloc((size_t)p * p * sizeof *msgs);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            uint64_t b = plan_matrix_at(m, i, j);
            if (i == j || b == 0)
                continue;
            msg_state *s = &msgs[nmsg++];
            s->src = i;
            s->dst = j;
            s->next = 0;
            int want = 1 + tl_below(rng, 5);
            /* distinct sorted cut points in (0, b) */
            int n = 1;
            s->cut[0] = 0;
            for (int k = 1; k < want && (uint64_t)k < b; k++) {
                uint64_t c = 1 + tl_next(rng) % (b - 1);
                int dup = 0;
                for (int q = 0; q < n; q++)
                    dup |= s->cut[q] == c;
                if (!dup)
                    s->cut[n++] = c;
            }
            for (int a = 1; a < n; a++) /* insertion sort */
                for (int q = a; q > 0 && s->cut[q - 1] > s->cut[q]; q--) {
                    uint64_t t = s->cut[q];
                    s->cut[q] = s->cut[q - 1];
                    s->cut[q - 1] = t;
                }
            s->cut[n] = b;
            s->npieces = n;
        }

    need(plan_init(pl, p, PLAN_ALGO_DIRECT, PLAN_DUPLEX_FULL, &err) == 0, "plan_init", &err);
    char *sending = calloc((size_t)p, 1), *receiving = calloc((size_t)p, 1);
    int left = nmsg, open = 0;
    while (left > 0) {
        int k = tl_below(rng, nmsg);
        while (msgs[k].next == msgs[k].npieces)
            k = (k + 1) % nmsg;
        msg_state *s = &msgs[k];
        if (!open || sending[s->src] || receiving[s->dst] || tl_below(rng, 4) == 0) {
            if (open)
                plan_end_step(pl);
            need(plan_begin_step(pl, &err) == 0, "plan_begin_step", &err);
            memset(sending, 0, (size_t)p);
            memset(receiving, 0, (size_t)p);
            open = 1;
        }
        sending[s->src] = receiving[s->dst] = 1;
        need(plan_add_transfer(pl, s->src, s->dst, &err) == 0, "plan_add_transfer", &err);
        int take = 1 + tl_below(rng, 2);
        for (int t = 0; t < take && s->next < s->npieces; t++, s->next++)
            need(plan_add_segment(pl, s->src, s->dst, s->cut[s->next],
                                  s->cut[s->next + 1] - s->cut[s->next], &err) == 0,
                 "plan_add_segment", &err);
        left -= s->next == s->npieces;
    }
    if (open)
        plan_end_step(pl);
    need(plan_verify(m, pl, &err) == 0, "plan_verify of the random plan", &err);
    free(sending);
    free(receiving);
    free(msgs);
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

/* One case: pattern x type pair x window, optionally in place. Returns nothing; failures are
 * counted. */
static void run_case(MPI_Comm comm, int c, uint64_t seed, const tl_types *ty, int pattern,
                     int window, int inplace)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    char what[256];
    snprintf(what, sizeof what, "case %d (%s, %s, window %d%s)", c, tl_pattern_name(pattern),
             ty->name, window, inplace ? ", in place" : "");

    long *units = malloc((size_t)p * p * sizeof *units);
    tl_pattern(pattern, p, seed + (uint64_t)c, inplace, units);
    MPI_Datatype stype = inplace ? ty->rtype : ty->stype;
    int sper = inplace ? ty->rper : ty->sper;
    int ssize;
    MPI_Type_size(stype, &ssize);

    plan_matrix m;
    plan_error err;
    need(plan_matrix_init(&m, p, &err) == 0, "plan_matrix_init", &err);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            m.bytes[(size_t)i * p + j] = (uint64_t)units[(size_t)i * p + j] * sper * ssize;
    tl_rng shared;
    tl_seed(&shared, seed * 7919 + (uint64_t)c);
    plan pl;
    random_plan(&m, &shared, &pl);
    plan_local lo;
    need(plan_local_extract(&pl, me, &lo, &err) == 0, "plan_local_extract", &err);

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
    exec_opts o = {.window = window, .tag = 7};
    e = exec_self_copy(&x, comm);
    if (e != MPI_SUCCESS)
        tl_fail("%s: exec_self_copy returned %d", what, e);
    e = exec_run(&lo, &x, comm, &o);
    if (e != MPI_SUCCESS)
        tl_fail("%s: exec_run returned %d", what, e);
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

/* Errors exec_run reports from the view alone, before communicating: a forwarded segment, a
 * receive range outside the region, a send range outside the region. */
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
    static const int windows[] = {1, 2, 3, 8};
    for (int c = 0; c < cases; c++) {
        int pattern = c % TL_PATTERNS;
        const tl_types *ty = &types[(c + c / TL_PATTERNS) % ntypes];
        run_case(comm, c, seed, ty, pattern, windows[c % 4], c % 5 == 4);
    }
    error_cases(comm);
    tl_types_free(types, ntypes);
    MPI_Comm_free(&comm);

    int total = tl_total_failures();
    if (me == 0)
        printf("test_exec: P=%d, %d cases, seed %llu: %s (%d failures)\n", p, cases,
               (unsigned long long)seed, total ? "FAIL" : "ok", total);
    MPI_Finalize();
    return total ? 1 : 0;
}
