/* The nodes of the ranks (one NIC each) and the node-level lower bound: the traffic a node's
 * NIC must carry, which is what a cluster with several ranks per node is limited by. */
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"

/* Appends the ranks per node of nodes to how: "4 x 8" when every node has the same number,
 * else the counts in node order (shortened with "..."). */
static void describe_sizes(const bench_nodes *nodes, int p, char *how, size_t cap)
{
    int *count = calloc((size_t)nodes->n, sizeof *count), same = 1;
    if (!count)
        return;
    for (int i = 0; i < p; i++)
        count[nodes->node_of[i]]++;
    for (int a = 1; a < nodes->n; a++)
        same &= count[a] == count[0];
    size_t len = strlen(how);
    if (same) {
        snprintf(how + len, cap - len, "%d node%s x %d rank%s", nodes->n, nodes->n == 1 ? "" : "s",
                 count[0], count[0] == 1 ? "" : "s");
    } else {
        snprintf(how + len, cap - len, "%d nodes, ranks per node:", nodes->n);
        for (int a = 0; a < nodes->n && (len = strlen(how)) + 16 < cap; a++)
            snprintf(how + len, cap - len, " %d", count[a]);
        if (strlen(how) + 16 >= cap)
            snprintf(how + cap - 5, 5, " ...");
    }
    free(count);
}

/* Renumbers the labels of every rank (any ints) to nodes 0, 1, ... in order of first
 * appearance. */
static void number_nodes(const int *label, int p, bench_nodes *nodes)
{
    nodes->n = 0;
    for (int i = 0; i < p; i++) {
        int node = -1;
        for (int e = 0; e < i && node < 0; e++)
            if (label[e] == label[i])
                node = nodes->node_of[e];
        nodes->node_of[i] = node >= 0 ? node : nodes->n++;
    }
}

int bench_nodes_find(MPI_Comm comm, int node_size, bench_nodes *nodes)
{
    int p, rank;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &rank);
    memset(nodes, 0, sizeof *nodes);
    nodes->node_of = malloc(sizeof *nodes->node_of * (size_t)p);
    int *label = malloc(sizeof *label * (size_t)p);
    int ok = nodes->node_of && label, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok) {
        free(label);
        bench_nodes_free(nodes);
        return -1;
    }
    if (node_size > 0) {
        for (int i = 0; i < p; i++)
            label[i] = i / node_size;
        snprintf(nodes->how, sizeof nodes->how, "--node-size %d (consecutive ranks): ", node_size);
    } else {
        /* a node's label: its smallest rank in comm */
        MPI_Comm shared;
        int leader = rank;
        MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
        MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared);
        MPI_Comm_free(&shared);
        MPI_Allgather(&leader, 1, MPI_INT, label, 1, MPI_INT, comm);
        snprintf(nodes->how, sizeof nodes->how, "MPI_COMM_TYPE_SHARED: ");
    }
    number_nodes(label, p, nodes);
    describe_sizes(nodes, p, nodes->how, sizeof nodes->how);
    free(label);
    return 0;
}

void bench_nodes_free(bench_nodes *nodes)
{
    free(nodes->node_of);
    nodes->node_of = NULL;
    nodes->n = 0;
}

uint64_t bench_node_bound_bytes(const uint64_t *m, int p, const bench_nodes *nodes, int half_duplex,
                                uint64_t *scratch)
{
    uint64_t *sent = scratch, *received = scratch + nodes->n, bound = 0;
    memset(scratch, 0, sizeof *scratch * 2 * (size_t)nodes->n);
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++)
            if (nodes->node_of[i] != nodes->node_of[j]) {
                sent[nodes->node_of[i]] += m[(size_t)i * p + j];
                received[nodes->node_of[j]] += m[(size_t)i * p + j];
            }
    for (int a = 0; a < nodes->n; a++) {
        uint64_t b = half_duplex             ? sent[a] + received[a]
                     : sent[a] > received[a] ? sent[a]
                                             : received[a];
        if (b > bound)
            bound = b;
    }
    return bound * BENCH_ELEM;
}
