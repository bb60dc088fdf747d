/*
 * calibrate.h: fit a cost model's params to measured runs
 * (geoplan calibrate, geoplan-lua(7) CALIBRATION).
 *
 * Each run is a scenario file with a plan and measured = {
 * iteration_time, peak_memory } (either optional); its prediction is what
 * sim gives for its own plan. The model is a cost-model script (BASE)
 * or, without one, the default model's calibratable form, written as Lua
 * (calibrate_write.c): an efficiency per GPU type of the runs, a fixed
 * overhead per layer pass, the share of the attention-score traffic the
 * stack really moves, a reserve per GPU and a factor on activations.
 *
 * The fit minimises the mean squared relative error over every measured
 * figure (an iteration time and a peak memory count alike): Nelder-Mead
 * in the params' bounds mapped to [0,1] (fit.h), from the defaults and
 * the box's centre, then restarted around the best point. A param no
 * measured figure moves (memory params without a measured peak, a GPU
 * type no plan uses) or with min = max stays at its default, and says
 * why. The params a kind of figure sees must be fewer than the figures
 * of that kind (k <= n - 1, for time and for memory apart), so the fit
 * is overdetermined and its residuals mean something; else calibrate
 * refuses and says what to add.
 *
 * The result carries OUT.lua's text: the calibratable form (or BASE,
 * wrapped) with the fitted values as defaults. Before it is returned it
 * is loaded again and must reproduce every fitted prediction exactly.
 * Same inputs, same text.
 */
#ifndef GP_CALIBRATE_H
#define GP_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include "gp.h"

struct gp_cal_opts {
	const char *base;     /* BASE.lua, or NULL: the default's calibratable form */
	bool no_loo;          /* skip leave-one-out */
	/* Where the scripts' warnings go (one line each); NULL: nowhere. */
	void (*log)(void *ud, const char *line);
	void *log_ud;
};

enum gp_cal_state { GP_CAL_FITTED, GP_CAL_FIXED, GP_CAL_UNSEEN };

struct gp_cal_param {
	char name[48];
	const char *unit;     /* "s", "B" or "" (a fraction, a factor, or not
			       * known): by name, as the form's params have them */
	double def, min, max, value;
	enum gp_cal_state state;
	char why[160];        /* not fitted: why */
	bool seen_time, seen_mem;   /* some measured figure of that kind moves with it */
	/* Sensitivity: value changed by `step` (+10 %, or +10 % of the range
	 * at 0, -10 % at the upper bound): mean relative change of the
	 * predicted times and peaks over the runs, and the time MAPE after. */
	double step, dtime, dmem, mape_after;
};

struct gp_cal_run {
	char path[512];
	char name[48];        /* the scenario's */
	double t_meas, m_meas;        /* 0: not measured */
	double t_pred, m_pred;        /* the fit's */
	double t_loo, m_loo;          /* refitted without this run (NAN: no_loo) */
	bool fits;
};

struct gp_cal_fit {
	char model[512];      /* "the default's calibratable form" or BASE's path */
	struct gp_cal_param *params;
	int nparams, nfitted;
	struct gp_cal_run *runs;
	int nruns;
	int n_time, n_mem;            /* measured figures of each kind */
	double objective;             /* mean squared relative error at the fit */
	double mape_time, mape_mem, spearman;   /* NAN where there is nothing to say */
	double loo_time, loo_mem;     /* MAPE of the leave-one-out predictions */
	int loo_n_time, loo_n_mem;    /* how many runs they cover */
	long evals;                   /* simulations of runs */
	char *text;                   /* OUT.lua */
	size_t len;
};

/* Fits the model to the runs paths[0..n); fills out (free it with
 * gp_cal_fit_free, also after a failure). */
int gp_calibrate(const char *const *paths, int n, const struct gp_cal_opts *o,
		 struct gp_cal_fit *out, struct gp_err *e);
void gp_cal_fit_free(struct gp_cal_fit *f);

/* MAPE (percent) of pred against meas over the entries where meas > 0;
 * NAN when there are none. */
double gp_cal_mape(const double *meas, const double *pred, int n);
/* Spearman's rank correlation (ties take their mean rank) of the pairs
 * where meas > 0; NAN for fewer than 2 or no spread. */
double gp_cal_spearman(const double *meas, const double *pred, int n);

#endif
