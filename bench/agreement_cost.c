/* What a small collective right before an exchange costs the exchange, measured without hrelay:
 * MPI_Alltoallv of given byte matrices alone, and preceded by an MPI_Allreduce of a few words
 * (what hrelay's agreement is) or by a second MPI_Barrier, alternating in one run (each round
 * runs every variant in a rotating order, after a barrier; a call's time is the maximum over
 * ranks, from before the collective to the end of the exchange). On 16 emulated hosts with
 * 20 ms switch buffers the calls of a mixture-of-experts routing took 74 - 76 ms on average
 * alone and 78 - 83 ms after a 16-word allreduce, whose own latency there is 0.6 ms: the
 * exchange itself ran slow (100 ms instead of 50) more often. Run it as
 *   mpiexec -n P bench/agreement_cost [--rounds N] [--words W] MATRIX...
 * with P the matrices' ranks (alltoallv_bench --matrices DIR writes a pattern's). */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "plan/matrix.h"

enum { ALONE, ALLREDUCE, BARRIER, VARIANTS, MAX_WORDS = 4096 };
static const char *const variant_name[VARIANTS] = {"alone", "after an allreduce",
                                                   "after a barrier"};

/* The command line. */
typedef struct options {
    int rounds, words;
    char **files;
    int nfiles;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: mpiexec -n P agreement_cost [--rounds N] [--words W] MATRIX...\n"
            "Times MPI_Alltoallv of the byte matrices MATRIX... (hrelay-plan's text\n"
            "format, P x P; calls cycle through them) alone, after an MPI_Allreduce of W\n"
            "64-bit words (hrelay's agreement is one such) and after a second\n"
            "MPI_Barrier, alternating in one run: every round runs the three in a rotating\n"
            "order, each after a barrier. Prints per variant the mean, quartiles, the share\n"
            "of calls over 1.5 x the fastest variant's median, and the mean against the\n"
            "exchange alone. Plain MPI: run it without hrelay.\n"
            "  --rounds N   rounds (default 124)\n"
            "  --words W    words of the allreduce (default 16, 1 - %d)\n"
            "  --help       print this help\n",
            MAX_WORDS);
}

/* Parses the command line into o. Returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, options *o, int print)
{
    static const struct option longopts[] = {{"rounds", required_argument, NULL, 'r'},
                                             {"words", required_argument, NULL, 'w'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    *o = (options){.rounds = 124, .words = 16};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        char *end = NULL;
        long v = c == 'r' || c == 'w' ? strtol(optarg, &end, 10) : 0;
        if (c == 'h') {
            if (print)
                usage(stdout);
            return 0;
        }
        if ((c == 'r' && (*end || v < 1 || v > 1000000)) ||
            (c == 'w' && (*end || v < 1 || v > MAX_WORDS)) || (c != 'r' && c != 'w')) {
            if (print)
                fprintf(stderr, "agreement_cost: invalid option or value (try --help)\n");
            return 2;
        }
        if (c == 'r')
            o->rounds = (int)v;
        else
            o->words = (int)v;
    }
    o->files = argv + optind;
    o->nfiles = argc - optind;
    if (o->nfiles < 1) {
        if (print)
            fprintf(stderr, "agreement_cost: no matrix given (try --help)\n");
        return 2;
    }
    return -1;
}

/* Reads every matrix of o into m (o->nfiles of them), each p x p. Returns 0, or -1 with a
 * message on stderr (rank 0 prints it). */
static int read_matrices(const options *o, int p, plan_matrix *m, int print)
{
    for (int k = 0; k < o->nfiles; k++) {
        FILE *f = fopen(o->files[k], "r");
        plan_error err;
        m[k] = (plan_matrix){0};
        int rc = f ? plan_matrix_parse(f, &m[k], &err) : -1;
        if (f)
            fclose(f);
        if (rc != 0 || m[k].p != p) {
            if (print)
                fprintf(stderr, "agreement_cost: %s: %s\n", o->files[k],
                        !f   ? "cannot open"
                        : rc ? err.text
                             : "not a matrix of the ranks run");
            return -1;
        }
    }
    return 0;
}

/* The counts and displacements of rank me in m (counts in bytes, as ints); 0, or -1 if a
 * count or displacement does not fit an int. */
static int counts_of(const plan_matrix *m, int me, int *sc, int *sd, int *rc, int *rd,
                     size_t *sbytes, size_t *rbytes)
{
    uint64_t s = 0, r = 0;
    for (int j = 0; j < m->p; j++) {
        uint64_t out = m->bytes[(size_t)me * m->p + j], in = m->bytes[(size_t)j * m->p + me];
        if (out > INT32_MAX || in > INT32_MAX || s > INT32_MAX || r > INT32_MAX)
            return -1;
        sc[j] = (int)out;
        sd[j] = (int)s;
        rc[j] = (int)in;
        rd[j] = (int)r;
        s += out;
        r += in;
    }
    *sbytes = s > *sbytes ? s : *sbytes;
    *rbytes = r > *rbytes ? r : *rbytes;
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    options o;
    int status = parse(argc, argv, &o, me == 0);
    plan_matrix *m = status < 0 ? calloc((size_t)o.nfiles, sizeof *m) : NULL;
    int *cnt = status < 0 ? malloc(sizeof *cnt * 4 * (size_t)p * (size_t)o.nfiles) : NULL;
    size_t sbytes = 0, rbytes = 0;
    if (status < 0 && (!m || !cnt || read_matrices(&o, p, m, me == 0) != 0))
        status = 1;
    for (int k = 0; status < 0 && k < o.nfiles; k++) {
        int *c = cnt + (size_t)4 * p * k;
        if (counts_of(&m[k], me, c, c + p, c + 2 * p, c + 3 * p, &sbytes, &rbytes) != 0)
            status = 1;
    }
    int all = status < 0 ? -1 : status;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    char *sbuf = all < 0 ? malloc(sbytes + 1) : NULL, *rbuf = all < 0 ? malloc(rbytes + 1) : NULL;
    double *t = all < 0 ? malloc(sizeof *t * VARIANTS * (size_t)o.rounds) : NULL;
    if (all < 0 && (!sbuf || !rbuf || !t))
        all = 1;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all >= 0) {
        MPI_Finalize();
        return all;
    }
    memset(sbuf, me, sbytes + 1);
    uint64_t in[MAX_WORDS] = {0}, out[MAX_WORDS];
    for (int r = 0; r < o.rounds; r++) {
        const int *c = cnt + (size_t)4 * p * (r % o.nfiles);
        for (int i = 0; i < VARIANTS; i++) {
            int v = (r + i) % VARIANTS; /* rotating: every variant follows every other */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (v == ALLREDUCE)
                MPI_Allreduce(in, out, o.words, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
            else if (v == BARRIER)
                MPI_Barrier(MPI_COMM_WORLD);
            MPI_Alltoallv(sbuf, c, c + p, MPI_BYTE, rbuf, c + 2 * p, c + 3 * p, MPI_BYTE,
                          MPI_COMM_WORLD);
            double dt = MPI_Wtime() - t0, mx;
            MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            t[(size_t)v * o.rounds + r] = mx;
        }
    }
    if (me == 0) {
        double mean[VARIANTS], fastest = 0;
        bench_quantiles q[VARIANTS];
        for (int v = 0; v < VARIANTS; v++) {
            double *tv = t + (size_t)v * o.rounds, sum = 0;
            for (int r = 0; r < o.rounds; r++)
                sum += tv[r];
            mean[v] = sum / o.rounds;
            q[v] = bench_quantiles_of(tv, o.rounds); /* sorts tv */
            fastest = v == 0 || q[v].median < fastest ? q[v].median : fastest;
        }
        printf("agreement_cost: %d ranks, %d matrices, %d rounds, allreduce of %d words\n", p,
               o.nfiles, o.rounds, o.words);
        for (int v = 0; v < VARIANTS; v++) {
            const double *tv = t + (size_t)v * o.rounds;
            int slow = 0;
            for (int r = 0; r < o.rounds; r++)
                slow += tv[r] > 1.5 * fastest;
            printf("  %-20s mean %9.3f ms  q1 %9.3f  median %9.3f  q3 %9.3f  slow %5.1f %%  "
                   "mean / alone %.3f\n",
                   variant_name[v], mean[v] * 1e3, q[v].q1 * 1e3, q[v].median * 1e3, q[v].q3 * 1e3,
                   100.0 * slow / o.rounds, mean[v] / mean[ALONE]);
        }
    }
    for (int k = 0; k < o.nfiles; k++)
        plan_matrix_free(&m[k]);
    free(m);
    free(cnt);
    free(sbuf);
    free(rbuf);
    free(t);
    MPI_Finalize();
    return 0;
}
