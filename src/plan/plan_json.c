/* Writing a plan: the JSON schedule format (README "Plan format") and a text summary. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "plan/json_out.h"
#include "plan/node.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* A small output buffer in front of a FILE: plans at P = 1024 can have millions of segments,
 * so numbers are formatted by hand and written in large blocks. */
typedef struct outbuf {
    FILE *out;
    size_t len;
    int failed;
    char data[1 << 16];
} outbuf;

/* Writes out what is buffered. Afterwards ob->failed is set if any write so far failed. */
static void ob_flush(outbuf *ob)
{
    if (ob->len && !ob->failed && fwrite(ob->data, 1, ob->len, ob->out) != ob->len)
        ob->failed = 1;
    ob->len = 0;
}

/* Appends n bytes of s (n is at most a few hundred bytes). */
static void ob_put(outbuf *ob, const char *s, size_t n)
{
    if (ob->len + n > sizeof ob->data)
        ob_flush(ob);
    memcpy(ob->data + ob->len, s, n);
    ob->len += n;
}

/* Appends a NUL-terminated string literal or short string. */
static void ob_str(outbuf *ob, const char *s)
{
    ob_put(ob, s, strlen(s));
}

/* plan_json_sink over an outbuf: appends n bytes of s, in pieces ob_put takes. */
static void ob_sink(void *ctx, const char *s, size_t n)
{
    for (size_t k; n; s += k, n -= k) {
        k = n < 256 ? n : 256;
        ob_put(ctx, s, k);
    }
}

/* Appends v in decimal. */
static void ob_u64(outbuf *ob, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ob_put(ob, tmp + i, sizeof tmp - i);
}

/* Appends the shortest of %.15g / %.16g / %.17g that reads back as exactly x (so 5e-06 prints
 * as 5e-06, and no value loses precision). Non-finite values, invalid in JSON, print as null. */
static void ob_double(outbuf *ob, double x)
{
    char tmp[40];
    if (x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308) {
        ob_str(ob, "null");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, x);
        if (strtod(tmp, NULL) == x)
            break;
    }
    ob_str(ob, tmp);
}

/* Figures shared by the JSON and text forms. */
typedef struct plan_figures {
    uint64_t bandwidth, lower_bound;
    size_t messages, min_steps;
    double cost_s, lower_bound_s;
} plan_figures;

/* Computes the figures of pl against m under model. lower_bound_s is beta * the lower bound in
 * bytes: the bandwidth part of the modeled cost that no schedule can beat (latency not
 * counted). */
static plan_figures figures(const plan *pl, const plan_matrix *m, const plan_model *model)
{
    plan_figures f;
    f.bandwidth = plan_bandwidth_term(pl);
    f.lower_bound = plan_matrix_lower_bound(m, pl->duplex);
    f.messages = plan_matrix_messages(m);
    f.min_steps = plan_matrix_max_degree(m, pl->duplex);
    f.cost_s = pl->nnodes ? plan_node_modeled_cost(pl, model) : plan_modeled_cost(pl, model);
    f.lower_bound_s = model->beta_s_per_byte * (double)f.lower_bound;
    return f;
}

/* Node-level figures of a node plan (JSON "topology", text summary). */
typedef struct node_figures {
    plan_topo t;
    uint64_t nic_bound, local_bound, bandwidth;
    uint64_t *load; /* per step: the largest node load */
} node_figures;

/* Computes the node figures of node plan pl against m. Returns 0, or -1 (out of memory). */
static int node_figures_get(const plan *pl, const plan_matrix *m, node_figures *nf)
{
    memset(nf, 0, sizeof *nf);
    if (plan_topo_init(&nf->t, pl->p, pl->node_of, NULL))
        return -1;
    nf->load = plan_node_step_loads(pl, pl->node_of, pl->duplex);
    if (!nf->load) {
        plan_topo_free(&nf->t);
        return -1;
    }
    for (size_t s = 0; s < pl->nsteps; s++)
        nf->bandwidth += nf->load[s];
    nf->nic_bound = plan_topo_nic_bound(&nf->t, m, pl->duplex);
    nf->local_bound = plan_topo_local_bound(&nf->t, m, pl->duplex);
    return 0;
}

/* Releases what node_figures_get allocated. */
static void node_figures_free(node_figures *nf)
{
    plan_topo_free(&nf->t);
    free(nf->load);
}

/* Appends the "topology" object of node plan pl (README "Plan format"). Returns 0, or -1 (out
 * of memory). */
static int put_topology(outbuf *ob, const plan *pl, const plan_matrix *m)
{
    node_figures nf;
    if (node_figures_get(pl, m, &nf))
        return -1;
    ob_str(ob, ",\n \"topology\": {\"nodes\": ");
    ob_u64(ob, (uint64_t)pl->nnodes);
    ob_str(ob, ", \"nic_peers\": ");
    ob_u64(ob, pl->nic_peers);
    ob_str(ob, ", \"nic_bound_bytes\": ");
    ob_u64(ob, nf.nic_bound);
    ob_str(ob, ", \"local_bound_bytes\": ");
    ob_u64(ob, nf.local_bound);
    ob_str(ob, ", \"nic_bandwidth_bytes\": ");
    ob_u64(ob, nf.bandwidth);
    ob_str(ob, ", \"node_of\": [");
    for (int r = 0; r < pl->p; r++) {
        ob_str(ob, r ? ", " : "");
        ob_u64(ob, (uint64_t)pl->node_of[r]);
    }
    ob_str(ob, "]}");
    node_figures_free(&nf);
    return 0;
}

/* The JSON spelling of a duplex mode. */
static const char *duplex_name(plan_duplex d)
{
    return d == PLAN_DUPLEX_HALF ? "half" : "full";
}

/* Appends one transfer object with its segments. */
static void put_transfer(outbuf *ob, const plan *pl, const plan_transfer *t)
{
    ob_str(ob, "{\"src\": ");
    ob_u64(ob, (uint64_t)t->src);
    ob_str(ob, ", \"dst\": ");
    ob_u64(ob, (uint64_t)t->dst);
    ob_str(ob, ", \"segments\": [");
    for (size_t k = 0; k < t->nsegs; k++) {
        const plan_segment *sg = &pl->segments[t->seg_begin + k];
        ob_str(ob, k ? ", {\"origin\": " : "{\"origin\": ");
        ob_u64(ob, (uint64_t)sg->origin);
        ob_str(ob, ", \"target\": ");
        ob_u64(ob, (uint64_t)sg->target);
        ob_str(ob, ", \"offset\": ");
        ob_u64(ob, sg->offset);
        ob_str(ob, ", \"bytes\": ");
        ob_u64(ob, sg->bytes);
        ob_str(ob, "}");
    }
    ob_str(ob, "]}");
}

int plan_write_json(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model)
{
    outbuf *ob = malloc(sizeof *ob);
    if (!ob)
        return -1;
    ob->out = out;
    ob->len = 0;
    ob->failed = 0;
    plan_figures f = figures(pl, m, model);

    ob_str(ob, "{\"p\": ");
    ob_u64(ob, (uint64_t)pl->p);
    ob_str(ob, ", \"algorithm\": ");
    plan_json_put_string(ob_sink, ob, plan_algo_name(pl->algo));
    ob_str(ob, ", \"duplex\": ");
    plan_json_put_string(ob_sink, ob, duplex_name(pl->duplex));
    ob_str(ob, ", \"packet_bytes\": "); /* the plan's unit: grain, packet or minimum step */
    ob_u64(ob, pl->packet_bytes ? pl->packet_bytes : pl->min_step_bytes);
    ob_str(ob, ",\n \"bandwidth_bytes\": ");
    ob_u64(ob, f.bandwidth);
    ob_str(ob, ", \"lower_bound_bytes\": ");
    ob_u64(ob, f.lower_bound);
    ob_str(ob, ", \"ns\": ");
    ob_u64(ob, (uint64_t)pl->nsteps);
    ob_str(ob, ", \"max_degree\": ");
    ob_u64(ob, (uint64_t)f.min_steps);
    if (pl->nnodes && put_topology(ob, pl, m))
        ob->failed = 1;
    ob_str(ob, ",\n \"steps\": [");
    for (size_t s = 0; s < pl->nsteps; s++) {
        ob_str(ob, s ? ",\n  [" : "\n  [");
        for (size_t t = pl->step_begin[s]; t < pl->step_begin[s + 1]; t++) {
            if (t > pl->step_begin[s])
                ob_str(ob, ", ");
            put_transfer(ob, pl, &pl->transfers[t]);
        }
        ob_str(ob, "]");
    }
    ob_str(ob, pl->nsteps ? "\n ],\n" : "],\n");
    ob_str(ob, " \"model\": {\"alpha_s\": ");
    ob_double(ob, model->alpha_s);
    ob_str(ob, ", \"beta_s_per_byte\": ");
    ob_double(ob, model->beta_s_per_byte);
    ob_str(ob, ", \"cost_s\": ");
    ob_double(ob, f.cost_s);
    ob_str(ob, ", \"lower_bound_s\": ");
    ob_double(ob, f.lower_bound_s);
    ob_str(ob, "}}\n");
    ob_flush(ob);
    int failed = ob->failed;
    free(ob);
    return failed || fflush(out) != 0 || ferror(out) ? -1 : 0;
}

/* The node part of plan_write_text for node plan pl. Returns 0, or -1 (out of memory). */
static int write_node_text(FILE *out, const plan *pl, const plan_matrix *m,
                           const plan_model *model)
{
    node_figures nf;
    if (node_figures_get(pl, m, &nf))
        return -1;
    fprintf(out, "nodes            %d (%d to %d ranks each)\n", pl->nnodes,
            plan_topo_min_lanes(&nf.t), plan_topo_max_lanes(&nf.t));
    fprintf(out, "NIC rule         at most %u peer node%s per NIC and step (%s)\n", pl->nic_peers,
            pl->nic_peers == 1 ? "" : "s",
            pl->duplex == PLAN_DUPLEX_HALF ? "half duplex: sending or receiving"
                                           : "full duplex: each way");
    fprintf(out, "NIC bytes/step  ");
    for (size_t s = 0; s < pl->nsteps && s < 16; s++)
        fprintf(out, " %" PRIu64, nf.load[s]);
    fprintf(out, "%s\n", pl->nsteps > 16 ? " ..." : pl->nsteps ? "" : " -");
    fprintf(out, "NIC bandwidth    %" PRIu64 " bytes (sum over steps of the largest NIC load)\n",
            nf.bandwidth);
    fprintf(out, "node bound       %" PRIu64 " bytes (the busiest NIC's off-node bytes)\n",
            nf.nic_bound);
    if (nf.nic_bound)
        fprintf(out, "node ratio       %.6f\n", (double)nf.bandwidth / (double)nf.nic_bound);
    else
        fprintf(out, "node ratio       - (nothing crosses a NIC)\n");
    fprintf(out, "on-node bound    %" PRIu64 " bytes (the busiest rank's on-node bytes)\n",
            nf.local_bound);
    fprintf(out, "node model bound %.6g s (beta * node bound)\n",
            model->beta_s_per_byte * (double)nf.nic_bound);
    node_figures_free(&nf);
    return 0;
}

int plan_write_text(FILE *out, const plan *pl, const plan_matrix *m, const plan_model *model)
{
    plan_figures f = figures(pl, m, model);
    size_t bound = f.messages + 2 * (size_t)pl->p;
    fprintf(out, "P                %d\n", pl->p);
    fprintf(out, "algorithm        %s\n", plan_algo_name(pl->algo));
    fprintf(out, "duplex           %s\n", duplex_name(pl->duplex));
    fprintf(out, "messages         %zu (non-zero, off-diagonal)\n", f.messages);
    if (pl->algo == PLAN_ALGO_DIRECT && pl->duplex == PLAN_DUPLEX_FULL)
        fprintf(out, "steps (NS)       %zu (at most messages + 2P = %zu when exact)\n",
                pl->nsteps, bound);
    else
        fprintf(out, "steps (NS)       %zu\n", pl->nsteps);
    fprintf(out, "max degree       %zu (fewest steps when every message goes whole)\n",
            f.min_steps);
    fprintf(out, "transfers        %zu\n", pl->ntransfers);
    fprintf(out, "segments         %zu\n", pl->nsegments);
    if (pl->min_step_bytes)
        fprintf(out, "min step         %" PRIu64 " bytes\n", pl->min_step_bytes);
    else if (pl->packet_bytes)
        fprintf(out, "%s %" PRIu64 " bytes\n",
                pl->algo == PLAN_ALGO_TRANSPOSE ? "grain           " : "packet          ",
                pl->packet_bytes);
    else
        fprintf(out, "min step         0 (exact)\n");
    fprintf(out, "bandwidth (TC)   %" PRIu64 " bytes\n", f.bandwidth);
    fprintf(out, "lower bound      %" PRIu64 " bytes\n", f.lower_bound);
    if (f.lower_bound)
        fprintf(out, "ratio            %.6f\n", (double)f.bandwidth / (double)f.lower_bound);
    else
        fprintf(out, "ratio            - (nothing to send)\n");
    fprintf(out, "modeled cost     %.6g s (alpha %g s, beta %g s/byte)\n", f.cost_s,
            model->alpha_s, model->beta_s_per_byte);
    fprintf(out, "modeled bound    %.6g s (beta * lower bound)\n", f.lower_bound_s);
    if (pl->nnodes && write_node_text(out, pl, m, model))
        return -1;
    return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
