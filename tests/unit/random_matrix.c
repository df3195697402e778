/* Seeded random transfer matrices of many shapes. */
#include "random_matrix.h"

uint64_t rm_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t rm_below(uint64_t *state, uint64_t n)
{
    return rm_next(state) % n;
}

const char *rm_shape_name(rm_shape shape)
{
    static const char *const names[RM_SHAPES] = {
        "dense", "sparse", "hot-receiver", "hot-sender", "permutation",
        "zero", "one-message", "heavy-tailed", "uniform"};
    return (unsigned)shape < RM_SHAPES ? names[shape] : "?";
}

/* A value in [1, max] (max >= 1). */
static uint64_t some(uint64_t *st, uint64_t max)
{
    return 1 + rm_below(st, max);
}

void random_matrix(plan_matrix *m, rm_shape shape, uint64_t max_entry, uint64_t *st)
{
    int p = m->p;
    int hot = (int)rm_below(st, (uint64_t)p);
    uint64_t big = max_entry, small = max_entry / 64 + 1;
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            uint64_t v = 0;
            switch (shape) {
            case RM_DENSE:
                v = rm_below(st, big);
                break;
            case RM_SPARSE:
                v = rm_below(st, (uint64_t)p) < 3 ? some(st, big - 1) : 0;
                break;
            case RM_HOT_RECEIVER:
                v = j == hot ? some(st, big - 1) : rm_below(st, 4) == 0 ? rm_below(st, small) : 0;
                break;
            case RM_HOT_SENDER:
                v = i == hot ? some(st, big - 1) : rm_below(st, 4) == 0 ? rm_below(st, small) : 0;
                break;
            case RM_HEAVY_TAILED: {
                int bits = (int)rm_below(st, 64);
                uint64_t cap = bits >= 63 ? big : ((uint64_t)1 << bits);
                v = rm_below(st, cap < big ? cap : big);
                if (rm_below(st, 8) == 0)
                    v = 0;
                break;
            }
            case RM_UNIFORM:
                v = max_entry - 1 ? max_entry - 1 : 1;
                break;
            default:
                break;
            }
            m->bytes[(size_t)i * p + j] = v;
        }
    if (shape == RM_PERMUTATION) {
        int perm[1024];
        for (int i = 0; i < p; i++)
            perm[i] = i;
        for (int i = p - 1; i > 0; i--) {
            int k = (int)rm_below(st, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[k];
            perm[k] = t;
        }
        for (int i = 0; i < p; i++)
            m->bytes[(size_t)i * p + perm[i]] = some(st, big - 1);
    } else if (shape == RM_ONE_MESSAGE && p > 1) {
        int i = (int)rm_below(st, (uint64_t)p), j = (int)((i + 1 + rm_below(st, (uint64_t)p - 1)) % p);
        m->bytes[(size_t)i * p + j] = some(st, big - 1);
    }
}
