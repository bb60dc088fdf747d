/*
 * report.c: text, JSON, CSV and plan writers (the SVG chart is in svg.c).
 */
#include "report.h"
#include "escape.h"
#include "unused.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const span_names[GP_SPAN__N] = {
	[GP_SPAN_F] = "F", [GP_SPAN_B] = "B", [GP_SPAN_W] = "W",
	[GP_SPAN_ACT] = "act", [GP_SPAN_GRAD] = "grad",
	[GP_SPAN_SYNC] = "sync", [GP_SPAN_OPT] = "opt",
};

void gp_row_label(const struct gp_scenario *sc, const struct gp_result *r,
		  int row, char *buf, size_t n)
{
	if (row < r->ndevs) {
		const struct gp_dev_result *d = &r->devs[row];
		const struct gp_pool *pool = &sc->dcs[d->dc].pools[d->pool];
		snprintf(buf, n, "p%d s%d %s %sx%d", d->pipeline + 1, d->stage + 1,
			 sc->dcs[d->dc].name, sc->gpus[pool->gpu].name, d->tp);
	} else {
		const struct gp_link_result *l = &r->links[row - r->ndevs];
		snprintf(buf, n, "%s>%s", sc->dcs[l->from].name, sc->dcs[l->to].name);
	}
}

double gp_result_peak_memory(const struct gp_result *r)
{
	double m = 0;
	for (int i = 0; i < r->ndevs; i++)
		m = fmax(m, r->devs[i].mem_peak);
	return m;
}

double gp_result_idle(const struct gp_result *r)
{
	/* bubble is idle over [0, compute_end) (sim.h). */
	double T = r->iteration_time;
	return T > 0 ? 1 - (1 - r->bubble) * r->compute_end / T : 0;
}

double gp_result_idle_after(const struct gp_result *r)
{
	double T = r->iteration_time;
	return T > 0 ? fmax(0, T - r->compute_end) / T : 0;
}

bool gp_report_syncs(const struct gp_plan *p)
{
	int d = 0;
	for (int g = 0; g < p->npipes; g++)
		d += p->pipes[g].replicas;
	return d > 1;
}

double gp_result_sync_exposed(const struct gp_result *r)
{
	double x = 0;
	for (int i = 0; i < r->ndevs; i++)
		x = fmax(x, r->devs[i].sync_exposed);
	return x;
}

void gp_report_prices(const struct gp_scenario *sc, const struct gp_plan *p,
		      const struct gp_result *r, bool *gpus, bool *egress)
{
	*gpus = *egress = false;
	for (int i = 0; i < p->npipes; i++)
		for (int k = 0; k < p->pipes[i].nstages; k++) {
			const struct gp_stage *st = &p->pipes[i].stages[k];
			if (sc->gpus[sc->dcs[st->dc].pools[st->pool].gpu].price_per_hour > 0)
				*gpus = true;
		}
	for (int i = 0; i < r->nlinks && i < sc->nlinks; i++)
		if (r->links[i].bytes > 0 && sc->links[i].price_per_gb > 0)
			*egress = true;
}

void gp_report_json_plan(struct gp_json *j, const struct gp_scenario *sc,
			 const struct gp_plan *p)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "schedule", gp_sched_name(p->schedule));
	gp_json_kint(j, "chunks", p->chunks);
	if (p->microbatch_group)
		gp_json_kint(j, "microbatch_group", p->microbatch_group);
	if (p->sync_set)
		gp_json_kstr(j, "sync", gp_sync_name(p->sync_mode));
	gp_json_key(j, "pipelines");
	gp_json_arr(j, false);
	for (int i = 0; i < p->npipes; i++) {
		const struct gp_pipeline *pp = &p->pipes[i];
		gp_json_obj(j, false);
		gp_json_kint(j, "micro_batches", pp->micro_batches);
		gp_json_kint(j, "replicas", pp->replicas);
		gp_json_key(j, "stages");
		gp_json_arr(j, false);
		for (int k = 0; k < pp->nstages; k++) {
			const struct gp_stage *st = &pp->stages[k];
			const struct gp_pool *pool = &sc->dcs[st->dc].pools[st->pool];
			gp_json_obj(j, false);
			gp_json_kstr(j, "dc", sc->dcs[st->dc].name);
			gp_json_kstr(j, "gpu", sc->gpus[pool->gpu].name);
			gp_json_kint(j, "tp", st->tp);
			gp_json_key(j, "layers");
			gp_json_arr(j, false);
			gp_json_int(j, st->first);
			gp_json_int(j, st->last);
			gp_json_end(j);
			if (st->recompute_set)
				gp_json_kstr(j, "recompute", gp_recompute_name(st->recompute));
			gp_json_end(j);
		}
		gp_json_end(j);
		gp_json_end(j);
	}
	gp_json_end(j);
	gp_json_end(j);
}

void gp_report_json_solver(struct gp_json *j, const struct gp_result *r)
{
	const struct gp_solver_info *si = &r->solver;
	gp_json_obj(j, false);
	gp_json_kstr(j, "engine", si->engine);
	gp_json_kstr(j, "status", si->status);
	gp_json_knum(j, "objective_s", si->objective);
	gp_json_knum(j, "bound_s", si->bound);
	gp_json_knum(j, "gap", si->gap);
	gp_json_knum(j, "time_s", si->seconds);
	if (si->rows)   /* the xdc-milp schedule: its makespan as simulated */
		gp_json_knum(j, "simulated_pipeline_s", r->compute_end);
	if (si->unit) {
		gp_json_kstr(j, "objective", si->unit);
		gp_json_knum(j, "objective_value", si->value);
		gp_json_knum(j, "bound_value", si->value_bound);
	}
	if (si->has_own) {
		gp_json_knum(j, "own_plan_simulated_s", si->own_sim);
		gp_json_kbool(j, "polished", si->polished);
	}
	if (si->space)
		gp_json_kstr(j, "proof_space", si->space);
	gp_json_end(j);
}

static void json_stage(struct gp_json *j, const struct gp_scenario *sc,
		       const struct gp_plan *p, const struct gp_dev_result *d)
{
	const struct gp_stage *st = &p->pipes[d->pipeline].stages[d->stage];
	const struct gp_pool *pool = &sc->dcs[d->dc].pools[d->pool];
	gp_json_obj(j, false);
	gp_json_kint(j, "pipeline", d->pipeline + 1);
	gp_json_kint(j, "stage", d->stage + 1);
	gp_json_kint(j, "replicas", d->replicas);
	gp_json_kstr(j, "dc", sc->dcs[d->dc].name);
	gp_json_kstr(j, "gpu", sc->gpus[pool->gpu].name);
	gp_json_kint(j, "tp", d->tp);
	gp_json_key(j, "layers");
	gp_json_arr(j, false);
	gp_json_int(j, st->first);
	gp_json_int(j, st->last);
	gp_json_end(j);
	gp_json_kstr(j, "recompute", gp_recompute_name(d->recompute));
	gp_json_kbytes(j, "mem_peak_bytes", d->mem_peak);
	gp_json_kbytes(j, "mem_capacity_bytes", d->mem_capacity);
	gp_json_knum(j, "busy_s", d->busy);
	gp_json_knum(j, "forward_s", d->t_f);
	gp_json_knum(j, "backward_s", d->t_b);
	gp_json_knum(j, "weight_grad_s", d->t_w);
	gp_json_knum(j, "sync_exposed_s", d->sync_exposed);
	gp_json_end(j);
}

static void json_link(struct gp_json *j, const struct gp_scenario *sc,
		      const struct gp_link_result *l)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "from", sc->dcs[l->from].name);
	gp_json_kstr(j, "to", sc->dcs[l->to].name);
	gp_json_kbytes(j, "bytes", l->bytes);
	gp_json_kbytes(j, "sync_bytes", l->sync_bytes);
	gp_json_knum(j, "busy_s", l->busy);
	gp_json_end(j);
}

/* Which prices the cost is made of: a GPU type's the plan uses, a link's
 * it sends bytes over. */
void gp_report_json_prices(struct gp_json *j, const struct gp_scenario *sc,
			   const struct gp_plan *p, const struct gp_result *r)
{
	bool gpus, egress;
	gp_report_prices(sc, p, r, &gpus, &egress);
	gp_json_key(j, "prices_given");
	gp_json_obj(j, false);
	gp_json_kbool(j, "gpus", gpus);
	gp_json_kbool(j, "egress", egress);
	gp_json_end(j);
}

/* The GPUs there are, and what the plan leaves idle and why (unused.h). */
static void json_unused(struct gp_json *j, const struct gp_scenario *sc,
			const struct gp_plan *p, const struct gp_result *r)
{
	int total = 0, n = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++)
			total += sc->dcs[d].pools[q].count;
	gp_json_kint(j, "gpus_available", total);
	struct gp_unused *u = NULL;
	gp_unused_find(sc, p, r, &u, &n);
	gp_json_key(j, "unused");
	gp_json_arr(j, n > 0);
	for (int i = 0; i < n; i++) {
		const struct gp_dc *dc = &sc->dcs[u[i].dc];
		gp_json_obj(j, false);
		gp_json_kstr(j, "dc", dc->name);
		if (u[i].pool >= 0)
			gp_json_kstr(j, "gpu", sc->gpus[dc->pools[u[i].pool].gpu].name);
		gp_json_kint(j, "idle_gpus", u[i].idle);
		gp_json_kint(j, "of", u[i].count);
		if (u[i].why[0])
			gp_json_kstr(j, "why", u[i].why);
		gp_json_end(j);
	}
	gp_json_end(j);
	free(u);
}

/* The metrics every summary carries (sim, plan, compare, sweep). */
void gp_report_json_metrics(struct gp_json *j, const struct gp_result *r)
{
	gp_json_knum(j, "iteration_time_s", r->iteration_time);
	gp_json_knum(j, "tokens_per_s", r->tokens_per_s);
	gp_json_knum(j, "mfu", r->mfu);
	gp_json_knum(j, "bubble_fraction", r->bubble);
	gp_json_knum(j, "idle_fraction", gp_result_idle(r));
	gp_json_knum(j, "idle_after_backward_fraction", gp_result_idle_after(r));
	gp_json_knum(j, "sync_exposed_s", gp_result_sync_exposed(r));
	gp_json_knum(j, "usd_per_iteration", r->usd_per_iteration);
	gp_json_knum(j, "usd_gpu_per_iteration", r->usd_gpu);
	gp_json_knum(j, "usd_egress_per_iteration", r->usd_egress);
	gp_json_kbytes(j, "wan_bytes_per_iteration", r->wan_bytes);
	gp_json_kbytes(j, "wan_sync_bytes_per_iteration", r->wan_bytes_sync);
}

void gp_report_json_to(struct gp_json *j, const struct gp_scenario *sc,
		       const struct gp_plan *p, const struct gp_result *r)
{
	gp_json_obj(j, true);
	gp_json_kstr(j, "scenario", sc->name);
	gp_json_kstr(j, "schedule", gp_sched_name(p->schedule));
	gp_json_kint(j, "chunks", r->chunks);
	gp_report_json_metrics(j, r);
	gp_report_json_prices(j, sc, p, r);
	gp_json_key(j, "sync");
	gp_json_obj(j, false);
	gp_json_kstr(j, "mode", gp_sync_name(gp_plan_sync(sc, p)));
	gp_json_kbool(j, "needed", gp_report_syncs(p));
	gp_json_kint(j, "every", sc->job.sync_every);
	gp_json_kbool(j, "overlap", sc->job.sync_overlap);
	gp_json_end(j);
	/* The cross-DC ring of the most DCs, in its order (ring.h). */
	gp_json_key(j, "sync_ring");
	gp_json_arr(j, false);
	for (int i = 0; i < r->sync_ring_n && i < GP_RING_SHOWN; i++)
		gp_json_str(j, sc->dcs[r->sync_ring[i]].name);
	gp_json_end(j);
	gp_json_kint(j, "sync_ring_dcs", r->sync_ring_n);
	gp_json_kint(j, "gpus", r->gpus);
	json_unused(j, sc, p, r);
	gp_json_kbool(j, "fits", r->fits);
	gp_json_kbytes(j, "peak_memory_bytes", gp_result_peak_memory(r));
	if (r->cost_model[0])
		gp_json_kstr(j, "cost_model", r->cost_model);
	gp_report_eff_json(j, sc, p);
	if (sc->measured.iteration_time > 0 || sc->measured.peak_memory > 0) {
		gp_json_key(j, "measured");
		gp_json_obj(j, false);
		if (sc->measured.iteration_time > 0)
			gp_json_knum(j, "iteration_time_s", sc->measured.iteration_time);
		if (sc->measured.peak_memory > 0)
			gp_json_kbytes(j, "peak_memory_bytes", sc->measured.peak_memory);
		gp_json_end(j);
	}
	if (!r->fits)
		gp_json_kstr(j, "fit_error", r->fit_msg);
	if (r->solver.present) {
		gp_json_key(j, "solver");
		gp_report_json_solver(j, r);
	}
	gp_json_key(j, "stages");
	gp_json_arr(j, true);
	for (int i = 0; i < r->ndevs; i++)
		json_stage(j, sc, p, &r->devs[i]);
	gp_json_end(j);
	gp_json_key(j, "links");
	gp_json_arr(j, true);
	for (int i = 0; i < r->nlinks; i++)
		json_link(j, sc, &r->links[i]);
	gp_json_end(j);
	gp_json_key(j, "plan");
	gp_report_json_plan(j, sc, p);
	gp_json_end(j);
}

int gp_report_json(FILE *f, const struct gp_scenario *sc,
		   const struct gp_plan *p, const struct gp_result *r)
{
	struct gp_json j;
	gp_json_init(&j, f);
	gp_report_json_to(&j, sc, p, r);
	fputc('\n', f);
	return ferror(f) ? -1 : 0;
}

int gp_report_csv(FILE *f, const struct gp_scenario *sc,
		  const struct gp_plan *p, const struct gp_result *r)
{
	(void)p;
	fprintf(f, "row,label,kind,micro_batch,chunk,start_s,end_s\n");
	char label[96];
	for (int64_t i = 0; i < r->nspans; i++) {
		const struct gp_span *s = &r->spans[i];
		gp_row_label(sc, r, s->row, label, sizeof label);
		fprintf(f, "%d,", s->row);
		gp_esc_csv(f, label);   /* names may hold commas, quotes, newlines */
		fprintf(f, ",%s,%d,%d,%.9g,%.9g\n", span_names[s->kind], s->mb + 1,
			s->chunk + 1, s->t0, s->t1);
	}
	return ferror(f) ? -1 : 0;
}

int gp_plan_write_lua(FILE *f, const struct gp_scenario *sc,
		      const struct gp_plan *p, const char *ind)
{
	fprintf(f, "%splan = {\n%s  schedule = \"%s\",\n", ind, ind,
		gp_sched_name(p->schedule));
	if (p->chunks > 1)
		fprintf(f, "%s  chunks = %d,\n", ind, p->chunks);
	if (p->microbatch_group)
		fprintf(f, "%s  microbatch_group = %d,\n", ind, p->microbatch_group);
	if (p->sync_set)
		fprintf(f, "%s  sync = \"%s\",\n", ind, gp_sync_name(p->sync_mode));
	fprintf(f, "%s  pipelines = {\n", ind);
	for (int i = 0; i < p->npipes; i++) {
		const struct gp_pipeline *pp = &p->pipes[i];
		fprintf(f, "%s    { micro_batches = %d, replicas = %d, stages = {\n", ind,
			pp->micro_batches, pp->replicas);
		for (int j = 0; j < pp->nstages; j++) {
			const struct gp_stage *st = &pp->stages[j];
			const struct gp_pool *pool = &sc->dcs[st->dc].pools[st->pool];
			fprintf(f, "%s        { dc = ", ind);
			gp_esc_lua(f, sc->dcs[st->dc].name);
			fprintf(f, ", gpu = ");
			gp_esc_lua(f, sc->gpus[pool->gpu].name);
			fprintf(f, ", tp = %d, layers = { %d, %d }", st->tp, st->first, st->last);
			if (st->recompute_set)
				fprintf(f, ", recompute = \"%s\"", gp_recompute_name(st->recompute));
			fprintf(f, " },\n");
		}
		fprintf(f, "%s    } },\n", ind);
	}
	fprintf(f, "%s  },\n%s}\n", ind, ind);
	return ferror(f) ? -1 : 0;
}
