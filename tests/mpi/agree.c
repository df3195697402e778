/* shim_agree_few (src/shim/agree.c) against MPI itself: random words on every rank, in every
 * split of up to SHIM_FEW_WORDS words into AND, SUM and MAX ranges, agree with what the ranks'
 * words combine to when gathered with MPI_Allgather (AND, sum modulo 2^64, unsigned maximum),
 * on every rank. Words near 2^64 and 2^63 check the sums' wrap and the maxima's unsigned order.
 *   agree [--seed N] [--cases N]
 * Exits 0 when every case agrees, 1 (saying which case) otherwise. */
#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/agree.h"
#include "shim/state.h"

shim_state shim_g; /* agree.c's operation and element type: all this test sets up */

/* splitmix64: the test's random numbers. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A word of one of the kinds that tell a wrong combination: small, near 2^63, near 2^64, any. */
static uint64_t word(uint64_t *s)
{
    uint64_t r = next(s);
    switch (r & 3) {
    case 0:
        return r >> 60;
    case 1:
        return ((uint64_t)1 << 63) + (r >> 62) - 2;
    case 2:
        return UINT64_MAX - (r >> 62);
    default:
        return next(s);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, rank, failed = 0;
    unsigned long seed = 1, cases = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--cases"))
            cases = strtoul(argv[i + 1], NULL, 10);
    }
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (shim_agree_op_create(&shim_g.agree_op) != MPI_SUCCESS ||
        shim_agree_few_type_create(&shim_g.few_type) != MPI_SUCCESS) {
        fprintf(stderr, "agree: cannot create the operation or the element type\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t *all = malloc((size_t)p * SHIM_FEW_WORDS * sizeof *all);
    uint64_t shared = seed; /* the same on every rank: the case's shape */
    for (unsigned long c = 0; c < cases && !failed; c++) {
        int n = 1 + (int)(next(&shared) % SHIM_FEW_WORDS);
        int nand = (int)(next(&shared) % (uint64_t)(n + 1));
        int nsum = (int)(next(&shared) % (uint64_t)(n - nand + 1));
        uint64_t mine = seed * 1000003u + c * 7919u + (uint64_t)rank, w[SHIM_FEW_WORDS];
        for (int k = 0; k < n; k++)
            w[k] = word(&mine);
        MPI_Allgather(w, n, MPI_UINT64_T, all, n, MPI_UINT64_T, MPI_COMM_WORLD);
        if (shim_agree_few(w, n, nand, nsum, MPI_COMM_WORLD) != MPI_SUCCESS) {
            fprintf(stderr, "agree: case %lu: the allreduce failed\n", c);
            failed = 1;
            break;
        }
        for (int k = 0; k < n; k++) {
            uint64_t want = all[k];
            for (int r = 1; r < p; r++) {
                uint64_t v = all[(size_t)r * n + k];
                want = k < nand ? want & v : k < nand + nsum ? want + v : v > want ? v : want;
            }
            if (w[k] != want) {
                fprintf(stderr,
                        "agree: case %lu (%d words: %d AND, %d SUM), rank %d, word %d: %" PRIu64
                        ", not %" PRIu64 "\n",
                        c, n, nand, nsum, rank, k, w[k], want);
                failed = 1;
            }
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("agree: %lu cases on %d ranks: %s\n", cases, p, failed ? "FAILED" : "all agree");
    free(all);
    MPI_Type_free(&shim_g.few_type);
    MPI_Op_free(&shim_g.agree_op);
    MPI_Finalize();
    return failed;
}
