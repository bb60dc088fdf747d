/*
 * calibrate_fit.c: what the measured figures can see of the model, the
 * fit, leave-one-out and each parameter's sensitivity
 * (calibrate_fit.h, calibrate.h).
 *
 * A parameter is seen by a run when moving it by a tenth of its range
 * moves that run's prediction; it is fitted when some measured figure
 * sees it. The objective is the mean squared relative error over the
 * measured figures of the runs in use; the search is Nelder-Mead in the
 * fitted params' unit box (fit.h) from their defaults and from the
 * box's centre, restarted around the best point with smaller simplices.
 * Leave-one-out repeats the same fit, from the same starts, without
 * each run in turn and predicts it; a parameter only the left-out run
 * sees stays at its default for that fit.
 */
#include "calibrate_fit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- figures ---------------------------------------------------------- */

double gp_cal_mape(const double *meas, const double *pred, int n)
{
	double s = 0;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (meas[i] > 0 && isfinite(pred[i])) {
			s += fabs(pred[i] - meas[i]) / meas[i];
			k++;
		}
	return k ? 100 * s / k : NAN;
}

/* Mean ranks (1-based) of v[0..n). */
static void ranks(const double *v, int n, double *rk)
{
	for (int i = 0; i < n; i++) {
		int less = 0, eq = 0;
		for (int j = 0; j < n; j++) {
			less += v[j] < v[i];
			eq += v[j] == v[i];
		}
		rk[i] = less + (eq + 1) / 2.0;
	}
}

double gp_cal_spearman(const double *meas, const double *pred, int n)
{
	double *a = calloc((size_t)n * 4 + 1, sizeof *a);
	if (!a)
		return NAN;
	double *b = a + n, *ra = b + n, *rb = ra + n;
	int k = 0;
	for (int i = 0; i < n; i++)
		if (meas[i] > 0 && isfinite(pred[i])) {
			a[k] = meas[i];
			b[k++] = pred[i];
		}
	ranks(a, k, ra);
	ranks(b, k, rb);
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;
	for (int i = 0; i < k; i++) {
		ma += ra[i] / k;
		mb += rb[i] / k;
	}
	for (int i = 0; i < k; i++) {
		sab += (ra[i] - ma) * (rb[i] - mb);
		saa += (ra[i] - ma) * (ra[i] - ma);
		sbb += (rb[i] - mb) * (rb[i] - mb);
	}
	free(a);
	return k >= 2 && saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/* Mean squared relative error over the measured figures of the runs in
 * use (NULL: all). */
static double msre(const struct cal *c, const bool *use)
{
	double s = 0;
	int k = 0;
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *r = &c->runs[j];
		if (use && !use[j])
			continue;
		if (r->t_meas > 0) {
			double d = (r->t - r->t_meas) / r->t_meas;
			s += d * d;
			k++;
		}
		if (r->m_meas > 0) {
			double d = (r->m - r->m_meas) / r->m_meas;
			s += d * d;
			k++;
		}
	}
	return k ? s / k : 0;
}

/* --- what the data sees ----------------------------------------------- */

static bool moves(const struct cal *c, int i, int bit, bool measured_only, const bool *use)
{
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *r = &c->runs[j];
		bool meas = bit == SEEN_T ? r->t_meas > 0 : r->m_meas > 0;
		if ((c->seen[i * c->n + j] & bit) && (!measured_only || meas) && (!use || use[j]))
			return true;
	}
	return false;
}

/* Moves each free parameter by a tenth of its range and notes which
 * predictions move; the runs end with their predictions at the
 * defaults. */
static int find_seen(struct cal *c, struct gp_err *e)
{
	c->seen = calloc((size_t)c->np * (size_t)c->n + 1, 1);
	double *t0 = calloc((size_t)c->n * 2 + 1, sizeof *t0);
	int rc = !c->seen || !t0 ? gp_errf(e, "out of memory") : cal_eval(c, NULL, e);
	double *m0 = t0 + c->n;
	for (int j = 0; !rc && j < c->n; j++) {
		t0[j] = c->runs[j].t;
		m0[j] = c->runs[j].m;
	}
	for (int i = 0; !rc && i < c->np; i++) {
		struct gp_cal_param *p = &c->par[i];
		if (!(p->min < p->max))
			continue;
		double v = p->def + 0.1 * (p->max - p->min);
		rc = cal_set(c, i, v > p->max ? p->def - 0.1 * (p->max - p->min) : v, e) ||
		     cal_eval(c, NULL, e) || cal_set(c, i, p->def, e);
		for (int j = 0; !rc && j < c->n; j++) {
			const struct cal_run *r = &c->runs[j];
			unsigned char *s = &c->seen[i * c->n + j];
			*s |= fabs(r->t - t0[j]) > 1e-9 * t0[j] ? SEEN_T : 0;
			*s |= fabs(r->m - m0[j]) > 1e-9 * m0[j] ? SEEN_M : 0;
		}
	}
	if (!rc)
		rc = cal_eval(c, NULL, e);
	free(t0);
	return rc;
}

static void classify(struct cal *c)
{
	for (int i = 0; i < c->np; i++) {
		struct gp_cal_param *p = &c->par[i];
		p->seen_time = moves(c, i, SEEN_T, true, NULL);
		p->seen_mem = moves(c, i, SEEN_M, true, NULL);
		bool mt = moves(c, i, SEEN_T, false, NULL), mm = moves(c, i, SEEN_M, false, NULL);
		p->state = GP_CAL_FITTED;
		p->why[0] = 0;
		if (!(p->min < p->max)) {
			p->state = GP_CAL_FIXED;
			snprintf(p->why, sizeof p->why, "fixed by its bounds (min = max)");
		} else if (!p->seen_time && !p->seen_mem) {
			p->state = GP_CAL_UNSEEN;
			snprintf(p->why, sizeof p->why, "%s",
				 mm && !mt ? "moves only peak memory, and no run measures peak_memory" :
				 mt && !mm ? "moves only iteration time, and no run measures iteration_time" :
				 "moves no prediction of these runs");
		}
	}
}

/* The search's params over the runs in use: the fitted ones a measured
 * figure of those runs sees. */
static void pick(struct cal *c, const bool *use)
{
	c->k = 0;
	for (int i = 0; i < c->np && c->k < GP_FIT_MAX_DIM; i++)
		if (c->par[i].state == GP_CAL_FITTED &&
		    (moves(c, i, SEEN_T, true, use) || moves(c, i, SEEN_M, true, use)))
			c->idx[c->k++] = i;
}

/* k params seen by one kind of figure need k + 1 figures of it (one to
 * spare, so the residuals and leave-one-out mean something); else why
 * not, into msg. */
static bool enough(const struct cal *c, char *msg, size_t n)
{
	const int spare = 1;
	for (int bit = SEEN_T; bit <= SEEN_M; bit <<= 1) {
		int k = 0, figs = 0;
		char names[256] = "";
		for (int i = 0; i < c->k; i++)
			if (moves(c, c->idx[i], bit, true, NULL)) {
				size_t l = strlen(names);
				snprintf(names + l, sizeof names - l, "%s%s", k ? ", " : "",
					 c->par[c->idx[i]].name);
				k++;
			}
		for (int j = 0; j < c->n; j++)
			figs += bit == SEEN_T ? c->runs[j].t_meas > 0 : c->runs[j].m_meas > 0;
		if (k > 0 && k > figs - spare) {
			const char *what = bit == SEEN_T ? "iteration_time" : "peak_memory";
			snprintf(msg, n, "%d parameter%s move%s the measured %s (%s) but %d run%s measure%s it: "
				 "fitting k parameters takes at least k + %d measured figures of a kind. "
				 "Add %d more run%s with measured %s, or fix parameters (min = max) in a --cost-model script",
				 k, k == 1 ? "" : "s", k == 1 ? "s" : "", what, names, figs,
				 figs == 1 ? "" : "s", figs == 1 ? "s" : "", spare, k + spare - figs,
				 k + spare - figs == 1 ? "" : "s", what);
			return false;
		}
	}
	return true;
}

/* --- the search ------------------------------------------------------- */

static double objective(void *ud, const double *x, int *stop)
{
	struct cal *c = ud;
	for (int i = 0; i < c->k && !c->failed; i++) {
		const struct gp_cal_param *p = &c->par[c->idx[i]];
		c->failed = cal_set(c, c->idx[i], p->min + x[i] * (p->max - p->min), &c->err) != 0;
	}
	if (!c->failed)
		c->failed = cal_eval(c, c->use, &c->err) != 0;
	if (c->failed) {
		*stop = 1;
		return NAN;
	}
	return msre(c, c->use);
}

/* Every fitted param back at its default. */
static int reset(struct cal *c, struct gp_err *e)
{
	for (int i = 0; i < c->np; i++)
		if (c->par[i].state == GP_CAL_FITTED && cal_set(c, i, c->par[i].def, e))
			return -1;
	return 0;
}

/* Parameter i and i2 see a common measured figure of the runs in use. */
static bool linked(const struct cal *c, int i, int i2, const bool *use)
{
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *r = &c->runs[j];
		int meas = (r->t_meas > 0 ? SEEN_T : 0) | (r->m_meas > 0 ? SEEN_M : 0);
		if ((!use || use[j]) && (c->seen[i * c->n + j] & c->seen[i2 * c->n + j] & meas))
			return true;
	}
	return false;
}

/* The picked params as groups that share no measured figure (each
 * group's part of the objective moves with its params alone): comp[i]
 * is the group of idx[i], numbered from 0 in order of first appearance;
 * returns how many. */
static int groups(const struct cal *c, const bool *use, int *comp)
{
	int n = 0;
	for (int i = 0; i < c->k; i++)
		comp[i] = -1;
	for (int i = 0; i < c->k; i++) {
		if (comp[i] >= 0)
			continue;
		comp[i] = n;
		for (bool grew = true; grew;) {
			grew = false;
			for (int a = 0; a < c->k; a++)
				for (int b = 0; b < c->k; b++)
					if (comp[a] == n && comp[b] < 0 &&
					    linked(c, c->idx[a], c->idx[b], use)) {
						comp[b] = n;
						grew = true;
					}
		}
		n++;
	}
	return n;
}

/* Nelder-Mead over c->idx[0..k): coarse from the defaults and from the
 * box's centre, then polished around the better end; the params end at
 * the best point. Tolerances in box units (a range is 1) and in the
 * objective: the polish stops when its points agree to 1e-4 of each
 * range and their errors to 1e-7 (relative), or every figure fits to an
 * RMS relative error of 1e-7, far below any measurement's. */
static int search_group(struct cal *c, struct gp_err *e)
{
	double starts[2 * GP_FIT_MAX_DIM], x[GP_FIT_MAX_DIM];
	int k = c->k;
	struct gp_fit_plan plan = {
		.starts = starts, .nstarts = 2,
		.explore = { .step = 0.25, .ftol = 1e30, .xtol = 2e-2 },
		.polish = { { .step = 0.05, .ftol = 1e30, .xtol = 1e-4 } },
		.npolish = 1, .snap = 1e-3,
	};
	for (int i = 0; i < k; i++) {
		const struct gp_cal_param *p = &c->par[c->idx[i]];
		starts[i] = (p->def - p->min) / (p->max - p->min);
		starts[k + i] = 0.5;
	}
	int evals = 0;
	c->failed = false;
	gp_fit_search(objective, c, k, &plan, x, &evals);
	if (c->failed) {
		*e = c->err;
		return -1;
	}
	return 0;
}

/* The runs in use with a measured figure that one of c->idx sees: the
 * only ones whose part of the objective the group moves. */
static void group_runs(const struct cal *c, const bool *use, bool *mine)
{
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *r = &c->runs[j];
		int meas = (r->t_meas > 0 ? SEEN_T : 0) | (r->m_meas > 0 ? SEEN_M : 0);
		mine[j] = false;
		for (int i = 0; i < c->k && (!use || use[j]); i++)
			mine[j] |= (c->seen[c->idx[i] * c->n + j] & meas) != 0;
	}
}

/* Fits the picked params to the runs in use, group by group, each
 * simulating only its own runs; they end at the best point, with the
 * predictions of every run in use. */
static int search(struct cal *c, const bool *use, struct gp_err *e)
{
	if (reset(c, e))
		return -1;
	int all[GP_FIT_MAX_DIM], comp[GP_FIT_MAX_DIM], k = c->k;
	bool *mine = calloc((size_t)c->n, sizeof *mine);
	if (!mine)
		return gp_errf(e, "out of memory");
	memcpy(all, c->idx, sizeof all);
	int ng = groups(c, use, comp), rc = 0;
	for (int g = 0; g < ng && !rc; g++) {
		c->k = 0;
		for (int i = 0; i < k; i++)
			if (comp[i] == g)
				c->idx[c->k++] = all[i];
		group_runs(c, use, mine);
		c->use = mine;
		rc = search_group(c, e);
	}
	memcpy(c->idx, all, sizeof all);
	c->k = k;
	c->use = NULL;
	free(mine);
	return rc ? rc : cal_eval(c, use, e);
}

/* --- after the fit ---------------------------------------------------- */

static int leave_one_out(struct cal *c, struct gp_cal_fit *out, struct gp_err *e)
{
	bool *use = calloc((size_t)c->n, sizeof *use);
	double *v = calloc((size_t)c->np + 1, sizeof *v);
	double *arr = calloc((size_t)c->n * 4 + 1, sizeof *arr);
	int rc = use && v && arr ? 0 : gp_errf(e, "out of memory");
	for (int i = 0; !rc && i < c->np; i++)
		v[i] = c->par[i].value;
	/* Without one run, each kind of figure has at least as many figures
	 * left as the params it still sees (the fit had one to spare), so
	 * every run can be left out. */
	for (int j = 0; !rc && j < c->n; j++) {
		struct cal_run *r = &c->runs[j];
		for (int i = 0; i < c->n; i++)
			use[i] = i != j;
		pick(c, use);
		rc = search(c, use, e) || cal_eval_run(c, j, e);
		r->t_loo = r->t;
		r->m_loo = r->m;
	}
	for (int i = 0; !rc && i < c->np; i++)
		rc = cal_set(c, i, v[i], e);
	if (!rc)
		rc = cal_eval(c, NULL, e);
	double *tm = arr, *tl = arr + c->n, *mm = tl + c->n, *ml = mm + c->n;
	for (int j = 0; !rc && j < c->n; j++) {
		tm[j] = c->runs[j].t_meas;
		tl[j] = c->runs[j].t_loo;
		mm[j] = c->runs[j].m_meas;
		ml[j] = c->runs[j].m_loo;
		out->loo_n_time += tm[j] > 0 && isfinite(tl[j]);
		out->loo_n_mem += mm[j] > 0 && isfinite(ml[j]);
	}
	out->loo_time = gp_cal_mape(tm, tl, c->n);
	out->loo_mem = gp_cal_mape(mm, ml, c->n);
	free(use);
	free(v);
	free(arr);
	return rc;
}

/* Each fitted parameter 10 % up (or as calibrate.h says at 0 and at
 * the upper bound): how the predictions and the time MAPE move. */
static int sensitivity(struct cal *c, struct gp_err *e)
{
	double *arr = calloc((size_t)c->n * 4 + 1, sizeof *arr);
	if (!arr)
		return gp_errf(e, "out of memory");
	double *t0 = arr, *m0 = t0 + c->n, *tm = m0 + c->n, *after = tm + c->n;
	for (int j = 0; j < c->n; j++) {
		t0[j] = c->runs[j].t;
		m0[j] = c->runs[j].m;
		tm[j] = c->runs[j].t_meas;
	}
	int rc = 0;
	for (int i = 0; !rc && i < c->np; i++) {
		struct gp_cal_param *p = &c->par[i];
		if (p->state != GP_CAL_FITTED)
			continue;
		double v = p->value, d = v != 0 ? 0.1 * fabs(v) : 0.1 * (p->max - p->min);
		rc = cal_set(c, i, v + d > p->max ? v - d : v + d, e) || cal_eval(c, NULL, e);
		p->step = p->value - v;
		double st = 0, sm = 0;
		int nm = 0;
		for (int j = 0; !rc && j < c->n; j++) {
			after[j] = c->runs[j].t;
			st += c->runs[j].t / t0[j] - 1;
			if (m0[j] > 0) {
				sm += c->runs[j].m / m0[j] - 1;
				nm++;
			}
		}
		p->dtime = 100 * st / c->n;
		p->dmem = nm ? 100 * sm / nm : 0;
		p->mape_after = gp_cal_mape(tm, after, c->n);
		if (!rc)
			rc = cal_set(c, i, v, e);
	}
	if (!rc)
		rc = cal_eval(c, NULL, e);
	free(arr);
	return rc;
}

/* A run that ran must fit; at the defaults only when no memory param
 * will be fitted (else the fit may explain it). */
static int check_fits(const struct cal *c, bool fitted, struct gp_err *e)
{
	bool mem = false;
	for (int i = 0; i < c->k; i++)
		mem |= c->par[c->idx[i]].seen_mem;
	if (!fitted && mem)
		return 0;
	for (int j = 0; j < c->n; j++) {
		const struct cal_run *r = &c->runs[j];
		if (r->fits)
			continue;
		if (fitted)
			return gp_errf(e, "%s: the plan does not fit in memory under the fitted model either (%s), yet it ran: check the plan and its measured peak_memory",
				       r->path, r->fit_msg);
		return gp_errf(e, "%s: the plan does not fit in memory under the model (%s), yet it ran: give its measured peak_memory so calibrate fits the memory parameters, or check the plan",
			       r->path, r->fit_msg);
	}
	return 0;
}

int cal_fit_all(struct cal *c, struct gp_cal_fit *out, struct gp_err *e)
{
	if (find_seen(c, e))
		return -1;
	classify(c);
	pick(c, NULL);
	char why[512];
	if (c->k == 0)
		return gp_errf(e, "nothing to fit: no free parameter of %s moves a measured figure of these runs",
			       out->model);
	if (!enough(c, why, sizeof why))
		return gp_errf(e, "%s", why);
	if (check_fits(c, false, e) || search(c, NULL, e) || check_fits(c, true, e))
		return -1;
	out->objective = msre(c, NULL);
	for (int i = 0; i < c->np; i++)
		out->nfitted += c->par[i].state == GP_CAL_FITTED;
	if (c->o->no_loo) {
		for (int j = 0; j < c->n; j++)
			c->runs[j].t_loo = c->runs[j].m_loo = NAN;
		out->loo_time = out->loo_mem = NAN;
	} else if (leave_one_out(c, out, e)) {
		return -1;
	}
	return sensitivity(c, e);
}
