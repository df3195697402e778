/* The shim against the MPI library, in one run: every case calls PMPI_* (the reference; PMPI_
 * bypasses the preloaded shim) and MPI_* (intercepted by libhrelay.so) on the same inputs and
 * compares every byte of the receive buffers, guard bytes around and between the receive
 * regions included. Cases: seeded count patterns x datatype pairs x MPI_Alltoallv,
 * MPI_Alltoallv_c, MPI_Alltoall, MPI_Alltoall_c, MPI_IN_PLACE (v and not), on MPI_COMM_WORLD,
 * on split communicators with reversed keys and on a reordered duplicate (with --interleaved
 * also on a duplicate with the even ranks first, then the odd ones: under HRELAY_NODE_SIZE=K,
 * with K even, every node's ranks are spread over the communicator); an intercommunicator
 * (passed through); erroneous calls (truncation, negative count, MPI_IN_PLACE as receive
 * buffer, MPI_DATATYPE_NULL, an uncommitted datatype, a NULL send buffer, the send buffer
 * passed as receive buffer) that must fail on every rank with the right class and write
 * nothing (truncation: MPI_ERR_TRUNCATE on the truncated rank only, as MPI itself does).
 * After MPI_Finalize, rank 0 checks the report: every successful call counted, under
 * exactly the expected algorithm.
 *
 * Usage: compare [--seed N] [--cases N] [--interleaved 0|1]
 *                [--report PATH --expect ALGO[,ALGO...]|none]
 *   (the report's "total" object is checked)
 *   --expect ALGO: the report must show algorithms == {ALGO: calls}; error cases run only for
 *                  planned algorithms (native MPI would hang or abort on them);
 *   --expect A,B,...: only these families ran, A at least once, their counts add up to calls
 *                  (a family that covers some patterns only, or a fallback);
 *   --expect any: any families, adding up to calls (HRELAY_ALGO=auto)
 *   --expect none: hrelay is disabled; the report file must not exist. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

enum { V, VC, A, AC, IN_PLACE_V, IN_PLACE_A, VARIANTS };
static const char *const variant_names[VARIANTS] = {
    "MPI_Alltoallv", "MPI_Alltoallv_c", "MPI_Alltoall", "MPI_Alltoall_c",
    "MPI_Alltoallv(IN_PLACE)", "MPI_Alltoall(IN_PLACE)"};

static long intercepted; /* successful calls that went through the shim on this rank */

/* Calls variant v through PMPI (reference) or MPI (shim) on the given sides; with MPI_IN_PLACE,
 * the reference is the out-of-place call from a copy of the receive buffer (MPICH 4.0.2's own
 * in-place exchange fails for datatypes mixing basic types beyond about 10 kB). */
static int call(int v, int reference, const tl_side *s, tl_side *r, MPI_Datatype stype,
                MPI_Datatype rtype, MPI_Comm comm)
{
    switch (v) {
    case V:
        return (reference ? PMPI_Alltoallv : MPI_Alltoallv)(s->base, s->icount, s->idispl, stype,
                                                            r->base, r->icount, r->idispl,
                                                            rtype, comm);
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    case VC:
        return (reference ? PMPI_Alltoallv_c : MPI_Alltoallv_c)(
            s->base, s->count, s->displ, stype, r->base, r->count, r->displ, rtype, comm);
    case AC:
        return (reference ? PMPI_Alltoall_c : MPI_Alltoall_c)(s->base, s->count[0], stype,
                                                              r->base, r->count[0], rtype, comm);
#else /* an MPI library without the large-count functions: their int counterparts */
    case VC:
        return call(V, reference, s, r, stype, rtype, comm);
    case AC:
        return call(A, reference, s, r, stype, rtype, comm);
#endif
    case A:
        return (reference ? PMPI_Alltoall : MPI_Alltoall)(s->base, s->icount[0], stype, r->base,
                                                          r->icount[0], rtype, comm);
    case IN_PLACE_V:
        if (reference)
            return PMPI_Alltoallv(s->base, s->icount, s->idispl, rtype, r->base, r->icount,
                                  r->idispl, rtype, comm);
        return MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, r->base, r->icount,
                             r->idispl, rtype, comm);
    case IN_PLACE_A:
        if (reference)
            return PMPI_Alltoall(s->base, s->icount[0], rtype, r->base, r->icount[0], rtype,
                                 comm);
        return MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r->base, r->icount[0], rtype,
                            comm);
    }
    return MPI_ERR_INTERN;
}

/* One case on comm: pattern x type pair x variant. */
static void run_case(MPI_Comm comm, const char *comm_name, int c, uint64_t seed,
                     const tl_types *ty, int pattern, int v)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int inplace = v == IN_PLACE_V || v == IN_PLACE_A;
    int uniform = v != V && v != VC && v != IN_PLACE_V;
    char what[256];
    snprintf(what, sizeof what, "%s case %d: %s, %s, %s", comm_name, c, variant_names[v],
             uniform ? "uniform" : tl_pattern_name(pattern), ty->name);

    long *units = malloc((size_t)p * p * sizeof *units);
    tl_pattern(pattern, p, seed + (uint64_t)c, inplace, units);
    if (uniform)
        for (int i = 0; i < p * p; i++)
            units[i] = c % 7; /* 0 .. 6 units, the same everywhere */
    MPI_Datatype stype = inplace ? ty->rtype : ty->stype;
    int sper = inplace ? ty->rper : ty->sper;
    MPI_Count *sc = malloc((size_t)p * sizeof *sc), *rc = malloc((size_t)p * sizeof *rc);
    for (int j = 0; j < p; j++) {
        sc[j] = units[(size_t)me * p + j] * sper;
        rc[j] = units[(size_t)j * p + me] * ty->rper;
    }

    tl_rng local;
    tl_seed(&local, seed * 15485863 + (uint64_t)c * 1000 + (uint64_t)me);
    tl_side send, recv, ref;
    tl_side_init(&recv, p, rc, ty->rtype, &local, uniform);
    if (inplace) {
        tl_side_fill(&recv, &local);
        tl_side_copy(&send, &recv); /* the data the in-place call sends */
    } else {
        tl_side_init(&send, p, sc, stype, &local, uniform);
        tl_side_fill(&send, &local);
    }
    tl_side_copy(&ref, &recv);

    int e = call(v, 1, &send, &ref, stype, ty->rtype, comm);
    if (e != MPI_SUCCESS)
        tl_fail("%s: reference returned %d", what, e);
    e = call(v, 0, &send, &recv, stype, ty->rtype, comm);
    if (e != MPI_SUCCESS)
        tl_fail("%s: intercepted call returned %d", what, e);
    else
        intercepted++;
    tl_side_check(&recv, &ref, what);

    tl_side_free(&send);
    tl_side_free(&recv);
    tl_side_free(&ref);
    free(sc);
    free(rc);
    free(units);
}

/* Runs cases [first, first + n) on comm, cycling patterns, type pairs and variants. */
static void run_suite(MPI_Comm comm, const char *name, int first, int n, uint64_t seed,
                      const tl_types *types, int ntypes)
{
    for (int c = first; c < first + n; c++)
        run_case(comm, name, c, seed, &types[(c + c / TL_PATTERNS) % ntypes], c % TL_PATTERNS,
                 c % VARIANTS);
}

/* An intercommunicator between the even and odd ranks: MPI_Alltoall passes through unchanged
 * (not counted) and matches PMPI_Alltoall. */
static void intercomm_case(void)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (p < 2)
        return;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 77, &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int *s = malloc((size_t)remote * 3 * sizeof *s), *a = calloc((size_t)remote * 3, sizeof *a),
        *b = calloc((size_t)remote * 3, sizeof *b);
    for (int i = 0; i < remote * 3; i++)
        s[i] = me * 1000 + i;
    int e1 = PMPI_Alltoall(s, 3, MPI_INT, a, 3, MPI_INT, inter);
    int e2 = MPI_Alltoall(s, 3, MPI_INT, b, 3, MPI_INT, inter);
    if (e1 || e2 || memcmp(a, b, (size_t)remote * 3 * sizeof *a))
        tl_fail("intercommunicator: MPI_Alltoall differs from PMPI_Alltoall (%d, %d)", e1, e2);
    free(s);
    free(a);
    free(b);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

/* An erroneous MPI_Alltoallv of 4 ints per pair on comm (errors return), where rank `culprit`
 * changes one argument: `what` selects it ("valid": none, expect MPI_SUCCESS; the call is
 * counted as intercepted). Every rank must get class `expect` and have nothing
 * written into its receive buffer, except for truncation, where (as natively) only the culprit
 * gets MPI_ERR_TRUNCATE and the others complete. tests/mpi/errors.sh compares these classes
 * with what the MPI library returns, rank by rank. */
static void error_case(MPI_Comm comm, const char *what, int expect)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    int culprit = p - 1;
    MPI_Count *c = malloc((size_t)p * sizeof *c);
    for (int j = 0; j < p; j++)
        c[j] = 4;
    tl_rng rng;
    tl_seed(&rng, (uint64_t)me + 99);
    tl_side send, recv;
    tl_side_init(&send, p, c, MPI_INT, &rng, 0);
    tl_side_init(&recv, p, c, MPI_INT, &rng, 0);
    tl_side_fill(&send, &rng);
    void *sbuf = send.base, *rbuf = recv.base;
    const int *scounts = send.icount;
    MPI_Datatype stype = MPI_INT, loose = MPI_DATATYPE_NULL;
    int trunc = !strcmp(what, "truncation");
    if (me == culprit) {
        if (trunc) {
            recv.icount[0] = 3;
        } else if (!strcmp(what, "negative count")) {
            send.icount[0] = -1;
        } else if (!strcmp(what, "MPI_IN_PLACE as receive buffer")) {
            rbuf = MPI_IN_PLACE;
        } else if (!strcmp(what, "MPI_DATATYPE_NULL")) {
            stype = MPI_DATATYPE_NULL;
        } else if (!strcmp(what, "uncommitted datatype")) {
            MPI_Type_contiguous(1, MPI_INT, &loose);
            stype = loose;
        } else if (!strcmp(what, "NULL send buffer")) {
            sbuf = NULL;
            send.idispl[0] = 0; /* MPICH checks NULL where the displacement is 0 */
        } else if (!strcmp(what, "send buffer is receive buffer")) {
            sbuf = rbuf;
            scounts = recv.icount; /* MPICH checks aliasing when the counts are the same array */
        }
    }
    int e = MPI_Alltoallv(sbuf, scounts, send.idispl, stype, rbuf, recv.icount, recv.idispl,
                          MPI_INT, comm), cls = -1;
    MPI_Error_class(e, &cls);
#ifdef OPEN_MPI
    trunc = 0; /* hrelay returns MPI_ERR_TRUNCATE on every rank (validate.c) */
#endif
    if (trunc && me != culprit)
        expect = MPI_SUCCESS;
    if (cls != expect)
        tl_fail("%s: MPI_Alltoallv returned class %d, expected %d", what, cls, expect);
    if (!strcmp(what, "valid"))
        intercepted += cls == MPI_SUCCESS;
    else if (!trunc && !tl_side_untouched(&recv))
        tl_fail("%s: the receive buffer was written", what);
    if (loose != MPI_DATATYPE_NULL)
        MPI_Type_free(&loose);
    tl_side_free(&send);
    tl_side_free(&recv);
    free(c);
}

/* 1 if name is one of the comma-separated names in list. */
static int listed(const char *list, const char *name, size_t len)
{
    for (const char *c = list; *c;) {
        size_t n = strcspn(c, ",");
        if (n == len && !strncmp(c, name, len))
            return 1;
        c += n + (c[n] == ',');
    }
    return 0;
}

/* Checks the "algorithms" object of a report: every family in it is in `expect` (comma-
 * separated), the first family of `expect` ran at least once, the counts add up to n;
 * `expect` "any" accepts every family. */
static void check_algorithms(const char *text, const char *expect, long n, const char *path)
{
    int any = !strcmp(expect, "any");
    const char *a = strstr(text, "\"algorithms\": {");
    long sum = 0, first = 0;
    size_t first_len = strcspn(expect, ",");
    if (!a) {
        tl_fail("report %s has no algorithms object:\n%s", path, text);
        return;
    }
    for (a += strlen("\"algorithms\": {"); *a == '"';) {
        const char *name = a + 1, *q = strchr(name, '"');
        char *end;
        if (!q || strncmp(q, "\": ", 3))
            break;
        long count = strtol(q + 3, &end, 10);
        size_t len = (size_t)(q - name);
        if (!any && !listed(expect, name, len))
            tl_fail("report %s: family %.*s ran %ld calls, expected only %s", path, (int)len,
                    name, count, expect);
        if (len == first_len && !strncmp(name, expect, len))
            first = count;
        sum += count;
        a = end;
        if (!strncmp(a, ", ", 2))
            a += 2;
    }
    if (*a != '}' || sum != n || (!any && first < 1))
        tl_fail("report %s: algorithms should add up to %ld calls of %s (%.*s at least once):\n%s",
                path, n, expect, (int)first_len, expect, text);
}

/* Checks the report rank 0 wrote: calls == n and the algorithms (see main's comment). */
static void check_report(const char *path, const char *algo, long n)
{
    FILE *f = fopen(path, "r");
    if (!strcmp(algo, "none")) {
        if (f) {
            tl_fail("report %s exists although hrelay is disabled", path);
            fclose(f);
        }
        return;
    }
    if (!f) {
        tl_fail("cannot open the report %s", path);
        return;
    }
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, f);
    text[len] = '\0';
    fclose(f);
    const char *total = strstr(text, "\"total\": {");
    char want_calls[64];
    snprintf(want_calls, sizeof want_calls, "\"calls\": %ld,", n);
    if (!total || strncmp(total + strlen("\"total\": {"), want_calls, strlen(want_calls)))
        tl_fail("report %s: the total does not start with %s:\n%s", path, want_calls, text);
    else
        check_algorithms(total, algo, n, path);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    int cases = 36, provided, interleaved = 0;
    const char *report = NULL, *expect = NULL;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--cases"))
            cases = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--report"))
            report = argv[i + 1];
        else if (!strcmp(argv[i], "--expect"))
            expect = argv[i + 1];
        else if (!strcmp(argv[i], "--interleaved"))
            interleaved = atoi(argv[i + 1]);
    }
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    tl_types types[TL_MAX_TYPES];
    int ntypes = tl_types_create(types);

    run_suite(MPI_COMM_WORLD, "world", 0, cases, seed, types, ntypes);

    MPI_Comm split, reversed;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, p - me, &split); /* halves, reversed order */
    run_suite(split, "split", cases, cases / 3 + 1, seed, types, ntypes);
    MPI_Comm_free(&split);
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - me, &reversed);
    run_suite(reversed, "reversed", 2 * cases, cases / 3 + 1, seed, types, ntypes);
    MPI_Comm_free(&reversed);
    if (interleaved) {
        MPI_Comm spread;
        MPI_Comm_split(MPI_COMM_WORLD, 0, me % 2 * p + me, &spread); /* evens, then odds */
        run_suite(spread, "interleaved", 3 * cases, cases / 3 + 1, seed, types, ntypes);
        MPI_Comm_free(&spread);
    }

    intercomm_case();

    int planned = expect && strncmp(expect, "native", 6) && strcmp(expect, "none");
    if (planned) {
        MPI_Comm errs;
        MPI_Comm_dup(MPI_COMM_WORLD, &errs);
        MPI_Comm_set_errhandler(errs, MPI_ERRORS_RETURN);
        /* a valid call first: a communicator's first call runs MPI's algorithm unchecked,
         * with MPI's own behaviour on wrong arguments (README, "How hrelay decides"); from
         * its second call on, hrelay raises an argument error on every rank */
        error_case(errs, "valid", MPI_SUCCESS);
        error_case(errs, "negative count", MPI_ERR_COUNT);
#ifdef OPEN_MPI
        error_case(errs, "MPI_IN_PLACE as receive buffer", MPI_ERR_ARG); /* Open MPI's class */
#else
        error_case(errs, "MPI_IN_PLACE as receive buffer", MPI_ERR_BUFFER);
#endif
        error_case(errs, "MPI_DATATYPE_NULL", MPI_ERR_TYPE);
        error_case(errs, "uncommitted datatype", MPI_ERR_TYPE);
        error_case(errs, "NULL send buffer", MPI_ERR_BUFFER);
        error_case(errs, "send buffer is receive buffer", MPI_ERR_BUFFER);
        error_case(errs, "truncation", MPI_ERR_TRUNCATE);
        MPI_Comm_free(&errs);
    }
    tl_types_free(types, ntypes);

    int total = tl_total_failures();
    long calls = intercepted;
    MPI_Finalize();

    if (me == 0 && report && expect) {
        int before = tl_failures();
        check_report(report, expect, calls);
        total += tl_failures() - before;
    }
    if (me == 0)
        printf("compare: P=%d, %ld intercepted calls, seed %llu, expect %s: %s\n", p, calls,
               (unsigned long long)seed, expect ? expect : "-", total ? "FAIL" : "ok");
    return total ? 1 : 0;
}
