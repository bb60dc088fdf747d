/*
 * whatif.h: what-if questions over a run: sweeps (a point per
 * combination of override values) and sensitivity (which link or pool,
 * made better, shortens the iteration most). Faces decide how points are
 * spread over processes and how rows are printed.
 */
#ifndef GP_WHATIF_H
#define GP_WHATIF_H

#include "run.h"

/* The figures a sweep row carries. */
struct gp_metrics {
	double iteration_time, tokens_per_s, mfu, usd_per_iteration, wan_bytes;
	bool fits;
	bool priced;   /* the cost has a price in it (gp_report_prices) */
	char doubt[256];   /* gp_scenario_doubt's warning of the point, or "" */
};

/* Splits "PATH=v1,v2,..." on the commas outside (), {}, [] and quotes
 * into n strings "PATH=v1", ... (malloc'd, as the array); -1 if out of
 * memory, 0 when there is no '='. */
int gp_whatif_split(const char *set, char ***vals);

/* A sweep: the overrides every point shares, then per point its own. */
struct gp_sweep {
	const char *cost_path;  /* a cost-model script over the file's, or NULL */
	const char *heur_path;  /* a heuristic script over the file's, or NULL */
	void (*xlate)(const char *set, char *out, size_t n);   /* gp_run's */
	char **base;
	int nbase;
	char ***pts;           /* pts[k][0..npt[k]) */
	int *npt;
	long n;
};

#define GP_SWEEP_MAX_POINTS 100000
#define GP_SWEEP_MAX_AXES 8

/* Every --set that lists several values is an axis; the points are the
 * product of the axes (the last varies fastest). */
int gp_sweep_product(struct gp_sweep *sw, const char *const *sets, int nsets,
		     struct gp_err *e);
/* Adds one point of n overrides (copied). */
int gp_sweep_add(struct gp_sweep *sw, const char *const *sets, int n, struct gp_err *e);
void gp_sweep_free(struct gp_sweep *sw);

/* Evaluates point k: loads the file with the base and the point's
 * overrides, plans it with rq (or, rq NULL, takes the file's plan),
 * simulates it with sim. */
int gp_sweep_point(const struct gp_sweep *sw, long k, const char *path,
		   const struct gp_plan_req *rq, const struct gp_sim_req *sim,
		   struct gp_metrics *out, struct gp_err *e);

/* One figure of one link direction or pool made 10 % better, and the
 * iteration it gives. */
struct gp_knob {
	char what[128];      /* "link ams -> fra", "pool ams/H100 (16 GPUs)" */
	char knob[64];       /* "bandwidth x 1.1", "latency / 1.1", "compute x 1.1", ... */
	double t;            /* seconds; NAN when the simulation failed */
	double saved;        /* base - t; -HUGE_VAL when it failed */
};

/* For the run's plan (simulated with sim): each link direction the
 * iteration sends bytes over (its bandwidth x 1.1; its latency / 1.1)
 * and each pool the plan uses (its GPUs' efficiency, capped at 1; its
 * NVLink; its NIC: each x 1.1), one figure at a time; *knobs (malloc'd,
 * *n of them) sorted by the time saved, most first; *base the iteration
 * as it is; *left_out the link directions and pools not tried (the
 * iteration does not use them, so nothing about them can change it). */
int gp_whatif_sensitivity(const struct gp_run *r, const struct gp_sim_req *sim,
			  double *base, struct gp_knob **knobs, int *n, int *left_out,
			  struct gp_err *e);

#endif
