/* A plan drawn as a Gantt chart in SVG: one row per rank, time along x. */
#include <inttypes.h>

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

/* One bar per segment of transfer t, drawn in the sender's row (upper half: sending) and the
 * receiver's row (lower half: receiving), starting at x, coloured by the segment's origin and
 * outlined (dashed) where the data is forwarded. */
static void draw_transfer(FILE *out, const plan *pl, size_t s, size_t t, double x,
                          double px_per_s, double row, const plan_model *model)
{
    const plan_transfer *tr = &pl->transfers[t];
    double width = seconds(model, tr->bytes) * px_per_s;
    double at = x;
    for (size_t g = 0; g < tr->nsegs; g++) {
        const plan_segment *sg = &pl->segments[tr->seg_begin + g];
        double w = tr->bytes ? width * (double)sg->bytes / (double)tr->bytes : width;
        int forwarded = sg->origin != tr->src || sg->target != tr->dst;
        for (int half = 0; half < 2; half++) {
            int rank = half ? tr->dst : tr->src;
            double y = SVG_TOP + rank * row + (half ? row / 2 : 0.5);
            fprintf(out,
                    "<rect class=\"xfer%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                    "fill=\"hsl(%d,65%%,55%%)\"%s><title>step %zu: %d %s %d, bytes [%" PRIu64
                    ", %" PRIu64 ") of %d -&gt; %d%s</title></rect>\n",
                    forwarded ? " fwd" : "", at, y, w > 0.3 ? w : 0.3, row / 2 - 0.5,
                    (int)(360L * sg->origin / (pl->p > 1 ? pl->p : 1)),
                    forwarded ? " stroke=\"black\" stroke-width=\"0.8\" stroke-dasharray=\"2,1\"" : "",
                    s, tr->src, half ? "&lt;-" : "-&gt;", half ? tr->src : tr->dst, sg->offset,
                    sg->offset + sg->bytes, sg->origin, sg->target,
                    forwarded ? " (forwarded)" : "");
        }
        at += w;
    }
}

int plan_write_svg(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model)
{
    double total = 0;
    for (size_t s = 0; s < pl->nsteps; s++)
        total += seconds(model, widest(pl, s));
    double row = pl->p <= 40 ? SVG_MAX_ROW : 800.0 / pl->p;
    double height = SVG_TOP + row * pl->p + SVG_BOTTOM;
    double px_per_s = total > 0 ? SVG_WIDTH / total : 0;
    double bound = model->beta_s_per_byte * (double)plan_matrix_lower_bound(m, pl->duplex);
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"11\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"18\" font-size=\"14\">%s plan, p = %d, %zu steps, %s duplex: "
            "modeled %.6g s, lower bound %.6g s</text>\n"
            "<text x=\"%d\" y=\"32\" fill=\"#555\">each bar a transfer (upper half of a row: "
            "sending, lower half: receiving), coloured by the rank whose data it carries; "
            "dashed outline: forwarded data</text>\n",
            SVG_LEFT + SVG_WIDTH + SVG_RIGHT, height, SVG_LEFT, plan_algo_name(pl->algo), pl->p,
            pl->nsteps, pl->duplex == PLAN_DUPLEX_HALF ? "half" : "full", total, bound, SVG_LEFT);
    for (int r = 0; r < pl->p; r++) {
        double y = SVG_TOP + r * row;
        fprintf(out, "<rect x=\"%d\" y=\"%.2f\" width=\"%d\" height=\"%.2f\" fill=\"%s\"/>\n",
                SVG_LEFT, y, SVG_WIDTH, row, r % 2 ? "#f4f4f4" : "#fafafa");
        if (row >= 9)
            fprintf(out, "<text x=\"%d\" y=\"%.2f\" text-anchor=\"end\">rank %d</text>\n",
                    SVG_LEFT - 6, y + row * 0.7, r);
    }
    double x = SVG_LEFT;
    for (size_t s = 0; s < pl->nsteps; s++) {
        if (pl->nsteps <= SVG_MAX_STEP_LINES)
            fprintf(out, "<line class=\"step\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%.2f\" "
                         "stroke=\"#bbb\" stroke-width=\"0.5\"/>\n",
                    x, SVG_TOP, x, SVG_TOP + row * pl->p);
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++)
            draw_transfer(out, pl, s, t, x, px_per_s, row, model);
        x += seconds(model, widest(pl, s)) * px_per_s;
    }
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
    return fprintf(out, "</svg>\n") < 0 || ferror(out) ? -1 : 0;
}
