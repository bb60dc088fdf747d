/*
 * whatif.c: sweeps and sensitivity (whatif.h).
 *
 * A sweep point is loaded whole (file and overrides) through a run of
 * its own, so it is what the same command line would give. Sensitivity
 * works on a copy of the run's scenario and one cost table that follows
 * each change: only the touched pool's or link's entries are evaluated
 * again.
 */
#include "whatif.h"
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *cat_value(const char *item, size_t plen, const char *v, size_t vlen)
{
	char *s = malloc(plen + vlen + 1);
	if (s) {
		memcpy(s, item, plen);
		memcpy(s + plen, v, vlen);
		s[plen + vlen] = 0;
	}
	return s;
}

/* Is *p a comma at depth 0, or the end? Tracks quotes and brackets. */
static bool at_split(const char *p, int *depth, char *quote)
{
	if (*quote) {
		if (*p == *quote)
			*quote = 0;
		return !*p;
	}
	if (*p == '"' || *p == '\'')
		*quote = *p;
	else if (*p == '(' || *p == '{' || *p == '[')
		++*depth;
	else if (*p == ')' || *p == '}' || *p == ']')
		--*depth;
	return (*p == ',' && *depth == 0) || !*p;
}

int gp_whatif_split(const char *item, char ***vals)
{
	const char *eq = strchr(item, '=');
	*vals = NULL;
	if (!eq)
		return 0;
	size_t plen = (size_t)(eq - item) + 1;
	int n = 0, depth = 0;
	char quote = 0;
	const char *start = eq + 1;
	for (const char *p = start;; p++) {
		if (!at_split(p, &depth, &quote))
			continue;
		char **nv = realloc(*vals, sizeof **vals * (size_t)(n + 1));
		char *v = nv ? cat_value(item, plen, start, (size_t)(p - start)) : NULL;
		if (!v) {
			for (int i = 0; i < n; i++)
				free((nv ? nv : *vals)[i]);
			free(nv ? nv : *vals);
			*vals = NULL;
			return -1;
		}
		*vals = nv;
		(*vals)[n++] = v;
		start = p + 1;
		if (!*p)
			break;
	}
	return n;
}

static void free_strs(char **v, int n)
{
	for (int i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void gp_sweep_free(struct gp_sweep *sw)
{
	free_strs(sw->base, sw->nbase);
	for (long k = 0; k < sw->n; k++)
		free_strs(sw->pts[k], sw->npt[k]);
	free(sw->pts);
	free(sw->npt);
	memset(sw, 0, sizeof *sw);
}

static int grow(struct gp_sweep *sw, long n, struct gp_err *e)
{
	char ***np = realloc(sw->pts, sizeof *np * (size_t)(n ? n : 1));
	if (np)
		sw->pts = np;
	int *nn = realloc(sw->npt, sizeof *nn * (size_t)(n ? n : 1));
	if (nn)
		sw->npt = nn;
	return np && nn ? 0 : gp_errf(e, "out of memory");
}

static int dup_into(char ***dst, const char *const *src, int n)
{
	*dst = calloc((size_t)n + 1, sizeof **dst);
	for (int i = 0; *dst && i < n; i++)
		if (!((*dst)[i] = strdup(src[i]))) {
			free_strs(*dst, i);
			*dst = NULL;
		}
	return *dst ? 0 : -1;
}

int gp_sweep_add(struct gp_sweep *sw, const char *const *sets, int n, struct gp_err *e)
{
	if (sw->n == GP_SWEEP_MAX_POINTS)
		return gp_errf(e, "at most %d points", GP_SWEEP_MAX_POINTS);
	if (grow(sw, sw->n + 1, e))
		return -1;
	if (dup_into(&sw->pts[sw->n], sets, n))
		return gp_errf(e, "out of memory");
	sw->npt[sw->n++] = n;
	return 0;
}

/* Point k of the product: axis x takes value (k / stride) % len[x]. */
static int add_product(struct gp_sweep *sw, char **const *axis, const int *len, int naxes,
		       long n, struct gp_err *e)
{
	const char *pt[GP_SWEEP_MAX_AXES];
	for (long k = 0; k < n; k++) {
		long rest = k;
		for (int x = naxes - 1; x >= 0; x--) {
			pt[x] = axis[x][rest % len[x]];
			rest /= len[x];
		}
		if (gp_sweep_add(sw, pt, naxes, e))
			return -1;
	}
	return 0;
}

int gp_sweep_product(struct gp_sweep *sw, const char *const *sets, int nsets,
		     struct gp_err *e)
{
	memset(sw, 0, sizeof *sw);
	char **axis[GP_SWEEP_MAX_AXES];
	int len[GP_SWEEP_MAX_AXES], naxes = 0, rc = 0;
	long n = 1;
	sw->base = calloc((size_t)nsets + 1, sizeof *sw->base);
	if (!sw->base)
		return gp_errf(e, "out of memory");
	for (int i = 0; i < nsets && rc == 0; i++) {
		char **vals;
		int nv = gp_whatif_split(sets[i], &vals);
		if (nv < 0) {
			rc = gp_errf(e, "out of memory");
		} else if (nv > 1 && naxes == GP_SWEEP_MAX_AXES) {
			free_strs(vals, nv);
			rc = gp_errf(e, "sweep: at most %d axes", GP_SWEEP_MAX_AXES);
		} else if (nv > 1) {
			axis[naxes] = vals;
			len[naxes++] = nv;
			n = n * nv > GP_SWEEP_MAX_POINTS ? GP_SWEEP_MAX_POINTS + 1 : n * nv;
		} else {
			free_strs(vals, nv);
			if (!(sw->base[sw->nbase] = strdup(sets[i])))
				rc = gp_errf(e, "out of memory");
			else
				sw->nbase++;
		}
	}
	if (rc == 0 && naxes == 0)
		rc = gp_errf(e, "sweep: give at least one --set PATH=v1,v2,... (or --points FILE)");
	if (rc == 0 && n > GP_SWEEP_MAX_POINTS)
		rc = gp_errf(e, "sweep: more than %d points", GP_SWEEP_MAX_POINTS);
	if (rc == 0)
		rc = add_product(sw, axis, len, naxes, n, e);
	for (int x = 0; x < naxes; x++)
		free_strs(axis[x], len[x]);
	if (rc)
		gp_sweep_free(sw);
	return rc;
}

int gp_sweep_point(const struct gp_sweep *sw, long k, const char *path,
		   const struct gp_plan_req *rq, const struct gp_sim_req *sim,
		   struct gp_metrics *out, struct gp_err *e)
{
	int n = sw->nbase + sw->npt[k];
	const char **sets = malloc(sizeof *sets * ((size_t)n + 1));
	if (!sets)
		return gp_errf(e, "out of memory");
	for (int i = 0; i < sw->nbase; i++)
		sets[i] = sw->base[i];
	for (int i = 0; i < sw->npt[k]; i++)
		sets[sw->nbase + i] = sw->pts[k][i];
	struct gp_run r;
	gp_run_init(&r);
	r.plan_optional = rq != NULL;   /* planning ignores the file's plan */
	r.cost_path = sw->cost_path;
	r.heur_path = sw->heur_path;
	r.xlate = sw->xlate;
	int rc = gp_run_load(&r, path, sets, n, e);
	if (rc == 0 && rq)
		rc = gp_run_plan(&r, rq, e);
	if (rc == 0)
		rc = gp_run_simulate(&r, sim, e);
	if (rc == 0) {
		bool gpus, egress;
		gp_report_prices(r.sc, gp_run_plan_of(&r), &r.res, &gpus, &egress);
		*out = (struct gp_metrics){ r.res.iteration_time, r.res.tokens_per_s, r.res.mfu,
					    r.res.usd_per_iteration, r.res.wan_bytes, r.res.fits,
					    gpus || egress, "" };
		gp_scenario_doubt(r.sc, out->doubt, sizeof out->doubt);
	}
	gp_run_free(&r);
	free(sets);
	return rc;
}

/* ------------------------------------------------------------------ */

struct sens {
	struct gp_scenario *s;
	struct gp_costtab *ct;
	struct gp_plan plan;
	struct gp_sim_opts o;
};

/* The iteration of the changed scenario, or NAN. */
static double sens_time(struct sens *x)
{
	struct gp_result r;
	struct gp_err e = { "" };
	if (gp_costtab_update(x->ct, x->s, &e) || gp_simulate(x->s, &x->plan, &x->o, &r, &e))
		return NAN;
	double t = r.iteration_time;
	gp_result_free(&r);
	return t;
}

/* Most saved first; ties in the order of the names, so the table is
 * the same on every libc. */
static int by_saved(const void *a, const void *b)
{
	const struct gp_knob *x = a, *y = b;
	if (x->saved != y->saved)
		return (x->saved < y->saved) - (x->saved > y->saved);
	int c = strcmp(x->what, y->what);
	return c ? c : strcmp(x->knob, y->knob);
}

/* The knob at g[*k] made: its label, then the iteration. */
static void sens_try(struct sens *x, struct gp_knob *g, int *k, const char *what,
		     const char *knob)
{
	snprintf(g[*k].what, sizeof g[*k].what, "%s", what);
	snprintf(g[*k].knob, sizeof g[*k].knob, "%s", knob);
	g[*k].t = sens_time(x);
	++*k;
}

/* The reverse direction of link i, or -1. */
static int reverse_of(const struct gp_scenario *s, int i)
{
	const struct gp_link *l = gp_find_link(s, s->links[i].to, s->links[i].from);
	return l ? (int)(l - s->links) : -1;
}

/* A pair of directions i and r whose bandwidths (or latencies) differ:
 * each direction alone as well, so the table tells which one matters. */
static void one_way_knobs(struct sens *x, int i, int r, struct gp_knob *g, int *k)
{
	struct gp_scenario *s = x->s;
	for (int fig = 0; fig < 2; fig++) {
		double a = fig ? s->links[i].latency : s->links[i].bandwidth;
		double b = fig ? s->links[r].latency : s->links[r].bandwidth;
		if (a == b)
			continue;
		for (int side = 0; side < 2; side++) {
			struct gp_link *l = &s->links[side ? r : i], keep = *l;
			char what[128];
			snprintf(what, sizeof what, "link %s -> %s", s->dcs[l->from].name,
				 s->dcs[l->to].name);
			if (fig)
				l->latency /= 1.1;
			else
				l->bandwidth *= 1.1;
			sens_try(x, g, k, what, fig ? "latency / 1.1" : "bandwidth x 1.1");
			*l = keep;
		}
	}
}

/* Each link the base iteration sends bytes over, both directions at once
 * (a faster link is faster both ways, and a direction made faster alone
 * leaves its twin the bottleneck of a ring): its bandwidth, then its
 * latency; a figure that differs between the two, each direction alone
 * too. A direction without a twin goes alone. */
static void link_knobs(struct sens *x, const struct gp_result *base, struct gp_knob *g, int *k,
		       int *skipped)
{
	struct gp_scenario *s = x->s;
	for (int i = 0; i < s->nlinks; i++) {
		int r = reverse_of(s, i);
		if (r >= 0 && r < i)
			continue;   /* the pair, from its first direction */
		bool busy = (i < base->nlinks && base->links[i].bytes > 0) ||
			    (r >= 0 && r < base->nlinks && base->links[r].bytes > 0);
		if (!busy) {
			*skipped += r >= 0 ? 2 : 1;
			continue;
		}
		struct gp_link keep = s->links[i], keep_r = r >= 0 ? s->links[r] : keep;
		char what[128];
		snprintf(what, sizeof what, "link %s %s %s", s->dcs[keep.from].name,
			 r >= 0 ? "<->" : "->", s->dcs[keep.to].name);
		s->links[i].bandwidth *= 1.1;
		if (r >= 0)
			s->links[r].bandwidth *= 1.1;
		sens_try(x, g, k, what, "bandwidth x 1.1");
		s->links[i] = keep;
		if (r >= 0)
			s->links[r] = keep_r;
		s->links[i].latency /= 1.1;
		if (r >= 0)
			s->links[r].latency /= 1.1;
		sens_try(x, g, k, what, "latency / 1.1");
		s->links[i] = keep;
		if (r >= 0) {
			s->links[r] = keep_r;
			one_way_knobs(x, i, r, g, k);
		}
	}
}

/* Every WAN link at once (after link_knobs made `pairs` rows): one link
 * made faster alone saves nothing where the others of its ring are as
 * slow, which this row shows. Only when there is more than one. */
static void all_links_knobs(struct sens *x, int pairs, struct gp_knob *g, int *k)
{
	struct gp_scenario *s = x->s;
	if (pairs < 2)
		return;
	struct gp_link *keep = malloc((size_t)s->nlinks * sizeof *keep);
	if (!keep)
		return;
	memcpy(keep, s->links, (size_t)s->nlinks * sizeof *keep);
	for (int kn = 0; kn < 2; kn++) {
		for (int i = 0; i < s->nlinks; i++) {
			if (kn == 0)
				s->links[i].bandwidth *= 1.1;
			else
				s->links[i].latency /= 1.1;
		}
		sens_try(x, g, k, "every WAN link, both ways", kn == 0 ? "bandwidth x 1.1" : "latency / 1.1");
		memcpy(s->links, keep, (size_t)s->nlinks * sizeof *keep);
	}
	free(keep);
}

/* A pool gets a private copy of its GPU type, so other pools of the
 * type stay as they are: compute (efficiency, capped at 1), NVLink and
 * NIC, each alone. */
static void pool_knob(struct sens *x, int d, int q, int which, const char *what,
		      struct gp_knob *g, int *k)
{
	struct gp_scenario *s = x->s;
	struct gp_pool *p = &s->dcs[d].pools[q], keep = *p;
	char knob[64];
	s->gpus[s->ngpus] = s->gpus[p->gpu];
	p->gpu = s->ngpus++;
	struct gp_gpu *gpu = &s->gpus[p->gpu];
	if (which == 0) {
		double eff = fmin(1, gpu->efficiency * 1.1);
		if (eff < gpu->efficiency * 1.1)
			snprintf(knob, sizeof knob, "compute x %.3g (efficiency 1)",
				 eff / gpu->efficiency);
		else
			snprintf(knob, sizeof knob, "compute x 1.1");
		gpu->efficiency = eff;
	} else if (which == 1) {
		p->nvlink *= 1.1;
		snprintf(knob, sizeof knob, "NVLink x 1.1");
	} else {
		p->network *= 1.1;
		snprintf(knob, sizeof knob, "NIC x 1.1");
	}
	sens_try(x, g, k, what, knob);
	*p = keep;
	s->ngpus--;
}

static void pool_knobs(struct sens *x, const bool *used, struct gp_knob *g, int *k,
		       int *skipped)
{
	struct gp_scenario *s = x->s;
	for (int d = 0, at = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, at++) {
			if (!used[at]) {
				++*skipped;
				continue;
			}
			const struct gp_pool *p = &s->dcs[d].pools[q];
			char what[128];
			snprintf(what, sizeof what, "pool %s/%s (%d GPUs)", s->dcs[d].name,
				 s->gpus[p->gpu].name, p->count);
			for (int which = 0; which < 3; which++)
				pool_knob(x, d, q, which, what, g, k);
		}
}

/* Which pools (numbered DC by DC) plan p puts a stage on. */
static bool *pools_used(const struct gp_scenario *s, const struct gp_plan *p, int *npools)
{
	int *off = calloc((size_t)s->ndcs + 1, sizeof *off);
	for (int d = 0; off && d < s->ndcs; d++)
		off[d + 1] = off[d] + s->dcs[d].npools;
	bool *used = off ? calloc((size_t)off[s->ndcs] + 1, sizeof *used) : NULL;
	for (int i = 0; used && i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++)
			used[off[p->pipes[i].stages[j].dc] + p->pipes[i].stages[j].pool] = true;
	*npools = off ? off[s->ndcs] : 0;
	free(off);
	return used;
}

int gp_whatif_sensitivity(const struct gp_run *r, const struct gp_sim_req *sim,
			  double *base, struct gp_knob **knobs, int *n, int *left_out,
			  struct gp_err *e)
{
	const struct gp_plan *p = gp_run_plan_of(r);
	if (!p || !r->has_res)
		return gp_errf(e, "sensitivity: simulate a plan first");
	*base = r->res.iteration_time;
	struct sens x = { .s = gp_scenario_dup(r->sc, 1) };
	int npools = 0;
	bool *used = pools_used(r->sc, p, &npools);
	int total = 4 * r->sc->nlinks + 2 + 3 * npools;   /* pairs, one-way, every link */
	struct gp_knob *g = calloc((size_t)total + 1, sizeof *g);
	struct gp_plan view = gp_run_sim_plan(p, sim);
	int rc = !x.s || !g || !used || gp_plan_copy(&x.plan, &view) ? gp_errf(e, "out of memory") : 0;
	if (rc == 0 && !(x.ct = gp_costtab_new(x.s, gp_costtab_model(r->costs), e)))
		rc = -1;
	if (rc == 0) {
		x.o = (struct gp_sim_opts){ .costs = x.ct, .time_limit = sim->time_limit,
					    .gap = sim->gap };
		int k = 0;
		*left_out = 0;
		link_knobs(&x, &r->res, g, &k, left_out);
		all_links_knobs(&x, k / 2, g, &k);
		pool_knobs(&x, used, g, &k, left_out);
		for (int i = 0; i < k; i++)
			g[i].saved = isnan(g[i].t) ? -HUGE_VAL : *base - g[i].t;
		qsort(g, (size_t)k, sizeof *g, by_saved);
		*knobs = g;
		*n = k;
	} else {
		free(g);
	}
	free(used);
	gp_plan_free(&x.plan);
	gp_costtab_free(x.ct);
	gp_scenario_free(x.s);
	return rc;
}
