/* hrelay-plan: plans the exchange of a P x P byte matrix offline and prints the schedule. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/cost.h"
#include "plan/matrix.h"
#include "plan/node.h"
#include "plan/plan.h"
#include "plan/topo.h"

/* Exit statuses: 1 for a failed --verify or a write/planner failure, 2 for bad usage or input. */
enum { EXIT_FAILED = 1, EXIT_USAGE = 2 };

static const char *const prog = "hrelay-plan";

/* Default cost model: 5 us per message, 1 ns per byte (1 GB/s). */
#define DEFAULT_ALPHA_S 5e-6
#define DEFAULT_BETA_S_PER_BYTE 1e-9

/* Output formats. */
typedef enum out_format { FORMAT_JSON, FORMAT_TEXT, FORMAT_SVG } out_format;

/* What the command line asked for. */
typedef struct options {
    plan_algo algo;
    int all;             /* --algo all: one summary row per family */
    out_format format;
    int verify;          /* --verify */
    plan_options plan;   /* --min-step, --grain, --packet, --duplex */
    plan_model model;
    const char *matrix; /* path, or "-" for standard input */
    int node_size;      /* --node-size K (0: not given) */
    const char *nodes;  /* --nodes LIST (NULL: not given) */
    plan_topo topo;     /* the placement of either, once the matrix is read */
} options;

/* Prints the usage text to out. */
static void usage(FILE *out)
{
    fprintf(out,
            "Usage: %s [OPTIONS] MATRIX|-\n"
            "Plans the MPI_Alltoallv exchange described by MATRIX and prints the schedule.\n"
            "\n"
            "MATRIX is a text file (or '-' for standard input) of P lines of P non-negative\n"
            "decimal integers: entry (i, j) is the number of bytes rank i sends to rank j.\n"
            "'#' starts a comment; blank lines are ignored. The diagonal is a local copy and\n"
            "is not scheduled.\n"
            "\n"
            "Options:\n"
            "  -a, --algo NAME       schedule family (default direct):\n"
            "                          direct       bandwidth-optimal weighted decomposition\n"
            "                          stepwise     fewest steps, whole messages\n"
            "                          greedy       heaviest-first matchings, whole messages\n"
            "                          transpose    two rounds through intermediate ranks\n"
            "                          walker-otto  closed form for cyclic(r) -> cyclic(Kr)\n"
            "                                       patterns (fails on other matrices)\n"
            "                          forward      Sanders-Solis-Oba half-duplex schedule\n"
            "                                       with forwarding (6/5 (h + 1) packets)\n"
            "                          node-direct, node-transpose, node-forward\n"
            "                                       direct, transpose or forward on the\n"
            "                                       node matrix (--node-size, --nodes), every\n"
            "                                       rank carrying its own messages\n"
            "                          node-aggregate\n"
            "                                       direct on the node matrix, gathered on\n"
            "                                       the node, one message per lane pair\n"
            "                          all          (with --format text) one row per family:\n"
            "                                       duplex, steps (NS), transfers, bandwidth\n"
            "                                       term (TC), lower bound, TC / bound,\n"
            "                                       modeled cost; with --node-size or --nodes\n"
            "                                       the node families too, and the NIC\n"
            "                                       bandwidth term, node bound, their ratio\n"
            "                                       and the node-level modeled time\n"
            "  -d, --duplex MODE     full (default): per step a rank sends one and receives\n"
            "                        one transfer; half: it sends or receives one. Every\n"
            "                        family has a half-duplex form; forward is always half\n"
            "  -f, --format FORMAT   json (default): the plan in the hrelay plan format;\n"
            "                        text: a summary (P, steps, bandwidth term, lower bound...;\n"
            "                        node plans: NIC bytes per step, node bound, ratio);\n"
            "                        svg: a Gantt chart of the plan (one row per rank, node\n"
            "                        plans grouped by node)\n"
            "      --min-step BYTES  direct: merge steps smaller than BYTES per transfer\n"
            "                        (default 0 = exact; the bandwidth term may then exceed the\n"
            "                        lower bound by up to BYTES per enlarged step); 'auto':\n"
            "                        max(32 KiB, lower bound / 4P), the library's default.\n"
            "                        Printed as the JSON \"packet_bytes\".\n"
            "      --step-bytes BYTES\n"
            "                        node families on direct: the price of one node step in\n"
            "                        bytes of a NIC, at which the node plan trades steps for\n"
            "                        bytes (up to 16 nodes it may take the exact plan of\n"
            "                        widest steps or, with a minimum step, its first steps\n"
            "                        and the rest of every message whole, whichever costs\n"
            "                        least; default 0: at the node plan's --min-step, none\n"
            "                        with --min-step 0). The library gives its modeled\n"
            "                        step and barrier over beta\n"
            "      --grain BYTES     transpose: the unit messages are dealt in (default 1)\n"
            "      --packet BYTES    forward: the packet size S (default %llu)\n"
            "      --node-size K     ranks per node: consecutive groups of K ranks are nodes\n"
            "                        (the last one smaller if K does not divide P)\n"
            "      --nodes LIST      the node of every rank, comma-separated labels (P of\n"
            "                        them; any non-negative integers, equal labels one node)\n"
            "      --alpha S         cost model: seconds per message (default %g)\n"
            "      --beta S          cost model: seconds per byte (default %g)\n"
            "      --verify          check the plan with the independent verifier (node\n"
            "                        plans: the NIC rule too); exit 1 if it fails\n"
            "  -h, --help            print this help and exit\n"
            "  -V, --version         print the version and exit\n"
            "\n"
            "Exit status: 0 success, 1 planning, verification or output failure, 2 bad usage or\n"
            "input.\n",
            prog, (unsigned long long)PLAN_DEFAULT_PACKET_BYTES, DEFAULT_ALPHA_S,
            DEFAULT_BETA_S_PER_BYTE);
}

/* Parses a non-negative decimal byte count. Returns 0, or -1 if s is not one. */
static int parse_bytes(const char *s, uint64_t *v)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

/* Parses a finite, non-negative number of seconds. Returns 0, or -1 if s is not one. */
static int parse_seconds(const char *s, double *v)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(x) || x < 0)
        return -1;
    *v = x;
    return 0;
}

/* Reports a bad option value and returns EXIT_USAGE. */
static int bad_value(const char *opt, const char *value, const char *what)
{
    fprintf(stderr, "%s: invalid %s '%s': expected %s\n", prog, opt, value, what);
    fprintf(stderr, "Try '%s --help' for more information.\n", prog);
    return EXIT_USAGE;
}

/* Long options without a short form. */
enum { OPT_MIN_STEP = 256, OPT_STEP_BYTES, OPT_GRAIN, OPT_PACKET, OPT_ALPHA, OPT_BETA,
       OPT_VERIFY, OPT_NODE_SIZE, OPT_NODES };

/* Stores the value arg of option c (--algo, --duplex, --format) in o. Returns -1 to go on, or
 * EXIT_USAGE after printing why (c is not such an option: -1, nothing stored). */
static int parse_name(int c, const char *arg, options *o)
{
    switch (c) {
    case 'a':
        o->all = strcmp(arg, "all") == 0;
        if (!o->all && (plan_algo_parse(arg, &o->algo) || o->algo == PLAN_ALGO_NATIVE))
            return bad_value("--algo", arg,
                             "direct, stepwise, greedy, transpose, walker-otto, forward, "
                             "node-direct, node-transpose, node-forward, node-aggregate or "
                             "all");
        break;
    case 'd':
        if (!strcmp(arg, "full"))
            o->plan.duplex = PLAN_DUPLEX_FULL;
        else if (!strcmp(arg, "half"))
            o->plan.duplex = PLAN_DUPLEX_HALF;
        else
            return bad_value("--duplex", arg, "full or half");
        break;
    case 'f':
        if (!strcmp(arg, "json"))
            o->format = FORMAT_JSON;
        else if (!strcmp(arg, "text"))
            o->format = FORMAT_TEXT;
        else if (!strcmp(arg, "svg"))
            o->format = FORMAT_SVG;
        else
            return bad_value("--format", arg, "json, text or svg");
        break;
    }
    return -1;
}

/* Stores the value arg of a numeric or placement option c in o. Returns -1 to go on, or
 * EXIT_USAGE after printing why (c is not such an option: -1, nothing stored). */
static int parse_number(int c, const char *arg, options *o)
{
    switch (c) {
    case OPT_GRAIN:
        if (parse_bytes(arg, &o->plan.grain_bytes) || o->plan.grain_bytes == 0)
            return bad_value("--grain", arg, "a positive number of bytes");
        break;
    case OPT_PACKET:
        if (parse_bytes(arg, &o->plan.packet_bytes) || o->plan.packet_bytes == 0)
            return bad_value("--packet", arg, "a positive number of bytes");
        break;
    case OPT_MIN_STEP:
        if (strcmp(arg, "auto") == 0)
            o->plan.min_step_bytes = PLAN_MIN_STEP_AUTO;
        else if (parse_bytes(arg, &o->plan.min_step_bytes))
            return bad_value("--min-step", arg, "a non-negative number of bytes or auto");
        break;
    case OPT_STEP_BYTES:
        if (parse_bytes(arg, &o->plan.node_step_bytes))
            return bad_value("--step-bytes", arg, "a non-negative number of bytes");
        break;
    case OPT_ALPHA:
        if (parse_seconds(arg, &o->model.alpha_s))
            return bad_value("--alpha", arg, "a non-negative number of seconds");
        break;
    case OPT_BETA:
        if (parse_seconds(arg, &o->model.beta_s_per_byte))
            return bad_value("--beta", arg, "a non-negative number of seconds per byte");
        break;
    case OPT_NODE_SIZE: {
        uint64_t k;
        if (parse_bytes(arg, &k) || k == 0 || k > INT32_MAX)
            return bad_value("--node-size", arg, "a positive number of ranks");
        o->node_size = (int)k;
        break;
    }
    case OPT_NODES:
        o->nodes = arg;
        break;
    }
    return -1;
}

/* Fills o from argv. Returns -1 to go on, or the exit status (0 after --help / --version). */
static int parse_args(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"algo", required_argument, NULL, 'a'},
        {"format", required_argument, NULL, 'f'},
        {"duplex", required_argument, NULL, 'd'},
        {"min-step", required_argument, NULL, OPT_MIN_STEP},
        {"step-bytes", required_argument, NULL, OPT_STEP_BYTES},
        {"grain", required_argument, NULL, OPT_GRAIN},
        {"packet", required_argument, NULL, OPT_PACKET},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"beta", required_argument, NULL, OPT_BETA},
        {"verify", no_argument, NULL, OPT_VERIFY},
        {"node-size", required_argument, NULL, OPT_NODE_SIZE},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    *o = (options){.algo = PLAN_ALGO_DIRECT, .plan = {.grain_bytes = 1},
                   .model = {DEFAULT_ALPHA_S, DEFAULT_BETA_S_PER_BYTE}};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":a:f:d:hV", longopts, NULL)) != -1) {
        int rc = parse_name(c, optarg, o);
        if (rc < 0)
            rc = parse_number(c, optarg, o);
        if (rc >= 0)
            return rc;
        switch (c) {
        case 'a': case 'd': case 'f': case OPT_GRAIN: case OPT_PACKET: case OPT_MIN_STEP:
        case OPT_STEP_BYTES: case OPT_ALPHA: case OPT_BETA: case OPT_NODE_SIZE: case OPT_NODES:
            break;
        case OPT_VERIFY:
            o->verify = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("%s (hrelay) %s\n", prog, PACKAGE_VERSION);
            return 0;
        case ':':
            fprintf(stderr, "%s: option '%s' needs a value\n", prog, argv[optind - 1]);
            usage(stderr);
            return EXIT_USAGE;
        default:
            if (optopt && optopt < 256)
                fprintf(stderr, "%s: unknown option '-%c'\n", prog, optopt);
            else
                fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[optind - 1]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        fprintf(stderr, "%s: %s\n", prog,
                argc - optind ? "only one MATRIX may be given" : "no MATRIX given ('-' reads "
                                                                 "standard input)");
        usage(stderr);
        return EXIT_USAGE;
    }
    if (o->node_size && o->nodes) {
        fprintf(stderr, "%s: give --node-size or --nodes, not both\n", prog);
        return EXIT_USAGE;
    }
    if (o->all && o->format != FORMAT_TEXT) {
        fprintf(stderr, "%s: --algo all prints a text table: add --format text\n", prog);
        return EXIT_USAGE;
    }
    o->matrix = argv[optind];
    return -1;
}

/* Reads the matrix named by path ("-": standard input). Returns 0, or EXIT_USAGE after
 * printing "hrelay-plan: FILE:LINE: message". */
static int read_matrix(const char *path, plan_matrix *m)
{
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "<stdin>" : path;
    FILE *in = is_stdin ? stdin : fopen(path, "r");
    if (!in) {
        fprintf(stderr, "%s: %s: %s\n", prog, name, strerror(errno));
        return EXIT_USAGE;
    }
    plan_error err = {0};
    int rc = plan_matrix_parse(in, m, &err);
    if (!is_stdin)
        fclose(in);
    if (rc == 0)
        return 0;
    if (err.line > 0)
        fprintf(stderr, "%s: %s:%d: %s\n", prog, name, err.line, err.text);
    else
        fprintf(stderr, "%s: %s: %s\n", prog, name, err.text);
    return EXIT_USAGE;
}

/* Prints one summary row per family (--algo all): the plan's duplex mode, steps (NS),
 * transfers, bandwidth term (TC), the lower bound of its duplex mode, TC / bound and the
 * modeled cost; a family that cannot plan m, or (with --verify) whose plan fails verification,
 * says so in its row. Returns the exit status (EXIT_FAILED if any plan failed verification). */
static int run_all(const options *o, const plan_matrix *m)
{
    int status = 0;
    printf("%-12s %-6s %10s %12s %16s %16s %8s %14s\n", "family", "duplex", "steps", "transfers",
           "bandwidth (B)", "bound (B)", "ratio", "modeled (s)");
    for (int a = PLAN_ALGO_NATIVE + 1; a < PLAN_ALGO_NODE_DIRECT; a++) {
        plan pl = {0};
        plan_error err = {0};
        if (plan_build((plan_algo)a, m, &o->plan, &pl, &err)) {
            printf("%-12s %s\n", plan_algo_name((plan_algo)a), err.text);
            continue;
        }
        uint64_t bw = plan_bandwidth_term(&pl), bound = plan_matrix_lower_bound(m, pl.duplex);
        int bad = o->verify && plan_verify(m, &pl, &err) != 0;
        printf("%-12s %-6s %10zu %12zu %16" PRIu64 " %16" PRIu64 " %8.3f %14.6g%s%s\n",
               plan_algo_name((plan_algo)a), pl.duplex == PLAN_DUPLEX_HALF ? "half" : "full",
               pl.nsteps, pl.ntransfers, bw, bound, bound ? (double)bw / (double)bound : 1.0,
               plan_modeled_cost(&pl, &o->model), bad ? "  verification failed: " : "",
               bad ? err.text : "");
        if (bad)
            status = EXIT_FAILED;
        plan_free(&pl);
    }
    return status;
}

/* The node-level cost model of hrelay-plan's --alpha and --beta (on-node figures derived from
 * them as for a calibration file without them; the other figures the built-in ones). */
static plan_cost_params node_model(const options *o)
{
    plan_cost_params c = plan_cost_defaults();
    c.step_ps = c.alpha_ps = (uint64_t)(o->model.alpha_s * 1e12 + 0.5);
    c.beta_fs = (uint64_t)(o->model.beta_s_per_byte * 1e15 + 0.5);
    c.local_alpha_ps = plan_cost_local_alpha(c.alpha_ps);
    c.local_beta_fs = plan_cost_local_beta(c.beta_fs);
    return c;
}

/* Checks pl with the verifier of its kind: plan_verify_node for node plans. */
static int verify(const options *o, const plan_matrix *m, const plan *pl, plan_error *err)
{
    return pl->nnodes ? plan_verify_node(m, &o->topo, pl, err) : plan_verify(m, pl, err);
}

/* --algo all under a placement: one row per family (rank-level and node-level): duplex, steps,
 * transfers, the NIC bandwidth term (plan_node_bandwidth), the node bound, their ratio and the
 * node-level modeled time (plan_cost_topo_plan); failures as run_all. Returns the exit
 * status. */
static int run_all_nodes(const options *o, const plan_matrix *m)
{
    int status = 0;
    plan_cost_params c = node_model(o);
    printf("%-15s %-6s %10s %12s %16s %16s %8s %14s\n", "family", "duplex", "steps",
           "transfers", "NIC bandw. (B)", "node bound (B)", "ratio", "modeled (s)");
    for (int a = PLAN_ALGO_NATIVE + 1; a < PLAN_ALGO_COUNT; a++) {
        plan pl = {0};
        plan_error err = {0};
        if (plan_build((plan_algo)a, m, &o->plan, &pl, &err)) {
            printf("%-15s %s\n", plan_algo_name((plan_algo)a), err.text);
            continue;
        }
        uint64_t bw = plan_node_bandwidth(&pl, o->topo.node_of, pl.duplex);
        uint64_t bound = plan_topo_nic_bound(&o->topo, m, pl.duplex);
        int bad = o->verify && verify(o, m, &pl, &err) != 0;
        printf("%-15s %-6s %10zu %12zu %16" PRIu64 " %16" PRIu64 " %8.3f %14.6g%s%s\n",
               plan_algo_name((plan_algo)a), pl.duplex == PLAN_DUPLEX_HALF ? "half" : "full",
               pl.nsteps, pl.ntransfers, bw, bound, bound ? (double)bw / (double)bound : 1.0,
               (double)plan_cost_topo_plan(&pl, &o->topo, &c) * 1e-12,
               bad ? "  verification failed: " : "", bad ? err.text : "");
        if (bad)
            status = EXIT_FAILED;
        plan_free(&pl);
    }
    return status;
}

/* Writes pl in the chosen format. Returns 0, or -1 on a write error. */
static int write_plan(const options *o, const plan *pl, const plan_matrix *m)
{
    switch (o->format) {
    case FORMAT_TEXT: return plan_write_text(stdout, pl, m, &o->model);
    case FORMAT_SVG: return plan_write_svg(stdout, pl, m, &o->model);
    default: return plan_write_json(stdout, pl, m, &o->model);
    }
}

/* Plans, optionally verifies, and prints. Returns the exit status. */
static int run(const options *o, const plan_matrix *m)
{
    plan pl = {0};
    plan_error err = {0};
    if (o->all)
        return o->topo.p ? run_all_nodes(o, m) : run_all(o, m);
    if (plan_build(o->algo, m, &o->plan, &pl, &err)) {
        fprintf(stderr, "%s: %s planning failed: %s\n", prog, plan_algo_name(o->algo),
                err.text);
        return EXIT_FAILED;
    }
    int status = 0;
    if (o->verify && verify(o, m, &pl, &err)) {
        fprintf(stderr, "%s: plan verification failed: %s\n", prog, err.text);
        status = EXIT_FAILED;
    } else {
        if (write_plan(o, &pl, m)) {
            fprintf(stderr, "%s: writing the plan failed: %s\n", prog, strerror(errno));
            status = EXIT_FAILED;
        } else if (o->verify) {
            fprintf(stderr, "%s: plan verified: %zu steps, %zu transfers, %zu segments\n", prog,
                    pl.nsteps, pl.ntransfers, pl.nsegments);
        }
    }
    plan_free(&pl);
    return status;
}

/* Builds o->topo for m's ranks from --node-size or --nodes (none: o->topo stays empty and
 * node families plan one rank per node). Returns 0, or EXIT_USAGE after printing why. */
static int make_topo(options *o, const plan_matrix *m)
{
    plan_error err = {0};
    if (o->node_size && plan_topo_consecutive(&o->topo, m->p, o->node_size, &err) == 0)
        o->plan.topo = &o->topo;
    else if (o->nodes && plan_topo_parse(o->nodes, &o->topo, &err) == 0) {
        if (o->topo.p == m->p) {
            o->plan.topo = &o->topo;
            return 0;
        }
        plan_error_set(&err, 0, "%d node labels for %d ranks", o->topo.p, m->p);
        plan_topo_free(&o->topo);
    } else if (!o->node_size && !o->nodes)
        return 0;
    if (o->plan.topo)
        return 0;
    fprintf(stderr, "%s: invalid %s: %s\n", prog, o->nodes ? "--nodes" : "--node-size",
            err.text);
    return EXIT_USAGE;
}

int main(int argc, char **argv)
{
    options o;
    int status = parse_args(argc, argv, &o);
    if (status >= 0)
        return status;
    plan_matrix m = {0};
    status = read_matrix(o.matrix, &m);
    if (status == 0)
        status = make_topo(&o, &m);
    if (status == 0)
        status = run(&o, &m);
    plan_topo_free(&o.topo);
    plan_matrix_free(&m);
    return status;
}
