/* Pieces of rank messages collected for one step of a node plan, then appended to the plan as
 * transfers (internal to the node_*.c files). Pure C, no MPI. */
#ifndef HRELAY_PLAN_NODE_PIECES_H
#define HRELAY_PLAN_NODE_PIECES_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"
#include "plan/topo.h"

/* Bytes [offset, offset + bytes) of rank message origin -> target, moving from rank src to
 * rank dst in the step being built. */
typedef struct node_piece {
    int32_t src, dst, origin, target;
    uint64_t offset, bytes;
} node_piece;

/* A growing list of pieces. */
typedef struct node_pieces {
    node_piece *v;
    size_t n, cap;
} node_pieces;

/* Appends a piece (bytes > 0). Returns 0, or -1 (out of memory) with err set. */
int node_pieces_push(node_pieces *b, int src, int dst, int origin, int target, uint64_t offset,
                     uint64_t bytes, plan_error *err);

/* Sorts pieces [from, b->n) by (src, dst, origin, target, offset) and joins pieces of the
 * sender's own messages that follow each other in bytes and travel between the same ranks, so
 * that a group of pieces becomes transfers in one deterministic order. Forwarded pieces are
 * never joined: each stays within one piece its sender received (what plan_verify checks). */
void node_pieces_sort(node_pieces *b, size_t from);

/* Appends b's pieces in their order to pl's current step: each run of pieces with the same src
 * and dst is one transfer carrying them as segments. Empties b. Fails once pl would hold more
 * than max_segments segments (0: no limit). Returns 0, or -1 with err set. */
int node_pieces_emit(plan *pl, node_pieces *b, size_t max_segments, plan_error *err);

/* Appends every message between two ranks of one node of t, whole, from its sender to its
 * target, as one sorted group. Returns 0, or -1 (out of memory) with err set. */
int node_pieces_on_node(node_pieces *b, const plan_matrix *m, const plan_topo *t,
                        plan_error *err);

/* Releases b's memory. */
void node_pieces_free(node_pieces *b);

#endif
