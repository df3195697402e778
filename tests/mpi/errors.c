/* Erroneous calls, one rank at a time: what the MPI library returns natively (--reference: the
 * PMPI_ functions, which bypass the preloaded shim) and what hrelay returns (MPI_ functions), on
 * every rank. Each rank prints one line per case,
 *     errors: CASE rank R: CLASS
 * where CLASS is the error class's name (MPI_ERR_TRUNCATE, ...), "MPI_SUCCESS", or "hang" when
 * the call did not return within --wait seconds (SIGALRM; the rank then exits at once without
 * finalising). tests/mpi/errors.sh runs every case natively and under hrelay and compares the
 * two tables.
 *
 * A case is an MPI_Alltoall(v)(_c) of 4 ints per pair on a duplicate of MPI_COMM_WORLD with
 * MPI_ERRORS_RETURN (MPI_ERRORS_ARE_FATAL with --fatal), where the last rank (the culprit; every
 * rank for the *-all cases) changes one argument; under hrelay a valid call on the communicator
 * comes first (a communicator's first call has MPI's own behaviour). After a call that returned
 * an error, the
 * receive buffer must be untouched (hrelay detects argument errors before any data moves;
 * checked unless --reference; not for truncation, which hrelay hands to the MPI library's own
 * exchange, as the library writes what fits) and the program goes on with the next case.
 *
 * Usage: errors [--reference] [--fatal] [--wait SECONDS] [--list] CASE|all ...
 *   --list prints the case names, one per line, and exits (no MPI). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"

enum { N = 4 }; /* ints per pair */

/* The cases: name, the call (v: MPI_Alltoallv, vc: MPI_Alltoallv_c, a: MPI_Alltoall). */
static const char *const case_names[] = {
    "v-truncate",        /* culprit receives 3 ints from rank 0, which sends 4 */
    "v-send-count-neg",  /* culprit's sendcounts[0] = -1 */
    "v-recv-count-neg",  /* culprit's recvcounts[0] = -1 */
    "v-type-null",       /* culprit's sendtype = MPI_DATATYPE_NULL */
    "v-recvtype-null",   /* culprit's recvtype = MPI_DATATYPE_NULL */
    "v-type-uncommitted", /* culprit's sendtype: contiguous(1, MPI_INT), not committed */
    "v-recvtype-uncommitted",
    "v-sendbuf-null",    /* culprit's sendbuf = NULL (counts > 0, first displacement 0) */
    "v-recvbuf-null",
    "v-recvbuf-in-place", /* culprit's recvbuf = MPI_IN_PLACE */
    "v-alias",           /* culprit: sendbuf == recvbuf, same counts, displacements, type */
    "v-alias-all",       /* every rank does that */
    "v-comm-null",       /* every rank passes MPI_COMM_NULL */
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    "vc-truncate",
    "vc-count-neg",
#endif
    "a-truncate",        /* culprit's recvcount = 3, the others send 4 */
    "a-count-neg",
    "a-alias",
#ifdef MPICH_VERSION
    "v-type-invalid", /* culprit's sendtype is a handle of another kind (MPICH: integers) */
#endif
};
enum { NCASES = sizeof case_names / sizeof case_names[0] };

static volatile sig_atomic_t in_call;
static char hang_line[128];
static size_t hang_len;

/* SIGALRM: a call that has not returned is reported as a hang; then, after a second in which
 * the other ranks (whose alarms fire at about the same time) report too, the rank exits. */
static void on_alarm(int sig)
{
    struct timespec second = {1, 0};
    (void)sig;
    if (in_call && write(STDOUT_FILENO, hang_line, hang_len) < 0)
        _exit(3);
    nanosleep(&second, NULL);
    _exit(0);
}

/* The name of an error class. */
static const char *class_name(int cls)
{
    static char other[32];
    static const struct {
        int cls;
        const char *name;
    } names[] = {{MPI_SUCCESS, "MPI_SUCCESS"},       {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
                 {MPI_ERR_COUNT, "MPI_ERR_COUNT"},   {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
                 {MPI_ERR_COMM, "MPI_ERR_COMM"},     {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
                 {MPI_ERR_ARG, "MPI_ERR_ARG"},       {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
                 {MPI_ERR_INTERN, "MPI_ERR_INTERN"}, {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
                 {MPI_ERR_PENDING, "MPI_ERR_PENDING"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].cls == cls)
            return names[i].name;
    snprintf(other, sizeof other, "class-%d", cls);
    return other;
}

/* The arguments of one call. */
typedef struct call_args {
    const void *sbuf;
    void *rbuf;
    int *scounts, *rcounts, *sdispls, *rdispls;
    MPI_Count *scounts_c, *rcounts_c;
    MPI_Aint *sdispls_c, *rdispls_c;
    MPI_Datatype stype, rtype;
    MPI_Comm comm;
} call_args;

/* Makes the call `kind` ('v', 'c' for vc, 'a') through PMPI (reference) or MPI. */
static int make_call(char kind, int reference, const call_args *c)
{
    switch (kind) {
    case 'v':
        return (reference ? PMPI_Alltoallv : MPI_Alltoallv)(c->sbuf, c->scounts, c->sdispls,
                                                            c->stype, c->rbuf, c->rcounts,
                                                            c->rdispls, c->rtype, c->comm);
#ifdef HRELAY_HAVE_MPI_LARGE_COUNT
    case 'c':
        return (reference ? PMPI_Alltoallv_c : MPI_Alltoallv_c)(
            c->sbuf, c->scounts_c, c->sdispls_c, c->stype, c->rbuf, c->rcounts_c, c->rdispls_c,
            c->rtype, c->comm);
#endif
    default:
        return (reference ? PMPI_Alltoall : MPI_Alltoall)(c->sbuf, c->scounts[0], c->stype,
                                                          c->rbuf, c->rcounts[0], c->rtype,
                                                          c->comm);
    }
}

/* Runs one case; returns the failures it found (untouched check). */
static int run_case(const char *name, int reference, int fatal, int wait_s)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int culprit = strstr(name, "-all") ? me : p - 1;
    char kind = name[0] == 'a' ? 'a' : name[1] == 'c' ? 'c' : 'v';
    const char *what = name + (kind == 'c' ? 3 : 2);

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, fatal ? MPI_ERRORS_ARE_FATAL : MPI_ERRORS_RETURN);

    MPI_Count *cnt = malloc((size_t)p * sizeof *cnt);
    for (int j = 0; j < p; j++)
        cnt[j] = N;
    tl_rng rng;
    tl_seed(&rng, (uint64_t)me + 7);
    tl_side send, recv;
    tl_side_init(&send, p, cnt, MPI_INT, &rng, 1);
    tl_side_init(&recv, p, cnt, MPI_INT, &rng, 1);
    tl_side_fill(&send, &rng);

    call_args c = {.sbuf = send.base, .rbuf = recv.base, .scounts = send.icount,
                   .rcounts = recv.icount, .sdispls = send.idispl, .rdispls = recv.idispl,
                   .scounts_c = send.count, .rcounts_c = recv.count, .sdispls_c = send.displ,
                   .rdispls_c = recv.displ, .stype = MPI_INT, .rtype = MPI_INT, .comm = comm};
    MPI_Datatype loose = MPI_DATATYPE_NULL;
    /* under hrelay the erroneous call is the communicator's second: the first runs MPI's
     * algorithm unchecked with MPI's own behaviour (README, "How hrelay decides"); the second
     * agrees the record's creation, which sends an erroneous or truncated call on to the
     * agreement (src/shim/exchange.c deferred_second), where an argument error is raised on
     * every rank and a truncation agreed */
    if (!reference && make_call(kind, 0, &c) != MPI_SUCCESS)
        tl_fail("%s: the valid call before the case failed", name);
    memset(recv.buf, TL_GUARD_BYTE, recv.len); /* what the failing call must leave untouched */
    if (me == culprit) {
        if (!strcmp(what, "truncate")) {
            recv.icount[0] = recv.count[0] = N - 1;
            if (kind == 'a')
                for (int j = 0; j < p; j++)
                    recv.icount[j] = recv.count[j] = N - 1;
        } else if (!strcmp(what, "send-count-neg") || !strcmp(what, "count-neg")) {
            send.icount[0] = -1;
            send.count[0] = -1;
        } else if (!strcmp(what, "recv-count-neg")) {
            recv.icount[0] = -1;
            recv.count[0] = -1;
        } else if (!strcmp(what, "type-null")) {
            c.stype = MPI_DATATYPE_NULL;
        } else if (!strcmp(what, "recvtype-null")) {
            c.rtype = MPI_DATATYPE_NULL;
        } else if (!strcmp(what, "type-uncommitted") || !strcmp(what, "recvtype-uncommitted")) {
            MPI_Type_contiguous(1, MPI_INT, &loose);
            *(what[0] == 't' ? &c.stype : &c.rtype) = loose;
        } else if (!strcmp(what, "sendbuf-null")) {
            c.sbuf = NULL;
        } else if (!strcmp(what, "recvbuf-null")) {
            c.rbuf = NULL;
        } else if (!strcmp(what, "recvbuf-in-place")) {
            c.rbuf = MPI_IN_PLACE;
        } else if (!strcmp(what, "alias") || !strcmp(what, "alias-all")) {
            /* the receive layout for both sides: the same buffer, arrays and type */
            c.sbuf = recv.base;
            c.scounts = recv.icount;
            c.sdispls = recv.idispl;
            tl_side_fill(&recv, &rng);
        } else if (!strcmp(what, "comm-null")) {
            c.comm = MPI_COMM_NULL;
        }
#ifdef MPICH_VERSION
        else if (!strcmp(what, "type-invalid")) {
            c.stype = (MPI_Datatype)MPI_COMM_WORLD;
        }
#endif
    }
    if (!strcmp(what, "comm-null"))
        c.comm = MPI_COMM_NULL;
    int aliased = c.sbuf == recv.base;

    snprintf(hang_line, sizeof hang_line, "errors: %s rank %d: hang\n", name, me);
    hang_len = strlen(hang_line);
    MPI_Barrier(MPI_COMM_WORLD);
    in_call = 1;
    alarm((unsigned)wait_s);
    int e = make_call(kind, reference, &c), cls = -1;
    in_call = 0;
    MPI_Error_class(e, &cls);
    printf("errors: %s rank %d: %s\n", name, me, class_name(cls));
    fflush(stdout);

    int bad = 0;
    if (!reference && cls != MPI_SUCCESS && !aliased && strcmp(what, "truncate") &&
        !tl_side_untouched(&recv)) {
        tl_fail("%s: the receive buffer was written by a call that failed", name);
        bad = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* natively, a rank still in the call makes this wait */
    alarm(0);
    if (loose != MPI_DATATYPE_NULL)
        MPI_Type_free(&loose);
    tl_side_free(&send);
    tl_side_free(&recv);
    free(cnt);
    MPI_Comm_free(&comm);
    return bad;
}

int main(int argc, char **argv)
{
    int reference = 0, fatal = 0, wait_s = 20, first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--reference")) {
            reference = 1;
        } else if (!strcmp(argv[first], "--fatal")) {
            fatal = 1;
        } else if (!strcmp(argv[first], "--wait") && first + 1 < argc) {
            wait_s = atoi(argv[++first]);
        } else if (!strcmp(argv[first], "--list")) {
            for (int i = 0; i < NCASES; i++)
                printf("%s\n", case_names[i]);
            return 0;
        } else {
            fprintf(stderr, "errors: unknown option %s\n", argv[first]);
            return 2;
        }
    }
    signal(SIGALRM, on_alarm);
    MPI_Init(&argc, &argv);
    /* MPI_COMM_NULL errors are raised on MPI_COMM_WORLD / MPI_COMM_SELF: return them */
    if (!fatal) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    }
    int bad = 0;
    for (int a = first; a < argc; a++)
        for (int i = 0; i < NCASES; i++)
            if (!strcmp(argv[a], "all") || !strcmp(argv[a], case_names[i]))
                bad += run_case(case_names[i], reference, fatal, wait_s);
    bad = tl_total_failures();
    MPI_Finalize();
    return bad ? 1 : 0;
}
