/*
 * costtab.c: the cost tables (costtab.h).
 *
 * Entries are grouped by what they depend on, so an update re-evaluates
 * a group only when its inputs differ from those it was made from: a
 * pool's entries depend on its GPU type, its own fields and the model
 * and job; a link's on the link; the state bytes on the job. A change of
 * the model, the job, or the shape of the scenario (DCs, pools, links
 * added or removed) rebuilds everything.
 */
#include "costtab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NRC 3   /* none, selective, full */

struct ct_pool {
	int dc, pool;
	struct gp_gpu gpu;             /* the inputs it was evaluated from */
	struct gp_pool in;
	struct gp_layer_cost *blk;     /* [ntp * NRC] */
	struct gp_layer_cost *logits;  /* [ntp] */
	double opt_rate;               /* optimizer seconds per parameter */
	double reserve;                /* bytes per GPU the job cannot use */
	double contention;             /* compute lost to overlapped DP sync */
	double jitter;                 /* one GPU's compute spread (gp_straggle) */
	struct gp_comm nic, ring_nvlink, ring_nic;
};

struct ct_link {
	struct gp_link in;
	struct gp_comm p2p;
};

struct gp_costtab {
	struct gp_cost_model cm;
	struct gp_model model;         /* inputs of every entry */
	struct gp_job job;
	int *tp, ntp;                  /* the divisors of the heads, ascending */
	struct ct_pool *pools;         /* flat over DCs */
	int npools, *pool0;            /* pool0[dc]: first flat index */
	int ndcs;
	struct ct_link *links;
	int nlinks;
	struct gp_state_mem state;
	int zero;
	long evals;
};

static int tp_index(const struct gp_costtab *ct, int tp)
{
	int lo = 0, hi = ct->ntp - 1;
	while (lo <= hi) {
		int mid = (lo + hi) / 2;
		if (ct->tp[mid] == tp)
			return mid;
		if (ct->tp[mid] < tp)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The divisors of the heads: by pairs up to the square root, so a
 * hostile head count cannot make this loop long. */
static int make_tps(struct gp_costtab *ct, double heads, struct gp_err *e)
{
	free(ct->tp);
	ct->tp = NULL;
	ct->ntp = 0;
	if (!(heads >= 1 && heads <= 1e9))
		return gp_errf(e, "model.heads: %g is not a usable head count", heads);
	long h = (long)heads;
	int cap = 64, n = 0;
	int *v = malloc(sizeof *v * (size_t)cap);
	for (long d = 1; v && d * d <= h; d++) {
		if (h % d)
			continue;
		long pair[2] = { d, h / d };
		for (int k = 0; k < (d * d == h ? 1 : 2); k++) {
			if (n == cap) {
				int *nv = realloc(v, sizeof *v * (size_t)(cap *= 2));
				if (!nv) {
					free(v);
					v = NULL;
					break;
				}
				v = nv;
			}
			if (v)
				v[n++] = (int)pair[k];
		}
	}
	if (!v)
		return gp_errf(e, "out of memory");
	qsort(v, (size_t)n, sizeof *v, cmp_int);
	ct->tp = v;
	ct->ntp = n;
	return 0;
}

static void eval_layer(struct gp_costtab *ct, const struct gp_scenario *sc,
		       const struct ct_pool *p, int tp, enum gp_recompute rc, int logits,
		       struct gp_layer_cost *out)
{
	const struct gp_pool *pool = &sc->dcs[p->dc].pools[p->pool];
	struct gp_layer_q q = { .sc = sc, .dc = p->dc, .gpu = &sc->gpus[pool->gpu], .pool = pool,
				.tp = tp, .recompute = rc, .logits = logits };
	ct->cm.ops->layer_time(ct->cm.ud, &q, &out->t);
	ct->cm.ops->layer_memory(ct->cm.ud, &q, &out->m);
	ct->evals += 2;
}

static void eval_pool(struct gp_costtab *ct, const struct gp_scenario *sc, struct ct_pool *p)
{
	static const enum gp_recompute rcs[NRC] = { GP_RC_NONE, GP_RC_SELECTIVE, GP_RC_FULL };
	const struct gp_pool *pool = &sc->dcs[p->dc].pools[p->pool];
	const struct gp_gpu *gpu = &sc->gpus[pool->gpu];
	p->gpu = *gpu;
	p->in = *pool;
	for (int t = 0; t < ct->ntp; t++) {
		for (int r = 0; r < NRC; r++)
			eval_layer(ct, sc, p, ct->tp[t], rcs[r], 0, &p->blk[t * NRC + r]);
		eval_layer(ct, sc, p, ct->tp[t], GP_RC_NONE, 1, &p->logits[t]);
	}
	/* Linear in the parameters (memory bound): a billion of them keeps
	 * the figure a model returns far from its rounding. */
	p->opt_rate = ct->cm.ops->optimizer_time(ct->cm.ud, gpu, 1e9) / 1e9;
	struct gp_layer_q gq = { .sc = sc, .dc = p->dc, .gpu = gpu, .pool = pool, .tp = 1 };
	p->reserve = 0;
	if (ct->cm.ops->reserve) {
		p->reserve = ct->cm.ops->reserve(ct->cm.ud, &gq);
		ct->evals++;
	}
	/* A model without the operation (a script) gets the default's. */
	p->contention = ct->cm.ops->sync_contention
			? ct->cm.ops->sync_contention(ct->cm.ud, &gq)
			: gp_default_cost.ops->sync_contention(NULL, &gq);
	p->jitter = ct->cm.ops->jitter ? ct->cm.ops->jitter(ct->cm.ud, &gq) : 0;
	struct gp_channel_q nic = { .sc = sc, .kind = GP_CH_NIC, .dc = p->dc, .pool = pool,
				    .bandwidth = pool->network, .latency = pool->latency };
	struct gp_channel_q nvl = { .sc = sc, .kind = GP_CH_NVLINK, .dc = p->dc, .pool = pool,
				    .bandwidth = pool->nvlink, .latency = 0 };
	ct->cm.ops->p2p(ct->cm.ud, &nic, &p->nic);
	ct->cm.ops->allreduce(ct->cm.ud, &nvl, &p->ring_nvlink);
	ct->cm.ops->allreduce(ct->cm.ud, &nic, &p->ring_nic);
	ct->evals += 4;
}

static void eval_link(struct gp_costtab *ct, const struct gp_scenario *sc, int i)
{
	const struct gp_link *l = &sc->links[i];
	struct gp_channel_q q = { .sc = sc, .kind = GP_CH_WAN, .dc = l->from, .link = l,
				  .bandwidth = l->bandwidth, .latency = l->latency };
	ct->links[i].in = *l;
	ct->cm.ops->p2p(ct->cm.ud, &q, &ct->links[i].p2p);
	ct->evals++;
}

static void free_entries(struct gp_costtab *ct)
{
	for (int i = 0; i < ct->npools; i++) {
		free(ct->pools[i].blk);
		free(ct->pools[i].logits);
	}
	free(ct->pools);
	free(ct->pool0);
	free(ct->links);
	ct->pools = NULL;
	ct->pool0 = NULL;
	ct->links = NULL;
	ct->npools = ct->nlinks = ct->ndcs = 0;
}

static int count_pools(const struct gp_scenario *sc)
{
	int n = 0;
	for (int d = 0; d < sc->ndcs; d++)
		n += sc->dcs[d].npools;
	return n;
}

/* Everything from scratch. */
static int fill(struct gp_costtab *ct, const struct gp_scenario *sc, struct gp_err *e)
{
	free_entries(ct);
	if (make_tps(ct, sc->model.heads, e))
		return -1;
	ct->model = sc->model;
	ct->job = sc->job;
	ct->npools = count_pools(sc);
	ct->ndcs = sc->ndcs;
	ct->nlinks = sc->nlinks;
	ct->pools = gp_xcalloc((size_t)ct->npools + 1, sizeof *ct->pools);
	ct->pool0 = gp_xcalloc((size_t)sc->ndcs + 1, sizeof *ct->pool0);
	ct->links = gp_xcalloc((size_t)sc->nlinks + 1, sizeof *ct->links);
	if (!ct->pools || !ct->pool0 || !ct->links)
		return gp_errf(e, "out of memory");
	int fp = 0;
	for (int d = 0; d < sc->ndcs; d++) {
		ct->pool0[d] = fp;
		for (int q = 0; q < sc->dcs[d].npools; q++, fp++) {
			struct ct_pool *p = &ct->pools[fp];
			p->dc = d;
			p->pool = q;
			p->blk = gp_xcalloc((size_t)ct->ntp * NRC, sizeof *p->blk);
			p->logits = gp_xcalloc((size_t)ct->ntp, sizeof *p->logits);
			if (!p->blk || !p->logits)
				return gp_errf(e, "out of memory");
			eval_pool(ct, sc, p);
		}
	}
	for (int i = 0; i < sc->nlinks; i++)
		eval_link(ct, sc, i);
	ct->cm.ops->state_memory(ct->cm.ud, sc, &ct->state);
	ct->zero = sc->job.zero;
	ct->evals++;
	return 0;
}

/* A batch of the model's calls: begin, the work, end. */
static int batch_begin(struct gp_costtab *ct, struct gp_err *e)
{
	return ct->cm.ops->begin ? ct->cm.ops->begin(ct->cm.ud, e) : 0;
}

static int batch_end(struct gp_costtab *ct, int rc, struct gp_err *e)
{
	struct gp_err mine = { "" };
	int bad = ct->cm.ops->end ? ct->cm.ops->end(ct->cm.ud, &mine) : 0;
	if (rc)
		return rc;
	if (bad) {
		if (e)
			*e = mine;
		return -1;
	}
	return 0;
}

static int rebuild(struct gp_costtab *ct, const struct gp_scenario *sc, struct gp_err *e)
{
	if (batch_begin(ct, e))
		return -1;
	return batch_end(ct, fill(ct, sc, e), e);
}

struct gp_costtab *gp_costtab_new(const struct gp_scenario *sc,
				  const struct gp_cost_model *cm, struct gp_err *e)
{
	struct gp_costtab *ct = gp_xcalloc(1, sizeof *ct);
	if (!ct) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	ct->cm = cm ? *cm : gp_default_cost;
	if (rebuild(ct, sc, e)) {
		gp_costtab_free(ct);
		return NULL;
	}
	return ct;
}

void gp_costtab_free(struct gp_costtab *ct)
{
	if (!ct)
		return;
	free_entries(ct);
	free(ct->tp);
	free(ct);
}

/* The same shape: DCs, pools per DC and link endpoints. */
static bool same_shape(const struct gp_costtab *ct, const struct gp_scenario *sc)
{
	if (sc->ndcs != ct->ndcs || sc->nlinks != ct->nlinks || count_pools(sc) != ct->npools)
		return false;
	for (int d = 0; d < sc->ndcs; d++) {
		int n = d + 1 < sc->ndcs ? ct->pool0[d + 1] : ct->npools;
		if (n - ct->pool0[d] != sc->dcs[d].npools)
			return false;
	}
	for (int i = 0; i < sc->nlinks; i++)
		if (sc->links[i].from != ct->links[i].in.from || sc->links[i].to != ct->links[i].in.to)
			return false;
	return true;
}

/* What the entries may read of the job: all but the global batch and
 * the plan-wide choices of the planners and the simulator (ZeRO enters
 * only at look-up, gp_costtab_state_bytes). */
static bool same_job(const struct gp_job *a, const struct gp_job *b)
{
	return a->seq == b->seq && a->micro_batch == b->micro_batch &&
	       a->precision_bytes == b->precision_bytes && a->precision == b->precision &&
	       a->attention == b->attention && a->sequence_parallel == b->sequence_parallel &&
	       a->tp_overlap == b->tp_overlap && a->optimizer == b->optimizer &&
	       a->cross_entropy == b->cross_entropy;
}

/* The pool's inputs to the cost operations: the count too, which a
 * script's operations may read. */
static bool same_pool(const struct gp_pool *a, const struct gp_pool *b)
{
	return a->count == b->count && a->per_node == b->per_node && a->nvlink == b->nvlink &&
	       a->network == b->network && a->latency == b->latency;
}

static bool same_gpu(const struct gp_gpu *a, const struct gp_gpu *b)
{
	return !strcmp(a->name, b->name) && a->flops == b->flops && a->fp8_flops == b->fp8_flops &&
	       a->memory == b->memory &&
	       a->hbm_bw == b->hbm_bw && a->nvlink == b->nvlink &&
	       a->efficiency == b->efficiency;
}

int gp_costtab_check(const struct gp_costtab *ct, const struct gp_scenario *sc,
		     struct gp_err *e)
{
	if (!same_shape(ct, sc) || ct->model.heads != sc->model.heads)
		return gp_errf(e, "the cost tables were made for another scenario (its DCs, pools or links differ)");
	return 0;
}

/* Re-evaluates what changed, inside a batch. */
static void refresh(struct gp_costtab *ct, const struct gp_scenario *sc)
{
	ct->job = sc->job;
	for (int fp = 0; fp < ct->npools; fp++) {
		struct ct_pool *p = &ct->pools[fp];
		const struct gp_pool *pool = &sc->dcs[p->dc].pools[p->pool];
		if (!same_pool(&p->in, pool) || !same_gpu(&p->gpu, &sc->gpus[pool->gpu]))
			eval_pool(ct, sc, p);
		p->in = *pool;
	}
	for (int i = 0; i < sc->nlinks; i++) {
		const struct gp_link *a = &ct->links[i].in, *b = &sc->links[i];
		if (a->bandwidth != b->bandwidth || a->latency != b->latency ||
		    a->streams != b->streams)
			eval_link(ct, sc, i);
		ct->links[i].in = *b;
	}
	ct->zero = sc->job.zero;
}

int gp_costtab_update(struct gp_costtab *ct, const struct gp_scenario *sc,
		      struct gp_err *e)
{
	if (!same_shape(ct, sc) || !gp_model_same(&ct->model, &sc->model) ||
	    !same_job(&ct->job, &sc->job))
		return rebuild(ct, sc, e);
	if (batch_begin(ct, e))
		return -1;
	refresh(ct, sc);
	return batch_end(ct, 0, e);
}

long gp_costtab_evals(const struct gp_costtab *ct)
{
	return ct->evals;
}

const struct gp_cost_model *gp_costtab_model(const struct gp_costtab *ct)
{
	return &ct->cm;
}

static const struct ct_pool *pool_of(const struct gp_costtab *ct, int dc, int pool)
{
	return &ct->pools[ct->pool0[dc] + pool];
}

const struct gp_layer_cost *gp_costtab_layer(const struct gp_costtab *ct, int dc,
					     int pool, int tp, enum gp_recompute rc)
{
	int t = tp_index(ct, tp);
	if (t < 0 || (int)rc < 0 || (int)rc >= NRC)
		return NULL;
	return &pool_of(ct, dc, pool)->blk[t * NRC + (int)rc];
}

const struct gp_layer_cost *gp_costtab_logits(const struct gp_costtab *ct, int dc,
					      int pool, int tp)
{
	int t = tp_index(ct, tp);
	return t < 0 ? NULL : &pool_of(ct, dc, pool)->logits[t];
}

double gp_costtab_optimizer(const struct gp_costtab *ct, int dc, int pool, double params)
{
	return params * pool_of(ct, dc, pool)->opt_rate;
}

double gp_costtab_reserve(const struct gp_costtab *ct, int dc, int pool)
{
	return pool_of(ct, dc, pool)->reserve;
}

double gp_costtab_contention(const struct gp_costtab *ct, int dc, int pool)
{
	return pool_of(ct, dc, pool)->contention;
}

double gp_costtab_pace(const struct gp_costtab *ct, int dc, int pool, int n)
{
	const struct ct_pool *p = pool_of(ct, dc, pool);
	return gp_straggle(p->jitter, n > 0 ? n : p->in.count);
}

double gp_costtab_state_bytes(const struct gp_costtab *ct, int d)
{
	return ct->state.replicated + (ct->zero && d > 1 ? ct->state.sharded / d
							 : ct->state.sharded);
}

struct gp_comm gp_costtab_nic(const struct gp_costtab *ct, int dc, int pool)
{
	return pool_of(ct, dc, pool)->nic;
}

struct gp_comm gp_costtab_ring_nvlink(const struct gp_costtab *ct, int dc, int pool)
{
	return pool_of(ct, dc, pool)->ring_nvlink;
}

struct gp_comm gp_costtab_ring_nic(const struct gp_costtab *ct, int dc, int pool)
{
	return pool_of(ct, dc, pool)->ring_nic;
}

struct gp_comm gp_costtab_wan(const struct gp_costtab *ct, int link)
{
	return ct->links[link].p2p;
}

double gp_costtab_intra_p2p(const struct gp_costtab *ct, const struct gp_scenario *sc,
			    int dc, int pa, int ta, int pb, int tb, double bytes)
{
	const struct gp_pool *a = &sc->dcs[dc].pools[pa], *b = &sc->dcs[dc].pools[pb];
	int nics = ta < tb ? ta : tb;
	int pn = a->per_node < b->per_node ? a->per_node : b->per_node;
	if (nics > pn)
		nics = pn;
	/* Without Megatron's scatter-gather (Narayanan et al., SC '21,
	 * section 4.1; DeepSpeed's pipeline engine has none) every TP rank
	 * holds the whole replicated activation and sends all of it to its
	 * peer, each over its own NIC: the time of one NIC carrying it all.
	 * With sequence parallelism each rank holds only its 1/t shard. */
	if (sc->job.p2p_whole && !sc->job.sequence_parallel)
		nics = 1;
	struct gp_comm ca = gp_costtab_nic(ct, dc, pa), cb = gp_costtab_nic(ct, dc, pb);
	return fmax(ca.lat, cb.lat) + bytes / (fmin(ca.bw, cb.bw) * nics);
}

struct gp_comm gp_costtab_dp_ring(const struct gp_costtab *ct, const struct gp_scenario *sc,
				  int dc, int pool, int tp, int ranks)
{
	const struct gp_pool *p = &sc->dcs[dc].pools[pool];
	if ((long)ranks * tp <= p->per_node)
		return gp_costtab_ring_nvlink(ct, dc, pool);
	int r = p->per_node / tp;
	if (r < 1)
		r = 1;
	if (r > ranks)
		r = ranks;
	struct gp_comm c = gp_costtab_ring_nic(ct, dc, pool);
	c.bw *= r;
	return c;
}

static bool same_comm(struct gp_comm a, struct gp_comm b)
{
	return a.lat == b.lat && a.bw == b.bw;
}

/* Two tables of one shape: the first entry that differs, named. */
static bool same_pool_entries(const struct gp_costtab *a, const struct gp_costtab *b, int fp,
			      char *what, size_t n)
{
	const struct ct_pool *x = &a->pools[fp], *y = &b->pools[fp];
	for (int t = 0; t < a->ntp; t++) {
		for (int r = 0; r < NRC; r++)
			if (memcmp(&x->blk[t * NRC + r], &y->blk[t * NRC + r], sizeof *x->blk)) {
				snprintf(what, n, "a block's time or memory at TP %d", a->tp[t]);
				return false;
			}
		if (memcmp(&x->logits[t], &y->logits[t], sizeof *x->logits)) {
			snprintf(what, n, "the logits layer's time or memory at TP %d", a->tp[t]);
			return false;
		}
	}
	if (x->opt_rate != y->opt_rate || x->reserve != y->reserve) {
		snprintf(what, n, "the optimizer step or the reserve");
		return false;
	}
	if (!same_comm(x->nic, y->nic) || !same_comm(x->ring_nvlink, y->ring_nvlink) ||
	    !same_comm(x->ring_nic, y->ring_nic)) {
		snprintf(what, n, "the NVLink or NIC figures");
		return false;
	}
	return true;
}

bool gp_costtab_same(const struct gp_costtab *a, const struct gp_costtab *b, char *what,
		     size_t n)
{
	if (a->npools != b->npools || a->nlinks != b->nlinks || a->ntp != b->ntp) {
		snprintf(what, n, "the tables' shape");
		return false;
	}
	for (int fp = 0; fp < a->npools; fp++)
		if (!same_pool_entries(a, b, fp, what, n)) {
			size_t l = strlen(what);
			snprintf(what + l, n - l, " of pool %d of DC %d", a->pools[fp].pool + 1,
				 a->pools[fp].dc + 1);
			return false;
		}
	for (int i = 0; i < a->nlinks; i++)
		if (!same_comm(a->links[i].p2p, b->links[i].p2p)) {
			snprintf(what, n, "WAN link direction %d", i + 1);
			return false;
		}
	if (a->state.replicated != b->state.replicated || a->state.sharded != b->state.sharded) {
		snprintf(what, n, "the model state's bytes");
		return false;
	}
	return true;
}
