/*
 * estimate.c: the planners' quick estimate of a plan's iteration time
 * (baseline.h), which only orders candidates so that the simulator sees
 * the promising ones first; every plan is then judged by gp_simulate.
 *
 * A stage per micro-batch costs its layers from the cost tables (F + B +
 * W), with the lightest recomputation that fits its memory when the job
 * says auto, as sim.c does. A pipeline takes (m - 1) max_s(t_s + c_s) +
 * sum_s(t_s + c_s) (1F1B with unequal stages; c_s: the activation's
 * transfer to the next stage), then the gradient sync its backward does
 * not hide and the optimizer step; WAN links are shared by everything
 * that crosses them. It mirrors sim.c's rules (a layer's DP group is
 * every replica holding it, hierarchical rings, link sharing) in closed
 * form.
 */
#include "baseline.h"
#include "ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One stage per micro-batch: compute (F + B + W) and memory, with the
 * cheapest recomputation that fits when the job says auto (as sim.c). */
void bl_est_stage(const struct bl_ctx *c, const struct gp_stage *st, bool first,
		  bool last, int inflight, int D, int n, struct bl_stage_est *o)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	const struct gp_gpu *gpu = &s->gpus[pool->gpu];
	const struct gp_model *m = &s->model;
	int nl = st->last - st->first + 1;
	o->params = nl * gp_layer_params(m) + (first ? gp_embedding_params(m) : 0) +
		    (last ? gp_embedding_params(m) : 0);
	double stat = o->params / st->tp * gp_costtab_state_bytes(c->ct, D) +
		      gp_costtab_reserve(c->ct, st->dc, st->pool);
	const struct gp_layer_cost *lg = gp_costtab_logits(c->ct, st->dc, st->pool, st->tp);
	double lact = last && lg ? lg->m.act : 0;
	enum gp_recompute cand[3] = { GP_RC_NONE, GP_RC_SELECTIVE, GP_RC_FULL };
	int nc = 3;
	if (st->recompute != GP_RC_AUTO) {
		cand[0] = st->recompute;
		nc = 1;
	}
	const struct gp_layer_cost *l = NULL;
	for (int i = 0; i < nc; i++) {
		o->rc = cand[i];
		l = gp_costtab_layer(c->ct, st->dc, st->pool, st->tp, cand[i]);
		o->mem = l ? stat + inflight * (nl * l->m.act + lact) : INF;
		if (o->mem <= gpu->memory)
			break;
	}
	if (!l || !lg) {
		o->u = o->b = o->mem = INF;
		return;
	}
	struct gp_layer_time lt = l->t, gt = last ? lg->t : (struct gp_layer_time){ 0, 0, 0 };
	double pc = gp_costtab_pace(c->ct, st->dc, st->pool, n);
	o->u = pc * (nl * (lt.f + lt.b + lt.w) + gt.f + gt.b + gt.w);
	o->b = pc * (nl * (lt.b + lt.w) + gt.b + gt.w);
}

static int link_idx(const struct gp_scenario *s, int a, int b)
{
	const struct gp_link *l = gp_find_link(s, a, b);
	return l ? (int)(l - s->links) : -1;
}

/* The estimate's scratch: per link and per device (a stage of a
 * pipeline, its replicas counted once). */
struct est_ws {
	double *act, *syn;   /* per link: activation bytes, amortised sync bytes */
	double *tdev;        /* per device: its pipeline's time */
	double *tloc, *bwin; /* its local gradient sync, the backward that hides it */
	double *topt;        /* its optimizer step (and ZeRO's all-gather after it) */
	double *cont;        /* the contention share of its pool */
	double f1;           /* the pipeline's first forward up to this stage */
	double *xfrac;       /* the share of its layers whose group spans DCs */
	double *wan;         /* per device: what its sync puts on each ring hop */
	int *kk, *steps;     /* the DCs those groups span and ring steps, */
	int *nb;             /* its buckets (as sim_setup.c's run_buckets), */
	int *rings;          /* those DCs in ring order (ndcs per device), */
	int *cnt;            /* replicas per DC holding the stage's middle layer */
	int *lcnt;           /* replicas per DC holding layer l, [l * ndcs + dc] */
	double bytes, every; /* one activation; steps per WAN sync */
	bool hier;
	int D, nd;           /* replicas, devices */
};

static int est_ws_init(const struct bl_ctx *c, const struct gp_plan *p, struct est_ws *w)
{
	const struct gp_scenario *s = c->sc;
	int D = 0, nd = 0, nl = s->nlinks, ndc = s->ndcs;
	for (int g = 0; g < p->npipes; g++) {
		D += p->pipes[g].replicas;
		nd += p->pipes[g].nstages;
	}
	int L = s->model.layers;
	double *a = calloc((size_t)(2 * nl + 7 * nd + 1), sizeof *a);
	int *ia = calloc((size_t)nd * (size_t)(ndc + 4) + (size_t)(L + 2) * (size_t)ndc + 1,
			 sizeof *ia);
	if (!a || !ia) {
		free(a);
		free(ia);
		return -1;
	}
	w->act = a;
	w->syn = w->act + nl;
	w->tdev = w->syn + nl;
	w->tloc = w->tdev + nd;
	w->bwin = w->tloc + nd;
	w->topt = w->bwin + nd;
	w->cont = w->topt + nd;
	w->xfrac = w->cont + nd;
	w->wan = w->xfrac + nd;
	w->kk = ia;
	w->steps = w->kk + nd;
	w->nb = w->steps + nd;
	w->rings = w->nb + nd;
	w->cnt = w->rings + nd * ndc;
	w->lcnt = w->cnt + ndc;
	for (int g = 0; g < p->npipes; g++)
		for (int j = 0; j < p->pipes[g].nstages; j++) {
			const struct gp_stage *st = &p->pipes[g].stages[j];
			for (int l = st->first < 1 ? 1 : st->first; l <= st->last && l <= L; l++)
				w->lcnt[(size_t)l * ndc + st->dc] += p->pipes[g].replicas;
		}
	w->bytes = gp_boundary_bytes(s);
	w->every = s->job.sync_every;
	w->hier = gp_plan_sync(s, p) == GP_SYNC_HIER;
	w->D = D;
	w->nd = nd;
	return 0;
}

/* The activation's transfer from stage i of pp to the next, in *cm;
 * across DCs it loads both directions of the link. -1: no link. */
static int est_hop(const struct bl_ctx *c, struct est_ws *w, const struct gp_pipeline *pp,
		   int i, double *cm)
{
	const struct gp_scenario *s = c->sc;
	int m = pp->micro_batches, R = pp->replicas;
	*cm = 0;
	if (i + 1 >= pp->nstages)
		return 0;
	const struct gp_stage *st = &pp->stages[i], *nx = &pp->stages[i + 1];
	if (nx->dc == st->dc) {
		*cm = gp_costtab_intra_p2p(c->ct, s, st->dc, st->pool, st->tp, nx->pool, nx->tp,
					   w->bytes);
		return 0;
	}
	int l1 = link_idx(s, st->dc, nx->dc), l2 = link_idx(s, nx->dc, st->dc);
	if (l1 < 0 || l2 < 0)
		return -1;
	struct gp_comm lk = gp_costtab_wan(c->ct, l1);
	*cm = lk.lat + w->bytes * R / lk.bw;
	w->act[l1] += w->bytes * m * R;
	w->act[l2] += w->bytes * m * R;
	return 0;
}

/* The DP groups of stage st (device di), as sim.c forms them: a layer's
 * is every replica holding it. The DCs of the groups that span DCs (in
 * index order until est_rings orders them) become di's ring, carrying
 * w->xfrac of its gradients; the
 * middle layer's holders give the local ring (w->cnt). Returns the
 * replicas, D: every one holds every layer. */
static int est_dp_group(const struct bl_ctx *c, struct est_ws *w, const struct gp_stage *st,
			int di)
{
	int ndc = c->sc->ndcs, L = c->sc->model.layers, *ring = w->rings + di * ndc;
	int lo = st->first < 1 ? 1 : st->first, hi = st->last > L ? L : st->last, cross = 0;
	memset(ring, 0, (size_t)ndc * sizeof *ring);
	for (int l = lo; l <= hi; l++) {
		const int *row = w->lcnt + (size_t)l * ndc;
		int k = 0;
		for (int d = 0; d < ndc; d++)
			k += row[d] > 0;
		for (int d = 0; k > 1 && d < ndc; d++)
			ring[d] |= row[d] > 0;
		cross += k > 1;
	}
	int k = 0;
	for (int d = 0; d < ndc; d++)
		if (ring[d])
			ring[k++] = d;
	memcpy(w->cnt, w->lcnt + (size_t)((lo + hi) / 2) * ndc, (size_t)ndc * sizeof *w->cnt);
	w->kk[di] = k;
	w->xfrac[di] = hi >= lo ? (double)cross / (hi - lo + 1) : 0;
	w->steps[di] = w->hier ? k : w->D;
	return w->D;
}

/* Device di's buckets, as sim_setup.c's run_buckets counts them for a
 * stage of n layers of gradients grad (all TP ranks) in one chunk. */
static int est_buckets(const struct gp_scenario *s, const struct gp_stage *st, double grad,
		       int n, int D)
{
	if (!s->job.sync_overlap || n < 1)
		return 1;
	double shard = grad / n / gp_grad_reduce_bytes(&s->job) / st->tp;
	double want = fmax(40e6, 1e6 * D);
	int g = shard >= want ? 1 : (int)fmin(n, ceil(want / shard));
	return (n + g - 1) / g;
}

/* Stage st's gradient sync (device di, DP group of Dg replicas, R of
 * them in its pipeline): the all-reduce inside the DC, and when the group
 * spans DCs, the amortised bytes it puts on each hop of its ring
 * (hierarchical: the k-way exchange of shards; flat: the ring over all
 * replicas, then nothing local), for est_rings to order and load. */
static int est_sync(const struct bl_ctx *c, struct est_ws *w, const struct gp_stage *st,
		    const struct bl_stage_est *se, int di, int Dg, int R, double fwd)
{
	const struct gp_scenario *s = c->sc;
	int k = w->kk[di];
	bool hier = w->hier;
	int ranks = k > 1 && hier ? w->cnt[st->dc] : Dg;
	struct gp_comm ring_c = gp_costtab_dp_ring(c->ct, s, st->dc, st->pool, st->tp, ranks);
	double grad = se->params * gp_grad_reduce_bytes(&s->job);
	w->cont[di] = gp_costtab_contention(c->ct, st->dc, st->pool);
	/* One DC: the ring as the simulator runs it (gp_dp_ring_sync). */
	w->tloc[di] = Dg <= 1 || (k > 1 && !hier) ? 0
		      : k < 2 ? gp_dp_ring_sync(&s->job, grad / st->tp, ranks, ring_c.bw, ring_c.lat)
		      : gp_ring_allreduce(grad / st->tp, ranks, ring_c.bw, ring_c.lat);
	if (k < 2 && Dg > 1) {
		/* ZeRO's parameter all-gather under the next iteration's
		 * first forward (fwd: up to this stage), as gp_simulate
		 * charges it: what that does not hide, and the contention
		 * share of the rest. */
		double ag = gp_dp_ring_gather(&s->job, grad / st->tp, ranks, ring_c.bw, ring_c.lat);
		double late = fmax(0, ag - fwd);
		w->topt[di] += late + w->cont[di] * (ag - late);
	}
	if (k < 2)
		return 0;
	w->wan[di] = (hier ? 2.0 * (k - 1) / k : 2.0 * (Dg - 1) / Dg) *
		     grad * w->xfrac[di] * R / Dg / w->every;
	int nl = st->last - st->first + 1;
	w->nb[di] = est_buckets(s, st, grad, nl, Dg);
	return 0;
}

static bool est_same_ring(const struct est_ws *w, int ndc, int a, int b)
{
	return w->kk[a] == w->kk[b] &&
	       !memcmp(w->rings + a * ndc, w->rings + b * ndc, (size_t)w->kk[a] * sizeof *w->rings);
}

/* The rings as sim_ring.c orders them: one per set of DCs, for the bytes
 * all its devices put on each hop and the latency terms of the most
 * buckets one of them serves (ring.h); then each device's bytes on its
 * ring's hops (of two DCs: both directions). -1 when no ring joins a
 * set's DCs with a link on every hop. */
static int est_rings(const struct bl_ctx *c, struct est_ws *w)
{
	const struct gp_scenario *s = c->sc;
	int ndc = s->ndcs, *ord = malloc((size_t)ndc * sizeof *ord);
	if (!ord)
		return -1;
	for (int i = 0; i < w->nd; i++) {
		int k = w->kk[i], first = 0;
		while (first < i && !est_same_ring(w, ndc, first, i))
			first++;
		if (k < 2 || first < i)
			continue;   /* no ring, or ordered with its set's first */
		double bytes = 0;
		int nb = 1;
		for (int j = i; j < w->nd; j++)
			if (est_same_ring(w, ndc, i, j)) {
				bytes += w->wan[j];
				nb = w->nb[j] > nb ? w->nb[j] : nb;
			}
		double t;
		if (gp_ring_choose(s, c->ct, w->rings + i * ndc, k, bytes,
				   nb * 2.0 * (w->steps[i] - 1) / w->every, ord, &t) || t == INF) {
			free(ord);
			return -1;
		}
		/* The set's devices take the order (the later ones still
		 * match the first in index order until then). */
		for (int j = w->nd - 1; j >= i; j--)
			if (est_same_ring(w, ndc, i, j))
				memcpy(w->rings + j * ndc, ord, (size_t)k * sizeof *ord);
	}
	free(ord);
	for (int i = 0; i < w->nd; i++)
		for (int r = 0, k = w->kk[i], *ring = w->rings + i * ndc; k > 1 && r < k; r++)
			w->syn[link_idx(s, ring[r], ring[(r + 1) % k])] += w->wan[i];
	return 0;
}

/* Stage i of pp (device di): in *x its time per micro-batch with the
 * transfer to the next stage; in w its backward window, optimizer step
 * and gradient sync. -1 when it looks too big for its GPU or a link is
 * missing. */
static int est_stage(const struct bl_ctx *c, struct est_ws *w, const struct gp_plan *p,
		     const struct gp_pipeline *pp, int i, int di, double *x)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_stage *st = &pp->stages[i];
	const struct gp_pool *pool = bl_pool_of(s, st->dc, st->pool);
	const struct gp_gpu *gpu = &s->gpus[pool->gpu];
	int S = pp->nstages, m = pp->micro_batches, D = w->D;
	struct bl_stage_est se;
	double cm;
	bl_est_stage(c, st, i == 0, i == S - 1, bl_inflight(p->schedule, m, S, i), D,
		     gp_plan_pool_gpus(p, st->dc, st->pool), &se);
	if (se.mem > gpu->memory || est_hop(c, w, pp, i, &cm))
		return -1;
	*x = se.u + cm;
	w->bwin[di] = se.b;
	w->topt[di] = gp_costtab_optimizer(c->ct, st->dc, st->pool,
					   se.params / st->tp / (s->job.zero && D > 1 ? D : 1));
	int Dg = est_dp_group(c, w, st, di);
	w->f1 += se.u - se.b;
	return est_sync(c, w, st, &se, di, Dg, pp->replicas, w->f1);
}

/* Pipeline g, its first device di: every device's time is the pipeline's,
 * (m - 1) max_s + sum_s of its stages. -1: INF. */
static int est_pipeline(const struct bl_ctx *c, struct est_ws *w, const struct gp_plan *p,
			int g, int di)
{
	const struct gp_pipeline *pp = &p->pipes[g];
	int S = pp->nstages, m = pp->micro_batches;
	double sum = 0, mx = 0;
	w->f1 = 0;
	for (int i = 0; i < S; i++) {
		double x;
		if (est_stage(c, w, p, pp, i, di + i, &x))
			return -1;
		sum += x;
		mx = fmax(mx, x);
	}
	for (int i = 0; i < S; i++)
		w->tdev[di + i] = (m - 1) * mx + sum;
	return 0;
}

/* The slowest device (its pipeline, then the sync its backward does not
 * hide, then the optimizer) and the busiest link. */
static double est_slowest(const struct bl_ctx *c, const struct est_ws *w)
{
	const struct gp_scenario *s = c->sc;
	double T = 0;
	for (int i = 0; i < w->nd && T < INF; i++) {
		double twan = 0;
		int k = w->kk[i], *ring = w->rings + i * s->ndcs;
		for (int r = 0; k > 1 && r < k; r++) {
			int li = link_idx(s, ring[r], ring[(r + 1) % k]);
			struct gp_comm lk = gp_costtab_wan(c->ct, li);
			twan = fmax(twan, w->syn[li] / lk.bw +
				    2.0 * (w->steps[i] - 1) * lk.lat / w->every);
		}
		/* The local phases under compute slow it by the contention
		 * share (gp_simulate's start_opt). */
		double ex = fmax(0, w->tloc[i] + twan - w->bwin[i]);
		ex = fmax(ex, w->cont[i] * fmax(0, w->tloc[i] - ex));
		T = fmax(T, w->tdev[i] + ex + w->topt[i]);
	}
	for (int l = 0; l < s->nlinks && T < INF; l++)
		T = fmax(T, (w->act[l] + w->syn[l]) / gp_costtab_wan(c->ct, l).bw);
	return T;
}

/* The quick estimate of a plan's iteration time; INF when a stage looks
 * too big for its GPU or a transfer has no link. Mirrors sim.c's rules
 * (a layer's DP group is every replica holding it, hierarchical rings,
 * link sharing) in closed form. */
double bl_est_plan(struct bl_ctx *c, const struct gp_plan *p)
{
	struct est_ws w;
	c->nest++;
	if (est_ws_init(c, p, &w))
		return INF;
	double T = 0;
	for (int g = 0, di = 0; g < p->npipes && T < INF; g++) {
		if (est_pipeline(c, &w, p, g, di))
			T = INF;
		di += p->pipes[g].nstages;
	}
	if (T < INF && est_rings(c, &w))
		T = INF;
	if (T < INF)
		T = est_slowest(c, &w);
	free(w.act);
	free(w.kk);
	return T;
}
