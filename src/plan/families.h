/* The schedule families behind plan_build (plan.h): one entry point per family and duplex
 * model, and the pieces they share (the regular exchange, the half-duplex split). For plan/
 * itself and for tests and tools that call one family directly; the shim and hrelay-plan go
 * through plan_build. Every entry point is deterministic: the same matrix and arguments give
 * the same plan, bit for bit. */
#ifndef HRELAY_PLAN_FAMILIES_H
#define HRELAY_PLAN_FAMILIES_H

#include <stddef.h>
#include <stdint.h>

#include "plan/error.h"
#include "plan/matrix.h"
#include "plan/plan.h"

/* Options of the direct planner. */
typedef struct plan_direct_opts {
    /* 0: exact (bandwidth term == lower bound). Otherwise the bandwidth term may exceed the
     * lower bound by up to min_step_bytes per step, for fewer steps and a smaller plan: the
     * greedy schedule of whole messages (plan_greedy) when it stays within that, else the
     * decomposition in which a step that would move fewer bytes per transfer than this moves
     * up to this many instead (capped by what remains of each message). */
    uint64_t min_step_bytes;
    /* 0: no limit. Otherwise planning fails (the same way on every rank) once the plan would
     * hold more segments than this. */
    size_t max_segments;
    /* 0: as above. Otherwise, on matrices of at most PLAN_WIDEST_MAX_P ranks, the price of one
     * step in bytes of the busiest link: the widest-step decomposition (plan_direct_widest;
     * with a minimum step, plan_direct_widest_priced at step_price: its first steps and a
     * whole-message tail) is planned too, and whichever plan has the smaller bandwidth term
     * plus step_price per step is kept (the other one on a tie). */
    uint64_t step_price;
} plan_direct_opts;

/* What a plan costs at a step price (the exchange rate between steps and bytes of the busiest
 * link): its bandwidth term plus price bytes per step. How plan_direct and
 * plan_direct_widest_priced weigh plans against each other. */
static inline unsigned __int128 plan_priced(const plan *pl, uint64_t price)
{
    return (unsigned __int128)plan_bandwidth_term(pl) + (unsigned __int128)price * pl->nsteps;
}

/* The largest matrix plan_direct tries the widest-step decomposition on (opts->step_price):
 * its planning is O(p^3) per step (dense random matrices: 0.2 ms at p = 8, 2.3 - 4.5 ms at 16,
 * 46 ms at 32), and the node matrices of most jobs are this small. */
#define PLAN_WIDEST_MAX_P 16

/* Builds the direct schedule of m (self-messages excluded): every step is a matching that
 * covers each rank whose remaining send or receive load is the current maximum and moves the
 * same number of bytes over each of its edges. With opts->min_step_bytes == 0 the bandwidth
 * term equals plan_matrix_lower_bound(m, PLAN_DUPLEX_FULL) exactly and the number of steps is at
 * most plan_matrix_messages(m) + 2p. With a minimum step m the bandwidth term is at most the
 * bound + m per step: the greedy schedule of whole messages when it meets that (one transfer
 * per message, O(messages) time: the usual case for dense matrices), else the decomposition
 * with steps of at least m. Segments of one message appear in increasing offset order.
 * A uniform matrix (plan_matrix_is_uniform) gets plan_regular's full-duplex schedule, which
 * has all these properties in p - 1 steps. Deterministic: the same input gives the same plan.
 * With opts->step_price (small matrices) possibly the widest-step decomposition instead (exact,
 * below; its transfers within a step may differ). opts may be NULL (exact). Returns 0, or -1
 * with err set (pl then holds no memory). */
int plan_direct(const plan_matrix *m, const plan_direct_opts *opts, plan *pl, plan_error *err);

/* The widest-step decomposition: an exact direct schedule (bandwidth term equal to
 * plan_matrix_lower_bound(m, PLAN_DUPLEX_FULL), every step a matching, each rank's remaining
 * send and receive loads always within the bound less the steps so far) in which every step is
 * the longest such a step can be, so that it has few steps (node matrices of 8 nodes: a fifth
 * to a third of plan_direct's exact ones; dense random matrices of 16 ranks: a sixth to a
 * ninth). At most plan_matrix_messages(m) + 2p steps (planning fails rather than exceed them;
 * no test matrix reached them). Planning takes O(p^3) per step on dense p x p arrays; matrices of
 * more than 64 ranks are refused. Fails once the plan holds more than max_segments segments
 * (0: no limit). Deterministic. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_direct_widest(const plan_matrix *m, size_t max_segments, plan *pl, plan_error *err);

/* The cheapest at price (bandwidth term plus price bytes per step; 0: plan_direct_widest) of
 * the plans made of the first k steps of plan_direct_widest's, k = 0 .. all of them, and what
 * remains of every message after them sent whole, in the fewest steps (plan_stepwise of the
 * remainder) or heaviest first (plan_greedy), whichever costs less: at most the widest plan's
 * cost, and at most that of the whole-message plans of m (k = 0). On a tie the widest plan, else
 * the fewest widest steps; the widest plan where the cheapest would hold more than
 * max_segments segments (0: no limit). Fails as plan_direct_widest does (a widest plan of more
 * than max_segments segments). Deterministic. Returns 0, or -1 with err set (pl then holds no
 * memory). */
int plan_direct_widest_priced(const plan_matrix *m, uint64_t price, size_t max_segments, plan *pl,
                              plan_error *err);

/* The weighted bipartite decomposition behind plan_direct (by_messages 0: loads in bytes,
 * steps at least min_step wide where messages remain) and plan_stepwise (by_messages 1: loads
 * in messages, whole messages per step, heaviest partners), labelled algo, into pl. Fails once
 * pl holds more than max_segments segments (0: no limit). Returns 0, or -1 with err set (pl
 * then holds no memory). */
int plan_decompose(const plan_matrix *m, int by_messages, uint64_t min_step, size_t max_segments,
                   plan_algo algo, plan *pl, plan_error *err);

/* Desprez et al.'s stepwise schedule: every message is sent whole in exactly one step, every
 * step is a matching that covers each rank with the most messages left, so the number of steps
 * (NS) equals the largest number of messages any rank sends or receives (König), the fewest
 * possible. Within that constraint each rank is paired with its heaviest free partner, which
 * keeps the bandwidth term (TC) low (a heuristic, not an exact maximum-weight matching).
 * Deterministic. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_stepwise(const plan_matrix *m, plan *pl, plan_error *err);

/* The half-duplex direct schedule without forwarding (Sanders and Solis-Oba, Sec. 2 and 3
 * with helpers left out): every message is cut in two halves by bytes, the halves go on the
 * bipartite graph by the Euler orientation of the odd bytes, so every rank's two copies carry
 * at most ceil(h / 2) bytes, h = plan_matrix_lower_bound(m, PLAN_DUPLEX_HALF); each
 * super-packet iteration is a 2-relation (paths and cycles) sent in two steps, three when it
 * has odd cycles. Exact (opts->min_step_bytes 0): bandwidth term <= 3 ceil(h / 2), each step's
 * transfers equal. With a minimum step m the bandwidth term is at most 3 ceil(h / 2) + m per
 * step: the half-duplex greedy schedule of whole messages when it meets that, else every
 * iteration moves at least m per edge (capped by what is left of the half). A uniform matrix
 * gets plan_regular's half-duplex schedule. opts->max_segments as for plan_direct.
 * Deterministic. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_direct_half(const plan_matrix *m, const plan_direct_opts *opts, plan *pl,
                     plan_error *err);

/* The half-duplex stepwise schedule: every message whole in one step, each rank in at most
 * one transfer per step. The messages, as edges between their two ranks, are oriented along
 * closed trails so that every rank has at most ceil(d / 2) on each side of a bipartite graph
 * (d = messages it sends plus receives); each matching that covers the ranks with the most
 * messages left is a 2-relation sent in at most three steps. So NS <= 3 ceil(D / 2) for D =
 * the largest d (D is the fewest possible, 3D/2 the most any whole-message schedule needs,
 * Shannon). Deterministic. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_stepwise_half(const plan_matrix *m, plan *pl, plan_error *err);

/* Desprez et al.'s greedy schedule: every message is sent whole in exactly one step; each
 * step is the matching the heaviest-first rule builds over the remaining messages (the
 * heaviest message first, then the heaviest that fits, ...), so steps hold messages of
 * similar size (low TC) at the price of possibly more steps than the maximum degree.
 * Deterministic. Returns 0, or -1 with err set (pl then holds no memory). */
int plan_greedy(const plan_matrix *m, plan *pl, plan_error *err);

/* plan_greedy in the half-duplex model: each step the heaviest-first matching in which every
 * rank sends or receives at most one message, so NS <= 2D - 1 (D: the largest number of
 * messages a rank sends plus receives). Returns 0, or -1 with err set. */
int plan_greedy_half(const plan_matrix *m, plan *pl, plan_error *err);

/* Makes the full-duplex plan pl half duplex in place: the transfers of each step form disjoint
 * paths and cycles, which are sent in two steps (even transfers, odd transfers) plus one for
 * the closing transfers of odd cycles. Transfers and segments are unchanged, only regrouped, so
 * the plan stays valid; the bandwidth term at most triples (doubles without odd cycles). A
 * half-duplex plan is left as it is. Returns 0, or -1 (out of memory; pl unchanged) with err
 * set. */
int plan_split_half(plan *pl, plan_error *err);

/* Walker and Otto's schedule for a matrix that plan_wo_recognise (plan/walker_otto.h) accepts
 * as a cyclic(r) -> cyclic(K r) redistribution: K steps, in each of which every process sends
 * one block (the same number of bytes) and the destinations form a permutation; a block a
 * process keeps is a local copy. Returns 0, or -1 with err set if m is not such a pattern or
 * memory runs out (pl then holds no memory). */
int plan_walker_otto(const plan_matrix *m, plan *pl, plan_error *err);

/* A schedule in which every pair of ranks meets once and every message goes whole (Sanders and
 * Solis-Oba, Sec. 4.1), labelled algo. Full duplex: p - 1 steps, in step r every rank sends to
 * rank + r and receives from rank - r (mod p). Half duplex: the 1-factorisation of the complete
 * graph, p - 1 rounds for even p and p for odd p (rank j meets plan_one_factor_partner(p, i, j)
 * in round i; the idle rank of an odd round is unavoidable), each round two steps: the lower
 * rank of every pair sends, then the higher. For a uniform matrix both meet the lower bound
 * (half duplex, odd p: p / (p - 1) times it). Returns 0, or -1 with err set. */
int plan_regular(const plan_matrix *m, plan_duplex duplex, plan_algo algo, plan *pl,
                 plan_error *err);

/* Called by plan_one_factor_steps for each pair: appends src's transfer to dst (if any) to the
 * current step of pl. Returns 0, or -1 with err set. */
typedef int (*plan_pair_fn)(plan *pl, int src, int dst, void *ctx, plan_error *err);

/* Appends the half-duplex 1-factorisation of pl->p ranks: for each round i (p - 1 for even p,
 * p for odd p) two steps, fn(lower, higher) for every pair {j, plan_one_factor_partner(p, i,
 * j)} in the first and fn(higher, lower) in the second (empty steps dropped). Returns 0, or -1
 * with err set. */
int plan_one_factor_steps(plan *pl, plan_pair_fn fn, void *ctx, plan_error *err);

/* The rank that rank meets in round `round` of the 1-factorisation of p ranks: (round - rank)
 * mod p for odd p (rank itself: idle); for even p that rule on ranks 0..p-2 with the idle rank
 * paired with p - 1. */
int plan_one_factor_partner(int p, int round, int rank);

/* The two-round transpose (Bader, Helman, JaJa): each message of n grains (grain_bytes each,
 * the last one possibly shorter) is dealt over all p ranks as intermediates, starting at rank
 * (origin + target) mod p, which receives floor(n / p) grains, plus one for the first n mod p
 * ranks in turn (each share one contiguous segment). Round 1 (p - 1 steps, rank i sends to
 * i + r in step r) takes every share to its intermediate, round 2 (p - 1 more) from there to
 * its target. In grains, no round-1 transfer of rank i exceeds sent_i / p + p / 2 and no
 * round-2 transfer to rank j exceeds received_j / p + p / 2 (plan_transpose_share gives the
 * counts). Returns 0, or -1 with err set (grain_bytes 0, out of memory). */
int plan_transpose(const plan_matrix *m, uint64_t grain_bytes, plan *pl, plan_error *err);

/* plan_transpose in the half-duplex model: the same dealing, each round the half-duplex
 * 1-factorisation (plan_one_factor_steps) instead of shift steps, 2 (p - 1) steps per round
 * for even p, 2p for odd p. */
int plan_transpose_half(const plan_matrix *m, uint64_t grain_bytes, plan *pl, plan_error *err);

/* Grains of a message of `grains` grains from rank i to rank j that intermediate k holds in
 * plan_transpose's dealing over p ranks. */
uint64_t plan_transpose_share(uint64_t grains, int p, int i, int j, int k);

/* Sanders and Solis-Oba's half-duplex schedule with forwarding (plan/forward.c, the half-duplex
 * engine plan/half_engine.c). Messages are counted in packets of packet_bytes (the last one of a
 * message possibly short); h is the largest number of packets a rank sends plus receives. The plan
 * is half duplex, labelled PLAN_ALGO_FORWARD with packet_bytes set; a rank may receive a fifth of
 * another rank's super-packet and pass it on. Bandwidth term, in packets: at most 6/5 (h + 1) for
 * even p and (6/5 + 2/p)(h + 1) for odd p when packet_bytes is a multiple of 5 (the odd bound is
 * met by every test, not proven for this super-packet variant); otherwise fifths are rounded to
 * bytes, which adds at most 6/5 byte per super-packet iteration (each at least one step). Steps:
 * at most 12 per iteration (at most ceil(h / 2) iterations, and O(messages + p)) plus one per
 * flush of deferred pieces (odd p). Deterministic (integer arithmetic only). Returns 0, or -1 with
 * err set (packet_bytes 0, out of memory; pl then holds no memory). */
int plan_forward(const plan_matrix *m, uint64_t packet_bytes, plan *pl, plan_error *err);

/* plan_forward with a limit on the plan's size: max_segments 0 means none; otherwise planning
 * fails (the same way on every rank: the check depends on m and the arguments only) once the
 * plan would hold more segments than that. */
int plan_forward_capped(const plan_matrix *m, uint64_t packet_bytes, size_t max_segments,
                        plan *pl, plan_error *err);

#endif
