/*
 * sim.c: the discrete-event simulator (see sim.h).
 *
 * Events live in one binary heap ordered by (time, sequence number), so a
 * run is deterministic. A device runs its next task as soon as the task's
 * input has arrived; outputs travel to the next device on a dedicated
 * intra-DC path or through a WAN link direction. A link direction is a
 * processor-sharing server: with flows of weights w_i active, each gets
 * bandwidth * w_i / sum(w); a virtual clock V (bytes per unit weight)
 * advances at bandwidth / sum(w), and a transfer of n bytes per unit weight
 * that joined at V0 finishes when V reaches V0 + n, so each arrival or
 * departure costs O(log n). Latency is added after the bandwidth phase.
 */
#include "sim.h"
#include "sched_milp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INF HUGE_VAL

enum ev_type {
	EV_TASK_END,   /* a = device */
	EV_ARRIVE,     /* a = group, b = ready index * 2 + is_backward */
	EV_LINK,       /* a = link, b = generation */
	EV_XARR,       /* a = transfer id: bandwidth phase + latency done */
	EV_SYNC,       /* a = device: a local sync phase ended */
	EV_KICK,       /* a = device: a sync bucket becomes ready */
	EV_OPT_END,    /* a = device */
};

struct ev {
	double t;
	uint64_t seq;
	int32_t type, a;
	int64_t b;
};

struct heap {
	struct ev *v;
	size_t n, cap;
	uint64_t seq;
};

static inline int ev_less(const struct ev *x, const struct ev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

static int heap_push(struct heap *h, double t, int type, int a, int64_t b)
{
	if (h->n == h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 1024;
		struct ev *nv = realloc(h->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		h->v = nv;
		h->cap = nc;
	}
	struct ev e = { t, h->seq++, type, a, b };
	size_t i = h->n++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &h->v[p]))
			break;
		h->v[i] = h->v[p];
		i = p;
	}
	h->v[i] = e;
	return 0;
}

static struct ev heap_pop(struct heap *h)
{
	struct ev top = h->v[0], last = h->v[--h->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_less(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_less(&h->v[c], &last))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

/* Cost of one virtual stage (a chunk of a device) per micro-batch. */
struct vcost {
	double f, b, w;      /* w = 0 and b = B + W unless the schedule splits */
	double act, wact;    /* activation bytes held from F to B, and to W */
	int layers;
};

struct group {
	int S, v, m, VS, R;
	bool split, vshape;  /* B and W split; V-shaped chunk placement */
	int dev0;
	struct gp_schedule sc;
	struct vcost *vc;
	double *fin, *bin;   /* arrival time of F / B inputs, [vs * m + mb] */
	int *grad_started;   /* per vs: gradient tasks started */
};

struct bucket {
	double ready;
	double shard;        /* bytes each TP rank all-reduces */
	double wan;          /* bytes per ring edge across DCs, this device's share */
};

struct dev {
	int g, s;
	int64_t next, end;
	bool busy, kick_pending, sync_busy, done;
	double busy_time, last_end;
	/* DP sync */
	struct bucket *bk;
	int nbk, capbk, bk_next, phase, pending;
	int D, k, local;     /* replicas in all, DCs, replicas in this DC */
	int *ring;           /* the k DCs, in ring order */
	double local_bw, local_lat;
	double grad_bytes;   /* whole stage, all TP ranks */
	double t_opt, t_end;   /* optimizer time, and when it ends */
	double stat;           /* bytes of weights, gradients, optimizer state */
	int chunks_total;    /* chunks whose gradients are complete */
};

struct xfer {
	double vfin, w, t0, lat;
	int32_t kind, g, mb, dev;
	int64_t idx;         /* ready index * 2 + is_backward */
	int32_t link;
};

struct lnk {
	double V, last, W, bw, lat;
	uint64_t gen;
	int32_t *h;          /* heap of transfer ids by vfin */
	int n, cap;
	double bytes, sync_bytes, busy;
};

struct sim {
	const struct gp_scenario *sc;
	const struct gp_plan *plan;
	enum gp_sync_mode mode;     /* gp_plan_sync: flat or hierarchical */
	const struct gp_cost_model *cm;
	const struct gp_sim_opts *opt;
	bool record;
	struct group *g;
	int ng;
	struct dev *d;
	int nd;
	struct lnk *l;
	int nl;
	struct xfer *x;
	int nx, capx, *xfree, nxfree;
	struct heap q;
	struct gp_span *spans;
	int64_t nspans, capspans;
	double now;
	int oom, overflow;
	struct gp_err *e;
};

/* ------------------------------------------------------------------ */

static void record(struct sim *s, double t0, double t1, int row, int mb,
		   int kind, int chunk)
{
	if (!s->record)
		return;
	if (s->nspans == s->capspans) {
		int64_t nc = s->capspans ? s->capspans * 2 : 4096;
		struct gp_span *ns = realloc(s->spans, (size_t)nc * sizeof *ns);
		if (!ns) {
			s->oom = 1;
			return;
		}
		s->spans = ns;
		s->capspans = nc;
	}
	s->spans[s->nspans++] = (struct gp_span){ t0, t1, row, mb, (uint8_t)kind,
						  (uint8_t)chunk };
}

static void push(struct sim *s, double t, int type, int a, int64_t b)
{
	if (!isfinite(t))
		s->overflow = 1;
	else if (heap_push(&s->q, t, type, a, b))
		s->oom = 1;
}

static const struct gp_pool *stage_pool(const struct sim *s, int g, int st)
{
	const struct gp_stage *x = &s->plan->pipes[g].stages[st];
	return &s->sc->dcs[x->dc].pools[x->pool];
}

static int stage_dc(const struct sim *s, int g, int st)
{
	return s->plan->pipes[g].stages[st].dc;
}

static int link_index(const struct gp_scenario *sc, int a, int b)
{
	const struct gp_link *l = gp_find_link(sc, a, b);
	return l ? (int)(l - sc->links) : -1;
}

/* --- links: processor sharing ------------------------------------- */

static void link_advance(struct lnk *l, double t)
{
	if (l->W > 0) {
		l->V += (t - l->last) * l->bw / l->W;
		l->busy += t - l->last;
	}
	l->last = t;
}

static inline int xless(const struct sim *s, int a, int b)
{
	return s->x[a].vfin < s->x[b].vfin || (s->x[a].vfin == s->x[b].vfin && a < b);
}

static void lheap_push(struct sim *s, struct lnk *l, int id)
{
	if (l->n == l->cap) {
		int nc = l->cap ? l->cap * 2 : 16;
		int32_t *nh = realloc(l->h, (size_t)nc * sizeof *nh);
		if (!nh) {
			s->oom = 1;
			return;
		}
		l->h = nh;
		l->cap = nc;
	}
	int i = l->n++;
	while (i > 0 && xless(s, id, l->h[(i - 1) / 2])) {
		l->h[i] = l->h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	l->h[i] = id;
}

static int lheap_pop(struct sim *s, struct lnk *l)
{
	int top = l->h[0], last = l->h[--l->n], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= l->n)
			break;
		if (c + 1 < l->n && xless(s, l->h[c + 1], l->h[c]))
			c++;
		if (!xless(s, l->h[c], last))
			break;
		l->h[i] = l->h[c];
		i = c;
	}
	if (l->n)
		l->h[i] = last;
	return top;
}

static void link_reschedule(struct sim *s, int li)
{
	struct lnk *l = &s->l[li];
	l->gen++;
	if (!l->n)
		return;
	double vf = s->x[l->h[0]].vfin;
	double t = l->last + fmax(0, vf - l->V) * l->W / l->bw;
	push(s, t, EV_LINK, li, (int64_t)l->gen);
}

static int xfer_new(struct sim *s)
{
	if (s->nxfree)
		return s->xfree[--s->nxfree];
	if (s->nx == s->capx) {
		int nc = s->capx ? s->capx * 2 : 256;
		struct xfer *nx = realloc(s->x, (size_t)nc * sizeof *nx);
		int *nf = realloc(s->xfree, (size_t)nc * sizeof *nf);
		if (nx)
			s->x = nx;
		if (nf)
			s->xfree = nf;
		if (!nx || !nf) {
			s->oom = 1;
			return -1;
		}
		s->capx = nc;
	}
	return s->nx++;
}

/* Starts a transfer of `bytes` per unit weight on link li. */
static void link_send(struct sim *s, int li, double bytes, double w,
		      double lat, int kind, int g, int mb, int dev, int64_t idx)
{
	int id = xfer_new(s);
	if (id < 0)
		return;
	struct lnk *l = &s->l[li];
	link_advance(l, s->now);
	s->x[id] = (struct xfer){ .vfin = l->V + bytes, .w = w, .t0 = s->now,
				  .lat = lat, .kind = kind, .g = g, .mb = mb,
				  .dev = dev, .idx = idx, .link = li };
	l->W += w;
	l->bytes += bytes * w;
	if (kind == GP_SPAN_SYNC)
		l->sync_bytes += bytes * w;
	lheap_push(s, l, id);
	link_reschedule(s, li);
}

static void on_link(struct sim *s, int li, uint64_t gen)
{
	struct lnk *l = &s->l[li];
	if (gen != l->gen)
		return;
	link_advance(l, s->now);
	/* This event was scheduled for the head transfer's completion: finish
	 * it even if rounding left V a hair short (at huge bandwidths the
	 * time step can vanish against the clock). */
	if (l->n && s->x[l->h[0]].vfin > l->V)
		l->V = s->x[l->h[0]].vfin;
	double eps = 1e-12 * (1 + fabs(l->V));
	while (l->n && s->x[l->h[0]].vfin <= l->V + eps) {
		int id = lheap_pop(s, l);
		struct xfer *x = &s->x[id];
		l->W -= x->w;
		record(s, x->t0, s->now, s->nd + li, x->mb, x->kind, 0);
		push(s, s->now + x->lat, EV_XARR, id, 0);
	}
	if (!l->n)
		l->W = 0; /* no drift from repeated subtraction */
	link_reschedule(s, li);
}

/* --- devices ------------------------------------------------------ */

static void try_start(struct sim *s, int di);
static void sync_kick(struct sim *s, int di);

static void deliver(struct sim *s, int g, int64_t idx)
{
	struct group *gr = &s->g[g];
	int64_t i = idx >> 1;
	if (idx & 1)
		gr->bin[i] = s->now;
	else
		gr->fin[i] = s->now;
	int vs = (int)(i / gr->m);
	try_start(s, gr->dev0 + gp_vs_device(gr->S, gr->vshape, vs));
}

/* A stage boundary inside a DC: Megatron's scatter-gather sends 1/t of
 * the activation from each TP rank over its own NIC (up to a node's
 * worth), at the NICs' achieved bandwidth. */
static double intra_p2p(struct sim *s, int g, int a, int b, double bytes)
{
	const struct gp_stage *x = &s->plan->pipes[g].stages[a];
	const struct gp_stage *y = &s->plan->pipes[g].stages[b];
	const struct gp_pool *pa = stage_pool(s, g, a), *pb = stage_pool(s, g, b);
	int nics = x->tp < y->tp ? x->tp : y->tp;
	int pn = pa->per_node < pb->per_node ? pa->per_node : pb->per_node;
	if (nics > pn)
		nics = pn;
	double bw = fmin(pa->network, pb->network) * gp_eta_net() * nics;
	return s->cm->ops->p2p_time(s->cm->ud, bytes, bw, fmax(pa->latency, pb->latency));
}

/* Sends the output of (vs, mb) to virtual stage `to`. */
static void send(struct sim *s, int g, int from_vs, int to_vs, int mb, int bwd)
{
	struct group *gr = &s->g[g];
	int a = gp_vs_device(gr->S, gr->vshape, from_vs);
	int b = gp_vs_device(gr->S, gr->vshape, to_vs);
	int64_t idx = ((int64_t)to_vs * gr->m + mb) * 2 + bwd;
	if (a == b) {
		push(s, s->now, EV_ARRIVE, g, idx);
		return;
	}
	double bytes = gp_boundary_bytes(s->sc);
	int da = stage_dc(s, g, a), db = stage_dc(s, g, b);
	if (da == db) {
		push(s, s->now + intra_p2p(s, g, a, b, bytes), EV_ARRIVE, g, idx);
		return;
	}
	int li = link_index(s->sc, da, db);
	link_send(s, li, bytes, gr->R, s->l[li].lat,
		  bwd ? GP_SPAN_GRAD : GP_SPAN_ACT, g, mb, -1, idx);
}

static void add_buckets(struct sim *s, int di, int vs, double t0, double t1);

static void try_start(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	if (d->busy || d->next >= d->end)
		return;
	struct group *gr = &s->g[d->g];
	const struct gp_task *t = &gr->sc.tasks[d->next];
	int vs = gp_vs_of(gr->S, gr->vshape, d->s, t->chunk);
	int64_t i = (int64_t)vs * gr->m + t->mb;
	double dur;
	switch (t->kind) {
	case GP_TASK_F:
		if (vs > 0 && gr->fin[i] == INF)
			return;
		dur = gr->vc[vs].f;
		break;
	case GP_TASK_B:
		if (gr->bin[i] == INF)
			return;
		dur = gr->vc[vs].b;
		break;
	default:
		dur = gr->vc[vs].w;
		break;
	}
	d->busy = true;
	double t1 = s->now + dur;
	int is_grad = t->kind == GP_TASK_W || (t->kind == GP_TASK_B && !gr->split);
	if (is_grad && ++gr->grad_started[vs] == gr->m)
		add_buckets(s, di, vs, s->now, t1);
	record(s, s->now, t1, di, t->mb, t->kind, t->chunk);
	d->busy_time += dur;
	push(s, t1, EV_TASK_END, di, 0);
}

static void on_task_end(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	struct group *gr = &s->g[d->g];
	const struct gp_task *t = &gr->sc.tasks[d->next];
	int vs = gp_vs_of(gr->S, gr->vshape, d->s, t->chunk);
	d->busy = false;
	d->next++;
	d->last_end = s->now;
	if (t->kind == GP_TASK_F) {
		if (vs + 1 < gr->VS)
			send(s, d->g, vs, vs + 1, t->mb, 0);
		else
			gr->bin[(int64_t)vs * gr->m + t->mb] = s->now;
	} else if (t->kind == GP_TASK_B && vs > 0) {
		send(s, d->g, vs, vs - 1, t->mb, 1);
	}
	try_start(s, di);
	if (d->next == d->end)
		sync_kick(s, di);
}

/* --- DP sync and the optimizer ------------------------------------- */

static int add_bucket(struct sim *s, struct dev *d, double ready, double bytes)
{
	if (d->nbk == d->capbk) {
		int nc = d->capbk ? d->capbk * 2 : 16;
		struct bucket *nb = realloc(d->bk, (size_t)nc * sizeof *nb);
		if (!nb) {
			s->oom = 1;
			return -1;
		}
		d->bk = nb;
		d->capbk = nc;
	}
	const struct gp_stage *st = &s->plan->pipes[d->g].stages[d->s];
	/* This pipeline's replicas' share of the ring's WAN traffic. */
	struct gp_sync_q q = { .bytes = bytes * s->g[d->g].R / d->D, .replicas = d->D,
			       .dcs = d->k, .mode = s->mode,
			       .every = s->sc->job.sync_every };
	d->bk[d->nbk++] = (struct bucket){ ready, bytes / st->tp, gp_dp_sync_wan_bytes(&q) };
	return 0;
}

/* The last gradient task of chunk vs runs over [t0, t1]: its layers'
 * gradients are final one by one (backward order), each a bucket; without
 * overlap the whole device is one bucket once all its chunks are done. */
static void add_buckets(struct sim *s, int di, int vs, double t0, double t1)
{
	struct dev *d = &s->d[di];
	struct group *gr = &s->g[d->g];
	if (d->D <= 1)
		return;
	const struct gp_stage *st = &s->plan->pipes[d->g].stages[d->s];
	/* Embedding and logits weights ride along, spread over the layers. */
	double per_layer = d->grad_bytes / (st->last - st->first + 1);
	int n = gr->vc[vs].layers;
	d->chunks_total++;
	if (!s->sc->job.sync_overlap) {
		if (d->chunks_total == gr->v)
			add_bucket(s, d, t1, d->grad_bytes);
		return;
	}
	for (int k = 1; k <= n; k++)
		add_bucket(s, d, t0 + (t1 - t0) * k / n, per_layer);
	sync_kick(s, di);
}

static double local_allreduce(struct sim *s, struct dev *d, double shard,
			      int ranks)
{
	return s->cm->ops->allreduce_time(s->cm->ud, shard, ranks, d->local_bw,
					  d->local_lat);
}

static void start_opt(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	double t0 = fmax(s->now, d->last_end);
	record(s, t0, t0 + d->t_opt, di, -1, GP_SPAN_OPT, 0);
	push(s, t0 + d->t_opt, EV_OPT_END, di, 0);
}

/* Runs the sync channel of device di as far as it can right now. */
static void sync_kick(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	if (d->sync_busy || d->kick_pending || d->done)
		return;
	if (d->bk_next == d->nbk) {
		/* Everything synced that will be: once compute is done too,
		 * the optimizer runs. */
		if (d->next == d->end && (d->D <= 1 || d->chunks_total == s->g[d->g].v)) {
			d->done = true;
			start_opt(s, di);
		}
		return;
	}
	struct bucket *b = &d->bk[d->bk_next];
	if (b->ready > s->now) {
		d->kick_pending = true;
		push(s, b->ready, EV_KICK, di, 0);
		return;
	}
	d->sync_busy = true;
	d->phase = 0;
	double t;
	if (d->k <= 1)
		t = local_allreduce(s, d, b->shard, d->D);
	else if (s->mode == GP_SYNC_HIER)
		t = local_allreduce(s, d, b->shard, d->local) / 2; /* reduce-scatter */
	else
		t = 0;
	push(s, s->now + t, EV_SYNC, di, 0);
}

static void on_sync(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	struct bucket *b = &d->bk[d->bk_next];
	if (d->k > 1 && d->phase == 0) {
		/* Across DCs: the k-way ring between DCs, every edge at once. */
		d->phase = 1;
		d->pending = d->k;
		int steps = s->mode == GP_SYNC_HIER ? d->k : d->D;
		for (int i = 0; i < d->k; i++) {
			int a = d->ring[i], c = d->ring[(i + 1) % d->k];
			int li = link_index(s->sc, a, c);
			double lat = 2.0 * (steps - 1) * s->l[li].lat /
				     s->sc->job.sync_every;
			link_send(s, li, b->wan, 1, lat, GP_SPAN_SYNC, d->g, -1, di, -1);
		}
		return;
	}
	if (d->k > 1 && d->phase == 1) {
		d->phase = 2;
		double t = s->mode == GP_SYNC_HIER
			   ? local_allreduce(s, d, b->shard, d->local) / 2 : 0;
		push(s, s->now + t, EV_SYNC, di, 0);
		return;
	}
	d->sync_busy = false;
	d->bk_next++;
	sync_kick(s, di);
}

static void on_xarr(struct sim *s, int id)
{
	struct xfer x = s->x[id];
	s->xfree[s->nxfree++] = id;
	if (x.dev >= 0) {
		struct dev *d = &s->d[x.dev];
		if (--d->pending == 0)
			on_sync(s, x.dev);
		return;
	}
	deliver(s, x.g, x.idx);
}

/* ------------------------------------------------------------------ */
/* Set-up: costs, schedules, DP groups                                 */

/* Layers of chunk c when n layers are split into v chunks. */
static int chunk_layers(int n, int v, int c)
{
	return n / v + (c < n % v);
}

/* Peak activation bytes of a device walking its task order. */
static double walk_peak(const struct group *gr, int s, const struct vcost *vc)
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

struct stage_costs {
	struct gp_layer_time lt, logits;
	double act, wact;
};

static void layer_costs(struct sim *s, const struct gp_stage *st,
			enum gp_recompute rc, struct stage_costs *out)
{
	const struct gp_scenario *sc = s->sc;
	const struct gp_pool *pool = &sc->dcs[st->dc].pools[st->pool];
	struct gp_layer_q q = { sc, &sc->gpus[pool->gpu], pool, st->tp, rc, 0 };
	s->cm->ops->layer_time(s->cm->ud, &q, &out->lt);
	q.logits = 1;
	s->cm->ops->layer_time(s->cm->ud, &q, &out->logits);
	double b = sc->job.micro_batch, seq = sc->job.seq;
	out->act = gp_layer_act_bytes(&sc->model, b, seq, st->tp, rc);
	out->wact = gp_layer_wact_bytes(&sc->model, b, seq, st->tp);
	if (out->wact > out->act)
		out->wact = out->act;
}

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
		v->f = nl * c->lt.f;
		v->b = nl * c->lt.b;
		v->w = nl * c->lt.w;
		v->act = nl * c->act;
		v->wact = nl * c->wact;
		if (vs == gr->VS - 1) {
			/* The logits: fp32 logits of s x b x V/t live until B. */
			v->f += c->logits.f;
			v->b += c->logits.b;
			v->w += c->logits.w;
			v->act += 4 * s->sc->job.micro_batch * s->sc->job.seq *
				  s->sc->model.vocab / x->tp;
		}
		if (!gr->split) {
			v->b += v->w;
			v->w = 0;
		}
	}
}

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

/* Which DCs hold the replicas that share this stage's gradients: for
 * every pipeline, the stage holding the middle layer of this one. */
static int dp_group(struct sim *s, struct dev *d)
{
	const struct gp_plan *p = s->plan;
	const struct gp_stage *me = &p->pipes[d->g].stages[d->s];
	int mid = (me->first + me->last) / 2;
	int ndc = s->sc->ndcs;
	int *cnt = calloc((size_t)ndc, sizeof *cnt);
	d->ring = calloc((size_t)ndc, sizeof *d->ring);
	if (!cnt || !d->ring) {
		free(cnt);
		return gp_errf(s->e, "out of memory");
	}
	d->D = 0;
	for (int g = 0; g < p->npipes; g++)
		for (int j = 0; j < p->pipes[g].nstages; j++) {
			const struct gp_stage *x = &p->pipes[g].stages[j];
			if (x->first <= mid && mid <= x->last) {
				cnt[x->dc] += p->pipes[g].replicas;
				d->D += p->pipes[g].replicas;
			}
		}
	d->k = 0;
	for (int i = 0; i < ndc; i++)
		if (cnt[i])
			d->ring[d->k++] = i;
	d->local = cnt[me->dc];
	free(cnt);
	for (int i = 0; d->k > 1 && i < d->k; i++) {
		int a = d->ring[i], b = d->ring[(i + 1) % d->k];
		if (!gp_find_link(s->sc, a, b))
			return gp_errf(s->e, "plan.pipelines[%d].stages[%d]: its gradient sync crosses from \"%s\" to \"%s\", which have no link",
				       d->g + 1, d->s + 1, s->sc->dcs[a].name,
				       s->sc->dcs[b].name);
	}
	/* The local ring: NVLink when the DC's replicas of this stage share
	 * one node, else the NICs, r of them per node carrying the ring's
	 * channels (Megatron places TP innermost, then DP). */
	const struct gp_pool *pool = &s->sc->dcs[me->dc].pools[me->pool];
	int ranks = d->k > 1 && s->mode == GP_SYNC_HIER ? d->local : d->D;
	if ((long)ranks * me->tp <= pool->per_node) {
		d->local_bw = pool->nvlink * gp_eta_nvlink();
		d->local_lat = 8.2e-6;
	} else {
		int r = pool->per_node / me->tp;
		if (r < 1)
			r = 1;
		if (r > ranks)
			r = ranks;
		d->local_bw = pool->network * gp_eta_net() * r;
		d->local_lat = pool->latency;
	}
	return 0;
}

/* Records the first device whose peak memory exceeds its GPU's. */
static void check_fit(struct sim *s, struct gp_result *r, int di)
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

/* Before a time-aware schedule exists: 1F1B's in-flight count, every
 * chunk of the first S - s micro-batches. */
static double inflight_estimate(const struct group *gr, int s, const struct vcost *vc)
{
	double act = 0;
	for (int c = 0; c < gr->v; c++)
		act += vc[gp_vs_of(gr->S, gr->vshape, s, c)].act;
	return (gr->m < gr->S - s ? gr->m : gr->S - s) * act;
}

/* How the output of virtual stage `from` reaches `to`, for the schedule
 * generators: a dedicated path is pure delay; a WAN link is a serial
 * resource shared by the pipeline's R lockstep replicas. */
static void path_cost(struct sim *s, int g, int from, int to, double *occ,
		      double *lat, int *link)
{
	struct group *gr = &s->g[g];
	int a = gp_vs_device(gr->S, gr->vshape, from);
	int b = gp_vs_device(gr->S, gr->vshape, to);
	*occ = *lat = 0;
	*link = -1;
	if (a == b)
		return;
	double bytes = gp_boundary_bytes(s->sc);
	int da = stage_dc(s, g, a), db = stage_dc(s, g, b);
	if (da == db) {
		*occ = intra_p2p(s, g, a, b, bytes);
		return;
	}
	*link = link_index(s->sc, da, db);
	*occ = bytes * gr->R / s->l[*link].bw;
	*lat = s->l[*link].lat;
}

/* xdc-milp: the schedule MILP, warm-started from xdc-greedy's orders
 * (already in gr->sc). Without a solution in time, xdc-greedy stays. */
static int solve_milp(struct sim *s, const struct gp_sched_input *in,
		      struct group *gr, struct gp_result *r)
{
	struct gp_solver_info *si = &r->solver;
	double tl = s->opt && s->opt->time_limit > 0 ? s->opt->time_limit : 10;
	double gap = s->opt ? s->opt->gap : 0;
	struct gp_schedule best;
	struct gp_milp_report rep = { 0 };
	int rc = gp_sched_milp(in, &gr->sc, tl, gap, &best, &rep, s->e);
	if (!si->present) {
		*si = (struct gp_solver_info){ .present = true, .engine = "xdc-milp",
					       .status = "optimal", .proven = true };
	}
	si->seconds += rep.seconds;
	si->rows += rep.nrows;
	si->cols += rep.ncols;
	si->binaries += rep.nints;
	if (rc == 0) {
		gp_schedule_free(&gr->sc);
		gr->sc = best;
		si->objective = fmax(si->objective, rep.objective);
		si->bound = fmax(si->bound, rep.bound);
		if (rep.status != GP_MILP_OPTIMAL) {
			si->proven = false;
			si->status = "feasible";
		}
	} else if (rep.status == GP_MILP_NOSOL) {
		/* Keep the greedy orders; say so. */
		si->proven = false;
		si->status = "nosol";
		rc = 0;
	}
	si->gap = si->objective > 0 ? (si->objective - si->bound) / si->objective : 0;
	gp_milp_report_free(&rep);
	return rc;
}

/* Generates a time-aware schedule for pipeline g from its cost tables,
 * then measures its memory like any other. */
static int gen_timed(struct sim *s, int g, struct gp_result *r)
{
	struct group *gr = &s->g[g];
	int VS = gr->VS, S = gr->S;
	double *a = gp_xcalloc((size_t)VS * 10 + (size_t)S, sizeof *a);
	int *links = gp_xcalloc((size_t)VS * 2, sizeof *links);
	if (!a || !links) {
		free(a);
		free(links);
		return gp_errf(s->e, "out of memory");
	}
	double *f = a, *b = f + VS, *w = b + VS, *uo = w + VS, *ul = uo + VS,
	       *dO = ul + VS, *dl = dO + VS, *act = dl + VS, *wact = act + VS,
	       *mem = wact + VS + VS;
	for (int x = 0; x < VS; x++) {
		f[x] = gr->vc[x].f;
		b[x] = gr->vc[x].b;
		w[x] = gr->vc[x].w;
		act[x] = gr->vc[x].act;
		wact[x] = gr->vc[x].wact;
		if (x + 1 < VS)
			path_cost(s, g, x, x + 1, &uo[x], &ul[x], &links[x]);
		else
			links[x] = -1;
		if (x > 0)
			path_cost(s, g, x, x - 1, &dO[x], &dl[x], &links[VS + x]);
		else
			links[VS + x] = -1;
	}
	for (int st = 0; st < S; st++) {
		int di = gr->dev0 + st;
		mem[st] = r->devs[di].mem_capacity - s->d[di].stat;
	}
	struct gp_sched_input in = {
		.S = S, .v = gr->v, .m = gr->m, .split_bw = gr->split, .vshape = gr->vshape,
		.f = f, .b = b, .w = w, .up_occ = uo, .up_lat = ul, .down_occ = dO,
		.down_lat = dl, .up_link = links, .down_link = links + VS,
		.nlinks = s->nl, .act = act, .wact = wact, .mem_free = mem,
	};
	int rc = gp_schedule_greedy(&in, &gr->sc, s->e);
	if (rc == 0 && s->plan->schedule == GP_SCHED_XDC_MILP)
		rc = solve_milp(s, &in, gr, r);
	free(a);
	free(links);
	if (rc) {
		char pre[64];
		snprintf(pre, sizeof pre, "plan.pipelines[%d]", g + 1);
		gp_err_prefix(s->e, pre);
		return -1;
	}
	for (int st = 0; st < S; st++) {
		int di = gr->dev0 + st;
		s->d[di].next = gr->sc.off[st];
		s->d[di].end = gr->sc.off[st + 1];
		r->devs[di].mem_peak = s->d[di].stat + walk_peak(gr, st, gr->vc);
		check_fit(s, r, di);
	}
	return 0;
}

static int setup(struct sim *s, struct gp_result *r)
{
	const struct gp_scenario *sc = s->sc;
	const struct gp_plan *p = s->plan;
	s->ng = p->npipes;
	s->g = gp_xcalloc((size_t)s->ng, sizeof *s->g);
	if (!s->g)
		return gp_errf(s->e, "out of memory");
	int nd = 0, D = 0;
	for (int g = 0; g < p->npipes; g++) {
		nd += p->pipes[g].nstages;
		D += p->pipes[g].replicas;
	}
	s->nd = nd;
	s->d = gp_xcalloc((size_t)nd, sizeof *s->d);
	r->devs = gp_xcalloc((size_t)nd, sizeof *r->devs);
	s->nl = sc->nlinks;
	s->l = gp_xcalloc((size_t)s->nl, sizeof *s->l);
	if (!s->d || !r->devs || !s->l)
		return gp_errf(s->e, "out of memory");
	r->ndevs = nd;
	for (int i = 0; i < s->nl; i++) {
		s->l[i].bw = sc->links[i].bandwidth;
		s->l[i].lat = sc->links[i].latency;
	}
	r->fits = true;
	int di = 0;
	for (int g = 0; g < p->npipes; g++) {
		struct group *gr = &s->g[g];
		const struct gp_pipeline *pp = &p->pipes[g];
		gr->S = pp->nstages;
		bool xdc = p->schedule == GP_SCHED_XDC_GREEDY ||
			   p->schedule == GP_SCHED_XDC_MILP;
		gr->v = p->schedule == GP_SCHED_INTERLEAVED || xdc ? p->chunks : 1;
		gr->vshape = xdc && gr->v == 2;
		gr->split = p->schedule == GP_SCHED_ZBH1 || xdc;
		gr->m = pp->micro_batches;
		gr->VS = gr->S * gr->v;
		gr->R = pp->replicas;
		gr->dev0 = di;
		int64_t ntasks = (int64_t)gr->VS * gr->m * (gr->split ? 3 : 2);
		if (ntasks > GP_MAX_TASKS)
			return gp_errf(s->e, "plan.pipelines[%d]: %lld tasks (stages x micro-batches x chunks x passes) are too many to simulate; at most %lld",
				       g + 1, (long long)ntasks, (long long)GP_MAX_TASKS);
		/* Time-aware schedules are generated once the costs are known. */
		if (!xdc && gp_schedule_build(p->schedule, gr->S, gr->v, gr->m, &gr->sc, s->e)) {
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
		if (!gr->vc || !gr->fin || !gr->bin || !gr->grad_started)
			return gp_errf(s->e, "out of memory");
		for (size_t i = 0; i < cells; i++)
			gr->fin[i] = gr->bin[i] = INF;
		for (int st = 0; st < gr->S; st++, di++) {
			const struct gp_stage *x = &pp->stages[st];
			const struct gp_pool *pool = &sc->dcs[x->dc].pools[x->pool];
			const struct gp_gpu *gpu = &sc->gpus[pool->gpu];
			struct dev *d = &s->d[di];
			struct gp_dev_result *dr = &r->devs[di];
			d->g = g;
			d->s = st;
			if (!xdc) {
				d->next = gr->sc.off[st];
				d->end = gr->sc.off[st + 1];
			}
			double params = stage_params(sc, x, st == 0, st == gr->S - 1);
			double stat = params / x->tp * gp_state_bytes_per_param(sc->job.zero, D);
			/* auto: the cheapest recomputation that fits. */
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
				peak = stat + (xdc ? inflight_estimate(gr, st, gr->vc)
						   : walk_peak(gr, st, gr->vc));
				dr->recompute = cand[c];
				if (peak <= gpu->memory)
					break;
			}
			d->grad_bytes = params * sc->job.precision_bytes;
			d->t_opt = s->cm->ops->optimizer_time(s->cm->ud, gpu,
				params / x->tp / (sc->job.zero && D > 1 ? D : 1));
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
				check_fit(s, r, di);
			d->stat = stat;
			r->gpus += x->tp * pp->replicas;
			if (dp_group(s, d))
				return -1;
		}
		if (xdc && gen_timed(s, g, r))
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */

static void metrics(struct sim *s, struct gp_result *r)
{
	const struct gp_scenario *sc = s->sc;
	double T = 0, cend = 0, busy_w = 0, gpus_w = 0, usd_gpu = 0, peak = 0;
	for (int i = 0; i < s->nd; i++) {
		struct dev *d = &s->d[i];
		struct gp_dev_result *dr = &r->devs[i];
		const struct gp_pool *pool = stage_pool(s, d->g, d->s);
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

static void sim_free(struct sim *s)
{
	for (int g = 0; g < s->ng; g++) {
		gp_schedule_free(&s->g[g].sc);
		free(s->g[g].vc);
		free(s->g[g].fin);
		free(s->g[g].bin);
		free(s->g[g].grad_started);
	}
	free(s->g);
	for (int i = 0; i < s->nd; i++) {
		free(s->d[i].bk);
		free(s->d[i].ring);
	}
	free(s->d);
	for (int i = 0; i < s->nl; i++)
		free(s->l[i].h);
	free(s->l);
	free(s->x);
	free(s->xfree);
	free(s->q.v);
}

static const char *const kind_letter = "FBW";

int gp_simulate(const struct gp_scenario *sc, const struct gp_plan *plan,
		const struct gp_sim_opts *opt, struct gp_result *r,
		struct gp_err *e)
{
	memset(r, 0, sizeof *r);
	if (gp_plan_validate(sc, plan, e))
		return -1;
	struct sim s = { .sc = sc, .plan = plan, .mode = gp_plan_sync(sc, plan), .e = e };
	s.cm = opt && opt->cost ? opt->cost : &gp_default_cost;
	s.opt = opt;
	s.record = opt && opt->record;
	r->schedule = plan->schedule;
	r->chunks = plan->schedule == GP_SCHED_INTERLEAVED || plan->schedule == GP_SCHED_XDC_GREEDY ||
		    plan->schedule == GP_SCHED_XDC_MILP ? plan->chunks : 1;
	int rc = setup(&s, r);
	if (rc == 0) {
		for (int i = 0; i < s.nd; i++)
			try_start(&s, i);
		while (s.q.n && !s.oom) {
			struct ev ev = heap_pop(&s.q);
			s.now = ev.t;
			switch (ev.type) {
			case EV_TASK_END: on_task_end(&s, ev.a); break;
			case EV_ARRIVE: deliver(&s, ev.a, ev.b); break;
			case EV_LINK: on_link(&s, ev.a, (uint64_t)ev.b); break;
			case EV_XARR: on_xarr(&s, ev.a); break;
			case EV_SYNC: on_sync(&s, ev.a); break;
			case EV_KICK:
				s.d[ev.a].kick_pending = false;
				sync_kick(&s, ev.a);
				break;
			case EV_OPT_END: s.d[ev.a].t_end = s.now; break;
			}
		}
		if (s.oom)
			rc = gp_errf(e, "simulation: out of memory");
		else if (s.overflow)
			rc = gp_errf(e, "simulation: a time became infinite (a bandwidth near zero, or a latency or a task near infinity?)");
		for (int i = 0; rc == 0 && i < s.nd; i++) {
			struct dev *d = &s.d[i];
			if (d->next < d->end) {
				const struct gp_task *t = &s.g[d->g].sc.tasks[d->next];
				rc = gp_errf(e, "schedule deadlock: pipeline %d stage %d waits forever for the input of %c (micro-batch %d, chunk %d)",
					     d->g + 1, d->s + 1, kind_letter[t->kind],
					     t->mb + 1, t->chunk + 1);
			}
		}
	}
	if (rc == 0) {
		metrics(&s, r);
		r->spans = s.spans;
		r->nspans = s.nspans;
		s.spans = NULL;
	}
	free(s.spans);
	sim_free(&s);
	if (rc)
		gp_result_free(r);
	return rc;
}

void gp_result_free(struct gp_result *r)
{
	free(r->devs);
	free(r->links);
	free(r->spans);
	r->devs = NULL;
	r->links = NULL;
	r->spans = NULL;
}
