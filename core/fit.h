/*
 * fit.h: bounded minimisation without derivatives, for calibration.
 *
 * Nelder-Mead in the unit box [0,1]^k: the caller maps each coordinate
 * to its parameter's bounds, so every coordinate has the same scale and
 * every point evaluated is a legal parameter set (the box's faces are a
 * barrier: no point outside is evaluated). Deterministic: the same
 * function and start give the same evaluations in the same order.
 */
#ifndef GP_FIT_H
#define GP_FIT_H

#define GP_FIT_MAX_DIM 64

/* The objective at x[0..k); NAN or an infinity counts as worse than
 * anything finite (the caller may record why and stop the search by
 * setting *stop). */
typedef double (*gp_fit_fn)(void *ud, const double *x, int *stop);

struct gp_fit_opts {
	double step;      /* initial simplex edge, in box units (0: 0.25) */
	int max_evals;    /* 0: 200 * (k + 1) */
	double ftol;      /* stop when the simplex's values differ by less than
			   * ftol (relative, 0: 1e-12) or fatol (absolute, 0: none) */
	double fatol;
	double xtol;      /* ... and its points by less than this in every coordinate (0: 1e-7) */
};

/* Minimises f from x (k coordinates in [0,1], overwritten with the best
 * point found); returns the best value and counts evaluations in *evals
 * (added to); NAN when f stopped it. The first simplex steps each
 * coordinate by o->step up, or down where up leaves the box. */
double gp_fit_nelder_mead(gp_fit_fn f, void *ud, int k, double *x,
			  const struct gp_fit_opts *o, int *evals);

/* A search in three parts: from each start (with explore's tolerances,
 * coarse: finding the basin), then from the best point so far with each
 * of polish[0..npolish) in turn (a simplex flattened against a bound or
 * collapsed in one valley is rebuilt around the best point), then each
 * coordinate within snap of a face tried on it. */
struct gp_fit_plan {
	const double *starts;       /* nstarts points of k coordinates */
	int nstarts;
	struct gp_fit_opts explore;
	struct gp_fit_opts polish[4];
	int npolish;
	double snap;
};

/* Runs the plan: the best point in x, its value returned; the last
 * evaluation is of x. NAN when f stopped the search. */
double gp_fit_search(gp_fit_fn f, void *ud, int k, const struct gp_fit_plan *p, double *x,
		     int *evals);

#endif
