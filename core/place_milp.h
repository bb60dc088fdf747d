/*
 * place_milp.h: what the placement MILP (place_milp.c) shows its tests,
 * beyond gp_plan_milp in planner.h: the classes each option offers, for an
 * exhaustive cross-check of the search, a probe as an LP file, for a
 * cross-check with CBC, and the class store's reuse across replica
 * bounds.
 */
#ifndef GP_PLACE_MILP_H
#define GP_PLACE_MILP_H

#include <stdbool.h>
#include "planner.h"

/* One pipeline class as the covering MILP sees it. */
struct gp_place_class {
	int pool[2], gpus[2], cnt[2], dc[2];   /* pool[1] -1: one pool */
	int la, lb;                            /* links crossed, or -1 */
	double U, sig, E, price;           /* U: the curve's steady slope, sig: t(1) */
	int ymax;
	const void *pm;                        /* (for gp_place_class_t) */
	int ci;
};

/* Class c's compute time t(mb) at mb micro-batches per replica (its
 * breakpoint less E): valid during the visit that gave c. */
double gp_place_class_t(const struct gp_place_class *c, int mb);

/* One option: what the tail depends on plan-wide. */
struct gp_place_opt {
	bool one;
	int d, dhi, K, N;                      /* d <= replicas <= dhi */
	double wbw, G, bb;
	enum gp_sync_mode mode;                /* DP sync across DCs (K >= 2) */
};

typedef int (*gp_place_visit)(void *ud, const struct gp_place_opt *o,
			      const struct gp_place_class *c, int n);

/* Calls visit for every option with its classes before any pruning. */
int gp_place_milp_classes(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  gp_place_visit visit, void *ud, struct gp_err *e);

/* The covering MILP of the winning option at T* (which = 0, minimising
 * $/h) or at the largest breakpoint below T* (which = 1, infeasible) as
 * an LP file; *glpk gets GLPK's objective (HUGE_VAL when infeasible) and
 * *T the probe's T. */
int gp_place_milp_probe_lp(const struct gp_scenario *s, const struct gp_plan_opts *o,
			   int which, const char *path, double *T, double *glpk,
			   struct gp_err *e);

/* The class store's reuse: d2's classes built right after d1's (so
 * from them where their stage capacities agree) against d2's built on
 * their own. */
struct gp_place_reuse {
	bool reused;                           /* d2's set was built from d1's */
	bool same;                             /* equal to the one built alone */
	int nc, chains;                        /* d2's classes; chains among them */
};
int gp_place_milp_reuse(const struct gp_scenario *s, const struct gp_plan_opts *o, int d1,
			int d2, struct gp_place_reuse *r, struct gp_err *e);

/* gp_plan_milp with every class set built anew: the check's and the
 * second solve's too (the kept sets' path must give the same). */
int gp_place_milp_rebuild(const struct gp_scenario *s, const struct gp_plan_opts *o,
			  struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);

/* The 1F1B makespan of one replica of S stages (forward f, backward b
 * per micro-batch, delay d after each, of it q on a link that carries
 * one message at a time; q NULL: none) at 1..N micro-batches into t: by
 * the placement MILP's plain walk (how 0), its curve (1) or the walk that
 * skips periodic pairs (2) (place_time.c). */
int gp_place_1f1b(int S, const double *f, const double *b, const double *d, const double *q,
		  int N, int how, double *t);

#endif
