/* Deciding a new pattern before gathering it: from the combined summary of the call (the
 * bound, the native model, each family's most optimistic time) and what the call site and the
 * communicator have learned from measured calls (plan/learn.h), whether any family can beat
 * the MPI library's own algorithm by enough to be worth gathering the P x P matrix and
 * planning; else the call runs MPI's algorithm at once. Also what exploring a candidate may
 * cost (the exploration budget) and the bookkeeping of a site's calls. Pure C, no MPI, integer
 * arithmetic on agreed values: every rank decides the same. */
#ifndef HRELAY_PLAN_FORECAST_H
#define HRELAY_PLAN_FORECAST_H

#include <stdint.h>

#include "plan/budget.h"
#include "plan/cost.h"
#include "plan/learn.h"
#include "plan/plan.h"
#include "plan/summary.h"

/* What one call site (or communicator) keeps across patterns: its corrections, its calls and
 * how many had a new pattern (what a plan's set-up is spread over). Zero: nothing seen. */
typedef struct plan_history {
    plan_learner learn; /* its clock counts every call, agreed or unchecked */
    uint64_t calls;     /* agreed calls (whose pattern is known to be new or not) */
    uint64_t news;      /* of those, calls whose pattern was new */
    uint64_t gathered;  /* `calls` at the last one that gathered a new pattern to plan it (0:
                           none) */
    uint32_t futile;    /* gathered patterns in a row that ended running MPI's algorithm */
    uint32_t plan_streak;   /* gathered patterns that ran a plan since MPI's algorithm was last
                             measured */
    uint32_t beside_gap;    /* plans before MPI's algorithm is measured beside them (0: 2) */
} plan_history;

/* Agreed calls after a site's last gathered pattern during which its calls stay checked (a
 * site whose sizes vary must not run unchecked through the sizes where plans win). */
enum { PLAN_HISTORY_RECENT = 32 };

/* Where patterns do not repeat, plans win by estimate and MPI's correction rests on calls that
 * disagree (the largest over the smallest above 3/2), MPI's algorithm is measured again after
 * PLAN_HISTORY_BESIDE gathered patterns ran a plan, later ones at growing intervals
 * (plan_history_native_measured): its correction, which the plans are chosen against, stays
 * measured (16 emulated hosts: three MoE calls at 100 ms, most at 50, let `direct` at 53 - 280
 * ms run 18 new patterns); where its calls agree it only costs (4 x 8 ranks: 2.3 x node-direct). */
enum { PLAN_HISTORY_BESIDE = 2, PLAN_HISTORY_BESIDE_MAX = 128 };

/* What a forecast is made from. */
typedef struct plan_forecast_in {
    const plan_summary *s;      /* the call's summary, combined over ranks */
    plan_native_kind kind;      /* which MPI call */
    plan_duplex duplex;         /* the links' model plans obey */
    const plan_cost_params *c;
    uint32_t families;          /* bit per family that may be planned */
    /* each as families 0, with its own reason: every rank's call is one whose plans lost on
     * an earlier communicator; the first checked after a run that its site's drifting calls of
     * its size, settled on MPI's algorithm on an earlier communicator, started */
    int lost, drift_settled;
    int native_variant;         /* the learning key of MPI's algorithm run before gathering:
                                   plan_learn_key(NATIVE, native_variant). 0 where the
                                   gathered pattern's model of it is the summary's (one rank
                                   per node); 1 where it is another (the two-level model), so
                                   that each key's corrections compare measurements with one
                                   model */
    const plan_history *site;   /* the call site's history, NULL if the ranks do not agree on
                                   the site */
    const plan_history *comm;   /* the communicator's */
    const plan_budget *budget;  /* the communicator's */
    int learn;                  /* 0: the model alone (no corrections, no exploration) */
    uint64_t agree_ps;          /* the modeled agreement */
    uint64_t gather_ps;         /* the modeled gather of the matrix */
    uint64_t node_gather_ps;    /* node-direct's node-level metadata instead (a node holds
                                   several ranks: plan_cost_node_gather), 0: none */
    uint32_t margin_pct;        /* candidates this close to the best are worth measuring */
    uint32_t budget_pct;        /* exploration may cost this percent of all calls' time */
    uint32_t trials;            /* calls each candidate of a gathered pattern is measured in
                                   (HRELAY_TUNE): exploring one costs that many agreed calls
                                   of it and of MPI's algorithm */
    uint64_t explore_min_ps;    /* nothing is explored where MPI's call takes less */
    uint64_t explore_min_bytes; /* nor where the busiest rank moves fewer bytes */
} plan_forecast_in;

/* What the call does. */
typedef enum plan_forecast_action {
    PLAN_FORECAST_NATIVE,  /* MPI's algorithm, without gathering */
    PLAN_FORECAST_GATHER   /* gather, plan the families in `plan`, choose */
} plan_forecast_action;

/* A forecast. Times are per call, in picoseconds, corrected by what was learned. */
typedef struct plan_forecast {
    plan_forecast_action action;
    int cls;                 /* size class (plan_learn_class of the bound) */
    uint64_t bound;          /* the busiest rank's bytes under the duplex mode */
    int tiny;                /* too small to explore */
    int on_node;             /* several ranks per node and no byte leaves its node
                                (plan_summary_on_node): no family is estimated or explored */
    uint64_t reuse;          /* calls expected per pattern at the site */
    uint64_t native_model;   /* plan_summary_native */
    uint64_t native_ps;      /* corrected */
    plan_learn_state native_state;
    int native_variant;      /* in->native_variant: the key native_ps is corrected by */
    int native_steady;       /* that correction rests on at least PLAN_FORECAST_STEADY_SAMPLES
                                calls that agree within 5/4 (none stalled) */
    uint32_t ratio_native_gathered; /* the correction of key (NATIVE, 0), the gathered
                                       pattern's model of MPI's algorithm: ratio[NATIVE] when
                                       native_variant is 0 or that key is unknown */
    uint32_t ratio[PLAN_ALGO_COUNT];          /* correction of each family's most optimistic
                                                 time from the summary (key PLAN_LEARN_BEFORE;
                                                 for a family not measured yet, the largest of
                                                 native's and the measured families') */
    plan_learn_state state[PLAN_ALGO_COUNT];  /* of each family (key PLAN_LEARN_BEFORE) */
    uint32_t ratio_plan[PLAN_ALGO_COUNT];     /* correction of each family's plan model once
                                                 gathered (variant 0; not measured yet: the
                                                 largest of ratio_native_gathered and the
                                                 measured families') */
    plan_learn_state state_plan[PLAN_ALGO_COUNT];
    uint32_t ratio_small[PLAN_ALGO_COUNT]; /* the same of PLAN_VARIANT_SMALL_WINDOW
                                                 (ratio_plan for a variant not measured yet) */
    plan_learn_state state_small[PLAN_ALGO_COUNT];
    uint32_t ratio_node_window; /* the same of node-aggregate's
                                                 PLAN_VARIANT_NODE_WINDOW */
    plan_learn_state state_node_window;
    uint32_t ratio_hit, ratio_miss;           /* corrections of the overheads (no gather
                                                 measured yet: ratio_miss is the smaller of
                                                 ratio_hit and native's) */
    uint64_t est_ps[PLAN_ALGO_COUNT];         /* a family's optimistic time with its share of
                                                 the overheads; UINT64_MAX: not considered */
    uint32_t win;            /* families modeled to beat MPI's algorithm (bit per family) */
    uint32_t plan;           /* families to plan when gathering */
    int node_path;           /* node-direct alone is planned, from node-level metadata
                                (in->node_gather_ps, where it is modeled cheaper than the
                                gather) instead of the gathered matrix */
    plan_algo explore;       /* a family this call runs to measure it (NATIVE: none) */
    int measure_native;      /* this call runs MPI's algorithm to measure it (not measured
                                yet at this size, only once, or long ago, or beside) */
    int beside;              /* measure_native because plans win and ran the last patterns
                                (beside_gap): what plan_history_native_measured takes */
    int exploring;           /* this call explores (measure_native again, or `explore`) */
    uint64_t best_ps;        /* the best estimate (what exploring is measured against) */
    int settled;             /* native, and no family is worth trying even if the pattern
                                repeats, or exploring one waits for the budget: later calls
                                may run unchecked */
    uint32_t small_first;    /* families (bit a: family a) whose small-window variant, not
                                measured yet at this size, runs a new pattern's first call in
                                their stead: where no pattern of the site has repeated so far
                                (no later call of the pattern measures it) and the samples of
                                MPI's correction, or of the family's own, disagree by more than
                                3/2 (calls stall; fewer operations in flight can avoid it) */
    int waiting;             /* a family worth exploring does not fit the budget yet */
    plan_wait wait;          /* waiting: the family predicted to cost least to explore */
    const char *why;         /* the reason, for verbose output */
    plan_learn_view learned; /* the corrections in class cls: per key the site's where it has
                                samples within reach, else the communicator's */
} plan_forecast;

/* Forecasts the call described by in (see the file comment):
 * - native not measured yet at this size (within PLAN_LEARN_REACH classes): MPI's algorithm,
 *   measured (costs nothing over MPI), settled where the busiest rank moves fewer than
 *   explore_min_bytes or no byte leaves its node (nothing can be explored there whatever it
 *   measures);
 * - no byte leaves its node (several ranks per node, plan_summary_on_node): MPI's algorithm,
 *   settled unless a pattern was gathered lately, whatever the models say (no family is
 *   estimated, explored or gathered for, with learn == 0 too: before gathering MPI's model
 *   charges on-node bytes at the NIC's rate);
 * - a family wins if its optimistic time with the agreement, the gather and planning spread over
 *   the calls expected per pattern, corrected as measured, beats native by PLAN_FORECAST_SAFETY
 *   percent (a family not measured yet at this size never wins: it is explored, below; where
 *   patterns are known not to repeat, a steady measured family by PLAN_FORECAST_DRIFT_EDGE, see
 *   budget.h, where MPI's last measured call was no faster than its correction); then gather, and
 *   plan the winners and the families within margin_pct of the best (only the best winner where
 *   patterns are known not to repeat: at least 4 new ones, fewer than 2 calls each); after a
 *   futile gather (the history's last gathered pattern ran MPI's algorithm after all) the gather
 *   is exploring, within the budget, else MPI's algorithm runs (waiting); native measured long ago
 *   (stale) is measured again instead, if the budget allows, and native measured only once at this
 *   size (the nearest class with samples) is measured again first (not charged as exploring: it
 *   costs nothing over MPI), and so is native where the patterns are known not to repeat, the
 *   history's last beside_gap gathered patterns ran a plan since it was measured and the samples
 *   of its correction disagree by more than 3/2 (f->beside);
 * - else, if not tiny, the family whose exploring is predicted to cost least (the lowest
 *   estimate among equal predictions) is explored (gathered, planned and run) if the budget
 *   allows, or it pays for itself with its risk within PLAN_FORECAST_RISK_PCT
 *   (plan_wait_allows): one not measured yet estimated (by the largest of native's and the
 *   measured families' corrections and PLAN_FORECAST_SAFETY percent) within margin_pct of
 *   native, or one measured long ago (stale) whatever its old correction says; planned with
 *   the measured family estimated lowest below native, if any;
 * - else MPI's algorithm; settled (later calls may run unchecked) when a family worth
 *   exploring waits for the budget, or unless a family would win once the pattern repeats and
 *   the site's patterns are not known to change every call, or the site gathered a pattern
 *   within its last PLAN_HISTORY_RECENT agreed calls and the agreement (as measured) costs at
 *   most 2 % of MPI's call.
 * The calls per pattern are the site's once it has seen two patterns, else the
 * communicator's. Where in->node_gather_ps is set and modeled cheaper than in->gather_ps (large
 * P), node-direct's share of the gather is that, and a gather that plans node-direct alone
 * takes the node path (f->node_path).
 * With learn == 0: the raw models, the safety for every family, no measuring or exploring. */
void plan_forecast_make(const plan_forecast_in *in, plan_forecast *f);

/* A plan's time per call as a forecast f estimates it when gathered: its schedule model
 * model_ps corrected for family a's variant, plus the agreement, the gather and its planning
 * (planning_ps) spread over the calls expected per pattern (corrected as the overheads); a
 * candidate not measured yet at this size (or with learn == 0) with PLAN_FORECAST_SAFETY
 * percent more; a small-window variant not measured yet, of a family in f->small_first, just
 * below its family (it runs first). agree_ps and gather_ps as in plan_forecast_in. */
uint64_t plan_forecast_plan(const plan_forecast *f, plan_algo a, int variant, uint64_t model_ps,
                            uint64_t planning_ps, uint64_t agree_ps, uint64_t gather_ps);

/* Whether plan_forecast_plan corrects family a's variant by a ratio not its own (not measured
 * at this size: the largest of MPI's algorithm's and the measured families'). */
int plan_forecast_borrowed(const plan_forecast *f, plan_algo a, int variant);

/* What exploring family a, estimated at est_ps, costs beyond the best estimate best_ps as a
 * forecast f of in predicts it: plan_budget_predicted; plus the agreements (as corrected in f)
 * of the 2 in->trials calls that measure it against MPI's algorithm, which calls left
 * unchecked would not pay (where an agreement costs as much as a small exchange, as on a slow
 * network, that is most of what exploring costs); plus the part of the new pattern's set-up
 * (its agreement, the gather, a's planning, corrected as f->ratio_miss) that est_ps spreads
 * over the later calls of the pattern, all of which the exploring call pays (on 16 emulated
 * hosts at 64 KiB per rank it took 18.6 ms where MPI's call took 7). */
uint64_t plan_forecast_explore_cost(const plan_forecast_in *in, const plan_forecast *f,
                                    plan_algo a, uint64_t est_ps, uint64_t best_ps);

/* What exploring family a costs whatever its run turns out to save: the agreements of the
 * calls that measure it (as in plan_forecast_explore_cost) and the whole of the new pattern's
 * set-up, which the exploring call pays (est_ps spreads it over the pattern's calls, where an
 * estimated saving may hide it). */
uint64_t plan_forecast_explore_risk(const plan_forecast_in *in, const plan_forecast *f,
                                    plan_algo a);

/* Counts an agreed call in h (news: its pattern is new) and the `unchecked` calls before it
 * that ran without agreement; all of them tick its learner. */
void plan_history_calls(plan_history *h, int news, uint64_t unchecked);

/* Notes in h that its current call gathers a pattern to plan it. */
void plan_history_gathered(plan_history *h);

/* Records how a gathered pattern ended: ran_plan nonzero if a plan ran it (one more in the
 * streak plan_forecast_make measures MPI's algorithm beside), zero if MPI's algorithm did after
 * all: a futile gather (the next gather of its history is exploring) unless it was gathered to
 * explore a family (explored nonzero; that family's planned model lost, which says nothing of
 * the families estimated to win, and the call was charged as exploring). */
void plan_history_gather_result(plan_history *h, int ran_plan, int explored);

/* Records that MPI's algorithm ran a call, measured at whole_ps (agreed): the streak of plans
 * ends. Measured beside plans (plan_forecast.beside) whose best estimate was plan_ps and slower
 * than that, the next such measure comes after twice as many plans, or after as many as the
 * excess takes to fit within budget_pct percent of their time if more (at most four times as
 * many, PLAN_HISTORY_BESIDE_MAX at most): on 16 emulated hosts with 20 ms switch buffers such a
 * call of a sample sort took 300 ms where MPI's calls in a row took 120 and the plan 100. No
 * slower: after PLAN_HISTORY_BESIDE plans again. */
void plan_history_native_measured(plan_history *h, int beside, uint64_t whole_ps, uint64_t plan_ps,
                                  uint32_t budget_pct);

#endif
