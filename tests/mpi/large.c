/* Large counts with MPI_Alltoallv_c, on 2 ranks (memory: see below).
 *
 * --case displ: every message is a few MiB, but it sits beyond 2^31 and 2^32 bytes into its
 *   buffer (displacements in elements of a 12-byte struct type, byte offsets up to ~5 GiB; the
 *   buffers are 5.1 GiB of address space of which only the messages and the guard bytes
 *   around them are ever touched, so they cost a few MiB of memory). Compared byte for byte
 *   with PMPI_Alltoallv_c, guard bytes included.
 * --case big: one message of 2 GiB + 24 MiB (more than 2^31 bytes, more than INT_MAX elements
 *   of MPI_BYTE) from rank 0 to rank 1, a small one back. Rank 0 fills it with a pattern that
 *   depends on the byte offset; rank 1 checks every byte of it after PMPI_Alltoallv_c and again
 *   after MPI_Alltoallv_c (memory: 2.1 GiB on each rank).
 *
 * Prints "large: CASE ok" on rank 0 and exits 0, or prints the first difference and exits 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "testlib.h"

enum { GUARD = 64 };

/* Address space of `bytes`, zero pages until touched (mmap: nothing is committed up front). */
static char *reserve(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        fprintf(stderr, "large: FAIL: cannot reserve %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return m;
}

/* The pattern word at word index w of the message from i to j. */
static uint64_t pattern(int i, int j, uint64_t w)
{
    return (w + 1) * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)i << 56) ^ ((uint64_t)j << 48);
}

/* --case displ (see the file comment). */
static int case_displ(int me)
{
    /* struct {int; double} packed as 12 bytes: extent 12, not dense */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 4};
    MPI_Datatype tys[2] = {MPI_INT, MPI_DOUBLE}, st, t;
    MPI_Type_create_struct(2, bl, disp, tys, &st);
    MPI_Type_create_resized(st, 0, 12, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&st);

    const MPI_Count ext = 12, n[2][2] = {{300000, 500000}, {400000, 200000}};
    /* element displacements: byte offsets 2.25 GiB, 4.5 GiB, 3 GiB, 4.75 GiB */
    const MPI_Aint at[2] = {((MPI_Aint)9 << 28) / ext, ((MPI_Aint)18 << 28) / ext};
    const MPI_Aint rat[2] = {((MPI_Aint)12 << 28) / ext, ((MPI_Aint)19 << 28) / ext};
    size_t span = (size_t)21 << 28; /* 5.25 GiB */
    char *sbuf = reserve(span), *rbuf = reserve(span), *ref = reserve(span);
    MPI_Count sc[2], rc[2];
    MPI_Aint sd[2], rd[2];
    for (int j = 0; j < 2; j++) {
        sc[j] = n[me][j];
        rc[j] = n[j][me];
        sd[j] = at[j];
        rd[j] = rat[j];
        tl_rng rng;
        tl_seed(&rng, (uint64_t)(me * 2 + j));
        char *s = sbuf + sd[j] * ext;
        for (MPI_Count b = 0; b < sc[j] * ext; b++)
            s[b] = (char)(tl_next(&rng) >> 56);
        memset(rbuf + rd[j] * ext - GUARD, TL_GUARD_BYTE, (size_t)(rc[j] * ext + 2 * GUARD));
        memset(ref + rd[j] * ext - GUARD, TL_GUARD_BYTE, (size_t)(rc[j] * ext + 2 * GUARD));
    }
    int e1 = PMPI_Alltoallv_c(sbuf, sc, sd, t, ref, rc, rd, t, MPI_COMM_WORLD);
    int e2 = MPI_Alltoallv_c(sbuf, sc, sd, t, rbuf, rc, rd, t, MPI_COMM_WORLD);
    int bad = e1 != MPI_SUCCESS || e2 != MPI_SUCCESS;
    if (bad)
        tl_fail("displ: returned %d (PMPI) and %d (hrelay)", e1, e2);
    for (int j = 0; j < 2 && !bad; j++) {
        size_t off = (size_t)(rd[j] * ext - GUARD), len = (size_t)(rc[j] * ext + 2 * GUARD);
        if (memcmp(rbuf + off, ref + off, len)) {
            size_t k = 0;
            while (rbuf[off + k] == ref[off + k])
                k++;
            tl_fail("displ: message from %d differs from PMPI at byte %zd of it (offset %zu)", j,
                    (ssize_t)k - GUARD, off + k);
            bad = 1;
        }
        if ((unsigned char)ref[off] != TL_GUARD_BYTE ||
            (unsigned char)ref[off + len - 1] != TL_GUARD_BYTE) {
            tl_fail("displ: PMPI wrote a guard byte");
            bad = 1;
        }
    }
    munmap(sbuf, span);
    munmap(rbuf, span);
    munmap(ref, span);
    MPI_Type_free(&t);
    return bad;
}

/* Checks the received big message; returns 0 or 1 after printing the first wrong word. */
static int check_big(const uint64_t *r, size_t words, const char *who)
{
    for (size_t w = 0; w < words; w++)
        if (r[w] != pattern(0, 1, w)) {
            tl_fail("big: %s: word %zu of %zu is %016llx, expected %016llx", who, w, words,
                    (unsigned long long)r[w], (unsigned long long)pattern(0, 1, w));
            return 1;
        }
    return 0;
}

/* --case big (see the file comment). */
static int case_big(int me)
{
    const size_t big = ((size_t)2 << 30) + ((size_t)24 << 20), small = 4096;
    size_t words = big / 8;
    MPI_Count sc[2] = {0, 0}, rc[2] = {0, 0};
    MPI_Aint sd[2] = {0, 0}, rd[2] = {0, 0};
    char *sbuf, *rbuf;
    if (me == 0) {
        sc[1] = (MPI_Count)big;
        rc[1] = (MPI_Count)small;
        sbuf = reserve(big);
        rbuf = reserve(small);
        uint64_t *s = (uint64_t *)sbuf;
        for (size_t w = 0; w < words; w++)
            s[w] = pattern(0, 1, w);
    } else {
        sc[0] = (MPI_Count)small;
        rc[0] = (MPI_Count)big;
        sbuf = reserve(small);
        rbuf = reserve(big);
        memset(sbuf, 7, small);
    }
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        const char *who = pass ? "hrelay" : "PMPI";
        if (me == 1)
            memset(rbuf, TL_GUARD_BYTE, big);
        int e = (pass ? MPI_Alltoallv_c : PMPI_Alltoallv_c)(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd,
                                                            MPI_BYTE, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS) {
            tl_fail("big: %s returned %d", who, e);
            bad = 1;
        } else if (me == 1) {
            bad |= check_big((const uint64_t *)rbuf, words, who);
        } else if (rbuf[0] != 7 || rbuf[small - 1] != 7) {
            tl_fail("big: %s: the small message is wrong", who);
            bad = 1;
        }
    }
    munmap(sbuf, me == 0 ? big : small);
    munmap(rbuf, me == 0 ? small : big);
    return bad;
}

int main(int argc, char **argv)
{
    const char *which = argc > 2 && !strcmp(argv[1], "--case") ? argv[2] : "";
    MPI_Init(&argc, &argv);
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (p != 2 || (strcmp(which, "displ") && strcmp(which, "big"))) {
        if (me == 0)
            fprintf(stderr, "usage: large --case displ|big (on 2 ranks)\n");
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(which, "displ"))
        case_displ(me);
    else
        case_big(me);
    int total = tl_total_failures();
    MPI_Finalize();
    if (me == 0)
        printf("large: %s %s\n", which, total ? "FAIL" : "ok");
    return total ? 1 : 0;
}
