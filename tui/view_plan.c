/*
 * view_plan.c: the plan screen: the simulated iteration's figures, how
 * the plan was found (the file's, or an engine's with its proof), and
 * the pipelines as rows of stages (DC, GPU, TP, layers, recomputation,
 * per micro-batch times, how busy, peak memory against capacity as a
 * bar), then the WAN links' traffic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "fmt.h"
#include "form.h"
#include "report.h"
#include "unused.h"

static void show(double v, enum gp_unit u, char *buf, size_t n)
{
	gp_unit_format(v, u, buf, n);
}

static void metric(struct gp_form *fm, const char *label, const char *value, const char *note)
{
	gp_form_row(fm);
	gp_form_cell(fm, 0, 20, GP_R_TEXT, "%s", label);
	/* Rows are for reading: the cursor stops on the value. */
	gp_form_cell(fm, 21, 14, GP_R_VALUE, "%s", value)->right = true;
	fm->cells[fm->ncells - 1].sel = !fm->oom;
	if (note && note[0])
		/* Wrapped to the screen at words (60 columns: never "75."). */
		gp_form_cell_wrap(fm, 37, fm->width - 37 > 16 ? fm->width - 37 : 16, GP_R_DIM, note);
}

/* The budget, when the scenario has one, against the plan's GPUs: the
 * engines keep it, a file's (or an edited) plan need not. */
static void budget(struct gp_form *fm, const struct gp_run *run)
{
	const struct gp_plan *p = gp_run_plan_of(run);
	double cap = run->sc ? run->sc->budget_usd_per_hour : 0;
	if (!p || !(cap > 0))
		return;
	double usd = gp_plan_usd_per_hour(run->sc, p);
	bool over = usd > cap * (1 + 1e-9);
	char v[32], n[96];
	snprintf(v, sizeof v, "$%.2f/h", cap);
	snprintf(n, sizeof n, "the plan's GPUs $%.2f/h%s", usd, over ? ": over the budget" : "");
	gp_form_row(fm);
	gp_form_cell(fm, 0, 20, GP_R_TEXT, "%s", "budget");
	gp_form_cell(fm, 21, 14, GP_R_VALUE, "%s", v)->right = true;
	fm->cells[fm->ncells - 1].sel = !fm->oom;
	gp_form_cell_wrap(fm, 37, fm->width - 37 > 16 ? fm->width - 37 : 16,
			  over ? GP_R_WARN : GP_R_DIM, n);
}

static double exposed_sync(const struct gp_result *r)
{
	double x = 0;
	for (int i = 0; i < r->ndevs; i++)
		x = fmax(x, r->devs[i].sync_exposed);
	return x;
}

/* The GPUs the scenario gives, as plan's "N of M GPUs" counts them. */
static int gpus_given(const struct gp_run *run)
{
	int n = 0;
	for (int d = 0; run->sc && d < run->sc->ndcs; d++)
		for (int k = 0; k < run->sc->dcs[d].npools; k++)
			n += run->sc->dcs[d].pools[k].count;
	return n;
}

/* What the plan leaves idle and why (core's unused.c), a row each, in
 * the batch report's words ("us-west1-b: all 128 GPUs, no stage there:
 * its links ..."). */
static void unused(struct gp_form *fm, const struct gp_run *run)
{
	const struct gp_scenario *sc = run->sc;
	struct gp_unused *u;
	int nu;
	if (!sc || !gp_run_plan_of(run) || gp_unused_find(sc, gp_run_plan_of(run), &run->res, &u, &nu))
		return;
	for (int i = 0; i < nu; i++) {
		char line[640];
		gp_unused_text(sc, &u[i], line, sizeof line);
		gp_form_row(fm);
		gp_form_cell(fm, 0, 20, GP_R_TEXT, "%s", "unused");
		gp_form_cell_wrap(fm, 21, fm->width - 21 > 16 ? fm->width - 21 : 16, GP_R_DIM, line);
	}
	free(u);
}

/* Each GPU type the plan uses whose efficiency is not measured for it
 * (borrowed from another type's fit, or the built-in default), as the
 * batch report says it. */
static void efficiencies(struct gp_form *fm, const struct gp_run *run)
{
	const struct gp_scenario *sc = run->sc;
	const struct gp_plan *p = gp_run_plan_of(run);
	if (!sc || !p)
		return;
	for (int g = gp_report_eff_next(sc, p, -1); g >= 0; g = gp_report_eff_next(sc, p, g)) {
		char line[300];
		gp_report_eff_note(&sc->gpus[g], line, sizeof line);
		gp_form_row(fm);
		gp_form_cell(fm, 0, 20, GP_R_TEXT, "%s", "efficiency");
		gp_form_cell_wrap(fm, 21, fm->width - 21 > 16 ? fm->width - 21 : 16, GP_R_DIM, line);
	}
}

static void figures(struct gp_form *fm, const struct gp_app *a)
{
	const struct gp_result *r = &a->run.res;
	char v[48], n[160];
	gp_form_section(fm, "The iteration, as simulated");
	if (!a->run.has_res) {
		gp_form_text(fm, GP_R_ERROR, "no simulated iteration: %s", a->problem);
		return;
	}
	show(r->iteration_time, GP_U_TIME, v, sizeof v);
	snprintf(n, sizeof n, "%d of %d GPUs; %s%s", r->gpus, gpus_given(&a->run),
		 r->fits ? "fits in memory" : "DOES NOT FIT: ", r->fits ? "" : r->fit_msg);
	metric(fm, "iteration", v, n);
	unused(fm, &a->run);
	/* Grouped ("2,649,961"); a slow plan's under 1000 in decimals
	 * ("0.576"), where grouping would round it to "1". */
	(r->tokens_per_s >= 1000 ? gp_unit_grouped : gp_unit_rate)(r->tokens_per_s, v, sizeof v);
	metric(fm, "tokens/s", v, NULL);
	snprintf(v, sizeof v, "%.1f %%", 100 * r->mfu);
	metric(fm, "MFU", v, r->mfu > 1 ? "over 100 %: the cost model's times are faster than the GPUs' peak allows"
					 : "model FLOPs over the GPUs' peak");
	efficiencies(fm, &a->run);
	snprintf(v, sizeof v, "%.1f %%", 100 * r->bubble);
	/* The batch report's two figures, in its words (report_text.c):
	 * bubble is of the time until the last backward, idle of all. */
	metric(fm, "bubble", v, "idle share before the last backward");
	snprintf(v, sizeof v, "%.1f %%", 100 * gp_result_idle(r));
	snprintf(n, sizeof n, "of the iteration, %.1f %% after the last backward",
		 100 * gp_result_idle_after(r));
	metric(fm, "GPU idle", v, n);
	show(exposed_sync(r), GP_U_TIME, v, sizeof v);
	metric(fm, "exposed DP sync", v, "sync after the last backward, worst stage");
	/* Dollars as the batch report writes them ("$120,633"); without
	 * prices, no $0 figures but what would give them. */
	char u1[160], u2[64];
	bool priced = r->usd_gpu > 0 || r->usd_egress > 0;
	gp_fmt_usd(r->usd_per_iteration, v, sizeof v);
	if (priced) {   /* as sim says it: the GPU types without a price named */
		gp_report_cost_parts(a->run.sc, gp_run_plan_of(&a->run), r, u1, sizeof u1, u2,
				     sizeof u2);
		snprintf(n, sizeof n, "%s, %s", u1, u2);
	} else
		snprintf(n, sizeof n, "none given (gpus' price_per_hour, links' price_per_gb)");
	metric(fm, "cost per iteration", priced ? v : "no prices", n);
	budget(fm, &a->run);
	char p1[24], p2[24];
	gp_unit_bytes10(r->wan_bytes, v, sizeof v);
	gp_unit_bytes10(r->wan_bytes - r->wan_bytes_sync, p1, sizeof p1);
	gp_unit_bytes10(r->wan_bytes_sync, p2, sizeof p2);
	snprintf(n, sizeof n, "%s pipeline, %s gradient sync", p1, p2);
	metric(fm, "WAN bytes", v, n);
}

static void found(struct gp_form *fm, const struct gp_app *a)
{
	const struct gp_run *run = &a->run;
	const struct gp_plan *p = gp_run_plan_of(run);
	gp_form_section(fm, "How the plan was found");
	if (!p) {
		gp_form_text(fm, GP_R_WARN, "no plan%s%s; p plans one", run->plan_note[0] ? ": " : "",
			     run->plan_note);
		return;
	}
	const char *sync = gp_sync_name(gp_plan_sync(run->sc, p));
	int since, edits = gp_app_stale(a);
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	if (!rep) {
		gp_form_text(fm, edits ? GP_R_STALE : GP_R_TEXT,
			     "the scenario file's plan: %s, %s DP sync; p plans anew",
			     gp_sched_name(p->schedule), sync);
		if (edits)
			gp_form_text(fm, GP_R_STALE, "stale: made before the last %d edit%s; %s",
				     edits, edits == 1 ? "" : "s",
				     a->job ? "a new plan is being made (Esc cancels)" : "p plans anew");
		return;
	}
	/* The bound is in the objective's unit (a time, dollars, bytes), as
	 * the CLI prints it; so is the estimate beside the time. */
	char est[96], bd[48], obj[48];
	bool timed = a->run.sc->objective == GP_OBJ_TIME;
	show(rep->estimate_s, GP_U_TIME, est, sizeof est);
	if (!timed && isfinite(rep->objective)) {
		gp_app_objective_value(a, rep->objective, obj, sizeof obj);
		snprintf(est + strlen(est), sizeof est - strlen(est), " (%s)", obj);
	}
	if (isfinite(rep->bound) && (rep->bound > 0 || !timed))
		gp_app_objective_value(a, rep->bound, bd, sizeof bd);
	else
		snprintf(bd, sizeof bd, "none");
	char gap[24] = "-";
	if (isfinite(rep->gap))
		gp_fmt_gap(rep->gap, gap, sizeof gap);
	bool stale = since > 0 || run->stale & GP_STALE_PLAN;
	char secs[24] = "";
	if (!a->hold) {   /* a replay's screens are the same every time */
		char t[24];   /* as the figures beside it: "61ms", not "0.061 s" */
		show(rep->seconds, GP_U_TIME, t, sizeof t);
		snprintf(secs, sizeof secs, ", %s", t);
	}
	gp_form_text(fm, stale ? GP_R_STALE : GP_R_TEXT,
		     "engine %s, %s: estimate %s, bound %s, gap %s%s", rep->engine,
		     gp_app_status_word(rep), est, bd, gap, secs);
	if (stale)
		gp_form_text(fm, GP_R_STALE, "stale: planned before the last %d edit%s; %s",
			     since > 0 ? since : 1, since > 1 ? "s" : "",
			     a->job ? "a new plan is being made (Esc cancels)" : "p plans anew");
	if (rep->has_own && !isfinite(rep->own_sim_s)) {
		gp_form_text(fm, GP_R_DIM, "its own plan %s (the solver's note says why)%s",
			     isnan(rep->own_sim_s) ? "was not simulated"
						   : "does not fit or cannot run as asked",
			     rep->polished ? "; the search's polish found this one" : "");
	} else if (rep->has_own) {
		char own[48];
		show(rep->own_sim_s, GP_U_TIME, own, sizeof own);
		gp_form_text(fm, GP_R_DIM, "its own plan simulated %s; %s", own,
			     rep->polished ? "the search's polish found this faster one"
					   : "the polish found nothing faster");
	}
	char chunks[24] = "";
	if (p->chunks > 1)
		snprintf(chunks, sizeof chunks, " x%d chunks", p->chunks);
	gp_form_text(fm, GP_R_DIM, "%s%s, %s DP sync%s", gp_sched_name(p->schedule), chunks, sync,
		     run->src != GP_SRC_FILE ? "; not in the scenario: s will not save it"
		     : gp_app_opening_plan(a) ? "; made on opening, no edit (s writes it into the file)"
					      : "; an edit of the scenario (u undoes, s saves)");
}

/* Columns of the stage table: stage, DC, GPU, TP, layers, recompute,
 * F, B, W, busy, memory bar, memory figures; each as wide as its data.
 * W goes when no stage has a weight-gradient pass, the bar when the
 * table would not fit (the figures stay); what still does not fit
 * scrolls across. */
enum { C_STAGE, C_DC, C_GPU, C_TP, C_LAYERS, C_RECOMP, C_F, C_B, C_W, C_BUSY, C_BAR, C_MEM,
       C__N };

struct cols {
	int x[C__N], w[C__N];
	bool short_mem;  /* "mem GiB": "memory GiB" does not fit */
};

/* In GiB, as the GPU table sizes memory (80GiB) and the CLI's
 * "memory GiB" column. */
static void mem_text(const struct gp_dev_result *d, char *buf, size_t n)
{
	snprintf(buf, n, "%.1f/%.1f", d->mem_peak / 1073741824.0, d->mem_capacity / 1073741824.0);
}

static struct cols columns(const struct gp_app *a)
{
	const struct gp_scenario *s = a->run.sc;
	const struct gp_plan *p = gp_run_plan_of(&a->run);
	const struct gp_result *r = a->run.has_res ? &a->run.res : NULL;
	/* At least the headers' widths. */
	struct cols c = { .w = { 5, 2, 3, 2, 6, 9, 7, 7, 7, 4, 10, 7 } };
	bool any_w = false;
	int mem = 7;     /* the widest figure, or "mem GiB" */
	for (int g = 0, d0 = 0; g < p->npipes; d0 += p->pipes[g++].nstages)
		for (int st = 0; st < p->pipes[g].nstages; st++) {
			const struct gp_stage *x = &p->pipes[g].stages[st];
			const struct gp_dev_result *d = r && d0 + st < r->ndevs ? &r->devs[d0 + st] : NULL;
			char t[48];
			c.w[C_DC] = gp_form_widest(c.w[C_DC], s->dcs[x->dc].name);
			c.w[C_GPU] = gp_form_widest(c.w[C_GPU], s->gpus[s->dcs[x->dc].pools[x->pool].gpu].name);
			snprintf(t, sizeof t, "%d-%d", x->first, x->last);
			c.w[C_LAYERS] = gp_form_widest(c.w[C_LAYERS], t);
			c.w[C_RECOMP] = gp_form_widest(c.w[C_RECOMP],
						       gp_recompute_name(d ? d->recompute : x->recompute));
			if (d) {
				mem_text(d, t, sizeof t);
				c.w[C_MEM] = gp_form_widest(c.w[C_MEM], t);
				mem = gp_form_widest(mem, t);
				any_w |= d->t_w > 0;
			}
		}
	if (!any_w)
		c.w[C_W] = -1;
	if (gp_form_columns(c.w, c.x, C__N) > a->w - 1) {
		/* The memory column takes the bar's header too, "memory GiB",
		 * or "mem GiB" where that does not fit either. */
		c.w[C_BAR] = -1;
		int wide = c.w[C_MEM] > 10 ? c.w[C_MEM] : 10;
		c.w[C_MEM] = wide;
		if (gp_form_columns(c.w, c.x, C__N) > a->w - 1) {
			c.w[C_MEM] = mem;
			c.short_mem = true;
		}
		gp_form_columns(c.w, c.x, C__N);
	}
	return c;
}

/* A time for a column of them: 4 significant digits, trailing zeros
 * kept ("27.00ms" over "23.37ms", not "27ms"); 1000 and up whole. */
static void fixed_time(double t, char *buf, size_t n)
{
	char s[24];
	show(t, GP_U_TIME, s, sizeof s);
	char *end;
	double x = strtod(s, &end);
	if (end == s || fabs(x) >= 1000) {
		snprintf(buf, n, "%s", s);
		return;
	}
	char num[24];
	snprintf(num, sizeof num, "%#.4g", x);
	gp_c_point(num);
	snprintf(buf, n, "%s%s", num, end);
}

static void time_cell(struct gp_form *fm, const struct cols *c, int i, double t)
{
	char v[24] = "-";
	if (c->w[i] < 0)
		return;
	if (t > 0)
		fixed_time(t, v, sizeof v);
	gp_form_cell(fm, c->x[i], c->w[i], GP_R_VALUE, "%s", v)->right = true;
}

/* A pipeline's heading and its stages, from the simulation's devices
 * (d0: the first of them). */
static void pipeline(struct gp_form *fm, const struct gp_app *a, const struct cols *c, int g,
		     int d0)
{
	const struct gp_scenario *s = a->run.sc;
	const struct gp_result *r = &a->run.res;
	const struct gp_pipeline *pp = &gp_run_plan_of(&a->run)->pipes[g];
	gp_form_text(fm, GP_R_HEADER, "pipeline %d: %d replica%s x %d micro-batches", g + 1,
		     pp->replicas, pp->replicas == 1 ? "" : "s", pp->micro_batches);
	for (int st = 0; st < pp->nstages; st++) {
		const struct gp_stage *x = &pp->stages[st];
		const struct gp_dev_result *d = a->run.has_res && d0 + st < r->ndevs ? &r->devs[d0 + st]
										: NULL;
		gp_form_row(fm);
		gp_form_cell(fm, c->x[C_STAGE], c->w[C_STAGE], GP_R_TEXT, "  %d", st + 1)->sel = true;
		gp_form_cell(fm, c->x[C_DC], c->w[C_DC], GP_R_TEXT, "%s", s->dcs[x->dc].name);
		gp_form_cell(fm, c->x[C_GPU], c->w[C_GPU], GP_R_TEXT, "%s",
			     s->gpus[s->dcs[x->dc].pools[x->pool].gpu].name);
		gp_form_cell(fm, c->x[C_TP], c->w[C_TP], GP_R_VALUE, "%d", x->tp)->right = true;
		gp_form_cell(fm, c->x[C_LAYERS], c->w[C_LAYERS], GP_R_VALUE, "%d-%d", x->first,
			     x->last)->right = true;
		gp_form_cell(fm, c->x[C_RECOMP], c->w[C_RECOMP], GP_R_TEXT, "%s",
			     gp_recompute_name(d ? d->recompute : x->recompute));
		if (!d)
			continue;
		time_cell(fm, c, C_F, d->t_f);
		time_cell(fm, c, C_B, d->t_b);
		time_cell(fm, c, C_W, d->t_w);
		gp_form_cell(fm, c->x[C_BUSY], c->w[C_BUSY], GP_R_VALUE, "%.0f%%",
			     r->iteration_time > 0 ? 100 * d->busy / r->iteration_time : 0)->right = true;
		if (c->w[C_BAR] > 0)
			gp_form_cell(fm, c->x[C_BAR], c->w[C_BAR], GP_R_TEXT, "%s", "")->bar =
				d->mem_capacity > 0 ? d->mem_peak / d->mem_capacity : 0;
		char m[48];
		mem_text(d, m, sizeof m);
		gp_form_cell(fm, c->x[C_MEM], c->w[C_MEM],
			     d->mem_peak > d->mem_capacity ? GP_R_MEM_OVER : GP_R_TEXT, "%s", m);
	}
}

static void pipelines(struct gp_form *fm, const struct gp_app *a)
{
	const struct gp_plan *p = gp_run_plan_of(&a->run);
	static const char *const head[C__N] = { "stage", "DC", "GPU", "TP", "layers", "recompute",
						 "F", "B", "W", "busy", "memory", "GiB" };
	gp_form_section(fm, "Pipelines (per micro-batch times; memory: peak + reserve / capacity)");
	if (!p)
		return;
	struct cols c = columns(a);
	gp_form_header(fm);
	for (int i = 0; i < C__N; i++)
		if (c.w[i] >= 0)
			gp_form_cell(fm, c.x[i], c.w[i], GP_R_HEADER, "%s",
				     i != C_MEM || c.w[C_BAR] >= 0 ? head[i]
				     : c.short_mem ? "mem GiB" : "memory GiB")->right =
				i == C_TP || i == C_LAYERS || (i >= C_F && i <= C_BUSY);
	for (int g = 0, d0 = 0; g < p->npipes; d0 += p->pipes[g++].nstages)
		pipeline(fm, a, &c, g, d0);
}

static void wan(struct gp_form *fm, const struct gp_app *a)
{
	const struct gp_scenario *s = a->run.sc;
	const struct gp_result *r = &a->run.res;
	gp_form_section(fm, "WAN link directions (bytes per iteration, how long busy)");
	if (!a->run.has_res) {
		gp_form_text(fm, GP_R_DIM, "no simulated iteration");
		return;
	}
	int any = 0, nw = 4;
	for (int i = 0; i < r->nlinks; i++) {
		char t[2 * GP_NAME_MAX + 8];
		snprintf(t, sizeof t, "%s -> %s", s->dcs[r->links[i].from].name,
			 s->dcs[r->links[i].to].name);
		nw = gp_form_widest(nw, t);
	}
	for (int i = 0; i < r->nlinks; i++) {
		const struct gp_link_result *l = &r->links[i];
		if (l->bytes <= 0)
			continue;
		char busy[24];
		show(l->busy, GP_U_TIME, busy, sizeof busy);
		gp_form_row(fm);
		gp_form_cell(fm, 0, nw, GP_R_TEXT, "%s -> %s", s->dcs[l->from].name,
			     s->dcs[l->to].name)->sel = true;
		char b[24];
		gp_unit_bytes10(l->bytes, b, sizeof b);
		gp_form_cell(fm, nw + 1, 10, GP_R_VALUE, "%s", b)->right = true;
		gp_form_cell(fm, nw + 12, 9, GP_R_VALUE, "%s", busy)->right = true;
		gp_form_cell(fm, nw + 22, 6, GP_R_VALUE, "%.0f%%",
			     r->iteration_time > 0 ? 100 * l->busy / r->iteration_time : 0)->right = true;
		gp_form_cell(fm, nw + 29, 40, GP_R_DIM, "%s",
			     l->sync_bytes > 0 ? "carries gradient sync" : "");
		any++;
	}
	if (!any)
		gp_form_text(fm, GP_R_DIM, "nothing crosses the WAN");
}

static void build(struct gp_app *a, struct gp_form *fm)
{
	gp_form_init(fm);
	fm->width = a->w - 3;
	figures(fm, a);
	found(fm, a);
	pipelines(fm, a);
	wan(fm, a);
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	struct gp_form fm;
	build(a, &fm);
	gp_form_draw(&fm, &a->pl, cv, r, a->th);
	gp_form_free(&fm);
}

static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	struct gp_form fm;
	build(a, &fm);
	bool done = gp_form_act(a, &fm, &a->pl, act);
	gp_form_free(&fm);
	return done;
}

static void click(struct gp_app *a, int x, int y)
{
	struct gp_form fm;
	build(a, &fm);
	gp_form_click(&fm, &a->pl, x, y);
	gp_form_free(&fm);
}

static void status(struct gp_app *a, char *buf, size_t n)
{
	(void)a;
	snprintf(buf, n, "p plans anew; 1 edits the scenario; 3 the Gantt chart; 4 the solver");
}

const struct gp_view_ops gp_view_plan = {
	"plan", "Plan", draw, action, click, NULL, status,
};
