/* A plan drawn as a Gantt chart in SVG: one row per rank, time along x. */
#include <inttypes.h>
#include <stdlib.h>

#include "plan/node.h"
#include "plan/plan.h"

enum {
    SVG_LEFT = 80,     /* room for rank labels */
    SVG_TOP = 40,      /* room for the title */
    SVG_WIDTH = 1200,  /* the time axis */
    SVG_BOTTOM = 60,   /* room for the axis and the legend */
    SVG_RIGHT = 100,   /* room for the last axis label */
    SVG_MAX_ROW = 20,  /* row height for small p */
    SVG_MAX_STEP_LINES = 400
};

/* Modeled seconds of moving `bytes` in one transfer. */
static double seconds(const plan_model *model, uint64_t bytes)
{
    return model->alpha_s + model->beta_s_per_byte * (double)bytes;
}

/* The largest transfer of step s. */
static uint64_t widest(const plan *pl, size_t s)
{
    uint64_t mx = 0;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
        mx = pl->transfers[t].bytes > mx ? pl->transfers[t].bytes : mx;
    return mx;
}

/* Where things go: the row of every rank (grouped by node in node plans) and the modeled width
 * of every step in seconds. */
typedef struct layout {
    int *row_of;    /* p entries */
    int *rank_at;   /* p entries: the rank of every row */
    double *width;  /* nsteps entries */
    double *cursor; /* 2 p entries: a rank's next free x in its sending and receiving half */
    double total, row;
} layout;

/* The width of step s of node plan pl: its largest NIC load, or the most a rank sends or
 * receives in it one transfer after another (a rank may take part in several). */
static double node_step_width(const plan *pl, size_t s, uint64_t load, layout *ly,
                              const plan_model *model)
{
    double w = seconds(model, load), *c = ly->cursor;
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
        const plan_transfer *tr = &pl->transfers[t];
        c[tr->src] += seconds(model, tr->bytes);
        c[pl->p + tr->dst] += seconds(model, tr->bytes);
        w = c[tr->src] > w ? c[tr->src] : w;
        w = c[pl->p + tr->dst] > w ? c[pl->p + tr->dst] : w;
    }
    for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
        c[pl->transfers[t].src] = c[pl->p + pl->transfers[t].dst] = 0;
    return w;
}

/* Fills ly for pl. Returns 0, or -1 (out of memory). */
static int layout_init(layout *ly, const plan *pl, const plan_model *model)
{
    int p = pl->p;
    ly->row_of = malloc((size_t)p * sizeof *ly->row_of);
    ly->rank_at = malloc((size_t)p * sizeof *ly->rank_at);
    ly->width = malloc((pl->nsteps ? pl->nsteps : 1) * sizeof *ly->width);
    ly->cursor = calloc(2 * (size_t)p, sizeof *ly->cursor);
    uint64_t *load = pl->nnodes ? plan_node_step_loads(pl, pl->node_of, pl->duplex) : NULL;
    if (!ly->row_of || !ly->rank_at || !ly->width || !ly->cursor || (pl->nnodes && !load)) {
        free(load);
        return -1;
    }
    int r = 0;
    for (int a = 0; a < (pl->nnodes ? pl->nnodes : 1); a++) /* node by node, ranks in order */
        for (int k = 0; k < p; k++)
            if (!pl->nnodes || pl->node_of[k] == a) {
                ly->rank_at[r] = k;
                ly->row_of[k] = r++;
            }
    ly->total = 0;
    for (size_t s = 0; s < pl->nsteps; s++) {
        ly->width[s] = load ? node_step_width(pl, s, load[s], ly, model)
                            : seconds(model, widest(pl, s));
        ly->total += ly->width[s];
    }
    ly->row = p <= 40 ? SVG_MAX_ROW : 800.0 / p;
    free(load);
    return 0;
}

/* Releases what layout_init allocated. */
static void layout_free(layout *ly)
{
    free(ly->row_of);
    free(ly->rank_at);
    free(ly->width);
    free(ly->cursor);
}

/* One bar per segment of transfer t, drawn in the sender's row (upper half: sending) at xs and
 * the receiver's row (lower half: receiving) at xd, coloured by the segment's origin and
 * outlined (dashed) where the data is forwarded. */
static void draw_transfer(FILE *out, const plan *pl, size_t s, size_t t, double xs, double xd,
                          double px_per_s, const layout *ly, const plan_model *model)
{
    const plan_transfer *tr = &pl->transfers[t];
    double width = seconds(model, tr->bytes) * px_per_s, row = ly->row;
    double at[2] = {xs, xd};
    for (size_t g = 0; g < tr->nsegs; g++) {
        const plan_segment *sg = &pl->segments[tr->seg_begin + g];
        double w = tr->bytes ? width * (double)sg->bytes / (double)tr->bytes : width;
        int forwarded = sg->origin != tr->src || sg->target != tr->dst;
        for (int half = 0; half < 2; half++) {
            int rank = half ? tr->dst : tr->src;
            double y = SVG_TOP + ly->row_of[rank] * row + (half ? row / 2 : 0.5);
            fprintf(out,
                    "<rect class=\"xfer%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                    "fill=\"hsl(%d,65%%,55%%)\"%s><title>step %zu: %d %s %d, bytes [%" PRIu64
                    ", %" PRIu64 ") of %d -&gt; %d%s</title></rect>\n",
                    forwarded ? " fwd" : "", at[half], y, w > 0.3 ? w : 0.3, row / 2 - 0.5,
                    (int)(360L * sg->origin / (pl->p > 1 ? pl->p : 1)),
                    forwarded ? " stroke=\"black\" stroke-width=\"0.8\" stroke-dasharray=\"2,1\"" : "",
                    s, tr->src, half ? "&lt;-" : "-&gt;", half ? tr->src : tr->dst, sg->offset,
                    sg->offset + sg->bytes, sg->origin, sg->target,
                    forwarded ? " (forwarded)" : "");
            at[half] += w;
        }
    }
}

/* The rows: alternating backgrounds, rank labels, and in node plans a line and a label where
 * each node's rows begin. */
static void draw_rows(FILE *out, const plan *pl, const layout *ly)
{
    double row = ly->row;
    for (int r = 0; r < pl->p; r++) {
        int k = ly->rank_at[r];
        double y = SVG_TOP + r * row;
        fprintf(out, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>\n",
                SVG_LEFT, y, SVG_WIDTH, row, r % 2 ? "#f4f4f4" : "#fafafa");
        if (row >= 9)
            fprintf(out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">rank %d</text>\n",
                    SVG_LEFT - 6, y + row * 0.7, k);
        if (pl->nnodes && (r == 0 || pl->node_of[ly->rank_at[r - 1]] != pl->node_of[k]))
            fprintf(out, "<line class=\"node\" x1=\"4\" y1=\"%.2f\" x2=\"%d\" y2=\"%.2f\" "
                         "stroke=\"#333\" stroke-width=\"1\"/><text x=\"%d\" y=\"%.2f\" "
                         "fill=\"#333\">node %d</text>\n",
                    y, SVG_LEFT + SVG_WIDTH + 40, y, SVG_LEFT + SVG_WIDTH + 6, y + 10,
                    (int)pl->node_of[k]);
    }
}

/* The steps: a line where each begins and every transfer's bars; in node plans a rank's
 * transfers of one step one after another. */
static void draw_steps(FILE *out, const plan *pl, layout *ly, double px_per_s,
                       const plan_model *model)
{
    double x = SVG_LEFT, *c = ly->cursor;
    for (size_t s = 0; s < pl->nsteps; s++) {
        if (pl->nsteps <= SVG_MAX_STEP_LINES)
            fprintf(out, "<line class=\"step\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\" "
                         "stroke=\"#bbb\" stroke-width=\"0.5\"/>\n",
                    x, SVG_TOP, x, SVG_TOP + ly->row * pl->p);
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            const plan_transfer *tr = &pl->transfers[t];
            draw_transfer(out, pl, s, t, x + c[tr->src], x + c[pl->p + tr->dst], px_per_s, ly,
                          model);
            if (pl->nnodes) {
                c[tr->src] += seconds(model, tr->bytes) * px_per_s;
                c[pl->p + tr->dst] += seconds(model, tr->bytes) * px_per_s;
            }
        }
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
            c[pl->transfers[t].src] = c[pl->p + pl->transfers[t].dst] = 0;
        x += ly->width[s] * px_per_s;
    }
}

/* The node-level bound of node plan pl on m (0 when memory runs out). */
static uint64_t node_bound(const plan *pl, const plan_matrix *m)
{
    plan_topo t;
    if (plan_topo_init(&t, pl->p, pl->node_of, NULL))
        return 0;
    uint64_t b = plan_topo_nic_bound(&t, m, pl->duplex);
    plan_topo_free(&t);
    return b;
}

int plan_write_svg(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model)
{
    layout ly = {0};
    if (layout_init(&ly, pl, model)) {
        layout_free(&ly);
        return -1;
    }
    double total = ly.total, row = ly.row;
    double height = SVG_TOP + row * pl->p + SVG_BOTTOM;
    double px_per_s = total > 0 ? SVG_WIDTH / total : 0;
    uint64_t lb = pl->nnodes ? node_bound(pl, m) : plan_matrix_lower_bound(m, pl->duplex);
    double bound = model->beta_s_per_byte * (double)lb;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"18\" font-size=\"14\">%s plan, p = %d%s, %zu steps, %s duplex: "
            "modeled %.6g s, %slower bound %.6g s</text>\n"
            "<text x=\"%d\" y=\"32\" fill=\"#555\">each bar a transfer (upper half of a row: "
            "sending, lower half: receiving), coloured by the rank whose data it carries; "
            "dashed outline: forwarded data</text>\n",
            SVG_LEFT + SVG_WIDTH + SVG_RIGHT, height, SVG_LEFT, plan_algo_name(pl->algo), pl->p,
            pl->nnodes ? " on nodes" : "", pl->nsteps,
            pl->duplex == PLAN_DUPLEX_HALF ? "half" : "full", total, pl->nnodes ? "node " : "",
            bound, SVG_LEFT);
    draw_rows(out, pl, &ly);
    draw_steps(out, pl, &ly, px_per_s, model);
    double axis = SVG_TOP + row * pl->p + 16;
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%.4g s</text>\n",
                SVG_LEFT + SVG_WIDTH * k / 4.0, axis, total * k / 4.0);
    if (bound > 0 && total > 0)
        fprintf(out, "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"red\" "
                     "stroke-dasharray=\"4,3\"/><text x=\"%.2f\" y=\"%.2f\" fill=\"red\">lower "
                     "bound</text>\n",
                SVG_LEFT + bound * px_per_s, SVG_TOP, SVG_LEFT + bound * px_per_s,
                SVG_TOP + row * pl->p, SVG_LEFT + bound * px_per_s + 3, axis + 16);
    layout_free(&ly);
    return fprintf(out, "</svg>\n") < 0 || ferror(out) ? -1 : 0;
}
