/* fft_transpose: the global transposes of a slab-decomposed 3-D FFT, a demo of hrelay.
 *
 * A grid of N0 x N1 x N2 complex doubles (16 bytes a point) is distributed in slabs, as FFTW's
 * MPI interface and most spectral codes distribute it: rank i holds the x-planes of its share
 * of N0 (all y, all z). Between the 1-D FFTs of each direction the data is transposed: every
 * rank sends rank j the points of its x-planes that lie in j's share of N1, with MPI_Alltoallv,
 * and afterwards holds y-planes; the inverse transform transposes back. The shares are those
 * of 2DECOMP&FFT's distribute() (Li and Laizet, Cray User Group 2010): when P does not divide
 * N0 or N1 some ranks hold one plane more, so the counts are uneven, and they are the same on
 * every iteration -- the repeated exchange hrelay plans once and reuses. Where P divides both
 * N0 and N1 every block has the same size and the transposes call MPI_Alltoall, as FFTW's
 * do. The FFTs themselves
 * are not computed (they are local work); each point carries its coordinates, and both
 * transposes are verified on every iteration.
 *
 * Rank 0 prints the exchange time (both transposes of every iteration, the maximum
 * over ranks after a barrier, summed over iterations) and "verified"; the exit status is
 * non-zero if any point arrived wrong. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Command-line settings. */
typedef struct fft_opts {
    long n[3]; /* the grid: N0 x N1 x N2 points */
    int iterations;
    int quiet;
} fft_opts;

/* A point: its coordinates, as the real and imaginary parts of a complex double. */
typedef struct point {
    double re, im;
} point;

/* The first plane of share i of n planes over p ranks (2DECOMP&FFT's distribute(): the first
 * p - n mod p ranks get n / p planes, the others one more). */
static long share_start(long n, int p, int i)
{
    long base = n / p, more = n % p, fewer = p - more;
    return i <= fewer ? i * base : fewer * base + (i - fewer) * (base + 1);
}

/* The value point (x, y, z) carries. */
static point value_of(long x, long y, long z)
{
    return (point){(double)x * 65536.0 + (double)y, (double)z};
}

/* Counts and displacements (in points) of one transpose, for MPI_Alltoallv. */
typedef struct layout {
    int *sc, *sd, *rc, *rd;
    int uniform; /* every count of every rank the same (P divides N0 and N1) */
} layout;

/* The forward transpose's layout on rank me: from x-planes (x, y, z order) to y-planes
 * (y, x, z order); the inverse one swaps send and receive. Returns 0, or -1 when a count
 * exceeds int. */
static int make_layout(const fft_opts *o, int p, int me, layout *l)
{
    long x0 = share_start(o->n[0], p, me), x1 = share_start(o->n[0], p, me + 1);
    long y0 = share_start(o->n[1], p, me), y1 = share_start(o->n[1], p, me + 1);
    long so = 0, ro = 0;
    for (int j = 0; j < p; j++) {
        long yj = share_start(o->n[1], p, j + 1) - share_start(o->n[1], p, j);
        long xj = share_start(o->n[0], p, j + 1) - share_start(o->n[0], p, j);
        long s = (x1 - x0) * yj * o->n[2], r = xj * (y1 - y0) * o->n[2];
        if (s > INT32_MAX || r > INT32_MAX || so + s > INT32_MAX || ro + r > INT32_MAX)
            return -1;
        l->sc[j] = (int)s;
        l->sd[j] = (int)so;
        l->rc[j] = (int)r;
        l->rd[j] = (int)ro;
        so += s;
        ro += r;
    }
    l->uniform = o->n[0] % p == 0 && o->n[1] % p == 0;
    return 0;
}

/* Fills the send buffer of the forward transpose: for each destination j, this rank's
 * x-planes restricted to j's y-planes, in (x, y, z) order. */
static void pack_x(const fft_opts *o, int p, int me, point *out)
{
    long x0 = share_start(o->n[0], p, me), x1 = share_start(o->n[0], p, me + 1);
    size_t k = 0;
    for (int j = 0; j < p; j++)
        for (long x = x0; x < x1; x++)
            for (long y = share_start(o->n[1], p, j); y < share_start(o->n[1], p, j + 1); y++)
                for (long z = 0; z < o->n[2]; z++)
                    out[k++] = value_of(x, y, z);
}

/* Checks what the forward transpose delivered: from each source i, i's x-planes restricted
 * to this rank's y-planes, in (x, y, z) order. Returns the number of wrong points. */
static long check_y(const fft_opts *o, int p, int me, const point *in)
{
    long y0 = share_start(o->n[1], p, me), y1 = share_start(o->n[1], p, me + 1), bad = 0;
    size_t k = 0;
    for (int i = 0; i < p; i++)
        for (long x = share_start(o->n[0], p, i); x < share_start(o->n[0], p, i + 1); x++)
            for (long y = y0; y < y1; y++)
                for (long z = 0; z < o->n[2]; z++, k++) {
                    point v = value_of(x, y, z);
                    bad += in[k].re != v.re || in[k].im != v.im;
                }
    return bad;
}

/* Prints the usage text to out (rank 0 only). */
static void usage(FILE *out)
{
    fprintf(out, "Usage: fft_transpose [-g N0xN1xN2] [-i ITERATIONS] [-q]\n"
                 "Transposes a slab-decomposed grid of N0 x N1 x N2 complex doubles forward and\n"
                 "back with MPI_Alltoallv on every iteration (default grid 64x64x64, 8\n"
                 "iterations) and verifies every point.\n");
}

/* Fills o from argv. Returns 0, 1 for --help, or -1 for bad usage. */
static int parse_args(int argc, char **argv, fft_opts *o)
{
    *o = (fft_opts){.n = {64, 64, 64}, .iterations = 8};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help"))
            return 1;
        if (!strcmp(a, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (i + 1 >= argc)
            return -1;
        const char *v = argv[++i];
        char tail;
        if (!strcmp(a, "-g")) {
            if (sscanf(v, "%ldx%ldx%ld%c", &o->n[0], &o->n[1], &o->n[2], &tail) != 3)
                return -1;
        } else if (!strcmp(a, "-i")) {
            if (sscanf(v, "%d%c", &o->iterations, &tail) != 1)
                return -1;
        } else {
            return -1;
        }
    }
    for (int d = 0; d < 3; d++)
        if (o->n[d] < 1 || o->n[d] > (1L << 20))
            return -1;
    return o->iterations >= 1 ? 0 : -1;
}

/* One forward and one inverse transpose, timed after a barrier (the maximum over ranks added
 * to *exchange_s); returns the number of wrong points on this rank. */
static long iterate(const fft_opts *o, const layout *l, point *xs, point *ys, point *back, int p,
                    int me, size_t nx, double *exchange_s)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (l->uniform) { /* every block the same size: MPI_Alltoall, as FFTW's transposes do */
        MPI_Alltoall(xs, l->sc[0], MPI_C_DOUBLE_COMPLEX, ys, l->sc[0], MPI_C_DOUBLE_COMPLEX,
                     MPI_COMM_WORLD);
        MPI_Alltoall(ys, l->sc[0], MPI_C_DOUBLE_COMPLEX, back, l->sc[0], MPI_C_DOUBLE_COMPLEX,
                     MPI_COMM_WORLD);
    } else {
        MPI_Alltoallv(xs, l->sc, l->sd, MPI_C_DOUBLE_COMPLEX, ys, l->rc, l->rd,
                      MPI_C_DOUBLE_COMPLEX, MPI_COMM_WORLD);
        MPI_Alltoallv(ys, l->rc, l->rd, MPI_C_DOUBLE_COMPLEX, back, l->sc, l->sd,
                      MPI_C_DOUBLE_COMPLEX, MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0, tmax;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    *exchange_s += tmax;
    long bad = check_y(o, p, me, ys);
    for (size_t k = 0; k < nx; k++)
        bad += back[k].re != xs[k].re || back[k].im != xs[k].im;
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    fft_opts o;
    int pa = parse_args(argc, argv, &o);
    if (pa != 0) {
        if (me == 0)
            usage(pa > 0 ? stdout : stderr);
        MPI_Finalize();
        return pa > 0 ? 0 : 2;
    }
    layout l;
    int *counts = malloc(4 * sizeof(int) * (size_t)p);
    l = (layout){counts, counts + p, counts + 2 * p, counts + 3 * p, 0};
    if (!counts || make_layout(&o, p, me, &l) != 0) {
        if (me == 0)
            fprintf(stderr, "fft_transpose: the grid is too large for int counts\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t nx = (size_t)(l.sd[p - 1] + l.sc[p - 1]), ny = (size_t)(l.rd[p - 1] + l.rc[p - 1]);
    point *xs = malloc(sizeof *xs * (nx ? nx : 1)), *back = malloc(sizeof *back * (nx ? nx : 1));
    point *ys = malloc(sizeof *ys * (ny ? ny : 1));
    if (!xs || !ys || !back)
        MPI_Abort(MPI_COMM_WORLD, 2);
    pack_x(&o, p, me, xs);

    double exchange_s = 0;
    long bad = 0, gbad;
    for (int it = 0; it < o.iterations; it++)
        bad += iterate(&o, &l, xs, ys, back, p, me, nx, &exchange_s);
    MPI_Allreduce(&bad, &gbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && !o.quiet)
        printf("fft_transpose: %d ranks, grid %ldx%ldx%ld (%.2f MiB per rank), %d iterations\n", p,
               o.n[0], o.n[1], o.n[2], (double)o.n[0] * o.n[1] * o.n[2] * 16 / p / (1 << 20),
               o.iterations);
    if (me == 0) {
        printf("fft_transpose: exchange time %.6f s (2 %s, %d iterations)\n", exchange_s,
               l.uniform ? "MPI_Alltoall" : "MPI_Alltoallv", o.iterations);
        printf("fft_transpose: %s\n", gbad ? "VERIFICATION FAILED" : "verified");
    }
    free(xs);
    free(ys);
    free(back);
    free(counts);
    MPI_Finalize();
    return gbad ? 1 : 0;
}
