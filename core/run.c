/*
 * run.c: the pipeline as one value (run.h).
 *
 * A scenario is always loaded whole, the file and every override in
 * order, so what a run holds is exactly what the same command line
 * would load. When the file's plan no longer validates after the
 * overrides (a pool made smaller, say), the scenario is loaded without
 * it and plan_note says why: planning does not need it.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const no_plan = "plan=nil";

void gp_run_init(struct gp_run *r)
{
	memset(r, 0, sizeof *r);
	atomic_init(&r->cancel, 0);
}

static void drop_engine_plan(struct gp_run *r)
{
	if (r->src == GP_SRC_ENGINE)
		gp_plan_free(&r->plan);
	r->plan = (struct gp_plan){ 0 };
	r->src = GP_SRC_NONE;
	r->has_rep = false;
}

void gp_run_free(struct gp_run *r)
{
	drop_engine_plan(r);
	if (r->has_res)
		gp_result_free(&r->res);
	gp_costtab_free(r->costs);
	gp_lua_cost_free(r->script);
	gp_lua_heur_free(r->heur);
	gp_scenario_free(r->sc);
	for (int i = 0; i < r->nsets; i++)
		free(r->sets[i]);
	free(r->sets);
	free(r->path);
	memset(r, 0, sizeof *r);
}

/* path with sets[0..n); with plan_optional, on a plan that fails, the
 * scenario without it and *note saying why. */
static struct gp_scenario *load(const char *path, char *const *sets, int n, bool plan_optional,
				char *note, size_t nn, struct gp_err *e)
{
	const char **all = malloc(sizeof *all * ((size_t)n + 1));
	if (!all) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	for (int i = 0; i < n; i++)
		all[i] = sets[i];
	note[0] = 0;
	struct gp_scenario *s = gp_scenario_load_set(path, all, n, e);
	if (!s && plan_optional) {
		struct gp_err e2 = { "" };
		all[n] = no_plan;
		s = gp_scenario_load_set(path, all, n + 1, &e2);
		if (s)
			snprintf(note, nn, "%s", e->msg);   /* the plan's fault */
		else
			*e = e2;
	}
	free(all);
	return s;
}

static void look_at_file_plan(struct gp_run *r)
{
	if (r->src == GP_SRC_ENGINE)
		return;
	r->src = r->sc->has_plan ? GP_SRC_FILE : GP_SRC_NONE;
	r->plan = r->sc->has_plan ? r->sc->plan : (struct gp_plan){ 0 };
}

static int push_set(struct gp_run *r, const char *set, struct gp_err *e)
{
	if (r->nsets == r->capsets) {
		int nc = r->capsets ? 2 * r->capsets : 16;
		char **ns = realloc(r->sets, sizeof *ns * (size_t)nc);
		if (!ns)
			return gp_errf(e, "out of memory");
		r->sets = ns;
		r->capsets = nc;
	}
	char read[256];
	if (r->xlate && strlen(set) < sizeof read) {   /* unit words are short */
		r->xlate(set, read, sizeof read);
		set = read;
	}
	r->sets[r->nsets] = strdup(set);
	if (!r->sets[r->nsets])
		return gp_errf(e, "out of memory");
	r->nsets++;
	return 0;
}

/* The cost-model script s runs under: --cost-model, else its own, or "". */
static void wanted_script(const struct gp_run *r, const struct gp_scenario *s, char *out,
			  size_t n)
{
	if (r->cost_path)
		snprintf(out, n, "%s", r->cost_path);
	else if (s->cost_model[0])
		gp_scenario_script_path(s, s->cost_model, out, n);
	else
		out[0] = 0;
}

/* Tables for s under the script it wants, loaded anew when it is not the
 * one in use (*lc then is the new one, else NULL). */
static struct gp_costtab *tables_for(const struct gp_run *r, const struct gp_scenario *s,
				     struct gp_lua_cost **lc, struct gp_err *e)
{
	char want[sizeof r->script_path];
	wanted_script(r, s, want, sizeof want);
	*lc = NULL;
	const struct gp_cost_model *cm = r->script ? gp_lua_cost_model(r->script) : r->cm;
	if (strcmp(want, r->script_path)) {
		if (want[0]) {
			*lc = gp_lua_cost_load(want, e);
			if (!*lc)
				return NULL;
			gp_lua_cost_set_log(*lc, r->log, r->log_ud);
		}
		cm = *lc ? gp_lua_cost_model(*lc) : r->cm;
	}
	struct gp_costtab *ct = gp_costtab_new(s, cm, e);
	if (!ct) {
		gp_lua_cost_free(*lc);
		*lc = NULL;
	}
	return ct;
}

/* Makes lc (from tables_for) the script in use. */
static void use_script(struct gp_run *r, struct gp_lua_cost *lc, const struct gp_scenario *s)
{
	char want[sizeof r->script_path];
	wanted_script(r, s, want, sizeof want);
	if (!strcmp(want, r->script_path))
		return;
	gp_lua_cost_free(r->script);
	r->script = lc;
	snprintf(r->script_path, sizeof r->script_path, "%s", want);
}

/* The heuristic script s wants (--heuristic, else its own) into *h when
 * it is not the one loaded: 1, or 0 when nothing changes, -1 on error. */
static int heur_for(const struct gp_run *r, const struct gp_scenario *s,
		    struct gp_lua_heur **h, char *want, size_t n, struct gp_err *e)
{
	*h = NULL;
	if (r->heur_path)
		snprintf(want, n, "%s", r->heur_path);
	else if (s->heuristic[0])
		gp_scenario_script_path(s, s->heuristic, want, n);
	else
		want[0] = 0;
	if (!strcmp(want, r->heur_loaded))
		return 0;
	if (want[0] && !(*h = gp_lua_heur_load(want, e)))
		return -1;
	if (*h)
		gp_lua_heur_set_log(*h, r->log, r->log_ud);
	return 1;
}

static void use_heur(struct gp_run *r, struct gp_lua_heur *h, const char *path)
{
	gp_lua_heur_free(r->heur);
	r->heur = h;
	snprintf(r->heur_loaded, sizeof r->heur_loaded, "%s", path);
}

int gp_run_load(struct gp_run *r, const char *path, const char *const *sets, int n,
		struct gp_err *e)
{
	bool optional = r->plan_optional;
	const struct gp_cost_model *cm = r->cm;
	const char *cost_path = r->cost_path, *heur_path = r->heur_path;
	void (*log)(void *, const char *) = r->log;
	void *log_ud = r->log_ud;
	void (*xlate)(const char *, char *, size_t) = r->xlate;
	gp_run_free(r);
	gp_run_init(r);
	r->plan_optional = optional;
	r->cm = cm;
	r->cost_path = cost_path;
	r->heur_path = heur_path;
	r->log = log;
	r->log_ud = log_ud;
	r->xlate = xlate;
	r->path = strdup(path);
	if (!r->path)
		return gp_errf(e, "out of memory");
	for (int i = 0; i < n; i++)
		if (push_set(r, sets[i], e))
			return -1;
	r->sc = load(path, r->sets, r->nsets, r->plan_optional, r->plan_note, sizeof r->plan_note, e);
	if (!r->sc)
		return -1;
	struct gp_lua_cost *lc;
	r->costs = tables_for(r, r->sc, &lc, e);
	if (!r->costs)
		return -1;
	use_script(r, lc, r->sc);
	struct gp_lua_heur *h;
	char hp[sizeof r->heur_loaded];
	int hc = heur_for(r, r->sc, &h, hp, sizeof hp, e);
	if (hc < 0)
		return -1;
	if (hc)
		use_heur(r, h, hp);
	look_at_file_plan(r);
	r->stale = GP_STALE_RESULT;
	return 0;
}

/* Loads the file with r's overrides and makes it the last good
 * scenario; on failure the run is as it was but for its overrides,
 * which the caller restores. */
static int reload(struct gp_run *r, struct gp_err *e)
{
	char note[sizeof r->plan_note];
	struct gp_scenario *s = load(r->path, r->sets, r->nsets, r->plan_optional, note,
				     sizeof note, e);
	if (!s)
		return -1;
	struct gp_lua_heur *h;
	char hp[sizeof r->heur_loaded];
	int hc = heur_for(r, s, &h, hp, sizeof hp, e);
	if (hc < 0) {
		gp_scenario_free(s);
		return -1;
	}
	char want[sizeof r->script_path];
	wanted_script(r, s, want, sizeof want);
	if (strcmp(want, r->script_path)) {
		/* Another script: new tables, the old ones kept until they work. */
		struct gp_lua_cost *lc;
		struct gp_costtab *ct = tables_for(r, s, &lc, e);
		if (!ct) {
			gp_lua_heur_free(h);
			gp_scenario_free(s);
			return -1;
		}
		gp_costtab_free(r->costs);
		r->costs = ct;
		use_script(r, lc, s);
	} else if (gp_costtab_update(r->costs, s, e)) {
		/* Bring the tables back to the last good scenario. */
		gp_costtab_free(r->costs);
		r->costs = gp_costtab_new(r->sc, r->script ? gp_lua_cost_model(r->script) : r->cm,
					  NULL);
		gp_lua_heur_free(h);
		gp_scenario_free(s);
		return -1;
	}
	if (hc)
		use_heur(r, h, hp);
	bool same = gp_scenario_same(r->sc, s);
	bool file_plan = r->src == GP_SRC_FILE;
	bool plan_same = s->has_plan == r->sc->has_plan &&
			 (!s->has_plan || gp_plan_same(&s->plan, &r->sc->plan));
	if (!same)
		r->stale |= (r->src == GP_SRC_ENGINE ? GP_STALE_PLAN : 0) | GP_STALE_RESULT;
	if (file_plan && !plan_same)
		r->stale |= GP_STALE_RESULT;
	if (file_plan)
		r->src = GP_SRC_NONE;
	gp_scenario_free(r->sc);
	r->sc = s;
	snprintf(r->plan_note, sizeof r->plan_note, "%s", note);
	look_at_file_plan(r);
	return 0;
}

int gp_run_set(struct gp_run *r, const char *set, struct gp_err *e)
{
	if (!r->sc)
		return gp_errf(e, "no scenario loaded");
	if (push_set(r, set, e))
		return -1;
	if (reload(r, e)) {
		free(r->sets[--r->nsets]);
		return -1;
	}
	return 0;
}

int gp_run_truncate(struct gp_run *r, int n, struct gp_err *e)
{
	if (!r->sc)
		return gp_errf(e, "no scenario loaded");
	if (n < 0 || n > r->nsets)
		return gp_errf(e, "no override %d (there are %d)", n, r->nsets);
	int keep = r->nsets;
	r->nsets = n;
	if (reload(r, e)) {
		r->nsets = keep;
		return -1;
	}
	for (int i = n; i < keep; i++)
		free(r->sets[i]);
	return 0;
}

int gp_run_plan(struct gp_run *r, const struct gp_plan_req *rq, struct gp_err *e)
{
	if (!r->sc)
		return gp_errf(e, "no scenario loaded");
	struct gp_plan_req q = *rq;
	q.o.costs = r->costs;
	q.o.cancel = &r->cancel;
	q.o.progress = r->progress;
	q.o.progress_ud = r->progress_ud;
	q.o.heuristic = r->heur;
	/* A heuristic script's plan is where the exact engine starts. */
	const struct gp_engine *eng = q.engine ? q.engine : gp_engine_default();
	if (r->heur && !q.warm && !q.o.warm && (eng->flags & GP_ENGINE_EXACT) &&
	    (eng->flags & GP_ENGINE_WARM))
		q.warm = gp_engine_script();
	atomic_store(&r->cancel, 0);
	/* Engines plan for the scenario; its own plan is only a warm start. */
	struct gp_scenario view = *r->sc;
	view.has_plan = false;
	view.plan = (struct gp_plan){ 0 };
	struct gp_plan p;
	struct gp_plan_report rep;
	r->last_status = GP_MILP_ERROR;
	int rc = gp_plan_make(&view, &q, &p, &rep, e);
	r->last_status = rep.status;
	if (rc)
		return -1;
	drop_engine_plan(r);
	r->plan = p;
	r->rep = rep;
	r->has_rep = true;
	r->src = GP_SRC_ENGINE;
	r->stale = GP_STALE_RESULT;
	return 0;
}

const struct gp_plan *gp_run_plan_of(const struct gp_run *r)
{
	return r->src == GP_SRC_NONE ? NULL : &r->plan;
}

struct gp_plan gp_run_sim_plan(const struct gp_plan *p, const struct gp_sim_req *rq)
{
	struct gp_plan q = *p;
	if (rq->schedule >= 0) {
		q.schedule = (enum gp_sched)rq->schedule;
		if (q.schedule == GP_SCHED_INTERLEAVED && q.chunks < 2 && !rq->chunks)
			q.chunks = 2;
		if (q.schedule != GP_SCHED_INTERLEAVED && q.schedule != GP_SCHED_XDC_GREEDY &&
		    q.schedule != GP_SCHED_XDC_MILP)
			q.chunks = 1;
	}
	if (rq->chunks)
		q.chunks = rq->chunks;
	return q;
}

int gp_run_simulate(struct gp_run *r, const struct gp_sim_req *rq, struct gp_err *e)
{
	const struct gp_plan *p = r->sc ? gp_run_plan_of(r) : NULL;
	if (!p) {
		if (r->plan_note[0])
			return gp_errf(e, "%s: the file's plan is left out: %s", r->path, r->plan_note);
		return gp_errf(e, "%s: the scenario has no plan = { ... } to simulate (try geoplan plan)",
			       r->path ? r->path : "(none)");
	}
	/* The plan looked at runs the request's schedule from now on. */
	r->plan = gp_run_sim_plan(p, rq);
	const struct gp_plan q = r->plan;
	struct gp_sim_opts o = { .costs = r->costs, .record = rq->record,
				 .time_limit = rq->time_limit, .gap = rq->gap,
				 .cancel = &r->cancel };
	struct gp_result res;
	atomic_store(&r->cancel, 0);
	if (gp_simulate(r->sc, &q, &o, &res, e)) {
		gp_err_prefix(e, r->path);
		return -1;
	}
	if (r->src == GP_SRC_ENGINE && r->has_rep)
		gp_solver_info_of(&r->rep, r->sc->objective, &res.solver);
	snprintf(res.cost_model, sizeof res.cost_model, "%s", r->script_path);
	if (r->has_res)
		gp_result_free(&r->res);
	r->res = res;
	r->has_res = true;
	r->stale &= ~(unsigned)GP_STALE_RESULT;
	return 0;
}

void gp_run_cancel(struct gp_run *r)
{
	atomic_store(&r->cancel, 1);
}

int gp_run_check_pure(const struct gp_run *r, struct gp_err *e)
{
	if (!r->sc || !r->costs)
		return gp_errf(e, "no scenario loaded");
	struct gp_costtab *again = gp_costtab_new(r->sc, gp_costtab_model(r->costs), e);
	if (!again)
		return -1;
	char what[200];
	int rc = 0;
	if (!gp_costtab_same(r->costs, again, what, sizeof what))
		rc = gp_errf(e, "%s: the cost model is not pure: evaluated twice, %s differs (state kept between calls, in an upvalue or a table?)",
			     r->script_path[0] ? r->script_path : "the cost model", what);
	gp_costtab_free(again);
	return rc;
}
