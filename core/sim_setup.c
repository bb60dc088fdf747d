/*
 * sim_setup.c: builds the simulator's state (sim_int.h) from a scenario
 * and a plan, and turns the finished run into metrics.
 *
 * Per stage, the cost tables (costtab.h) give the layer times and
 * memory, the optimizer step and the model state's bytes, from which an
 * `auto` stage takes the cheapest recomputation that fits. A layer's
 * gradients are all-reduced by every replica, over all pipelines (each
 * holds every layer once); a stage's layers fall in runs held in the same
 * DCs, and each run's ring crosses its DCs in the order sim_ring.c
 * chooses. Time-aware schedules (xdc-greedy, xdc-milp)
 * are generated once a pipeline's costs are known (sim_sched.c).
 */
#include "sim_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xdc-greedy and xdc-milp are generated from the costs (sim_sched.c). */
static bool is_xdc(const struct gp_plan *p)
{
	return p->schedule == GP_SCHED_XDC_GREEDY || p->schedule == GP_SCHED_XDC_MILP;
}

/* --- per-stage costs and memory ------------------------------------ */

/* Layers of chunk c when n layers are split into v chunks. */
static int chunk_layers(int n, int v, int c)
{
	return n / v + (c < n % v);
}

/* One layer of a stage, and its logits, under one recomputation; pace:
 * the slowest of the GPUs the plan runs on in the stage's pool against
 * the tables' mean. */
struct stage_costs {
	const struct gp_layer_cost *layer, *logits;
	double pace;
};

/* From the cost tables (the plan's TP degrees divide the heads, as
 * gp_plan_validate checked, so they are there), at the pace of the
 * slowest of the GPUs the plan runs on in the pool (gp_straggle): idle
 * GPUs of the pool do not slow it. */
static void layer_costs(struct sim *s, const struct gp_stage *st,
			enum gp_recompute rc, struct stage_costs *out)
{
	out->layer = gp_costtab_layer(s->ct, st->dc, st->pool, st->tp, rc);
	out->logits = gp_costtab_logits(s->ct, st->dc, st->pool, st->tp);
	out->pace = gp_costtab_pace(s->ct, st->dc, st->pool,
				    gp_plan_pool_gpus(s->plan, st->dc, st->pool));
}

/* Spreads a stage's layer costs over its chunks (virtual stages). */
static void fill_vcosts(struct sim *s, int g, int st, const struct stage_costs *c,
			struct vcost *vc)
{
	struct group *gr = &s->g[g];
	const struct gp_stage *x = &s->plan->pipes[g].stages[st];
	int n = x->last - x->first + 1;
	for (int ch = 0; ch < gr->v; ch++) {
		int vs = gp_vs_of(gr->S, gr->vshape, st, ch), nl = chunk_layers(n, gr->v, ch);
		struct vcost *v = &vc[vs];
		v->layers = nl;
		v->first = x->first;
		for (int c2 = 0; c2 < ch; c2++)
			v->first += chunk_layers(n, gr->v, c2);
		double pc = c->pace;
		v->f = nl * c->layer->t.f * pc;
		v->b = nl * c->layer->t.b * pc;
		v->w = nl * c->layer->t.w * pc;
		v->act = nl * c->layer->m.act;
		v->wact = nl * c->layer->m.wact;
		if (vs == gr->VS - 1) {
			gr->defer_w = c->logits->t.w * pc;
			/* The logits layer, and what it keeps until its B. */
			v->f += c->logits->t.f * pc;
			v->b += c->logits->t.b * pc;
			v->w += c->logits->t.w * pc;
			v->act += c->logits->m.act;
		}
		if (!gr->split) {
			v->b += v->w;
			v->w = 0;
		}
	}
}

/* Parameters of a stage: its layers, and the embedding on the first
 * stage and the output layer on the last. */
static double stage_params(const struct gp_scenario *sc, const struct gp_stage *st,
			   int first_stage, int last_stage)
{
	double p = (st->last - st->first + 1) * gp_layer_params(&sc->model);
	if (first_stage)
		p += gp_embedding_params(&sc->model);
	if (last_stage)
		p += gp_embedding_params(&sc->model); /* untied output layer */
	return p;
}

/* Weights, gradients and optimizer state on one GPU of a stage. */
static double static_bytes(const struct sim *s, const struct gp_stage *x,
			   double params, int D)
{
	return params / x->tp * gp_costtab_state_bytes(s->ct, D) +
	       gp_costtab_reserve(s->ct, x->dc, x->pool);
}

/* The optimizer step on one GPU: its TP shard of the stage, and with
 * ZeRO-1 its share of that over all D replicas. */
static double opt_time(const struct sim *s, const struct gp_stage *x, double params, int D)
{
	return gp_costtab_optimizer(s->ct, x->dc, x->pool,
				    params / x->tp / (s->sc->job.zero && D > 1 ? D : 1));
}

/* Peak activation bytes of a device walking its task order. */
double sim_walk_peak(const struct group *gr, int s, const struct vcost *vc)
{
	double cur = 0, peak = 0;
	for (int64_t i = gr->sc.off[s]; i < gr->sc.off[s + 1]; i++) {
		const struct gp_task *t = &gr->sc.tasks[i];
		const struct vcost *c = &vc[gp_vs_of(gr->S, gr->vshape, s, t->chunk)];
		if (t->kind == GP_TASK_F) {
			cur += c->act;
			if (cur > peak)
				peak = cur;
		} else if (t->kind == GP_TASK_B) {
			/* B needs its working set on top; W keeps the GEMM inputs. */
			cur -= gr->split ? c->act - c->wact : c->act;
		} else {
			cur -= c->wact;
		}
	}
	return peak;
}

/* Before a time-aware schedule exists: 1F1B's in-flight count, every
 * chunk of the first S - s micro-batches. */
static double inflight_estimate(const struct group *gr, int s, const struct vcost *vc)
{
	double act = 0;
	for (int c = 0; c < gr->v; c++)
		act += vc[gp_vs_of(gr->S, gr->vshape, s, c)].act;
	return (gr->m < gr->S - s ? gr->m : gr->S - s) * act;
}

/* Peak activation bytes of device st: walked on its task order, or
 * estimated while a time-aware schedule does not exist yet. */
static double act_peak(const struct group *gr, int st, bool xdc)
{
	return xdc ? inflight_estimate(gr, st, gr->vc) : sim_walk_peak(gr, st, gr->vc);
}

/* Fills the chunk costs of stage st for its recomputation (auto: the
 * cheapest that fits in capacity) and returns its peak memory. */
static double choose_recompute(struct sim *s, int g, int st, double stat,
			       double capacity, enum gp_recompute *chosen)
{
	struct group *gr = &s->g[g];
	const struct gp_stage *x = &s->plan->pipes[g].stages[st];
	bool xdc = is_xdc(s->plan);
	enum gp_recompute cand[3] = { GP_RC_NONE, GP_RC_SELECTIVE, GP_RC_FULL };
	int nc = 3;
	if (x->recompute != GP_RC_AUTO) {
		cand[0] = x->recompute;
		nc = 1;
	}
	struct stage_costs cost;
	double peak = 0;
	for (int c = 0; c < nc; c++) {
		layer_costs(s, x, cand[c], &cost);
		fill_vcosts(s, g, st, &cost, gr->vc);
		peak = stat + act_peak(gr, st, xdc);
		*chosen = cand[c];
		if (peak <= capacity)
			break;
	}
	return peak;
}

/* --- set-up ---------------------------------------------------------- */

/* s->lcnt: for every layer, the replicas per DC holding it (in every
 * pipeline, the stage that holds it). */
static int layer_holders(struct sim *s)
{
	const struct gp_plan *p = s->plan;
	int ndc = s->sc->ndcs;
	s->lcnt = gp_xcalloc((size_t)(s->sc->model.layers + 1) * (size_t)ndc, sizeof *s->lcnt);
	if (!s->lcnt)
		return gp_errf(s->e, "out of memory");
	for (int g = 0; g < p->npipes; g++)
		for (int j = 0; j < p->pipes[g].nstages; j++) {
			const struct gp_stage *x = &p->pipes[g].stages[j];
			for (int l = x->first; l <= x->last; l++)
				s->lcnt[(size_t)l * ndc + x->dc] += p->pipes[g].replicas;
		}
	return 0;
}

/* How many buckets add_buckets (sim.c) makes of run u of device d: with
 * overlap, per chunk, the run's layers in it g at a time; else one. */
static int run_buckets(const struct sim *s, const struct dev *d, const struct sync_run *u)
{
	if (!s->sc->job.sync_overlap)
		return 1;
	const struct group *gr = &s->g[d->g];
	const struct gp_stage *st = &s->plan->pipes[d->g].stages[d->s];
	double per_layer = d->grad_bytes / (st->last - st->first + 1);
	double shard = per_layer / gp_grad_reduce_bytes(&s->sc->job) / st->tp;
	double want = fmax(40e6, 1e6 * d->D);
	int nb = 0;
	for (int c = 0; c < gr->v; c++) {
		const struct vcost *v = &gr->vc[gp_vs_of(gr->S, gr->vshape, d->s, c)];
		int n = v->layers, lo = v->first, hi = lo + n - 1;
		int a = u->first > lo ? u->first : lo, b = u->last < hi ? u->last : hi;
		if (n <= 0 || b < a)
			continue;
		int g = shard >= want ? 1 : (int)fmin(n, ceil(want / shard));
		nb += (b - a + g) / g;
	}
	return nb > 0 ? nb : 1;
}

/* Run u of device d, its layers' holders in cnt: its DCs (in index
 * order until sim_rings orders them), what its buckets put on each hop
 * of the ring, and its local channel: NVLink when the DC's replicas
 * share one node, else the NICs, r of them per node carrying the ring's
 * channels (Megatron places TP innermost, then DP). */
static int run_ring(struct sim *s, struct dev *d, struct sync_run *u, const int *cnt)
{
	const struct gp_stage *me = &s->plan->pipes[d->g].stages[d->s];
	int ndc = s->sc->ndcs;
	u->ring = calloc((size_t)ndc, sizeof *u->ring);
	if (!u->ring)
		return gp_errf(s->e, "out of memory");
	u->k = 0;
	for (int i = 0; i < ndc; i++)
		if (cnt[i])
			u->ring[u->k++] = i;
	u->local = cnt[me->dc];
	if (u->k > 1) {
		/* This device's pipeline's share, as add_bucket sends it. */
		double per_layer = d->grad_bytes / (me->last - me->first + 1);
		struct gp_sync_q q = { .bytes = per_layer * (u->last - u->first + 1) *
						s->g[d->g].R / d->D,
				       .replicas = d->D, .dcs = u->k, .mode = s->mode,
				       .every = s->sc->job.sync_every };
		u->hop_bytes = gp_dp_sync_wan_bytes(&q);
		u->nb = run_buckets(s, d, u);
	}
	int ranks = u->k > 1 && s->mode == GP_SYNC_HIER ? u->local : d->D;
	struct gp_comm c = gp_costtab_dp_ring(s->ct, s->sc, me->dc, me->pool, me->tp, ranks);
	u->local_bw = c.bw;
	u->local_lat = c.lat;
	return 0;
}

/* Device d's DP groups: its layers in runs held by the same replicas in
 * the same DCs (pipelines that cut the model at other layers make more
 * than one), D the replicas of all pipelines. */
static int dp_group(struct sim *s, struct dev *d, int D)
{
	const struct gp_plan *p = s->plan;
	const struct gp_stage *me = &p->pipes[d->g].stages[d->s];
	int ndc = s->sc->ndcs, n = me->last - me->first + 1, rc = 0;
	d->runs = gp_xcalloc((size_t)n, sizeof *d->runs);
	if (!d->runs)
		return gp_errf(s->e, "out of memory");
	d->D = D;
	d->nruns = 0;
	size_t row = (size_t)ndc * sizeof *s->lcnt;
	for (int l = me->first; l <= me->last; l++) {
		const int *cnt = s->lcnt + (size_t)l * ndc;
		if (d->nruns && !memcmp(cnt, cnt - ndc, row))
			d->runs[d->nruns - 1].last = l;
		else
			d->runs[d->nruns++] = (struct sync_run){ .first = l, .last = l };
	}
	for (int i = 0; i < d->nruns && !rc; i++)
		rc = run_ring(s, d, &d->runs[i], s->lcnt + (size_t)d->runs[i].first * ndc);
	d->cont = gp_costtab_contention(s->ct, me->dc, me->pool);
	return rc;
}

/* Records the first device whose peak memory exceeds its GPU's. */
void sim_check_fit(struct sim *s, struct gp_result *r, int di)
{
	const struct gp_dev_result *dr = &r->devs[di];
	const struct gp_stage *x = &s->plan->pipes[dr->pipeline].stages[dr->stage];
	const struct gp_gpu *gpu = &s->sc->gpus[s->sc->dcs[x->dc].pools[x->pool].gpu];
	if (dr->mem_peak <= gpu->memory || !r->fits)
		return;
	r->fits = false;
	snprintf(r->fit_msg, sizeof r->fit_msg,
		 "pipeline %d stage %d (%s, %s, layers %d-%d) needs %.1f GiB per GPU, %s has %.1f GiB",
		 dr->pipeline + 1, dr->stage + 1, s->sc->dcs[x->dc].name, gpu->name,
		 x->first, x->last, dr->mem_peak / 1073741824.0, gpu->name,
		 gpu->memory / 1073741824.0);
}

/* Allocates the groups, devices, links and the devices' results. */
static int setup_alloc(struct sim *s, struct gp_result *r)
{
	const struct gp_scenario *sc = s->sc;
	const struct gp_plan *p = s->plan;
	s->ng = p->npipes;
	s->g = gp_xcalloc((size_t)s->ng, sizeof *s->g);
	if (!s->g)
		return gp_errf(s->e, "out of memory");
	int nd = 0;
	for (int g = 0; g < p->npipes; g++)
		nd += p->pipes[g].nstages;
	s->nd = nd;
	s->d = gp_xcalloc((size_t)nd, sizeof *s->d);
	r->devs = gp_xcalloc((size_t)nd, sizeof *r->devs);
	s->nl = sc->nlinks;
	s->l = gp_xcalloc((size_t)s->nl, sizeof *s->l);
	if (!s->d || !r->devs || !s->l)
		return gp_errf(s->e, "out of memory");
	r->ndevs = nd;
	for (int i = 0; i < s->nl; i++) {
		struct gp_comm c = gp_costtab_wan(s->ct, i);
		s->l[i].bw = c.bw;
		s->l[i].lat = c.lat;
	}
	r->fits = true;
	return 0;
}

/* Pipeline g, whose first device is di: its shape, its schedule (unless
 * it is generated from the costs later) and its per-chunk arrays. */
static int setup_group(struct sim *s, int g, int di)
{
	const struct gp_plan *p = s->plan;
	const struct gp_pipeline *pp = &p->pipes[g];
	struct group *gr = &s->g[g];
	bool xdc = is_xdc(p);
	gr->S = pp->nstages;
	gr->v = p->schedule == GP_SCHED_INTERLEAVED || xdc ? p->chunks : 1;
	gr->vshape = xdc && gr->v == 2;
	gr->split = p->schedule == GP_SCHED_ZBH1 || xdc;
	gr->m = pp->micro_batches;
	gr->VS = gr->S * gr->v;
	gr->R = pp->replicas;
	gr->dev0 = di;
	/* Megatron-Core's defer_embedding_wgrad_compute: the logits layer's
	 * weight-gradient GEMM of the first wgrad_deferral_limit
	 * micro-batches moves to the end of the last stage's work, into the
	 * pipeline flush where it would idle (a pipeline of one stage has
	 * none; zero-bubble schedules place W themselves). */
	gr->defer_n = gr->S > 1 && !gr->split ? (int)fmin(s->sc->job.defer_wgrad, gr->m) : 0;
	int64_t ntasks = (int64_t)gr->VS * gr->m * (gr->split ? 3 : 2);
	if (ntasks > GP_MAX_TASKS)
		return gp_errf(s->e, "plan.pipelines[%d]: %lld tasks (stages x micro-batches x chunks x passes) are too many to simulate; at most %lld",
			       g + 1, (long long)ntasks, (long long)GP_MAX_TASKS);
	/* Time-aware schedules are generated once the costs are known. */
	if (!xdc && gp_schedule_build(p->schedule, gr->S, gr->v, gr->m, p->microbatch_group, &gr->sc,
				      s->e)) {
		char pre[64];
		snprintf(pre, sizeof pre, "plan.pipelines[%d]", g + 1);
		gp_err_prefix(s->e, pre);
		return -1;
	}
	size_t cells = (size_t)gr->VS * (size_t)gr->m;
	gr->vc = gp_xcalloc((size_t)gr->VS, sizeof *gr->vc);
	gr->fin = malloc(cells * sizeof *gr->fin);
	gr->bin = malloc(cells * sizeof *gr->bin);
	gr->grad_started = gp_xcalloc((size_t)gr->VS, sizeof *gr->grad_started);
	gr->f1_end = gp_xcalloc((size_t)gr->VS, sizeof *gr->f1_end);
	if (!gr->vc || !gr->fin || !gr->bin || !gr->grad_started || !gr->f1_end)
		return gp_errf(s->e, "out of memory");
	for (size_t i = 0; i < cells; i++)
		gr->fin[i] = gr->bin[i] = SIM_INF;
	if (s->record) {
		gr->fdep = malloc(cells * sizeof *gr->fdep);
		gr->bdep = malloc(cells * sizeof *gr->bdep);
		if (!gr->fdep || !gr->bdep)
			return gp_errf(s->e, "out of memory");
		memset(gr->fdep, 0xff, cells * sizeof *gr->fdep);  /* -1: none */
		memset(gr->bdep, 0xff, cells * sizeof *gr->bdep);
	}
	return 0;
}

/* Device di runs stage st of pipeline g: its costs and memory, its
 * optimizer step, its result entry and its DP group. D counts the
 * replicas of all pipelines. */
static int setup_stage(struct sim *s, struct gp_result *r, int g, int st,
		       int di, int D)
{
	const struct gp_scenario *sc = s->sc;
	const struct gp_pipeline *pp = &s->plan->pipes[g];
	const struct gp_stage *x = &pp->stages[st];
	const struct gp_gpu *gpu = &sc->gpus[sc->dcs[x->dc].pools[x->pool].gpu];
	struct group *gr = &s->g[g];
	struct dev *d = &s->d[di];
	struct gp_dev_result *dr = &r->devs[di];
	bool xdc = is_xdc(s->plan);
	d->g = g;
	d->s = st;
	d->span = d->sync_dep = -1;
	if (!xdc) {
		d->next = gr->sc.off[st];
		d->end = gr->sc.off[st + 1];
	}
	double params = stage_params(sc, x, st == 0, st == gr->S - 1);
	double stat = static_bytes(s, x, params, D);
	/* The deferred logits W keep their inputs until the flush: the
	 * logits' gradient (b s V / t) and the layer's all-gathered input
	 * (b s h), 16-bit, per micro-batch deferred. */
	if (st == gr->S - 1)
		stat += gr->defer_n * sc->job.micro_batch * sc->job.seq *
			(sc->model.vocab / x->tp + sc->model.hidden) * sc->job.precision_bytes;
	double peak = choose_recompute(s, g, st, stat, gpu->memory, &dr->recompute);
	d->drain = st == gr->S - 1 ? gr->defer_n * gr->defer_w : 0;
	d->grad_bytes = params * gp_grad_reduce_bytes(&sc->job);
	d->t_opt = opt_time(s, x, params, D);
	dr->pipeline = g;
	dr->stage = st;
	dr->replicas = pp->replicas;
	dr->tp = x->tp;
	dr->dc = x->dc;
	dr->pool = x->pool;
	dr->mem_peak = peak;
	dr->mem_capacity = gpu->memory;
	for (int ch = 0; ch < gr->v; ch++) {
		const struct vcost *v = &gr->vc[gp_vs_of(gr->S, gr->vshape, st, ch)];
		dr->t_f += v->f;
		dr->t_b += v->b;
		dr->t_w += v->w;
	}
	if (!xdc)
		sim_check_fit(s, r, di);
	d->stat = stat;
	r->gpus += x->tp * pp->replicas;
	return dp_group(s, d, D) ? -1 : 0;
}

/* The slots of the layers' collectives and their participants: every
 * device that syncs (D > 1) and holds the layer. */
static int setup_slots(struct sim *s)
{
	const struct gp_plan *p = s->plan;
	int L = s->sc->model.layers;
	s->slot = gp_xcalloc((size_t)L + 2, sizeof *s->slot);
	s->part_off = gp_xcalloc((size_t)L + 3, sizeof *s->part_off);
	if (!s->slot || !s->part_off)
		return gp_errf(s->e, "out of memory");
	for (int i = 0; i < s->nd; i++) {
		const struct gp_stage *x = &p->pipes[s->d[i].g].stages[s->d[i].s];
		for (int l = x->first; s->d[i].D > 1 && l <= x->last; l++)
			s->slot[l].need++;
	}
	for (int l = 1; l <= L + 1; l++)
		s->part_off[l + 1] = s->part_off[l] + s->slot[l].need;
	s->part = gp_xcalloc((size_t)s->part_off[L + 2] + 1, sizeof *s->part);
	if (!s->part)
		return gp_errf(s->e, "out of memory");
	int *at = gp_xcalloc((size_t)L + 2, sizeof *at);
	if (!at)
		return gp_errf(s->e, "out of memory");
	for (int i = 0; i < s->nd; i++) {
		const struct gp_stage *x = &p->pipes[s->d[i].g].stages[s->d[i].s];
		for (int l = x->first; s->d[i].D > 1 && l <= x->last; l++)
			s->part[s->part_off[l] + at[l]++] = i;
	}
	free(at);
	return 0;
}

int sim_setup(struct sim *s, struct gp_result *r)
{
	const struct gp_plan *p = s->plan;
	if (setup_alloc(s, r) || layer_holders(s))
		return -1;
	int D = 0;
	for (int g = 0; g < p->npipes; g++)
		D += p->pipes[g].replicas;
	int di = 0;
	for (int g = 0; g < p->npipes; g++) {
		if (setup_group(s, g, di))
			return -1;
		for (int st = 0; st < s->g[g].S; st++, di++)
			if (setup_stage(s, r, g, st, di, D))
				return -1;
		if (is_xdc(p) && sim_gen_timed(s, g, r))
			return -1;
	}
	free(s->lcnt);
	s->lcnt = NULL;
	return sim_rings(s, r) ? -1 : setup_slots(s);
}

/* --- metrics ---------------------------------------------------------- */

void sim_metrics(struct sim *s, struct gp_result *r)
{
	const struct gp_scenario *sc = s->sc;
	double T = 0, cend = 0, busy_w = 0, gpus_w = 0, usd_gpu = 0, peak = 0;
	for (int i = 0; i < s->nd; i++) {
		struct dev *d = &s->d[i];
		struct gp_dev_result *dr = &r->devs[i];
		const struct gp_pool *pool = sim_stage_pool(s, d->g, d->s);
		double n = (double)dr->tp * dr->replicas;
		dr->busy = d->busy_time;
		dr->end = d->t_end;
		dr->sync_exposed = fmax(0, d->t_end - d->t_opt - d->last_end);
		T = fmax(T, d->t_end);
		cend = fmax(cend, d->last_end);
		busy_w += d->busy_time * n;
		gpus_w += n;
		peak += n * sc->gpus[pool->gpu].flops;
		usd_gpu += n * sc->gpus[pool->gpu].price_per_hour;
	}
	r->iteration_time = T;
	r->compute_end = cend;
	r->bubble = cend > 0 ? 1 - busy_w / (gpus_w * cend) : 0;
	double tokens = sc->job.global_batch * sc->job.seq;
	r->tokens_per_s = T > 0 ? tokens / T : 0;
	double mb = sc->job.global_batch / sc->job.micro_batch;
	double flops = 3 * mb * (sc->model.layers *
				 gp_layer_flops_fwd(&sc->model, sc->job.micro_batch, sc->job.seq) +
				 gp_logits_flops_fwd(&sc->model, sc->job.micro_batch, sc->job.seq));
	r->mfu = T > 0 ? flops / (T * peak) : 0;
	r->usd_gpu = usd_gpu * T / 3600;
	r->nlinks = s->nl;
	r->links = gp_xcalloc((size_t)(s->nl ? s->nl : 1), sizeof *r->links);
	r->usd_egress = 0;
	r->wan_bytes = 0;
	r->wan_bytes_sync = 0;
	for (int i = 0; r->links && i < s->nl; i++) {
		r->links[i].from = sc->links[i].from;
		r->links[i].to = sc->links[i].to;
		r->links[i].bytes = s->l[i].bytes;
		r->links[i].sync_bytes = s->l[i].sync_bytes;
		r->wan_bytes_sync += s->l[i].sync_bytes;
		r->links[i].busy = s->l[i].busy;
		r->wan_bytes += s->l[i].bytes;
		r->usd_egress += s->l[i].bytes / 1e9 * sc->links[i].price_per_gb;
	}
	r->usd_per_iteration = r->usd_gpu + r->usd_egress;
}

void sim_free(struct sim *s)
{
	for (int g = 0; g < s->ng; g++) {
		gp_schedule_free(&s->g[g].sc);
		free(s->g[g].vc);
		free(s->g[g].fin);
		free(s->g[g].bin);
		free(s->g[g].fdep);
		free(s->g[g].bdep);
		free(s->g[g].grad_started);
		free(s->g[g].f1_end);
	}
	free(s->g);
	for (int i = 0; i < s->nd; i++) {
		free(s->d[i].bk);
		for (int u = 0; s->d[i].runs && u < s->d[i].nruns; u++)
			free(s->d[i].runs[u].ring);
		free(s->d[i].runs);
	}
	free(s->d);
	free(s->lcnt);
	for (int i = 0; i < s->nl; i++)
		free(s->l[i].h);
	free(s->l);
	free(s->x);
	free(s->xfree);
	free(s->q.v);
	free(s->slot);
	free(s->part);
	free(s->part_off);
}
