/* fft-xy and fft-yz: the transposes of a 3-D FFT of N^3 complex doubles (16 bytes, two
 * elements) in pencil decomposition on an R x C process grid, as in 2DECOMP&FFT (Li and
 * Laizet, Cray User Group 2010) and P3DFFT (Pekurovsky, SIAM J. Sci. Comput. 34(4), 2012).
 * Rank (r, c) is r * C + c (MPI_Cart_create's row-major order). An X-pencil holds all x, the
 * r-th share of y and the c-th share of z; a Y-pencil the r-th share of x, all y, the c-th
 * share of z; a Z-pencil the r-th share of x, the c-th share of y, all z. The X -> Y transpose
 * is an all-to-all within each column of the grid (the R ranks of one c, strided by C); the
 * Y -> Z transpose one within each row (the C consecutive ranks of one r). On the whole
 * communicator both are block-structured matrices, uneven where R or C does not divide N.
 * N is chosen from the size: the largest N with N^3 * 16 / P <= S (at least the grid's
 * larger side, so that every rank holds data). */
#include <math.h>

#include "bench/bench.h"

/* Bytes of one grid point (a complex double) in 8-byte elements. */
enum { POINT_ELEMS = 2 };

/* The size of share i of n points over p ranks as 2DECOMP&FFT's distribute() gives it: the
 * first p - n mod p ranks get n / p, the last n mod p ranks one more. */
static uint64_t share(uint64_t n, int p, int i)
{
    uint64_t base = n / (uint64_t)p, more = n % (uint64_t)p;
    return base + ((uint64_t)i >= (uint64_t)p - more ? 1 : 0);
}

/* The grid (--fft-grid, or MPI_Dims_create's most square R >= C) and N for in. Returns 0, or 1
 * with why set. */
static int grid_of(const bench_pattern_in *in, int *rows, int *cols, uint64_t *n, char *why,
                   size_t cap)
{
    int p = in->p, dims[2] = {in->opts->fft_rows, in->opts->fft_cols};
    if (dims[0] == 0) {
        dims[1] = 0;
        MPI_Dims_create(p, 2, dims);
    }
    if (dims[0] * dims[1] != p) {
        snprintf(why, cap, "the grid %d x %d is not %d ranks", dims[0], dims[1], p);
        return 1;
    }
    uint64_t points = in->elems * (uint64_t)p / POINT_ELEMS, side = (uint64_t)cbrt((double)points);
    while ((side + 1) * (side + 1) * (side + 1) <= points)
        side++;
    while (side > 0 && side * side * side > points)
        side--;
    uint64_t least = (uint64_t)(dims[0] > dims[1] ? dims[0] : dims[1]);
    if (side < least) {
        snprintf(why, cap, "N = %llu is less than the grid's side %llu", (unsigned long long)side,
                 (unsigned long long)least);
        return 1;
    }
    *rows = dims[0];
    *cols = dims[1];
    *n = side;
    return 0;
}

/* The X -> Y (xy set) or Y -> Z transpose into m. */
static int transpose(const bench_pattern_in *in, int xy, uint64_t *m, char *why, size_t cap)
{
    int rows, cols, p = in->p;
    uint64_t n;
    if (grid_of(in, &rows, &cols, &n, why, cap))
        return 1;
    if ((xy ? rows : cols) == 1) {
        snprintf(why, cap, "with %s = 1 the %s transpose is local", xy ? "R" : "C",
                 xy ? "X -> Y" : "Y -> Z");
        return 1;
    }
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            for (int to = 0; to < (xy ? rows : cols); to++) {
                /* X -> Y: (r, c) -> (to, c): x share to (over R), y share r (over R), z share c
                 * (over C). Y -> Z: (r, c) -> (r, to): x share r (over R), y share to (over C),
                 * z share c (over C). */
                int dest = xy ? to * cols + c : r * cols + to;
                uint64_t x = xy ? share(n, rows, to) : share(n, rows, r),
                         y = xy ? share(n, rows, r) : share(n, cols, to);
                m[(size_t)(r * cols + c) * p + (size_t)dest] = POINT_ELEMS * x * y *
                                                               share(n, cols, c);
            }
    return 0;
}

int bench_pattern_fft_xy(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    return transpose(in, 1, m, why, cap);
}

int bench_pattern_fft_yz(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    return transpose(in, 0, m, why, cap);
}
