/*
 * fit.c: Nelder-Mead in the unit box (fit.h).
 *
 * The method as Lagarias, Reeds, Wright and Wright state it ("Convergence
 * properties of the Nelder-Mead simplex method in low dimensions", SIAM
 * J. Optim. 9, 1998): reflection 1, expansion 2, contraction 1/2, shrink
 * 1/2, with outside and inside contractions. Bounds as an extreme
 * barrier: a trial point outside [0,1]^k is worse than any point inside
 * and is never evaluated, so the simplex contracts away from the face
 * instead of being flattened onto it (clamping would leave it unable to
 * leave the face again), and approaches an optimum on a bound as closely
 * as the tolerance asks. Ties in the ordering keep the older point first,
 * so the search is deterministic.
 */
#include "fit.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

struct nm {
	gp_fit_fn f;
	void *ud;
	int k, evals, max_evals, stop;
	double p[GP_FIT_MAX_DIM + 1][GP_FIT_MAX_DIM];
	double v[GP_FIT_MAX_DIM + 1];
};

static double eval(struct nm *s, double *x)
{
	for (int i = 0; i < s->k; i++)
		if (!(x[i] >= 0 && x[i] <= 1))
			return HUGE_VAL;
	s->evals++;
	double v = s->f(s->ud, x, &s->stop);
	return isfinite(v) ? v : HUGE_VAL;
}

/* Insertion sort by value; equal values keep their order. */
static void order(struct nm *s)
{
	for (int i = 1; i <= s->k; i++) {
		double v = s->v[i], x[GP_FIT_MAX_DIM];
		memcpy(x, s->p[i], sizeof x);
		int j = i - 1;
		for (; j >= 0 && s->v[j] > v; j--) {
			s->v[j + 1] = s->v[j];
			memcpy(s->p[j + 1], s->p[j], sizeof x);
		}
		s->v[j + 1] = v;
		memcpy(s->p[j + 1], x, sizeof x);
	}
}

static bool converged(const struct nm *s, double ftol, double fatol, double xtol)
{
	if (s->v[s->k] - s->v[0] > ftol * fabs(s->v[0]) + fatol)
		return false;
	for (int i = 1; i <= s->k; i++)
		for (int j = 0; j < s->k; j++)
			if (fabs(s->p[i][j] - s->p[0][j]) > xtol)
				return false;
	return true;
}

/* c + t (a - c) */
static void along(int k, const double *c, const double *a, double t, double *out)
{
	for (int i = 0; i < k; i++)
		out[i] = c[i] + t * (a[i] - c[i]);
}

static void put(struct nm *s, int i, const double *x, double v)
{
	memcpy(s->p[i], x, sizeof s->p[i]);
	s->v[i] = v;
}

static void shrink(struct nm *s)
{
	for (int i = 1; i <= s->k && !s->stop; i++) {
		along(s->k, s->p[0], s->p[i], 0.5, s->p[i]);
		s->v[i] = eval(s, s->p[i]);
	}
}

/* One iteration on an ordered simplex. */
static void step(struct nm *s)
{
	int k = s->k;
	double c[GP_FIT_MAX_DIM] = { 0 }, xr[GP_FIT_MAX_DIM], xt[GP_FIT_MAX_DIM];
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++)
			c[j] += s->p[i][j] / k;
	along(k, c, s->p[k], -1, xr);
	double fr = eval(s, xr);
	if (fr < s->v[0]) {
		along(k, c, xr, 2, xt);
		double fe = eval(s, xt);
		if (fe < fr)
			put(s, k, xt, fe);
		else
			put(s, k, xr, fr);
	} else if (fr < s->v[k - 1]) {
		put(s, k, xr, fr);
	} else if (fr < s->v[k]) {
		along(k, c, xr, 0.5, xt);
		double fc = eval(s, xt);
		if (fc <= fr)
			put(s, k, xt, fc);
		else
			shrink(s);
	} else {
		along(k, c, s->p[k], 0.5, xt);
		double fc = eval(s, xt);
		if (fc < s->v[k])
			put(s, k, xt, fc);
		else
			shrink(s);
	}
}

double gp_fit_nelder_mead(gp_fit_fn f, void *ud, int k, double *x,
			  const struct gp_fit_opts *o, int *evals)
{
	if (k < 1 || k > GP_FIT_MAX_DIM)
		return NAN;
	static const struct gp_fit_opts none;
	o = o ? o : &none;
	double h = o->step > 0 ? o->step : 0.25;
	double ftol = o->ftol > 0 ? o->ftol : 1e-12, xtol = o->xtol > 0 ? o->xtol : 1e-7;
	struct nm s = { .f = f, .ud = ud, .k = k,
			.max_evals = o->max_evals > 0 ? o->max_evals : 200 * (k + 1) };
	memcpy(s.p[0], x, sizeof(double) * (size_t)k);
	s.v[0] = eval(&s, s.p[0]);
	for (int i = 1; i <= k && !s.stop; i++) {
		memcpy(s.p[i], s.p[0], sizeof(double) * (size_t)k);
		int j = i - 1;
		s.p[i][j] += s.p[0][j] + h <= 1 ? h : -h;
		s.v[i] = eval(&s, s.p[i]);
	}
	/* Every iteration evaluates a point inside the box (a contraction
	 * toward the centroid at least), so this ends. */
	for (int it = 0; !s.stop && s.evals < s.max_evals && it < s.max_evals; it++) {
		order(&s);
		if (converged(&s, ftol, o->fatol, xtol))
			break;
		step(&s);
	}
	order(&s);
	memcpy(x, s.p[0], sizeof(double) * (size_t)k);
	if (evals)
		*evals += s.evals;
	return s.stop ? NAN : s.v[0];
}

/* Each coordinate within snap of a face, tried on the face: kept when
 * no worse (an optimum on a bound, which the barrier only approaches). */
static double snap(gp_fit_fn f, void *ud, int k, double d, double *x, double v, int *evals)
{
	for (int i = 0; i < k && d > 0; i++) {
		double keep = x[i], face = x[i] < d ? 0 : x[i] > 1 - d ? 1 : keep;
		if (face == keep)
			continue;
		int stop = 0;
		x[i] = face;
		double w = f(ud, x, &stop);
		if (evals)
			++*evals;
		if (stop)
			return NAN;
		if (isfinite(w) && w <= v)
			v = w;
		else
			x[i] = keep;
	}
	return v;
}

double gp_fit_search(gp_fit_fn f, void *ud, int k, const struct gp_fit_plan *p, double *x,
		     int *evals)
{
	double best = HUGE_VAL, y[GP_FIT_MAX_DIM];
	if (k < 1 || k > GP_FIT_MAX_DIM || p->nstarts < 1)
		return NAN;
	memcpy(x, p->starts, sizeof(double) * (size_t)k);
	for (int i = 0; i < p->nstarts + p->npolish; i++) {
		const double *from = i < p->nstarts ? p->starts + (size_t)i * (size_t)k : x;
		const struct gp_fit_opts *o = i < p->nstarts ? &p->explore : &p->polish[i - p->nstarts];
		memcpy(y, from, sizeof(double) * (size_t)k);
		double v = gp_fit_nelder_mead(f, ud, k, y, o, evals);
		if (isnan(v))
			return NAN;
		if (v < best) {
			best = v;
			memcpy(x, y, sizeof(double) * (size_t)k);
		}
	}
	/* The last point evaluated was not necessarily x: evaluate x last, so
	 * the caller's state is x's. */
	double v = snap(f, ud, k, p->snap, x, best, evals);
	int stop = 0;
	if (isnan(v))
		return NAN;
	v = f(ud, x, &stop);
	if (evals)
		++*evals;
	return stop ? NAN : v;
}
