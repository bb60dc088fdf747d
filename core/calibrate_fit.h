/*
 * calibrate_fit.h: internal to calibrate.c (runs, model, output) and
 * calibrate_fit.c (what the data sees, the fit, leave-one-out,
 * sensitivity).
 */
#ifndef GP_CALIBRATE_FIT_H
#define GP_CALIBRATE_FIT_H

#include "calibrate_int.h"
#include "fit.h"
#include "run.h"

struct cal_run {
	struct gp_run r;
	const char *path;
	double t_meas, m_meas;      /* 0: not measured */
	double t, m;                /* predicted at the last evaluation */
	double t_loo, m_loo;
	bool fits;
	char fit_msg[512];
};

/* Bits of seen[i * n + j]: parameter i moves run j's time, its peak. */
enum { SEEN_T = 1, SEEN_M = 2 };

struct cal {
	const struct gp_cal_opts *o;
	struct gp_lua_cost *lc;     /* the model being fitted */
	char *text;                 /* BASE's text */
	size_t len;
	struct cal_form form;       /* without BASE */
	struct cal_run *runs;
	int n;
	struct gp_cal_param *par;   /* mirrors the model's params, in its order */
	int np;
	unsigned char *seen;
	long evals;
	/* The search in progress: the params it moves and the runs it
	 * scores, and the first error an evaluation met. */
	int idx[GP_FIT_MAX_DIM];
	int k;
	const bool *use;
	struct gp_err err;
	bool failed;
};

/* Predicts run j (or every run in use, NULL: all) under the model's
 * current params. */
int cal_eval_run(struct cal *c, int j, struct gp_err *e);
int cal_eval(struct cal *c, const bool *use, struct gp_err *e);
/* Sets parameter i to v (clamped to its bounds). */
int cal_set(struct cal *c, int i, double v, struct gp_err *e);

/* What the data sees, the fit, leave-one-out and sensitivity: c->par
 * and the runs' predictions end at the fit; out gets the fit's figures
 * that are not per run. */
int cal_fit_all(struct cal *c, struct gp_cal_fit *out, struct gp_err *e);

#endif
