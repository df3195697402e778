/* libFuzzer target for plan/ (pure C, no MPI): the matrix parser and every schedule family,
 * with the independent verifier (plan_verify) as the oracle. scripts/fuzz builds it with clang
 * (-fsanitize=fuzzer,address,undefined) and runs it for a bounded time.
 *
 * Input, first byte even: the rest is matrix text for plan_matrix_parse (hrelay-plan's input);
 * a matrix it accepts is then planned with direct and verified.
 * First byte odd: a binary case. Byte 1: p - 1 (p = 1 .. 12); byte 2: the family (every one but
 * native); byte 3: options (min step, transpose grain, forward packet, each 0 or small); then
 * p * p entries of 3 bytes each (a 16-bit value shifted left by 0 .. 40 bits: tiny and huge
 * messages), missing bytes read as 0.
 * A family may refuse a matrix (walker-otto on other patterns, a plan over the size cap); any
 * plan it returns must verify, and every rank's part of it must extract. A failure aborts
 * (a finding). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/local.h"
#include "plan/matrix.h"
#include "plan/plan.h"

enum { MAX_P = 12, MAX_SEGMENTS = 1 << 16 };

/* Stops the fuzzer with a message: the input is a finding. */
static void finding(const char *what, const plan_matrix *m, const plan *pl, const char *msg)
{
    fprintf(stderr, "fuzz_plan: %s (p=%d, family %s): %s\n", what, m->p,
            pl ? plan_algo_name(pl->algo) : "-", msg);
    abort();
}

/* Plans m with family algo and options o; a plan must verify and extract on every rank. */
static void plan_and_check(plan_algo algo, const plan_matrix *m, const plan_options *o)
{
    plan pl;
    plan_error err;
    memset(&pl, 0, sizeof pl);
    if (plan_build(algo, m, o, &pl, &err) != 0) {
        plan_free(&pl);
        return; /* refused: allowed */
    }
    if (plan_verify(m, &pl, &err) != 0)
        finding("plan_verify rejected a plan", m, &pl, err.text);
    for (int r = 0; r < m->p; r++) {
        plan_local lo;
        if (plan_local_extract(&pl, r, &lo, &err) != 0)
            finding("plan_local_extract failed", m, &pl, err.text);
        plan_local_free(&lo);
    }
    plan_free(&pl);
}

/* The text case: parse, then plan what parses. */
static void text_case(const uint8_t *data, size_t size)
{
    FILE *f = fmemopen((void *)data, size, "r");
    plan_matrix m;
    plan_error err;
    if (!f)
        return;
    memset(&m, 0, sizeof m);
    if (plan_matrix_parse(f, &m, &err) == 0) {
        if (m.p <= MAX_P) {
            plan_options o = {.max_segments = MAX_SEGMENTS};
            plan_and_check(PLAN_ALGO_DIRECT, &m, &o);
        }
        plan_matrix_free(&m);
    }
    fclose(f);
}

/* The binary case (see the file comment). */
static void binary_case(const uint8_t *data, size_t size)
{
    if (size < 4)
        return;
    int p = 1 + data[1] % MAX_P;
    plan_algo algo = (plan_algo)(1 + data[2] % (PLAN_ALGO_COUNT - 1));
    uint8_t opt = data[3];
    plan_options o = {.min_step_bytes = (opt & 3) == 3 ? PLAN_MIN_STEP_AUTO
                                                       : (uint64_t)(opt & 3) * 100,
                      .grain_bytes = (uint64_t)((opt >> 2) & 7),
                      .packet_bytes = (uint64_t)((opt >> 5) & 7) * 5,
                      .max_segments = MAX_SEGMENTS};
    plan_matrix m;
    plan_error err;
    if (plan_matrix_init(&m, p, &err) != 0)
        return;
    const uint8_t *e = data + 4;
    size_t left = size - 4;
    for (size_t k = 0; k < (size_t)p * (size_t)p; k++) {
        uint8_t b[3] = {0, 0, 0};
        for (int i = 0; i < 3 && left > 0; i++, left--)
            b[i] = *e++;
        m.bytes[k] = ((uint64_t)b[0] | (uint64_t)b[1] << 8) << (b[2] % 41);
    }
    plan_and_check(algo, &m, &o);
    plan_matrix_free(&m);
}

/* libFuzzer's entry point. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        text_case(data + 1, size - 1);
    else
        binary_case(data, size);
    return 0;
}
