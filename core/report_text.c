/*
 * report_text.c: the text summary of a simulated iteration (report.h),
 * the one sim and plan print: figures with units, the GPUs' idle time
 * split into the bubble and the wait after the last backward, cost only
 * from prices the scenario gives, what the plan leaves unused and why,
 * then the stages and links as tables as wide as their names. Its words
 * are the JSON's (geoplan(1), JSON OUTPUT).
 */
#include "report.h"
#include "plan.h"
#include "fmt.h"
#include "table.h"
#include "unused.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RT_WIDTH 79    /* lines wrap before this column */
#define RT_LABEL 11    /* "iteration  " */

void gp_report_line(FILE *f, const char *label, const char *text)
{
	int col = fprintf(f, "%-*s", RT_LABEL - 1, label);
	const char *p = text;
	while (*p) {
		size_t word = strcspn(p, " ");
		int w = (int)word;
		if (col + 1 + w > RT_WIDTH && col > RT_LABEL)
			col = fprintf(f, "\n%*s", RT_LABEL - 1, "") - 1;
		col += fprintf(f, " %.*s", w, p);
		p += word;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* "measured   iteration 2.91 s, predicted 2.68 s (-7.9 %)", per figure
 * the scenario gives. */
static void rt_measured(FILE *f, const struct gp_scenario *sc, const struct gp_result *r)
{
	char a[32], b[32], line[160];
	double t = sc->measured.iteration_time, m = sc->measured.peak_memory;
	if (t > 0) {
		snprintf(line, sizeof line, "iteration %s, predicted %s (%+.1f %%)",
			 gp_fmt_time(t, 3, a, sizeof a), gp_fmt_time(r->iteration_time, 3, b, sizeof b),
			 100 * (r->iteration_time - t) / t);
		gp_report_line(f, "measured", line);
	}
	if (m > 0) {
		double p = gp_result_peak_memory(r);
		snprintf(line, sizeof line, "peak memory %s, predicted %s (%+.1f %%)",
			 gp_fmt_gib(m, a, sizeof a), gp_fmt_gib(p, b, sizeof b), 100 * (p - m) / m);
		gp_report_line(f, "measured", line);
	}
}

static int rt_gpus_available(const struct gp_scenario *sc)
{
	int n = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++)
			n += sc->dcs[d].pools[q].count;
	return n;
}

static void rt_head(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p,
		    const struct gp_result *r)
{
	const struct gp_model *m = &sc->model;
	int stages = 0;
	for (int i = 0; i < p->npipes; i++)
		stages += p->pipes[i].nstages;
	char line[640];
	snprintf(line, sizeof line, "%s (%s)", sc->name, sc->path);
	gp_report_line(f, "scenario", line);
	snprintf(line, sizeof line, "%s: %d layers, hidden %.0f, %.0f heads (%.0f KV), FFN %.0f%s",
		 m->name, m->layers, m->hidden, m->heads, m->kv_heads, m->ffn,
		 m->gated ? " gated" : "");
	gp_report_line(f, "model", line);
	snprintf(line, sizeof line, "%.0f sequences x %.0f tokens, micro-batch %.0f, recompute %s",
		 sc->job.global_batch, sc->job.seq, sc->job.micro_batch,
		 gp_recompute_name(sc->job.recompute));
	gp_report_line(f, "job", line);
	int l = snprintf(line, sizeof line, "%s", gp_sched_name(p->schedule));
	if (r->chunks > 1)
		l += snprintf(line + l, sizeof line - (size_t)l, " x%d chunks", r->chunks);
	if (r->chunks > 1 && p->microbatch_group)
		l += snprintf(line + l, sizeof line - (size_t)l, " in micro-batch groups of %d",
			      p->microbatch_group);
	snprintf(line + l, sizeof line - (size_t)l, ", %d pipeline shape%s, %d stage%s, %d of %d GPUs",
		 p->npipes, p->npipes == 1 ? "" : "s", stages, stages == 1 ? "" : "s", r->gpus,
		 rt_gpus_available(sc));
	gp_report_line(f, "plan", line);
}

/* "; ring a > c > b > d > a": the cross-DC ring of the most DCs in the
 * order the simulator runs it (ring.h), back to its first; "" when no
 * sync crosses a DC. */
static void rt_ring(const struct gp_scenario *sc, const struct gp_result *r, char *buf,
		    size_t n)
{
	int k = r->sync_ring_n, shown = k < GP_RING_SHOWN ? k : GP_RING_SHOWN;
	buf[0] = 0;
	if (k < 2)
		return;
	size_t l = (size_t)snprintf(buf, n, "; ring ");
	for (int i = 0; i < shown && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s > ", sc->dcs[r->sync_ring[i]].name);
	if (l < n && shown < k)
		l += (size_t)snprintf(buf + l, n - l, "(%d more) > ", k - shown);
	if (l < n)
		snprintf(buf + l, n - l, "%s", sc->dcs[r->sync_ring[0]].name);
}

static void rt_time(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p,
		    const struct gp_result *r)
{
	char a[32], b[32], c[32], d[32], line[256];
	fprintf(f, "\niteration  %s   tokens/s %s   MFU %s   bubble %s\n",
		gp_fmt_time(r->iteration_time, 3, a, sizeof a),
		gp_fmt_si(r->tokens_per_s, 3, "", b, sizeof b), gp_fmt_pct(r->mfu, c, sizeof c),
		gp_fmt_pct(r->bubble, d, sizeof d));
	if (r->mfu > 1)   /* no GPU runs faster than its peak */
		gp_report_line(f, "MFU", "over 100 %: the cost model's times are faster than the GPUs' peak allows");
	double idle = gp_result_idle(r), after = gp_result_idle_after(r);
	snprintf(line, sizeof line, "%s of the iteration, %s after the last backward",
		 gp_fmt_pct(idle, a, sizeof a), gp_fmt_pct(after, b, sizeof b));
	gp_report_line(f, "GPU idle", line);
	if (!gp_report_syncs(p)) {
		gp_report_line(f, "DP sync", "none: one replica of every layer, no gradients to sync");
		return;
	}
	char every[32] = "every iteration", ring[768] = "";
	if (sc->job.sync_every > 1)
		snprintf(every, sizeof every, "every %d iterations", sc->job.sync_every);
	rt_ring(sc, r, ring, sizeof ring);
	char full[1024];
	snprintf(full, sizeof full, "%s, %s; exposed %s (the worst stage)%s",
		 gp_sync_name(gp_plan_sync(sc, p)), every,
		 gp_fmt_time(gp_result_sync_exposed(r), 3, a, sizeof a), ring);
	gp_report_line(f, "DP sync", full);
}

/* "GPUs $0.0134", and the GPU types the plan uses that have no price. */
static void rt_gpu_cost(const struct gp_scenario *sc, const struct gp_plan *p,
			const struct gp_result *r, char *buf, size_t n)
{
	char a[32];
	int l = snprintf(buf, n, "GPUs %s", gp_fmt_usd(r->usd_gpu, a, sizeof a)), k = 0;
	bool seen[256] = { false };
	for (int i = 0; i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++) {
			const struct gp_stage *st = &p->pipes[i].stages[j];
			int g = sc->dcs[st->dc].pools[st->pool].gpu;
			if (g >= 256 || seen[g] || sc->gpus[g].price_per_hour > 0)
				continue;
			seen[g] = true;
			if (l > 0 && (size_t)l < n)
				l += snprintf(buf + l, n - (size_t)l, "%s%s", k++ ? ", " : " (no price for ",
					      sc->gpus[g].name);
		}
	if (k && l > 0 && (size_t)l < n)
		snprintf(buf + l, n - (size_t)l, ")");
}

void gp_report_cost_parts(const struct gp_scenario *sc, const struct gp_plan *p,
			  const struct gp_result *r, char *gpus, size_t ng, char *egress,
			  size_t ne)
{
	bool gp, ep;
	char a[32];
	gp_report_prices(sc, p, r, &gp, &ep);
	if (gp)
		rt_gpu_cost(sc, p, r, gpus, ng);
	else
		snprintf(gpus, ng, "no GPU prices given");
	if (r->wan_bytes <= 0)
		snprintf(egress, ne, "no WAN traffic");
	else if (ep)
		snprintf(egress, ne, "WAN egress %s", gp_fmt_usd(r->usd_egress, a, sizeof a));
	else
		snprintf(egress, ne, "no egress prices given");
}

static void rt_cost(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p,
		    const struct gp_result *r)
{
	bool gp, ep;
	gp_report_prices(sc, p, r, &gp, &ep);
	if (!gp && (!ep || r->wan_bytes <= 0)) {
		gp_report_line(f, "cost", "no prices given (gpus' price_per_hour, links' price_per_gb)");
		return;
	}
	char b[32], gpus[160], egress[64], line[320];
	gp_report_cost_parts(sc, p, r, gpus, sizeof gpus, egress, sizeof egress);
	snprintf(line, sizeof line, "%s per iteration: %s, %s",
		 gp_fmt_usd(r->usd_per_iteration, b, sizeof b), gpus, egress);
	gp_report_line(f, "cost", line);
	if (sc->budget_usd_per_hour > 0) {   /* the engines keep it; a file's plan may not */
		double usd = gp_plan_usd_per_hour(sc, p);
		snprintf(line, sizeof line, "$%.2f/h; the plan's GPUs $%.2f/h%s",
			 sc->budget_usd_per_hour, usd,
			 usd > sc->budget_usd_per_hour * (1 + 1e-9) ? ": OVER THE BUDGET" : "");
		gp_report_line(f, "budget", line);
	}
}

static void rt_wan(FILE *f, const struct gp_scenario *sc, const struct gp_result *r)
{
	char a[32], b[32], c[32], line[256];
	if (r->wan_bytes <= 0) {
		gp_report_line(f, "WAN", "0 B per iteration: no stage boundary or DP sync crosses a DC");
		return;
	}
	int l = snprintf(line, sizeof line, "%s per iteration: pipeline %s, gradient sync %s",
			 gp_fmt_bytes(r->wan_bytes, a, sizeof a),
			 gp_fmt_bytes(r->wan_bytes - r->wan_bytes_sync, b, sizeof b),
			 gp_fmt_bytes(r->wan_bytes_sync, c, sizeof c));
	if (sc->job.sync_every > 1)
		snprintf(line + l, sizeof line - (size_t)l, " (every %d iterations, amortised)",
			 sc->job.sync_every);
	gp_report_line(f, "WAN", line);
}

static void rt_unused(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p,
		      const struct gp_result *r)
{
	struct gp_unused *u;
	int n;
	if (gp_unused_find(sc, p, r, &u, &n))
		return;
	for (int i = 0; i < n; i++) {
		char line[640];
		gp_unused_text(sc, &u[i], line, sizeof line);
		gp_report_line(f, "unused", line);
	}
	free(u);
}

/* The solver's figures in the objective's unit. */
static void rt_solver(FILE *f, const struct gp_result *r)
{
	const struct gp_solver_info *si = &r->solver;
	char a[32], b[32], c[32], g[24], line[512];
	/* A schedule MILP (rows) optimises the pipelines' makespan: the DP
	 * sync and optimizer step after it are the simulator's. */
	/* A plan that does not fit is no solution, whatever its engine said. */
	int l = snprintf(line, sizeof line, "%s %s: %s %s", si->engine,
			 r->fits ? si->status : "plan does not fit",
			 si->rows ? "makespan" : "estimate",
			 gp_fmt_time(si->objective, 3, a, sizeof a));
	size_t k = sizeof line;
	if (si->unit && !strcmp(si->unit, "usd"))
		l += snprintf(line + l, k - (size_t)l, ", %s per iteration, bound %s, gap %s",
			      gp_fmt_usd(si->value, a, sizeof a),
			      gp_fmt_usd(si->value_bound, b, sizeof b), gp_fmt_gap(si->gap, g, sizeof g));
	else if (si->unit)
		l += snprintf(line + l, k - (size_t)l, ", %s over the WAN, bound %s, gap %s",
			      gp_fmt_bytes(si->value, a, sizeof a),
			      gp_fmt_bytes(si->value_bound, b, sizeof b), gp_fmt_gap(si->gap, g, sizeof g));
	else if (isfinite(si->bound))
		l += snprintf(line + l, k - (size_t)l, ", bound %s, gap %s",
			      gp_fmt_time(si->bound, 3, b, sizeof b), gp_fmt_gap(si->gap, g, sizeof g));
	else
		l += snprintf(line + l, k - (size_t)l, ", no bound");
	/* The time is the whole engine's: the polish's included, when it ran
	 * (the MILP's own is in the note). */
	l += snprintf(line + l, k - (size_t)l, ", %s%s", gp_fmt_time(si->seconds, 3, a, sizeof a),
		      si->has_own ? " with the polish" : "");
	if (si->rows)
		l += snprintf(line + l, k - (size_t)l, " (%d rows, %d binaries)", si->rows,
			      si->binaries);
	if (si->has_own && si->polished && !isfinite(si->own_sim))
		snprintf(line + l, k - (size_t)l, "; its plan not simulated (see the note), the search's %s (below)",
			 gp_fmt_time(r->iteration_time, 3, c, sizeof c));
	else if (si->has_own && si->polished)
		snprintf(line + l, k - (size_t)l, "; its plan simulated %s, polished by the search to %s (below)",
			 gp_fmt_time(si->own_sim, 3, b, sizeof b),
			 gp_fmt_time(r->iteration_time, 3, c, sizeof c));
	else
		snprintf(line + l, k - (size_t)l, "; simulated %s%s%s",
			 si->rows ? "makespan " : "",
			 gp_fmt_time(si->rows ? r->compute_end : r->iteration_time, 3, c, sizeof c),
			 si->rows ? " (the iteration adds the DP sync and optimizer step)"
			 : si->has_own ? ", the search seeded with it found nothing faster" : "");
	gp_report_line(f, "solver", line);
	if (si->space) {
		snprintf(line, sizeof line, "%s %s",
			 si->proven ? "optimal over" : "none (see the note), searched", si->space);
		gp_report_line(f, "proof", line);
	}
}

static void rt_stages(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p,
		      const struct gp_result *r)
{
	static const char *const heads[] = { "pipe", "replicas", "stage", "DC", "GPU", "TP",
		"layers", "recompute", "F", "B", "W", "busy", "memory GiB" };
	struct gp_table t;
	gp_table_init(&t, "rrrllrllrrrrr", heads);
	char a[32];
	bool same_rc = true;
	for (int i = 0; i < r->ndevs; i++) {
		const struct gp_dev_result *d = &r->devs[i];
		const struct gp_stage *st = &p->pipes[d->pipeline].stages[d->stage];
		gp_table_row(&t);
		gp_table_set(&t, 0, "%d", d->pipeline + 1);
		gp_table_set(&t, 1, "%d", d->replicas);
		gp_table_set(&t, 2, "%d", d->stage + 1);
		gp_table_set(&t, 3, "%s", sc->dcs[d->dc].name);
		gp_table_set(&t, 4, "%s", sc->gpus[sc->dcs[d->dc].pools[d->pool].gpu].name);
		gp_table_set(&t, 5, "%d", d->tp);
		gp_table_set(&t, 6, "%d-%d", st->first, st->last);
		gp_table_set(&t, 7, "%s", gp_recompute_name(d->recompute));
		gp_table_set(&t, 8, "%s", gp_fmt_time(d->t_f, 3, a, sizeof a));
		gp_table_set(&t, 9, "%s", gp_fmt_time(d->t_b, 3, a, sizeof a));
		if (d->t_w > 0)
			gp_table_set(&t, 10, "%s", gp_fmt_time(d->t_w, 3, a, sizeof a));
		gp_table_set(&t, 11, "%s",
			     gp_fmt_pct(r->iteration_time > 0 ? d->busy / r->iteration_time : 0, a,
					sizeof a));
		gp_table_set(&t, 12, "%.1f / %.1f%s", d->mem_peak / 1073741824.0,
			     d->mem_capacity / 1073741824.0,
			     d->mem_peak > d->mem_capacity ? " over" : "");
		same_rc = same_rc && d->recompute == sc->job.recompute;
	}
	t.hide[7] = same_rc;   /* the job line says it */
	t.hide[10] = !gp_table_used(&t, 10);
	fprintf(f, "\nstages (F, B%s: per micro-batch; busy: share of the iteration computing;\n"
		"memory: peak of capacity)\n", t.hide[10] ? "" : ", W");
	gp_table_print(&t, f, "");
	gp_table_free(&t);
}

static void rt_links(FILE *f, const struct gp_scenario *sc, const struct gp_result *r)
{
	static const char *const heads[] = { "link", "bytes", "of which sync", "busy", "util" };
	struct gp_table t;
	gp_table_init(&t, "lrrrr", heads);
	char a[32];
	for (int i = 0; i < r->nlinks; i++) {
		const struct gp_link_result *l = &r->links[i];
		if (l->bytes <= 0)
			continue;
		gp_table_row(&t);
		gp_table_set(&t, 0, "%s -> %s", sc->dcs[l->from].name, sc->dcs[l->to].name);
		gp_table_set(&t, 1, "%s", gp_fmt_bytes(l->bytes, a, sizeof a));
		gp_table_set(&t, 2, "%s", gp_fmt_bytes(l->sync_bytes, a, sizeof a));
		gp_table_set(&t, 3, "%s", gp_fmt_time(l->busy, 3, a, sizeof a));
		gp_table_set(&t, 4, "%s",
			     gp_fmt_pct(r->iteration_time > 0 ? l->busy / r->iteration_time : 0, a,
					sizeof a));
	}
	if (t.nrows) {
		fprintf(f, "\nWAN links (bytes per iteration; util: share of the iteration busy)\n");
		gp_table_print(&t, f, "");
	}
	gp_table_free(&t);
}

int gp_report_text(FILE *f, const struct gp_scenario *sc,
		   const struct gp_plan *p, const struct gp_result *r)
{
	rt_head(f, sc, p, r);
	rt_time(f, sc, p, r);
	rt_cost(f, sc, p, r);
	rt_wan(f, sc, r);
	rt_unused(f, sc, p, r);
	if (r->cost_model[0])
		gp_report_line(f, "cost model", r->cost_model);
	gp_report_eff_text(f, sc, p);
	rt_measured(f, sc, r);
	if (!r->fits) {
		char line[600];
		snprintf(line, sizeof line, "DOES NOT FIT: %s", r->fit_msg);
		gp_report_line(f, "memory", line);
	}
	if (r->solver.present)
		rt_solver(f, r);
	rt_stages(f, sc, p, r);
	rt_links(f, sc, r);
	return ferror(f) ? -1 : 0;
}
