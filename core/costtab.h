/*
 * costtab.h: the cost tables, the one caller of a cost model's
 * operations (cost.h).
 *
 * A table holds what the simulator, the baselines, the search and the
 * placement MILP need of the cost model for one scenario: per pool, TP
 * degree, recomputation and layer kind (a transformer block or the
 * logits layer) the layer's times and memory; per pool its optimizer
 * rate and the achieved figures of its NVLink and NICs; per WAN link
 * direction its achieved figures; the model state's bytes per parameter.
 * Everything is evaluated when the table is made, so the operations
 * (which may be Lua) never run inside a MILP build or the simulator's
 * event loop. gp_costtab_update brings a table to an edited scenario and
 * re-evaluates only the entries whose inputs changed.
 *
 * TP degrees tabulated: every divisor of the model's heads (the plans
 * gp_plan_validate accepts).
 */
#ifndef GP_COSTTAB_H
#define GP_COSTTAB_H

#include "cost.h"
#include "scenario.h"

struct gp_layer_cost {
	struct gp_layer_time t;   /* seconds per micro-batch */
	struct gp_layer_mem m;    /* bytes per GPU per micro-batch */
};

struct gp_costtab;

/* cm NULL: the default model. The table keeps cm, not sc. */
struct gp_costtab *gp_costtab_new(const struct gp_scenario *sc,
				  const struct gp_cost_model *cm, struct gp_err *e);
void gp_costtab_free(struct gp_costtab *ct);
/* Brings the table to sc (an edit of the scenario it was made for):
 * re-evaluates what changed. On error the table is unusable. */
int gp_costtab_update(struct gp_costtab *ct, const struct gp_scenario *sc,
		      struct gp_err *e);
/* Fails unless the table has sc's shape (DCs, pools, links, heads): a
 * caller's guard before look-ups by index. */
int gp_costtab_check(const struct gp_costtab *ct, const struct gp_scenario *sc,
		     struct gp_err *e);
/* Every entry of a and b (tables of one scenario) bitwise equal; else
 * false and what holds the first difference. */
bool gp_costtab_same(const struct gp_costtab *a, const struct gp_costtab *b, char *what,
		     size_t n);
/* Cost-model operations called so far (for tests of the updates). */
long gp_costtab_evals(const struct gp_costtab *ct);
const struct gp_cost_model *gp_costtab_model(const struct gp_costtab *ct);

/* A block (or the logits layer) of pool `pool` of DC `dc` at TP tp with
 * recomputation rc (none, selective or full); NULL when tp is not a
 * divisor of the heads. */
const struct gp_layer_cost *gp_costtab_layer(const struct gp_costtab *ct, int dc,
					     int pool, int tp, enum gp_recompute rc);
const struct gp_layer_cost *gp_costtab_logits(const struct gp_costtab *ct, int dc,
					      int pool, int tp);
/* Seconds of one GPU's optimizer step over `params` parameters. */
double gp_costtab_optimizer(const struct gp_costtab *ct, int dc, int pool,
			    double params);
/* Bytes of each GPU of the pool the job cannot use (part of every peak). */
double gp_costtab_reserve(const struct gp_costtab *ct, int dc, int pool);
/* The share of overlapped DP sync time compute on the pool loses. */
double gp_costtab_contention(const struct gp_costtab *ct, int dc, int pool);
/* The pace of the slowest of n GPUs against the mean's (gp_straggle
 * with the pool's spread): what a plan running on n GPUs in all takes
 * the layer entries, which are per-GPU means, times. n <= 0: the pool's
 * own count (the planners' view, before a plan says). */
double gp_costtab_pace(const struct gp_costtab *ct, int dc, int pool, int n);
/* Model state per parameter with ZeRO-1 (when the job says so) over d
 * replicas. */
double gp_costtab_state_bytes(const struct gp_costtab *ct, int d);

/* Achieved figures: a NIC of the pool for point-to-point, one ring step
 * on its NVLink and on its NICs, and WAN link direction `link`
 * (scenario.links[link]) for point-to-point. */
struct gp_comm gp_costtab_nic(const struct gp_costtab *ct, int dc, int pool);
struct gp_comm gp_costtab_ring_nvlink(const struct gp_costtab *ct, int dc, int pool);
struct gp_comm gp_costtab_ring_nic(const struct gp_costtab *ct, int dc, int pool);
struct gp_comm gp_costtab_wan(const struct gp_costtab *ct, int link);

/* Composed from the entries above, as the simulator runs them. */

/* A stage boundary inside DC dc between a stage of TP ta on pool pa and
 * one of TP tb on pool pb: each TP rank sends 1/t of the activation over
 * its own NIC (Megatron's scatter-gather), up to a node's worth; with
 * job.p2p_scatter off and no sequence parallelism, each sends it all. */
double gp_costtab_intra_p2p(const struct gp_costtab *ct, const struct gp_scenario *sc,
			    int dc, int pa, int ta, int pb, int tb, double bytes);
/* The ring of `ranks` replicas of a stage of TP tp inside one pool:
 * NVLink when they share a node, else the NICs, min(per_node / tp,
 * ranks) of them per node carrying the ring's channels (Megatron places
 * TP innermost, then DP). */
struct gp_comm gp_costtab_dp_ring(const struct gp_costtab *ct, const struct gp_scenario *sc,
				  int dc, int pool, int tp, int ranks);

#endif
