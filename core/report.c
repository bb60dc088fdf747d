/*
 * report.c: text, JSON, CSV and plan writers (the SVG chart is in svg.c).
 */
#include "report.h"
#include "escape.h"

#include <math.h>
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

/* Human-readable bytes: 1.2 GB, 640 MB (decimal, as links are sold). */
static const char *hbytes(double b, char *buf, size_t n)
{
	static const char *const u[] = { "B", "kB", "MB", "GB", "TB", "PB" };
	int i = 0;
	while (fabs(b) >= 1000 && i < 5) {
		b /= 1000;
		i++;
	}
	snprintf(buf, n, i ? "%.3g %s" : "%.0f %s", b, u[i]);
	return buf;
}

/* Seconds with a unit that keeps three significant digits. */
static const char *htime(double t, char *buf, size_t n)
{
	if (t >= 1 || t == 0)
		snprintf(buf, n, "%.3g s", t);
	else if (t >= 1e-3)
		snprintf(buf, n, "%.3g ms", t * 1e3);
	else
		snprintf(buf, n, "%.3g us", t * 1e6);
	return buf;
}

double gp_result_peak_memory(const struct gp_result *r)
{
	double m = 0;
	for (int i = 0; i < r->ndevs; i++)
		m = fmax(m, r->devs[i].mem_peak);
	return m;
}

/* "measured   iteration 2.91 s, predicted 2.68 s (-7.9 %)", per figure
 * the scenario gives. */
static void measured_text(FILE *f, const struct gp_scenario *sc, const struct gp_result *r)
{
	char a[32], b[32];
	double t = sc->measured.iteration_time, m = sc->measured.peak_memory;
	if (t > 0)
		fprintf(f, "measured   iteration %s, predicted %s (%+.1f %%)\n", htime(t, a, sizeof a),
			htime(r->iteration_time, b, sizeof b), 100 * (r->iteration_time - t) / t);
	if (m > 0) {
		double p = gp_result_peak_memory(r);
		fprintf(f, "measured   peak memory %.1f GiB, predicted %.1f GiB (%+.1f %%)\n",
			m / 1073741824.0, p / 1073741824.0, 100 * (p - m) / m);
	}
}

int gp_report_text(FILE *f, const struct gp_scenario *sc,
		   const struct gp_plan *p, const struct gp_result *r)
{
	char a[32], b[32], c[32];
	const struct gp_model *m = &sc->model;
	int shapes = p->npipes, stages = 0;
	for (int i = 0; i < p->npipes; i++)
		stages += p->pipes[i].nstages;
	fprintf(f, "scenario   %s (%s)\n", sc->name, sc->path);
	fprintf(f, "model      %s: %d layers, hidden %.0f, %.0f heads (%.0f KV), FFN %.0f%s\n",
		m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn,
		m->gated ? " gated" : "");
	fprintf(f, "job        %.0f sequences x %.0f tokens, micro-batch %.0f, sync %s every %d\n",
		sc->job.global_batch, sc->job.seq, sc->job.micro_batch,
		gp_sync_name(gp_plan_sync(sc, p)), sc->job.sync_every);
	fprintf(f, "plan       %s", gp_sched_name(p->schedule));
	if (r->chunks > 1)
		fprintf(f, " x%d chunks", r->chunks);
	fprintf(f, ", %d pipeline shape%s, %d stage devices, %d GPUs\n", shapes,
		shapes == 1 ? "" : "s", stages, r->gpus);
	fprintf(f, "\niteration  %s   tokens/s %.4g   MFU %.1f %%   bubble %.1f %%\n",
		htime(r->iteration_time, a, sizeof a), r->tokens_per_s,
		100 * r->mfu, 100 * r->bubble);
	fprintf(f, "cost       $%.4g per iteration ($%.4g GPUs, $%.4g egress)\n",
		r->usd_per_iteration, r->usd_gpu, r->usd_egress);
	fprintf(f, "WAN        %s per step", hbytes(r->wan_bytes, a, sizeof a));
	if (r->wan_bytes > 0) {
		fprintf(f, ": %s pipeline, %s gradient sync",
			hbytes(r->wan_bytes - r->wan_bytes_sync, b, sizeof b),
			hbytes(r->wan_bytes_sync, c, sizeof c));
		if (sc->job.sync_every > 1)
			fprintf(f, " (every %d steps, amortised)", sc->job.sync_every);
	}
	fprintf(f, "\n");
	if (r->cost_model[0])
		fprintf(f, "cost model %s\n", r->cost_model);
	measured_text(f, sc, r);
	if (!r->fits)
		fprintf(f, "memory     DOES NOT FIT: %s\n", r->fit_msg);
	if (r->solver.present) {
		const struct gp_solver_info *si = &r->solver;
		fprintf(f, "solver     %s %s: estimate %s", si->engine, si->status,
			htime(si->objective, a, sizeof a));
		if (si->unit && !strcmp(si->unit, "usd"))
			fprintf(f, ", $%.4g per iteration, bound $%.4g, gap %.2f %%", si->value,
				si->value_bound, 100 * si->gap);
		else if (si->unit)
			fprintf(f, ", %.4g WAN bytes, bound %.4g, gap %.2f %%", si->value,
				si->value_bound, 100 * si->gap);
		else if (isfinite(si->bound))
			fprintf(f, ", bound %s, gap %.2f %%", htime(si->bound, b, sizeof b),
				100 * si->gap);
		else
			fprintf(f, ", no bound");
		fprintf(f, ", %.3g s", si->seconds);
		if (si->rows)
			fprintf(f, " (%d rows, %d binaries)", si->rows, si->binaries);
		if (si->has_own && si->polished)
			fprintf(f, "; its plan simulated %s, polished by the search to %s (below)\n",
				htime(si->own_sim, b, sizeof b), htime(r->iteration_time, c, sizeof c));
		else
			fprintf(f, "; simulated %s%s\n",
				htime(si->rows ? r->compute_end : r->iteration_time, c, sizeof c),
				si->has_own ? ", the search seeded with it found nothing faster" : "");
	}
	fprintf(f, "\n%-4s %-5s %-8s %-9s %3s %-9s %-9s %9s %9s %9s %8s %13s\n", "pipe",
		"stage", "dc", "gpu", "tp", "layers", "recompute", "F", "B", "W",
		"busy", "memory GiB");
	for (int i = 0; i < r->ndevs; i++) {
		const struct gp_dev_result *d = &r->devs[i];
		const struct gp_stage *st = &p->pipes[d->pipeline].stages[d->stage];
		const struct gp_pool *pool = &sc->dcs[d->dc].pools[d->pool];
		char pipe[16], lay[24], tf[16], tb[16], tw[16];
		snprintf(pipe, sizeof pipe, d->replicas > 1 ? "%dx%d" : "%d",
			 d->pipeline + 1, d->replicas);
		snprintf(lay, sizeof lay, "%d-%d", st->first, st->last);
		fprintf(f, "%-4s %-5d %-8s %-9s %3d %-9s %-9s %9s %9s %9s %7.1f%% %5.1f /%5.1f%s\n",
			pipe, d->stage + 1, sc->dcs[d->dc].name, sc->gpus[pool->gpu].name,
			d->tp, lay, gp_recompute_name(d->recompute),
			htime(d->t_f, tf, sizeof tf), htime(d->t_b, tb, sizeof tb),
			d->t_w > 0 ? htime(d->t_w, tw, sizeof tw) : "-",
			r->iteration_time > 0 ? 100 * d->busy / r->iteration_time : 0,
			d->mem_peak / 1073741824.0, d->mem_capacity / 1073741824.0,
			d->mem_peak > d->mem_capacity ? " !" : "");
	}
	int any = 0;
	for (int i = 0; i < r->nlinks; i++) {
		const struct gp_link_result *l = &r->links[i];
		if (l->bytes <= 0)
			continue;
		if (!any++)
			fprintf(f, "\n%-20s %12s %12s %7s\n", "link", "bytes", "busy", "util");
		char name[64];
		snprintf(name, sizeof name, "%s -> %s", sc->dcs[l->from].name,
			 sc->dcs[l->to].name);
		fprintf(f, "%-20s %12s %12s %6.1f%%\n", name, hbytes(l->bytes, a, sizeof a),
			htime(l->busy, b, sizeof b),
			r->iteration_time > 0 ? 100 * l->busy / r->iteration_time : 0);
	}
	return ferror(f) ? -1 : 0;
}

void gp_report_json_plan(struct gp_json *j, const struct gp_scenario *sc,
			 const struct gp_plan *p)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "schedule", gp_sched_name(p->schedule));
	gp_json_kint(j, "chunks", p->chunks);
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

void gp_report_json_solver(struct gp_json *j, const struct gp_solver_info *si)
{
	gp_json_obj(j, false);
	gp_json_kstr(j, "engine", si->engine);
	gp_json_kstr(j, "status", si->status);
	gp_json_knum(j, "objective_s", si->objective);
	gp_json_knum(j, "bound_s", si->bound);
	gp_json_knum(j, "gap", si->gap);
	gp_json_knum(j, "time_s", si->seconds);
	if (si->unit) {
		gp_json_kstr(j, "objective", si->unit);
		gp_json_knum(j, "objective_value", si->value);
		gp_json_knum(j, "bound_value", si->value_bound);
	}
	if (si->has_own) {
		gp_json_knum(j, "own_plan_simulated_s", si->own_sim);
		gp_json_kbool(j, "polished", si->polished);
	}
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
	gp_json_knum(j, "mem_peak_bytes", d->mem_peak);
	gp_json_knum(j, "mem_capacity_bytes", d->mem_capacity);
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
	gp_json_knum(j, "bytes", l->bytes);
	gp_json_knum(j, "sync_bytes", l->sync_bytes);
	gp_json_knum(j, "busy_s", l->busy);
	gp_json_end(j);
}

/* The metrics every summary carries (sim, plan, compare, sweep). */
void gp_report_json_metrics(struct gp_json *j, const struct gp_result *r)
{
	gp_json_knum(j, "iteration_time_s", r->iteration_time);
	gp_json_knum(j, "tokens_per_s", r->tokens_per_s);
	gp_json_knum(j, "mfu", r->mfu);
	gp_json_knum(j, "bubble_fraction", r->bubble);
	gp_json_knum(j, "usd_per_iteration", r->usd_per_iteration);
	gp_json_knum(j, "usd_gpu_per_iteration", r->usd_gpu);
	gp_json_knum(j, "usd_egress_per_iteration", r->usd_egress);
	gp_json_knum(j, "wan_bytes_per_iteration", r->wan_bytes);
	gp_json_knum(j, "wan_sync_bytes_per_iteration", r->wan_bytes_sync);
}

void gp_report_json_to(struct gp_json *j, const struct gp_scenario *sc,
		       const struct gp_plan *p, const struct gp_result *r)
{
	gp_json_obj(j, true);
	gp_json_kstr(j, "scenario", sc->name);
	gp_json_kstr(j, "schedule", gp_sched_name(p->schedule));
	gp_json_kint(j, "chunks", r->chunks);
	gp_report_json_metrics(j, r);
	gp_json_key(j, "sync");
	gp_json_obj(j, false);
	gp_json_kstr(j, "mode", gp_sync_name(gp_plan_sync(sc, p)));
	gp_json_kint(j, "every", sc->job.sync_every);
	gp_json_kbool(j, "overlap", sc->job.sync_overlap);
	gp_json_end(j);
	gp_json_kint(j, "gpus", r->gpus);
	gp_json_kbool(j, "fits", r->fits);
	gp_json_knum(j, "peak_memory_bytes", gp_result_peak_memory(r));
	if (r->cost_model[0])
		gp_json_kstr(j, "cost_model", r->cost_model);
	if (sc->measured.iteration_time > 0 || sc->measured.peak_memory > 0) {
		gp_json_key(j, "measured");
		gp_json_obj(j, false);
		if (sc->measured.iteration_time > 0)
			gp_json_knum(j, "iteration_time_s", sc->measured.iteration_time);
		if (sc->measured.peak_memory > 0)
			gp_json_knum(j, "peak_memory_bytes", sc->measured.peak_memory);
		gp_json_end(j);
	}
	if (!r->fits)
		gp_json_kstr(j, "fit_error", r->fit_msg);
	if (r->solver.present) {
		gp_json_key(j, "solver");
		gp_report_json_solver(j, &r->solver);
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
