/*
 * scenario.c: loading a scenario file, the checks that span fields, and
 * the names of schedules and recomputation policies.
 */
#include "scenario.h"
#include "lua_host.h"
#include "schedule.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const sched_names[GP_SCHED__N] = {
	[GP_SCHED_GPIPE] = "gpipe",
	[GP_SCHED_1F1B] = "1f1b",
	[GP_SCHED_INTERLEAVED] = "interleaved",
	[GP_SCHED_ZBH1] = "zb-h1",
	[GP_SCHED_XDC_GREEDY] = "xdc-greedy",
	[GP_SCHED_XDC_MILP] = "xdc-milp",
};

const char *gp_sched_name(enum gp_sched k)
{
	return (unsigned)k < GP_SCHED__N ? sched_names[k] : "?";
}

enum gp_sync_mode gp_plan_sync(const struct gp_scenario *s, const struct gp_plan *p)
{
	if (p && p->sync_set)
		return p->sync_mode;
	return s->job.sync_mode == GP_SYNC_FLAT ? GP_SYNC_FLAT : GP_SYNC_HIER;
}

const char *gp_sync_name(enum gp_sync_mode m)
{
	return m == GP_SYNC_FLAT ? "flat" : m == GP_SYNC_HIER ? "hierarchical" : "auto";
}

int gp_sched_parse(const char *name, enum gp_sched *out)
{
	for (int k = 0; k < GP_SCHED__N; k++)
		if (!strcmp(name, sched_names[k])) {
			*out = k;
			return 0;
		}
	return -1;
}

static const char *const rc_names[] = { "none", "selective", "full", "auto" };

const char *gp_recompute_name(enum gp_recompute r)
{
	return (unsigned)r <= GP_RC_AUTO ? rc_names[r] : "?";
}

int gp_recompute_parse(const char *name, enum gp_recompute *out)
{
	for (int k = 0; k <= GP_RC_AUTO; k++)
		if (!strcmp(name, rc_names[k])) {
			*out = k;
			return 0;
		}
	return -1;
}

int gp_find_dc(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ndcs; i++)
		if (!strcmp(s->dcs[i].name, name))
			return i;
	return -1;
}

/* DCs beyond which the index (ndcs^2 ints) is not made. */
#define LINK_INDEX_DCS 2048

int gp_scenario_index(struct gp_scenario *s)
{
	free(s->link_at);
	s->link_at = NULL;
	s->link_dcs = s->link_n = 0;
	if (s->ndcs < 1 || s->ndcs > LINK_INDEX_DCS)
		return 0;
	size_t n = (size_t)s->ndcs * (size_t)s->ndcs;
	s->link_at = malloc(n * sizeof *s->link_at);
	if (!s->link_at)
		return -1;
	for (size_t i = 0; i < n; i++)
		s->link_at[i] = -1;
	/* The first link of a pair, as the scan finds it. */
	for (int i = s->nlinks - 1; i >= 0; i--) {
		const struct gp_link *l = &s->links[i];
		if (l->from >= 0 && l->from < s->ndcs && l->to >= 0 && l->to < s->ndcs)
			s->link_at[(size_t)l->from * (size_t)s->ndcs + (size_t)l->to] = i;
	}
	s->link_dcs = s->ndcs;
	s->link_n = s->nlinks;
	return 0;
}

const struct gp_link *gp_find_link(const struct gp_scenario *s, int a, int b)
{
	if (s->link_at && s->link_dcs == s->ndcs && s->link_n == s->nlinks && a >= 0 &&
	    a < s->ndcs && b >= 0 && b < s->ndcs) {
		int i = s->link_at[(size_t)a * (size_t)s->ndcs + (size_t)b];
		return i >= 0 ? &s->links[i] : NULL;
	}
	for (int i = 0; i < s->nlinks; i++)
		if (s->links[i].from == a && s->links[i].to == b)
			return &s->links[i];
	return NULL;
}

void gp_plan_free(struct gp_plan *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->npipes; i++)
		free(p->pipes[i].stages);
	free(p->pipes);
	p->pipes = NULL;
	p->npipes = 0;
}

static bool same_shape(const struct gp_pipeline *a, const struct gp_pipeline *b)
{
	if (a->micro_batches != b->micro_batches || a->nstages != b->nstages)
		return false;
	for (int k = 0; k < a->nstages; k++) {
		const struct gp_stage *x = &a->stages[k], *y = &b->stages[k];
		if (x->dc != y->dc || x->pool != y->pool || x->tp != y->tp || x->first != y->first ||
		    x->last != y->last || x->recompute != y->recompute ||
		    x->recompute_set != y->recompute_set)
			return false;
	}
	return true;
}

int gp_plan_merge_shapes(struct gp_plan *p)
{
	int n = 0, merged = 0;
	for (int i = 0; i < p->npipes; i++) {
		int j = 0;
		while (j < n && !same_shape(&p->pipes[j], &p->pipes[i]))
			j++;
		if (j < n) {
			p->pipes[j].replicas += p->pipes[i].replicas;
			free(p->pipes[i].stages);
			merged++;
		} else {
			p->pipes[n++] = p->pipes[i];
		}
	}
	p->npipes = n;
	return merged;
}

void gp_scenario_free(struct gp_scenario *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ndcs; i++)
		free(s->dcs[i].pools);
	free(s->dcs);
	free(s->gpus);
	free(s->links);
	free(s->link_at);
	gp_plan_free(&s->plan);
	free(s);
}

static bool gpu_named(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, name))
			return true;
	return false;
}

static bool same_gpu(const struct gp_gpu *a, const struct gp_gpu *b)
{
	return !strcmp(a->name, b->name) && a->flops == b->flops && a->fp8_flops == b->fp8_flops &&
	       a->memory == b->memory &&
	       a->hbm_bw == b->hbm_bw && a->nvlink == b->nvlink &&
	       a->efficiency == b->efficiency && a->price_per_hour == b->price_per_hour;
}

static bool same_dc(const struct gp_dc *a, const struct gp_dc *b)
{
	if (strcmp(a->name, b->name) || a->npools != b->npools)
		return false;
	for (int i = 0; i < a->npools; i++) {
		const struct gp_pool *x = &a->pools[i], *y = &b->pools[i];
		if (x->gpu != y->gpu || x->count != y->count || x->per_node != y->per_node ||
		    x->nvlink != y->nvlink || x->network != y->network || x->latency != y->latency)
			return false;
	}
	return true;
}

static bool same_link(const struct gp_link *a, const struct gp_link *b)
{
	return a->from == b->from && a->to == b->to && a->bandwidth == b->bandwidth &&
	       a->latency == b->latency && a->price_per_gb == b->price_per_gb &&
	       a->streams == b->streams;
}

bool gp_model_same(const struct gp_model *a, const struct gp_model *b)
{
	return !strcmp(a->name, b->name) && a->layers == b->layers && a->hidden == b->hidden &&
	       a->heads == b->heads && a->kv_heads == b->kv_heads && a->ffn == b->ffn &&
	       a->vocab == b->vocab && a->gated == b->gated;
}

static bool same_job(const struct gp_job *a, const struct gp_job *b)
{
	return a->seq == b->seq && a->global_batch == b->global_batch &&
	       a->micro_batch == b->micro_batch && a->precision_bytes == b->precision_bytes &&
	       a->zero == b->zero && a->recompute == b->recompute &&
	       a->sync_mode == b->sync_mode && a->sync_every == b->sync_every &&
	       a->sync_overlap == b->sync_overlap && a->precision == b->precision &&
	       a->attention == b->attention && a->optimizer == b->optimizer &&
	       a->sequence_parallel == b->sequence_parallel &&
	       a->tp_overlap == b->tp_overlap && a->p2p_overlap == b->p2p_overlap &&
	       a->p2p_whole == b->p2p_whole && a->grad_reduce == b->grad_reduce &&
	       a->defer_wgrad == b->defer_wgrad && a->cross_entropy == b->cross_entropy;
}

int gp_plan_pool_gpus(const struct gp_plan *p, int dc, int pool)
{
	long n = 0;
	for (int i = 0; i < p->npipes; i++)
		for (int j = 0; j < p->pipes[i].nstages; j++) {
			const struct gp_stage *st = &p->pipes[i].stages[j];
			if (st->dc == dc && st->pool == pool)
				n += (long)st->tp * p->pipes[i].replicas;
		}
	return n > 1 << 30 ? 1 << 30 : (int)n;
}

bool gp_plan_same(const struct gp_plan *a, const struct gp_plan *b)
{
	if (a->schedule != b->schedule || a->chunks != b->chunks ||
	    a->microbatch_group != b->microbatch_group || a->npipes != b->npipes ||
	    a->sync_set != b->sync_set || (a->sync_set && a->sync_mode != b->sync_mode))
		return false;
	for (int i = 0; i < a->npipes; i++) {
		const struct gp_pipeline *x = &a->pipes[i], *y = &b->pipes[i];
		if (x->micro_batches != y->micro_batches || x->replicas != y->replicas ||
		    x->nstages != y->nstages)
			return false;
		for (int j = 0; j < x->nstages; j++) {
			const struct gp_stage *u = &x->stages[j], *v = &y->stages[j];
			if (u->dc != v->dc || u->pool != v->pool || u->tp != v->tp ||
			    u->first != v->first || u->last != v->last ||
			    u->recompute != v->recompute || u->recompute_set != v->recompute_set)
				return false;
		}
	}
	return true;
}

bool gp_scenario_same(const struct gp_scenario *a, const struct gp_scenario *b)
{
	if (strcmp(a->name, b->name) || a->ngpus != b->ngpus || a->ndcs != b->ndcs ||
	    a->nlinks != b->nlinks || !gp_model_same(&a->model, &b->model) ||
	    !same_job(&a->job, &b->job) || a->objective != b->objective ||
	    a->budget_usd_per_hour != b->budget_usd_per_hour ||
	    strcmp(a->cost_model, b->cost_model) || strcmp(a->heuristic, b->heuristic) ||
	    a->measured.iteration_time != b->measured.iteration_time ||
	    a->measured.peak_memory != b->measured.peak_memory)
		return false;
	for (int i = 0; i < a->ngpus; i++)
		if (!same_gpu(&a->gpus[i], &b->gpus[i]))
			return false;
	for (int i = 0; i < a->ndcs; i++)
		if (!same_dc(&a->dcs[i], &b->dcs[i]))
			return false;
	for (int i = 0; i < a->nlinks; i++)
		if (!same_link(&a->links[i], &b->links[i]))
			return false;
	return true;
}

int gp_plan_copy(struct gp_plan *dst, const struct gp_plan *src)
{
	*dst = *src;
	dst->pipes = gp_xcalloc((size_t)src->npipes + 1, sizeof *dst->pipes);
	if (!dst->pipes) {
		dst->npipes = 0;
		return -1;
	}
	for (int i = 0; i < src->npipes; i++) {
		const struct gp_pipeline *p = &src->pipes[i];
		dst->pipes[i] = *p;
		dst->pipes[i].stages = gp_xcalloc((size_t)p->nstages + 1, sizeof *p->stages);
		if (!dst->pipes[i].stages) {
			dst->npipes = i;
			gp_plan_free(dst);
			return -1;
		}
		memcpy(dst->pipes[i].stages, p->stages, sizeof *p->stages * (size_t)p->nstages);
	}
	return 0;
}

/* Copies n elements of size sz, with room for `extra` more. */
static void *dup_array(const void *src, int n, int extra, size_t sz)
{
	void *p = gp_xcalloc((size_t)n + (size_t)extra + 1, sz);
	if (p && n > 0)
		memcpy(p, src, sz * (size_t)n);
	return p;
}

struct gp_scenario *gp_scenario_dup(const struct gp_scenario *s, int extra_gpus)
{
	struct gp_scenario *d = gp_xcalloc(1, sizeof *d);
	if (!d)
		return NULL;
	*d = *s;
	d->gpus = dup_array(s->gpus, s->ngpus, extra_gpus, sizeof *s->gpus);
	d->links = dup_array(s->links, s->nlinks, 0, sizeof *s->links);
	d->dcs = dup_array(s->dcs, s->ndcs, 0, sizeof *s->dcs);
	d->plan = (struct gp_plan){ 0 };
	d->link_at = NULL;
	if (!d->dcs)
		d->ndcs = 0;
	for (int i = 0; i < d->ndcs; i++)
		d->dcs[i].pools = NULL;   /* never the original's */
	bool ok = d->gpus && d->links && d->dcs;
	for (int i = 0; ok && i < s->ndcs; i++) {
		d->dcs[i].pools = dup_array(s->dcs[i].pools, s->dcs[i].npools, 0,
					    sizeof *s->dcs[i].pools);
		ok = d->dcs[i].pools != NULL;
	}
	if (ok && s->has_plan)
		ok = gp_plan_copy(&d->plan, &s->plan) == 0;
	if (ok && s->link_at)
		ok = gp_scenario_index(d) == 0;
	if (!ok) {
		gp_scenario_free(d);
		return NULL;
	}
	return d;
}

struct gp_scenario *gp_scenario_load(const char *path, struct gp_err *e)
{
	return gp_scenario_load_set(path, NULL, 0, e);
}

struct gp_scenario *gp_scenario_load_set(const char *path, const char *const *sets,
					 int nsets, struct gp_err *e)
{
	size_t len;
	char *text = gp_read_file(path, &len, e);
	if (!text)
		return NULL;
	struct gp_lua *h = gp_lua_new(NULL, e);
	struct gp_scenario *s = h ? gp_lua_scenario_set(h, path, text, len, sets, nsets, e)
				  : NULL;
	gp_lua_free(h);
	free(text);
	if (s && gp_scenario_validate(s, e)) {
		gp_scenario_free(s);
		return NULL;
	}
	if (s && gp_scenario_index(s)) {
		gp_scenario_free(s);
		gp_errf(e, "out of memory");
		return NULL;
	}
	return s;
}

/* Physical ranges: beyond them times overflow or vanish, and no real
 * system is there. */
#define MIN_BW 1e3      /* bytes/s */
#define MAX_LAT 3600.0  /* s */
#define MIN_FLOPS 1e9
#define MAX_SEQ 1e7

/* One field's range, blaming that field alone; a bare number that was
 * meant in a larger unit gets the helper that writes it ("bandwidth 40
 * B/s is less than 1 kB/s: write Gbps(40) for 40 Gbit/s"). */
static int range_bw(const char *f, const char *what, const char *field, double v,
		    const char *helper, const char *unit, struct gp_err *e)
{
	if (v >= MIN_BW)
		return 0;
	if (v >= 1e-3)
		return gp_errf(e, "%s: %s: %s %g B/s is less than 1 kB/s (a bare number is bytes/s): write %s(%g) for %g %s",
			       f, what, field, v, helper, v, v, unit);
	return gp_errf(e, "%s: %s: %s %g B/s is less than 1 kB/s (a bare number is bytes/s; write %s(x) for x %s)",
		       f, what, field, v, helper, unit);
}

static int range_lat(const char *f, const char *what, const char *field, double v,
		     const char *helper, struct gp_err *e)
{
	if (v <= MAX_LAT)
		return 0;
	return gp_errf(e, "%s: %s: %s %g s is more than an hour (a bare number is seconds): write %s(%g) for %g %s",
		       f, what, field, v, helper, v, v, helper);
}

/* A plan stage whose TP group is wider than a node of its pool: valid
 * (its all-reduces cross the NIC), but the TP cost is NVLink's. */
static bool tp_doubt(const struct gp_scenario *s, char *buf, size_t n)
{
	for (int g = 0; s->has_plan && g < s->plan.npipes; g++)
		for (int j = 0; j < s->plan.pipes[g].nstages; j++) {
			const struct gp_stage *x = &s->plan.pipes[g].stages[j];
			const struct gp_pool *p = &s->dcs[x->dc].pools[x->pool];
			if (p->per_node > 0 && x->tp > p->per_node) {
				snprintf(buf, n, "plan.pipelines[%d].stages[%d].tp: %d is more than the %d GPUs of a node of dcs[%s].pools[%d]: TP across nodes runs over the NIC",
					 g + 1, j + 1, x->tp, p->per_node, s->dcs[x->dc].name, x->pool + 1);
				return true;
			}
		}
	return false;
}

bool gp_scenario_doubt(const struct gp_scenario *s, char *buf, size_t n)
{
	for (int i = 0; i < s->nlinks; i++) {
		const struct gp_link *l = &s->links[i];
		if (l->latency >= GP_LATENCY_DOUBT) {
			snprintf(buf, n, "links[%s-%s].latency: %g s: milliseconds written as seconds? ms(%g) is %g ms",
				 s->dcs[l->from].name, s->dcs[l->to].name, l->latency, l->latency,
				 l->latency);
			return true;
		}
	}
	return tp_doubt(s, buf, n);
}

int gp_scenario_validate(const struct gp_scenario *s, struct gp_err *e)
{
	const char *f = s->path;
	if (s->model.layers < 1)
		return gp_errf(e, "%s: model.layers: expected a positive integer", f);
	if (s->job.seq > MAX_SEQ)
		return gp_errf(e, "%s: job.seq: %.0f tokens is more than %.0f", f, s->job.seq, MAX_SEQ);
	for (int i = 0; i < s->nlinks; i++) {
		const struct gp_link *l = &s->links[i];
		char what[2 * GP_NAME_MAX + 16];
		snprintf(what, sizeof what, "link %s -> %s", s->dcs[l->from].name, s->dcs[l->to].name);
		if (range_bw(f, what, "bandwidth", l->bandwidth, "Gbps", "Gbit/s", e) ||
		    range_lat(f, what, "latency", l->latency, "ms", e))
			return -1;
	}
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = &s->dcs[d].pools[q];
			char what[64];
			snprintf(what, sizeof what, "dcs[%d].pools[%d]", d + 1, q + 1);
			if (range_bw(f, what, "network", p->network, "Gbps", "Gbit/s", e) ||
			    range_bw(f, what, "nvlink", p->nvlink, "GBps", "GB/s", e) ||
			    range_lat(f, what, "latency", p->latency, "us", e))
				return -1;
		}
	for (int i = 0; i < s->ngpus; i++) {
		const struct gp_gpu *g = &s->gpus[i];
		if (g->flops < MIN_FLOPS || g->hbm_bw < MIN_BW)
			return gp_errf(e, "%s: gpus[\"%s\"]: tflops %g FLOP/s and hbm_bandwidth %g B/s: expected at least 1 GFLOP/s and 1 kB/s (write TFLOPS(x) and GBps(x))",
				       f, g->name, g->flops, g->hbm_bw);
		if (g->eff_src == GP_EFF_BORROWED && !gpu_named(s, g->eff_ref))
			return gp_errf(e, "%s: gpus[\"%s\"].efficiency_borrows: \"%s\" is not a GPU type of the scenario or catalog",
				       f, g->name, g->eff_ref);
	}
	if (s->has_plan && gp_plan_validate(s, &s->plan, e)) {
		gp_err_prefix(e, f);
		return -1;
	}
	return 0;
}

/* Pipeline i's micro-batches in interleaved's groups (schedule.h). */
static int check_group(const struct gp_plan *p, int i, struct gp_err *e)
{
	const struct gp_pipeline *pp = &p->pipes[i];
	int n = p->microbatch_group, S = pp->nstages, m = pp->micro_batches;
	if (n && (n < S || n > m))
		return gp_errf(e, "plan.microbatch_group: %d is outside pipeline %d's [%d, %d] (its stages to its micro-batches)",
			       n, i + 1, S, m);
	if (!gp_group_check(S, m, n, e))
		return 0;
	char pre[64];
	snprintf(pre, sizeof pre, "plan.pipelines[%d].micro_batches", i + 1);
	gp_err_prefix(e, pre);
	return -1;
}

int gp_plan_validate(const struct gp_scenario *s, const struct gp_plan *p,
		     struct gp_err *e)
{
	const struct gp_model *m = &s->model;
	double mbs = 0;
	bool xdc = p->schedule == GP_SCHED_XDC_GREEDY || p->schedule == GP_SCHED_XDC_MILP;
	if (p->chunks > 1 && p->schedule != GP_SCHED_INTERLEAVED && !xdc)
		return gp_errf(e, "plan.chunks: %d chunks need schedule \"interleaved\", \"xdc-greedy\" or \"xdc-milp\", not \"%s\"",
			       p->chunks, gp_sched_name(p->schedule));
	if (p->chunks > 2 && xdc)
		return gp_errf(e, "plan.chunks: %s takes 1 chunk, or 2 for its V-shaped variant, not %d",
			       gp_sched_name(p->schedule), p->chunks);
	if (p->microbatch_group && (p->schedule != GP_SCHED_INTERLEAVED || p->chunks < 2))
		return gp_errf(e, "plan.microbatch_group: only the interleaved schedule with 2 or more chunks groups micro-batches (this plan: %s, %d chunk%s)",
			       gp_sched_name(p->schedule), p->chunks, p->chunks == 1 ? "" : "s");
	if (p->npipes < 1)
		return gp_errf(e, "plan.pipelines: expected at least one pipeline");
	for (int i = 0; i < p->npipes; i++) {
		const struct gp_pipeline *pp = &p->pipes[i];
		int next = 1;
		for (int j = 0; j < pp->nstages; j++) {
			const struct gp_stage *st = &pp->stages[j];
			const struct gp_pool *pool = &s->dcs[st->dc].pools[st->pool];
			if (st->first != next)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].layers: starts at %d, expected %d (stages must cover layers 1..%d in order)",
					       i + 1, j + 1, st->first, next, m->layers);
			if (st->last < st->first)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].layers: last layer %d is before first %d",
					       i + 1, j + 1, st->last, st->first);
			if (st->last > m->layers)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].layers: layer %d is past the model's last (%d)",
					       i + 1, j + 1, st->last, m->layers);
			if (st->last - st->first + 1 < p->chunks)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].layers: %d layers cannot be split into %d chunks",
					       i + 1, j + 1, st->last - st->first + 1, p->chunks);
			if (st->tp > pool->count)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].tp: %d is more than the pool's %d GPUs",
					       i + 1, j + 1, st->tp, pool->count);
			if ((long)m->heads % st->tp)
				return gp_errf(e, "plan.pipelines[%d].stages[%d].tp: %d does not divide the model's %.0f heads",
					       i + 1, j + 1, st->tp, m->heads);
			if (j > 0 && pp->stages[j - 1].dc != st->dc &&
			    !gp_find_link(s, pp->stages[j - 1].dc, st->dc))
				return gp_errf(e, "plan.pipelines[%d].stages[%d].dc: no link between \"%s\" and \"%s\"",
					       i + 1, j + 1, s->dcs[pp->stages[j - 1].dc].name,
					       s->dcs[st->dc].name);
			next = st->last + 1;
		}
		/* Interleaving sends each micro-batch from the last stage back
		 * to the first between chunks. */
		int first_dc = pp->stages[0].dc, last_dc = pp->stages[pp->nstages - 1].dc;
		if (p->schedule == GP_SCHED_INTERLEAVED && p->chunks > 1 &&
		    first_dc != last_dc && !gp_find_link(s, last_dc, first_dc))
			return gp_errf(e, "plan.pipelines[%d]: interleaved chunks go from the last stage in \"%s\" back to the first in \"%s\", which have no link",
				       i + 1, s->dcs[last_dc].name, s->dcs[first_dc].name);
		if (next != m->layers + 1)
			return gp_errf(e, "plan.pipelines[%d].stages: cover layers 1..%d, the model has %d",
				       i + 1, next - 1, m->layers);
		if (p->schedule == GP_SCHED_INTERLEAVED && p->chunks > 1 &&
		    check_group(p, i, e))
			return -1;
		mbs += (double)pp->micro_batches * pp->replicas;
	}
	if (mbs * s->job.micro_batch != s->job.global_batch)
		return gp_errf(e, "plan.pipelines: micro_batches x replicas x micro_batch add up to %.0f sequences, job.global_batch is %.0f",
			       mbs * s->job.micro_batch, s->job.global_batch);
	/* GPUs per pool. */
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			double used = 0;
			for (int i = 0; i < p->npipes; i++)
				for (int j = 0; j < p->pipes[i].nstages; j++) {
					const struct gp_stage *st = &p->pipes[i].stages[j];
					if (st->dc == d && st->pool == q)
						used += (double)st->tp * p->pipes[i].replicas;
				}
			const struct gp_pool *pool = &s->dcs[d].pools[q];
			if (used > pool->count)
				return gp_errf(e, "plan: uses %.0f GPUs of pool %s/%s, which has %d",
					       used, s->dcs[d].name,
					       s->gpus[pool->gpu].name, pool->count);
		}
	return 0;
}

void gp_scenario_script_path(const struct gp_scenario *s, const char *rel, char *out,
			     size_t n)
{
	const char *slash = strrchr(s->path, '/');
	if (rel[0] == '/' || !slash)
		snprintf(out, n, "%s", rel);
	else
		snprintf(out, n, "%.*s/%s", (int)(slash - s->path), s->path, rel);
}
