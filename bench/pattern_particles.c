/* drift-particles: the migration of particles between subdomains of a 3-D spatial
 * decomposition, as in particle-in-cell codes (e.g. VPIC: Bowers et al., Phys. Plasmas 15,
 * 2008) and molecular dynamics / N-body codes (Plimpton, J. Comput. Phys. 117, 1995): after
 * each step every rank sends the particles that left its box to the box they entered. The
 * ranks form a periodic R x C x D grid (MPI_Dims_create, row-major); each sends to its 26
 * neighbours, a fixed set, with weights by the shared boundary: a face 1, an edge 1/8, a corner
 * 1/64 (particles that move up to 1/8 of a box per step), S per rank in all. On every call each
 * count varies independently by up to +-30 % (particles drift). Where the grid is 1 or 2 wide
 * several neighbours are the same rank (their counts add); particles that wrap around to their
 * own box are not sent. */
#include <stdlib.h>

#include "bench/bench.h"

/* The rank of the box at offset (dx, dy, dz) from rank i on the periodic grid dims. */
static int neighbour(int i, const int *dims, int dx, int dy, int dz)
{
    int x = i / (dims[1] * dims[2]), y = i / dims[2] % dims[1], z = i % dims[2];
    x = (x + dx + dims[0]) % dims[0];
    y = (y + dy + dims[1]) % dims[1];
    z = (z + dz + dims[2]) % dims[2];
    return (x * dims[1] + y) * dims[2] + z;
}

int bench_pattern_particles(const bench_pattern_in *in, uint64_t *m, char *why, size_t cap)
{
    int p = in->p, dims[3] = {0, 0, 0};
    static const double weight[4] = {0, 1, 1.0 / 8, 1.0 / 64}; /* by non-zero offsets */
    MPI_Dims_create(p, 3, dims);
    double *base = malloc(sizeof *base * (size_t)p);
    if (!base)
        return -1;
    for (int i = 0; i < p; i++) {
        double sum = 0;
        for (int j = 0; j < p; j++)
            base[j] = 0;
        for (int dx = -1; dx <= 1; dx++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dz = -1; dz <= 1; dz++) {
                    int j = neighbour(i, dims, dx, dy, dz);
                    if (j == i)
                        continue;
                    double w = weight[(dx != 0) + (dy != 0) + (dz != 0)];
                    base[j] += w;
                    sum += w;
                }
        uint64_t s = bench_state(in->seed, 13, in->call, i);
        for (int j = 0; j < p; j++)
            if (base[j] > 0) {
                double x = (double)in->elems * base[j] / sum * (0.7 + 0.6 * bench_uniform(&s));
                m[(size_t)i * p + j] = (uint64_t)(x + bench_uniform(&s)); /* rounded at random */
            }
    }
    free(base);
    return 0;
}
