/*
 * unused.h: what a plan leaves idle and why, for the reports: each DC
 * the plan gives no stage, and each pool it uses only in part, with the
 * facts that explain it as far as the scenario shows them: no link to
 * the DCs in use, links much slower than the ones the plan crosses (or
 * too slow to carry the model's gradients within an iteration), a link
 * latency of a second or more (milliseconds written as seconds?), fewer
 * GPUs left in a pool than one more replica would take of it. It
 * reads the scenario, the plan and its simulated iteration; it never
 * plans.
 */
#ifndef GP_UNUSED_H
#define GP_UNUSED_H

#include "scenario.h"
#include "sim.h"

struct gp_unused {
	int dc;
	int pool;            /* -1: the whole DC is unused */
	int idle, count;     /* GPUs left idle, of the pool's (or DC's) */
	char why[384];       /* "" when nothing in the scenario says why */
};

/* The unused DCs (first) and partly used pools of plan p, into *out
 * (malloc'd, *n of them; NULL when none); r (may be NULL) gives the
 * iteration a link's gradient time is weighed against. -1 when out of
 * memory. */
int gp_unused_find(const struct gp_scenario *sc, const struct gp_plan *p,
		   const struct gp_result *r, struct gp_unused **out, int *n);

/* u as one line in the report's words: "fra: all 16 GPUs, no stage
 * there: ..." or "ams/H100: 4 of 16 GPUs: ...". */
void gp_unused_text(const struct gp_scenario *sc, const struct gp_unused *u, char *buf,
		    size_t n);

#endif
