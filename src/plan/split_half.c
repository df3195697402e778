/* Turning a full-duplex plan into a half-duplex one: every step is split into at most three. */
#include <stdlib.h>
#include <string.h>

#include "plan/families.h"
#include "plan/plan.h"

/* Scratch of the split: per rank the transfer it sends and receives in the current step (as
 * index + 1, 0 for none), and per transfer its colour. */
typedef struct split_scratch {
    size_t *out, *in;
    unsigned char *colour;
} split_scratch;

/* Colours the transfers [b, e) of one full-duplex step 0, 1, 2 so that no rank has two
 * transfers of one colour: the transfers form disjoint paths and cycles (each rank sends at
 * most one and receives at most one), coloured alternately along each, the closing transfer of
 * an odd cycle 2. */
static void colour_step(const plan *pl, size_t b, size_t e, split_scratch *sc)
{
    for (size_t t = b; t < e; t++) {
        sc->out[pl->transfers[t].src] = t + 1;
        sc->in[pl->transfers[t].dst] = t + 1;
        sc->colour[t - b] = 3; /* not yet */
    }
    for (size_t t = b; t < e; t++) {
        if (sc->colour[t - b] != 3)
            continue;
        /* back to the first transfer of the path, or once around the cycle */
        size_t first = t;
        while (sc->in[pl->transfers[first].src] && sc->in[pl->transfers[first].src] - 1 != t)
            first = sc->in[pl->transfers[first].src] - 1;
        int cycle = sc->in[pl->transfers[first].src] != 0;
        size_t n = 0, cur = first;
        do {
            sc->colour[cur - b] = (unsigned char)(n++ % 2);
            size_t next = sc->out[pl->transfers[cur].dst];
            cur = next ? next - 1 : first;
        } while (cur != first);
        if (cycle && n % 2) { /* the last transfer of an odd cycle meets the first's colour */
            size_t last = sc->in[pl->transfers[first].src] - 1;
            sc->colour[last - b] = 2;
        }
    }
    for (size_t t = b; t < e; t++)
        sc->out[pl->transfers[t].src] = sc->in[pl->transfers[t].dst] = 0;
}

int plan_split_half(plan *pl, plan_error *err)
{
    if (pl->duplex == PLAN_DUPLEX_HALF)
        return 0;
    size_t widest = 0;
    for (size_t s = 0; s < pl->nsteps; s++)
        if (pl->step_begin[s + 1] - pl->step_begin[s] > widest)
            widest = pl->step_begin[s + 1] - pl->step_begin[s];
    split_scratch sc = {calloc((size_t)pl->p, sizeof *sc.out), calloc((size_t)pl->p, sizeof *sc.in),
                        malloc(widest ? widest : 1)};
    size_t *begin = malloc((3 * pl->nsteps + 1) * sizeof *begin);
    plan_transfer *moved = malloc((pl->ntransfers ? pl->ntransfers : 1) * sizeof *moved);
    int rc = 0;
    if (!sc.out || !sc.in || !sc.colour || !begin || !moved) {
        rc = plan_error_set(err, 0, "out of memory splitting a plan of %zu steps", pl->nsteps);
    } else {
        size_t n = 0, steps = 0;
        begin[0] = 0;
        for (size_t s = 0; s < pl->nsteps; s++) {
            size_t b = pl->step_begin[s], e = pl->step_begin[s + 1];
            colour_step(pl, b, e, &sc);
            for (unsigned char c = 0; c < 3; c++) {
                for (size_t t = b; t < e; t++)
                    if (sc.colour[t - b] == c)
                        moved[n++] = pl->transfers[t];
                if (n > begin[steps])
                    begin[++steps] = n;
            }
        }
        memcpy(pl->transfers, moved, n * sizeof *moved);
        free(pl->step_begin);
        pl->step_begin = begin;
        pl->cap_steps = 3 * pl->nsteps + 1;
        pl->nsteps = steps;
        pl->duplex = PLAN_DUPLEX_HALF;
        begin = NULL;
    }
    free(sc.out);
    free(sc.in);
    free(sc.colour);
    free(begin);
    free(moved);
    return rc;
}
