/* The text form of a transfer matrix: P lines of P non-negative decimal integers. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "plan/matrix.h"

/* Reader state: the current line, its number, and the entries gathered so far. */
typedef struct parse_state {
    FILE *in;
    char *buf;       /* current line (getline buffer) */
    size_t bufcap;
    int lineno;      /* 1-based number of the line in buf */
    uint64_t *cells; /* row-major entries read so far */
    size_t ncells, capcells;
    uint64_t *colsum; /* off-diagonal bytes received per column so far */
    int p;           /* columns of the first row; 0 before it */
    int rows;        /* complete rows read */
} parse_state;

/* True for the characters that separate entries. */
static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Appends v to the entries. Returns 0, or -1 (out of memory) with err set. */
static int push_cell(parse_state *ps, uint64_t v, plan_error *err)
{
    if (ps->ncells == ps->capcells) {
        size_t n = ps->capcells ? ps->capcells * 2 : 1024;
        uint64_t *c = realloc(ps->cells, n * sizeof *c);
        if (!c)
            return plan_error_set(err, ps->lineno, "out of memory reading the matrix");
        ps->cells = c;
        ps->capcells = n;
    }
    ps->cells[ps->ncells++] = v;
    return 0;
}

/* Copies at most 24 characters of the token starting at s into out, for error messages. */
static void token_excerpt(const char *s, char out[32])
{
    size_t n = 0;
    while (s[n] && !is_blank(s[n]) && s[n] != '#' && s[n] != '\n' && n < 24)
        n++;
    memcpy(out, s, n);
    strcpy(out + n, s[n] && !is_blank(s[n]) && s[n] != '#' && s[n] != '\n' ? "..." : "");
}

/* Parses one entry at *sp (which is not a blank) into *v and advances *sp past it. Returns 0,
 * or -1 with err naming the line for a negative, non-numeric or overflowing entry. */
static int parse_entry(parse_state *ps, const char **sp, uint64_t *v, plan_error *err)
{
    const char *s = *sp;
    char tok[32];
    if (*s == '-') {
        token_excerpt(s, tok);
        return plan_error_set(err, ps->lineno, "negative entry '%s' (bytes must be >= 0)", tok);
    }
    uint64_t x = 0;
    const char *d = s;
    while (*d >= '0' && *d <= '9') {
        unsigned digit = (unsigned)(*d - '0');
        if (x > (UINT64_MAX - digit) / 10) {
            token_excerpt(s, tok);
            return plan_error_set(err, ps->lineno, "entry '%s' does not fit in 64 bits", tok);
        }
        x = x * 10 + digit;
        d++;
    }
    if (d == s || (*d && !is_blank(*d) && *d != '#' && *d != '\n')) {
        token_excerpt(s, tok);
        return plan_error_set(err, ps->lineno, "'%s' is not a non-negative integer", tok);
    }
    *v = x;
    *sp = d;
    return 0;
}

/* Adds the row just read (the last p entries, row number ps->rows) to the load totals. Returns
 * 0, or -1 with err set when a rank would send or receive 2^64 bytes or more in total (the
 * planner's sums must fit in 64 bits). */
static int add_row_load(parse_state *ps, plan_error *err)
{
    if (!ps->colsum) {
        ps->colsum = calloc((size_t)ps->p, sizeof *ps->colsum);
        if (!ps->colsum)
            return plan_error_set(err, ps->lineno, "out of memory reading the matrix");
    }
    const uint64_t *row = ps->cells + ps->ncells - (size_t)ps->p;
    uint64_t rowsum = 0;
    for (int j = 0; j < ps->p; j++) {
        if (j == ps->rows)
            continue;
        if (row[j] > UINT64_MAX - rowsum)
            return plan_error_set(err, ps->lineno,
                                  "rank %d sends 2^64 bytes or more in total", ps->rows);
        if (row[j] > UINT64_MAX - ps->colsum[j])
            return plan_error_set(err, ps->lineno,
                                  "rank %d receives 2^64 bytes or more in total", j);
        rowsum += row[j];
        ps->colsum[j] += row[j];
    }
    return 0;
}

/* Parses the entries of the line in ps->buf and checks the row shape. Returns 0 (the line may
 * have been blank), or -1 with err set. */
static int parse_line(parse_state *ps, size_t len, plan_error *err)
{
    if (memchr(ps->buf, '\0', len))
        return plan_error_set(err, ps->lineno, "NUL byte in the input");
    size_t before = ps->ncells;
    const char *s = ps->buf;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (*s == '\0' || *s == '\n' || *s == '#')
            break;
        if (ps->p > 0 && ps->rows == ps->p)
            return plan_error_set(err, ps->lineno,
                                  "more rows than columns: the matrix already has %d rows of "
                                  "%d entries", ps->rows, ps->p);
        uint64_t v = 0;
        if (parse_entry(ps, &s, &v, err) || push_cell(ps, v, err))
            return -1;
        if (ps->p > 0 && ps->ncells - before > (size_t)ps->p)
            return plan_error_set(err, ps->lineno,
                                  "the row of rank %d has more than %d entries (the first "
                                  "row has %d)", ps->rows, ps->p, ps->p);
    }
    size_t n = ps->ncells - before;
    if (n == 0)
        return 0;
    if (ps->p == 0) {
        if (n > INT_MAX)
            return plan_error_set(err, ps->lineno, "row of %zu entries: too many ranks", n);
        ps->p = (int)n;
    } else if (n != (size_t)ps->p) {
        return plan_error_set(err, ps->lineno,
                              "the row of rank %d has %zu entries, expected %d (the first "
                              "row has %d)", ps->rows, n, ps->p, ps->p);
    }
    if (add_row_load(ps, err))
        return -1;
    ps->rows++;
    return 0;
}

/* Reads every line of ps->in. Returns 0 when the input held exactly P rows of P entries, or -1
 * with err set. */
static int parse_all(parse_state *ps, plan_error *err)
{
    ssize_t len;
    while ((len = getline(&ps->buf, &ps->bufcap, ps->in)) >= 0) {
        if (ps->lineno == INT_MAX)
            return plan_error_set(err, ps->lineno, "too many lines");
        ps->lineno++;
        if (parse_line(ps, (size_t)len, err))
            return -1;
    }
    if (ferror(ps->in))
        return plan_error_set(err, ps->lineno, "read error");
    if (ps->p == 0)
        return plan_error_set(err, 0, "empty input: no matrix rows");
    if (ps->rows < ps->p)
        return plan_error_set(err, ps->lineno,
                              "input ends after %d rows; a matrix with %d columns needs %d rows",
                              ps->rows, ps->p, ps->p);
    return 0;
}

int plan_matrix_parse(FILE *in, plan_matrix *m, plan_error *err)
{
    parse_state ps = {.in = in};
    m->p = 0;
    m->bytes = NULL;
    int rc = parse_all(&ps, err);
    free(ps.buf);
    free(ps.colsum);
    if (rc) {
        free(ps.cells);
        return -1;
    }
    /* Exactly p * p entries were read: the buffer becomes the matrix (shrunk to fit). */
    uint64_t *cells = realloc(ps.cells, ps.ncells * sizeof *cells);
    m->bytes = cells ? cells : ps.cells;
    m->p = ps.p;
    return 0;
}
