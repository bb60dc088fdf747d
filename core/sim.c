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
 * A pipeline flow (one stage's outputs to the next, one direction) sends
 * one message at a time, in the order sent, as point-to-point operations
 * between two ranks run on their stream; flows and the DP sync share.
 *
 * The state it runs on (sim_int.h) is built by sim_setup.c, which also
 * hands xdc schedules to sim_sched.c once the stage costs are known.
 */
#include "sim_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum ev_type {
	EV_TASK_END,   /* a = device */
	EV_ARRIVE,     /* a = group, b = ready index * 2 + is_backward */
	EV_LINK,       /* a = link, b = generation */
	EV_XARR,       /* a = transfer id: bandwidth phase + latency done */
	EV_SYNC,       /* a = device: a local sync phase ended */
	EV_KICK,       /* a = device: a sync bucket becomes ready */
	EV_OPT_END,    /* a = device */
	EV_SENT,       /* a = device: its blocking send is done */
	EV_DRAIN,      /* a = device: its deferred logits W are done */
};

struct ev {
	double t;
	uint64_t seq;
	int32_t type, a;
	int64_t b;
};


/* CLOCK_MONOTONIC passed t (gp_sim_opts.deadline). */
static bool past(double t)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9 > t;
}

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

struct bucket {
	double ready;
	double shard;        /* bytes each TP rank all-reduces */
	double wan;          /* bytes per ring edge across DCs, this device's share */
	int32_t run;         /* its layers' DP group: the device's run */
	int32_t src;         /* recording: the gradient task that made it ready */
	double l0[2], l1[2]; /* its local phases, start and end (0, 0: none) */
	int la, lb;          /* the layers it holds (1-based): its collective's slots */
};

struct xfer {
	double vfin, w, t0, lat, bytes;
	int64_t flow;        /* pipeline flow, or -1 (sync) */
	int32_t next;        /* the flow's next waiting transfer, or -1 */
	int32_t kind, g, mb, dev;
	int64_t idx;         /* ready index * 2 + is_backward */
	int32_t link;
	int32_t src;         /* recording: the span that sent it, or -1 */
	double ready;        /* recording: when its input was ready */
	int32_t span;        /* recording: its own span, once recorded */
};

/* ------------------------------------------------------------------ */

/* Appends a span to the timeline (when recording) and returns its index
 * as a gp_span.dep, or -1. */
static int32_t record(struct sim *s, double t0, double t1, int row, int mb,
		      int kind, int chunk, int32_t dep, double ready)
{
	if (!s->record)
		return -1;
	if (s->nspans == s->capspans) {
		int64_t nc = s->capspans ? s->capspans * 2 : 4096;
		struct gp_span *ns = realloc(s->spans, (size_t)nc * sizeof *ns);
		if (!ns) {
			s->oom = 1;
			return -1;
		}
		s->spans = ns;
		s->capspans = nc;
	}
	int64_t k = s->nspans++;
	s->spans[k] = (struct gp_span){ t0, t1, row, mb, (uint8_t)kind, (uint8_t)chunk,
					dep, ready };
	return k <= INT32_MAX ? (int32_t)k : -1;
}

/* Recording: the input of cell idx (ready index * 2 + is_backward) of
 * group g comes from span k. */
static inline void note_dep(struct sim *s, int g, int64_t idx, int32_t k)
{
	if (s->record)
		(idx & 1 ? s->g[g].bdep : s->g[g].fdep)[idx >> 1] = k;
}

static void push(struct sim *s, double t, int type, int a, int64_t b)
{
	if (!isfinite(t))
		s->overflow = 1;
	else if (heap_push(&s->q, t, type, a, b))
		s->oom = 1;
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

/* Transfer id joins its link's processor sharing now. */
static void link_admit(struct sim *s, int id)
{
	struct xfer *x = &s->x[id];
	struct lnk *l = &s->l[x->link];
	link_advance(l, s->now);
	x->vfin = l->V + x->bytes;
	x->t0 = s->now;
	l->W += x->w;
	lheap_push(s, l, id);
	link_reschedule(s, x->link);
}

/* Starts a transfer of `bytes` per unit weight on link li. A pipeline
 * flow's (flow >= 0: one stage's outputs to the next, one direction)
 * go one at a time in the order sent, as point-to-point operations
 * between two ranks do on their stream; different flows and the sync
 * share the link. */
static void link_send(struct sim *s, int li, double bytes, double w,
		      double lat, int kind, int g, int mb, int dev, int64_t idx,
		      int32_t src, int64_t flow)
{
	int id = xfer_new(s);
	if (id < 0)
		return;
	struct lnk *l = &s->l[li];
	s->x[id] = (struct xfer){ .w = w, .t0 = s->now, .bytes = bytes, .flow = flow, .next = -1,
				  .lat = lat, .kind = kind, .g = g, .mb = mb,
				  .dev = dev, .idx = idx, .link = li, .src = src,
				  .ready = dev >= 0 ? s->d[dev].sync_ready : s->now, .span = -1 };
	l->bytes += bytes * w;
	if (kind == GP_SPAN_SYNC)
		l->sync_bytes += bytes * w;
	if (flow >= 0) {
		/* fq[2 flow]: the transfer on the link (-1: none), then the
		 * last one waiting; waiting ones chain by next. */
		int32_t *q = &s->fq[2 * flow];
		if (q[0] >= 0) {
			if (q[1] >= 0)
				s->x[q[1]].next = id;
			else
				s->x[q[0]].next = id;
			q[1] = id;
			return;
		}
		q[0] = id;
	}
	link_admit(s, id);
}

/* Transfer id's bandwidth phase ended: its flow's next one starts. */
static void flow_next(struct sim *s, int id)
{
	const struct xfer *x = &s->x[id];
	if (x->flow < 0)
		return;
	int32_t *q = &s->fq[2 * x->flow];
	q[0] = x->next;
	if (q[0] < 0)
		return;
	if (q[1] == q[0])
		q[1] = -1;
	/* Recording: it waited for this one, not for its sender. */
	struct xfer *y = &s->x[q[0]];
	if (y->ready < s->now) {
		y->src = x->span;
		y->ready = s->now;
	}
	link_admit(s, q[0]);
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
		int32_t k = record(s, x->t0, s->now, s->nd + li, x->mb, x->kind, 0,
				   x->src, x->ready);
		x->span = k;
		if (x->dev < 0)
			note_dep(s, x->g, x->idx, k);
		push(s, s->now + x->lat, EV_XARR, id, 0);
		flow_next(s, id);
	}
	if (!l->n)
		l->W = 0; /* no drift from repeated subtraction */
	link_reschedule(s, li);
}

/* --- devices ------------------------------------------------------ */

static void try_start(struct sim *s, int di);
static void sync_kick(struct sim *s, int di);
static void on_free(struct sim *s, int di);

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
double sim_intra_p2p(struct sim *s, int g, int a, int b, double bytes)
{
	const struct gp_stage *x = &s->plan->pipes[g].stages[a];
	const struct gp_stage *y = &s->plan->pipes[g].stages[b];
	return gp_costtab_intra_p2p(s->ct, s->sc, x->dc, x->pool, x->tp, y->pool, y->tp, bytes);
}

/* Sends the output of (vs, mb), span src, to virtual stage `to`.
 * Returns how long the sender is held: a stage boundary inside a DC
 * blocks it for the transfer unless the job overlaps point-to-point
 * communication with compute (Megatron-LM's batched, blocking
 * send/receive pairs without --overlap-p2p-communication); WAN
 * transfers run on their links either way. */
static double send(struct sim *s, int g, int from_vs, int to_vs, int mb, int bwd,
		   int32_t src)
{
	struct group *gr = &s->g[g];
	int a = gp_vs_device(gr->S, gr->vshape, from_vs);
	int b = gp_vs_device(gr->S, gr->vshape, to_vs);
	int64_t idx = ((int64_t)to_vs * gr->m + mb) * 2 + bwd;
	if (a == b) {
		note_dep(s, g, idx, src);
		push(s, s->now, EV_ARRIVE, g, idx);
		return 0;
	}
	double bytes = gp_boundary_bytes(s->sc);
	int da = sim_stage_dc(s, g, a), db = sim_stage_dc(s, g, b);
	if (da == db) {
		double t = sim_intra_p2p(s, g, a, b, bytes);
		note_dep(s, g, idx, src);
		push(s, s->now + t, EV_ARRIVE, g, idx);
		return s->sc->job.p2p_overlap ? 0 : t;
	}
	int li = sim_link_index(s->sc, da, db);
	link_send(s, li, bytes, gr->R, s->l[li].lat,
		  bwd ? GP_SPAN_GRAD : GP_SPAN_ACT, g, mb, -1, idx, src,
		  s->fqbase[g] + 2 * from_vs + bwd);
	return 0;
}

static void add_buckets(struct sim *s, int di, int vs, double t0, double t1);

/* Recording: the span of the task starting now on device d, with what it
 * waited for (gp_span.dep and ready). */
static void record_task(struct sim *s, struct dev *d, const struct gp_task *t,
			int64_t i, double t1)
{
	struct group *gr = &s->g[d->g];
	int32_t dep = -1;
	double ready = 0;
	if (t->kind == GP_TASK_F) {
		if (gr->fin[i] != SIM_INF) {  /* not the first virtual stage */
			dep = gr->fdep[i];
			ready = gr->fin[i];
		}
	} else if (t->kind == GP_TASK_B) {
		dep = gr->bdep[i];
		ready = gr->bin[i];
	} else {
		dep = gr->bdep[i];    /* its B's span, set below */
		ready = dep >= 0 ? s->spans[dep].t1 : s->now;
	}
	d->span = record(s, s->now, t1, (int)(d - s->d), t->mb, t->kind, t->chunk,
			 dep, ready);
	if (t->kind == GP_TASK_B)
		gr->bdep[i] = d->span;
}

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
		if (vs > 0 && gr->fin[i] == SIM_INF)
			return;
		dur = gr->vc[vs].f;
		break;
	case GP_TASK_B:
		if (gr->bin[i] == SIM_INF)
			return;
		dur = gr->vc[vs].b;
		if (vs == gr->VS - 1 && t->mb < gr->defer_n)
			dur -= gr->defer_w;   /* deferred to the flush (on_free) */
		break;
	default:
		dur = gr->vc[vs].w;
		break;
	}
	d->busy = true;
	double t1 = s->now + dur;
	int is_grad = t->kind == GP_TASK_W || (t->kind == GP_TASK_B && !gr->split);
	if (s->record)
		record_task(s, d, t, i, t1);
	if (is_grad && ++gr->grad_started[vs] == gr->m)
		add_buckets(s, di, vs, s->now, t1);
	d->busy_time += dur;
	push(s, t1, EV_TASK_END, di, 0);
}

static void on_task_end(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	struct group *gr = &s->g[d->g];
	const struct gp_task *t = &gr->sc.tasks[d->next];
	int vs = gp_vs_of(gr->S, gr->vshape, d->s, t->chunk);
	double hold = 0;
	d->busy = false;
	d->next++;
	d->last_end = s->now;
	if (t->kind == GP_TASK_F) {
		if (t->mb == 0)
			gr->f1_end[vs] = s->now;
		if (vs + 1 < gr->VS) {
			hold = send(s, d->g, vs, vs + 1, t->mb, 0, d->span);
		} else {
			int64_t i = (int64_t)vs * gr->m + t->mb;
			gr->bin[i] = s->now;
			note_dep(s, d->g, i * 2 + 1, d->span);
		}
	} else if (t->kind == GP_TASK_B && vs > 0) {
		hold = send(s, d->g, vs, vs - 1, t->mb, 1, d->span);
	}
	if (hold > 0) {
		d->busy = true;   /* until EV_SENT */
		push(s, s->now + hold, EV_SENT, di, 0);
		return;
	}
	on_free(s, di);
}

/* Device di may start its next task, or once it has none the deferred
 * logits W (setup_group), then its sync. */
static void on_free(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	d->busy = false;
	try_start(s, di);
	if (d->next == d->end && d->drain > 0 && !d->draining) {
		struct group *gr = &s->g[d->g];
		d->draining = d->busy = true;
		d->busy_time += d->drain;
		for (int i = 0; i < gr->defer_n; i++)
			d->span = record(s, s->now + i * gr->defer_w, s->now + (i + 1) * gr->defer_w,
					 di, i, GP_TASK_W, gr->v - 1, d->span, s->now);
		push(s, s->now + d->drain, EV_DRAIN, di, 0);
		return;
	}
	if (d->next == d->end)
		sync_kick(s, di);
}

/* --- DP sync and the optimizer ------------------------------------- */

/* Bucket b of device di is produced: each of its layers' slots counts
 * it; a slot that has every participant wakes their sync channels. */
static void slot_produce(struct sim *s, const struct bucket *b)
{
	for (int l = b->la; l <= b->lb; l++) {
		struct sim_slot *x = &s->slot[l];
		x->have++;
		if (x->have == 1 || b->ready > x->ready) {
			x->ready = b->ready;
			x->src = b->src;
		}
		if (x->have != x->need)
			continue;
		for (int i = s->part_off[l]; i < s->part_off[l + 1]; i++)
			sync_kick(s, s->part[i]);
	}
}

/* When bucket b's collective may start: every participant has produced
 * each of its layers (SIM_INF: not yet); *src the task that did last. */
static double slot_ready(const struct sim *s, const struct bucket *b, int32_t *src)
{
	double r = b->ready;
	*src = b->src;
	for (int l = b->la; l <= b->lb; l++) {
		const struct sim_slot *x = &s->slot[l];
		if (x->have < x->need)
			return SIM_INF;
		if (x->ready > r) {
			r = x->ready;
			*src = x->src;
		}
	}
	return r;
}

static int add_bucket(struct sim *s, int di, double ready, double bytes, int run,
		      int la, int lb)
{
	struct dev *d = &s->d[di];
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
			       .dcs = d->runs[run].k, .mode = s->mode,
			       .every = s->sc->job.sync_every };
	d->bk[d->nbk] = (struct bucket){ ready, bytes / st->tp, gp_dp_sync_wan_bytes(&q),
					 run, d->span, { 0, 0 }, { 0, 0 }, la, lb };
	slot_produce(s, &d->bk[d->nbk++]);
	return 0;
}

/* The last gradient task of chunk vs runs over [t0, t1]: its layers'
 * gradients are final one by one (backward order), in buckets of whole
 * layers of one DP group (sync_run); without overlap the whole device is
 * one bucket per group once all its chunks are done. A bucket holds at
 * least max(40M, 1M x D) parameters of the GPU's shard, Megatron-Core's
 * default (DistributedDataParallelConfig.bucket_size), so the rings'
 * latency does not grow with D. A bucket's collective starts once every
 * device holding its layers has made them (slot_ready). */
static void add_buckets(struct sim *s, int di, int vs, double t0, double t1)
{
	struct dev *d = &s->d[di];
	struct group *gr = &s->g[d->g];
	if (d->D <= 1)
		return;
	const struct gp_stage *st = &s->plan->pipes[d->g].stages[d->s];
	/* Embedding and logits weights ride along, spread over the layers. */
	double per_layer = d->grad_bytes / (st->last - st->first + 1);
	d->chunks_total++;
	if (!s->sc->job.sync_overlap) {
		for (int u = d->nruns - 1; d->chunks_total == gr->v && u >= 0; u--)
			add_bucket(s, di, t1, per_layer * (d->runs[u].last - d->runs[u].first + 1), u,
				   d->runs[u].first, d->runs[u].last);
		return;
	}
	double shard = per_layer / gp_grad_reduce_bytes(&s->sc->job) / st->tp;
	double want = fmax(40e6, 1e6 * d->D);
	int n = gr->vc[vs].layers, lo = gr->vc[vs].first, hi = lo + n - 1;
	int g = shard >= want ? 1 : (int)fmin(n, ceil(want / shard));
	/* From the chunk's last layer down, run by run. */
	for (int u = d->nruns - 1; u >= 0; u--) {
		int a = d->runs[u].first > lo ? d->runs[u].first : lo;
		int b = d->runs[u].last < hi ? d->runs[u].last : hi;
		for (int top = b; top >= a; top -= g) {
			int bot = top - g + 1 > a ? top - g + 1 : a;
			add_bucket(s, di, t0 + (t1 - t0) * (hi - bot + 1) / n,
				   per_layer * (top - bot + 1), u, bot, top);
		}
	}
	sync_kick(s, di);
}

/* Local phase k (0 or 1) of bucket b, starting now: its time, kept so
 * that what ran under compute can slow that compute (start_opt). */
static double local_phase(const struct sim *s, struct bucket *b, int k, double t)
{
	b->l0[k] = s->now;
	b->l1[k] = s->now + t;
	return t;
}

static double local_allreduce(const struct sync_run *u, double shard, int ranks)
{
	return gp_ring_allreduce(shard, ranks, u->local_bw, u->local_lat);
}

/* Recording: a local phase of device di's sync over [now, now + t),
 * after what its channel last waited for; it becomes that. A phase of
 * no time is not recorded: the next one waits for what it waited for. */
static void record_sync(struct sim *s, struct dev *d, double t)
{
	if (!s->record || t <= 0)
		return;
	int32_t k = record(s, s->now, s->now + t, (int)(d - s->d), -1, GP_SPAN_SYNC, 0,
			   d->sync_dep, d->sync_ready);
	d->sync_dep = k;
	d->sync_ready = s->now + t;
}

/* ZeRO's parameter all-gather (gp_dp_ring_gather) starts with the next
 * iteration and runs bucket by bucket in layer order, each bucket's
 * before its first micro-batch's forward: Megatron-Core's forward
 * pre-hook waits for it (overlap_param_gather); the later micro-batches
 * find the parameters there. Taking the next iteration's timeline as
 * this one's, chunk c's first forward, which ended at f1_end, cannot end
 * before the gathers of chunks 0..c; the step grows by the worst such
 * delay, and what ran under compute slows it by the contention share. */
static double gather_cost(const struct sim *s, const struct dev *d)
{
	const struct group *gr = &s->g[d->g];
	const struct gp_stage *st = &s->plan->pipes[d->g].stages[d->s];
	if (d->t_gather <= 0)
		return 0;
	double cum = 0, late = 0;
	for (int c = 0; c < gr->v; c++) {
		int vs = gp_vs_of(gr->S, gr->vshape, d->s, c);
		cum += d->t_gather * gr->vc[vs].layers / (st->last - st->first + 1);
		late = fmax(late, cum - gr->f1_end[vs]);
	}
	return late + d->cont * (d->t_gather - late);
}

/* The optimizer runs once the sync is done and the compute, slowed by
 * the contention share of the local sync time that ran under it, is. */
static void start_opt(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	double under = 0;
	for (int i = 0; i < d->nbk; i++)
		for (int k = 0; k < 2; k++)
			under += fmax(0, fmin(d->bk[i].l1[k], d->last_end) - d->bk[i].l0[k]);
	double ready = d->last_end + d->cont * under;
	double t0 = fmax(s->now, ready);
	/* It waited for the last sync phase or the last compute task. */
	bool synced = d->sync_dep >= 0 && d->sync_ready > ready;
	int32_t k = record(s, t0, t0 + d->t_opt, di, -1, GP_SPAN_OPT, 0,
			   synced ? d->sync_dep : d->span, synced ? d->sync_ready : ready);
	/* The all-gather's share the step waits for is the DP sync's last
	 * phase on the timeline, so the device's rows run to its end. */
	double gather = gather_cost(s, d), t1 = t0 + d->t_opt;
	if (gather > 0)
		record(s, t1, t1 + gather, di, -1, GP_SPAN_SYNC, 0, k, t1);
	push(s, t1 + gather, EV_OPT_END, di, 0);
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
		if (d->next == d->end && d->drain <= 0 &&
		    (d->D <= 1 || d->chunks_total == s->g[d->g].v)) {
			d->done = true;
			start_opt(s, di);
		}
		return;
	}
	struct bucket *b = &d->bk[d->bk_next];
	/* A collective starts once every participant has produced the
	 * bucket (the slowest replica holds everyone up). */
	int32_t src;
	double ready = slot_ready(s, b, &src);
	if (ready == SIM_INF)
		return;   /* slot_produce kicks again */
	if (ready > s->now) {
		d->kick_pending = true;
		push(s, ready, EV_KICK, di, 0);
		return;
	}
	d->sync_busy = true;
	d->phase = 0;
	/* The channel waited for this bucket, or for its previous phase. */
	if (d->sync_dep < 0 || d->sync_ready < ready) {
		d->sync_dep = src;
		d->sync_ready = ready;
	}
	const struct sync_run *u = &d->runs[b->run];
	const struct gp_job *j = &s->sc->job;
	double t;
	if (u->k <= 1) {
		t = gp_dp_ring_sync(j, b->shard, d->D, u->local_bw, u->local_lat);
		d->t_gather += gp_dp_ring_gather(j, b->shard, d->D, u->local_bw, u->local_lat);
	} else if (s->mode == GP_SYNC_HIER)
		t = local_allreduce(u, b->shard, u->local) / 2; /* reduce-scatter */
	else
		t = 0;
	record_sync(s, d, t);
	push(s, s->now + local_phase(s, b, 0, t), EV_SYNC, di, 0);
}

static void on_sync(struct sim *s, int di)
{
	struct dev *d = &s->d[di];
	struct bucket *b = &d->bk[d->bk_next];
	const struct sync_run *u = &d->runs[b->run];
	if (u->k > 1 && d->phase == 0) {
		/* Across DCs: the k-way ring between DCs, every edge at once. */
		d->phase = 1;
		d->pending = u->k;
		int steps = s->mode == GP_SYNC_HIER ? u->k : d->D;
		for (int i = 0; i < u->k; i++) {
			int a = u->ring[i], c = u->ring[(i + 1) % u->k];
			int li = sim_link_index(s->sc, a, c);
			double lat = 2.0 * (steps - 1) * s->l[li].lat /
				     s->sc->job.sync_every;
			link_send(s, li, b->wan, 1, lat, GP_SPAN_SYNC, d->g, -1, di, -1,
				  d->sync_dep, -1);
		}
		return;
	}
	if (u->k > 1 && d->phase == 1) {
		d->phase = 2;
		double t = s->mode == GP_SYNC_HIER
			   ? local_allreduce(u, b->shard, u->local) / 2 : 0;
		record_sync(s, d, t);
		push(s, s->now + local_phase(s, b, 1, t), EV_SYNC, di, 0);
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
		/* The ring waits for its last transfer (and its latency). */
		d->sync_dep = x.span;
		d->sync_ready = s->now;
		if (--d->pending == 0)
			on_sync(s, x.dev);
		return;
	}
	deliver(s, x.g, x.idx);
}

static const char *const kind_letter = "FBW";

/* The pipeline flows' queues (link_send): two per virtual stage of each
 * group, all empty. */
static int flows_new(struct sim *s)
{
	s->fqbase = gp_xcalloc((size_t)s->ng + 1, sizeof *s->fqbase);
	if (!s->fqbase)
		return -1;
	int64_t n = 0;
	for (int g = 0; g < s->ng; g++) {
		s->fqbase[g] = n;
		n += 2 * (int64_t)s->g[g].VS;
	}
	s->fq = gp_xcalloc((size_t)(2 * n + 1), sizeof *s->fq);
	if (!s->fq)
		return -1;
	for (int64_t i = 0; i < 2 * n; i++)
		s->fq[i] = -1;
	return 0;
}

int gp_simulate(const struct gp_scenario *sc, const struct gp_plan *plan,
		const struct gp_sim_opts *opt, struct gp_result *r,
		struct gp_err *e)
{
	memset(r, 0, sizeof *r);
	if (gp_plan_validate(sc, plan, e))
		return -1;
	struct sim s = { .sc = sc, .plan = plan, .mode = gp_plan_sync(sc, plan), .e = e };
	s.ct = opt ? opt->costs : NULL;
	if (s.ct && gp_costtab_check(s.ct, sc, e))
		return -1;
	if (!s.ct) {
		s.ct = s.own_ct = gp_costtab_new(sc, opt ? opt->cost : NULL, e);
		if (!s.ct)
			return -1;
	}
	s.opt = opt;
	s.record = opt && opt->record;
	r->schedule = plan->schedule;
	r->chunks = plan->schedule == GP_SCHED_INTERLEAVED || plan->schedule == GP_SCHED_XDC_GREEDY ||
		    plan->schedule == GP_SCHED_XDC_MILP ? plan->chunks : 1;
	int rc = sim_setup(&s, r);
	if (rc == 0 && flows_new(&s))
		rc = gp_errf(e, "simulation: out of memory");
	if (rc == 0) {
		for (int i = 0; i < s.nd; i++)
			try_start(&s, i);
		const atomic_int *cancel = opt ? opt->cancel : NULL;
		double dl = opt ? opt->deadline : 0;
		for (uint64_t n = 0; s.q.n && !s.oom; n++) {
			if ((n & 4095) == 0 && cancel && atomic_load_explicit(cancel, memory_order_relaxed)) {
				s.cancelled = true;
				break;
			}
			if ((n & 4095) == 0 && dl > 0 && past(dl)) {
				s.timed_out = true;
				break;
			}
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
			case EV_SENT: on_free(&s, ev.a); break;
			case EV_DRAIN:
				s.d[ev.a].drain = 0;
				s.d[ev.a].last_end = s.now;
				on_free(&s, ev.a);
				break;
			}
		}
		if (s.cancelled)
			rc = gp_errf(e, "simulation: cancelled");
		else if (s.timed_out)
			rc = gp_errf(e, "simulation: stopped at its deadline");
		else if (s.oom)
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
		sim_metrics(&s, r);
		r->spans = s.spans;
		r->nspans = s.nspans;
		s.spans = NULL;
	}
	free(s.spans);
	free(s.fq);
	free(s.fqbase);
	sim_free(&s);
	gp_costtab_free(s.own_ct);
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
