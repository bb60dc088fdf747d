/*
 * unused.c: the DCs and pools a plan leaves idle, and the scenario's
 * facts that explain it (unused.h). Each reason is a figure the reader
 * can check in the scenario file, never a guess at what the planner
 * thought; when none applies the reason is left empty.
 */
#include "unused.h"
#include "cost.h"
#include "fmt.h"
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A latency this long is a typo more often than a link. */
/* Links at most this fraction of the slowest one in use are "slower". */
#define UN_SLOWER 0.5
/* A gradient transfer longer than this share of the iteration is "too
 * slow" to join the DP sync. */
#define UN_GRAD_SHARE 0.25

struct un_ctx {
	const struct gp_scenario *sc;
	const struct gp_plan *p;
	const struct gp_result *r;
	int *used;        /* GPUs per pool, flattened by off[] */
	int *off;
	bool *dc_used;
};

static int un_pool_used(const struct un_ctx *c, int d, int q)
{
	return c->used[c->off[d] + q];
}

/* A link touching DC d (to or from anywhere) with a latency of a second
 * or more: milliseconds written as seconds? */
static bool un_latency(const struct un_ctx *c, int d, char *why, size_t n)
{
	const struct gp_scenario *s = c->sc;
	for (int i = 0; i < s->nlinks; i++) {
		const struct gp_link *l = &s->links[i];
		if ((l->from == d || l->to == d) && l->latency >= GP_LATENCY_DOUBT) {
			char t[32];
			snprintf(why, n, "link %s -> %s has a latency of %s: milliseconds written as seconds? ms(%g) is %g ms",
				 s->dcs[l->from].name, s->dcs[l->to].name,
				 gp_fmt_time(l->latency, 3, t, sizeof t), l->latency, l->latency);
			return true;
		}
	}
	return false;
}

/* The fastest round trip of DC d to a DC in use: the slower direction of
 * each pair, the best pair; 0 when no DC in use is linked both ways. */
static double un_best_link(const struct un_ctx *c, int d, int *to)
{
	const struct gp_scenario *s = c->sc;
	double best = 0;
	for (int u = 0; u < s->ndcs; u++) {
		if (!c->dc_used[u])
			continue;
		const struct gp_link *a = gp_find_link(s, d, u), *b = gp_find_link(s, u, d);
		double bw = a && b ? fmin(a->bandwidth, b->bandwidth) : 0;
		if (bw > best) {
			best = bw;
			*to = u;
		}
	}
	return best;
}

/* The slowest WAN link direction the iteration sent bytes over; 0: none. */
static double un_slowest_in_use(const struct un_ctx *c)
{
	double slow = 0;
	for (int i = 0; c->r && i < c->r->nlinks; i++) {
		const struct gp_link_result *lr = &c->r->links[i];
		const struct gp_link *l = gp_find_link(c->sc, lr->from, lr->to);
		if (lr->bytes > 0 && l && (slow == 0 || l->bandwidth < slow))
			slow = l->bandwidth;
	}
	return slow;
}

/* Why DC d, linked to the DCs in use, is left out: its links. */
static void un_links(const struct un_ctx *c, int d, char *why, size_t n)
{
	const struct gp_scenario *s = c->sc;
	int to = -1;
	double best = un_best_link(c, d, &to), ref = un_slowest_in_use(c);
	char a[32], b[32], g[32], t[32], it[32];
	if (best == 0) {
		snprintf(why, n, "no link both ways to a DC the plan uses");
		return;
	}
	if (ref > 0 && best <= UN_SLOWER * ref) {
		snprintf(why, n, "its links to the DCs in use reach %s at best, against %s on the slowest link the plan uses",
			 gp_fmt_bitrate(best, a, sizeof a), gp_fmt_bitrate(ref, b, sizeof b));
		return;
	}
	const struct gp_model *m = &s->model;
	double grad = (m->layers * gp_layer_params(m) + 2 * gp_embedding_params(m)) *
		      s->job.precision_bytes;
	double secs = grad / best + gp_find_link(s, d, to)->latency;
	/* best is the slower direction: say so when the two differ. */
	bool same = gp_find_link(s, d, to)->bandwidth == gp_find_link(s, to, d)->bandwidth;
	if (!(c->r && c->r->iteration_time > 0 && secs > UN_GRAD_SHARE * c->r->iteration_time))
		return;
	/* How much of an iteration one sync would add: a share, or a factor
	 * past a whole one. */
	double x = secs / c->r->iteration_time;
	char share[32];
	snprintf(share, sizeof share, x < 1 ? "%.0f %% of" : "%.3gx", x < 1 ? 100 * x : x);
	snprintf(why, n, "the model's gradients (%s) take %s over its best link to the DCs in use (%s with %s%s), %s an iteration of %s",
		 gp_fmt_bytes(grad, g, sizeof g), gp_fmt_time(secs, 3, t, sizeof t),
		 gp_fmt_bitrate(best, a, sizeof a), s->dcs[to].name,
		 same ? "" : ", its slower direction", share,
		 gp_fmt_time(c->r->iteration_time, 3, it, sizeof it));
}

/* The budget leaves no room for one more GPU of DC d (pool q, or its
 * cheapest priced pool for q < 0): the plan's GPUs cost so much an hour
 * that one more would pass it. */
static bool un_budget(const struct un_ctx *c, int d, int q, char *why, size_t n)
{
	const struct gp_scenario *s = c->sc;
	double cap = s->budget_usd_per_hour, one = 0;
	if (!(cap > 0))
		return false;
	for (int k = 0; k < s->dcs[d].npools; k++) {
		double price = s->gpus[s->dcs[d].pools[k].gpu].price_per_hour;
		if (q >= 0 && k != q)
			continue;
		if (!(price > 0))
			return false;   /* a GPU without a price costs the budget nothing */
		if (one == 0 || price < one)
			one = price;
	}
	double usd = gp_plan_usd_per_hour(s, c->p);
	if (!(one > 0) || !(usd + one > cap * (1 + 1e-9)))
		return false;
	snprintf(why, n, "the plan's GPUs cost $%.2f/h of the budget's $%.2f/h, and one more here $%.2f/h",
		 usd, cap, one);
	return true;
}

static int un_push(struct gp_unused **out, int *n, int *cap, const struct gp_unused *u)
{
	if (*n == *cap) {
		int nc = *cap ? 2 * *cap : 8;
		struct gp_unused *o = realloc(*out, sizeof *o * (size_t)nc);
		if (!o)
			return -1;
		*out = o;
		*cap = nc;
	}
	(*out)[(*n)++] = *u;
	return 0;
}

/* GPUs per pool the plan takes, and which DCs it uses. */
static int un_count(struct un_ctx *c, const struct gp_plan *p)
{
	const struct gp_scenario *s = c->sc;
	c->off = calloc((size_t)s->ndcs + 1, sizeof *c->off);
	c->dc_used = calloc((size_t)s->ndcs + 1, sizeof *c->dc_used);
	if (!c->off || !c->dc_used)
		return -1;
	for (int d = 0; d < s->ndcs; d++)
		c->off[d + 1] = c->off[d] + s->dcs[d].npools;
	c->used = calloc((size_t)c->off[s->ndcs] + 1, sizeof *c->used);
	if (!c->used)
		return -1;
	for (int i = 0; i < p->npipes; i++)
		for (int k = 0; k < p->pipes[i].nstages; k++) {
			const struct gp_stage *st = &p->pipes[i].stages[k];
			c->used[c->off[st->dc] + st->pool] += st->tp * p->pipes[i].replicas;
			c->dc_used[st->dc] = true;
		}
	return 0;
}

/* GPUs one replica of pipeline i takes of pool (d, q). */
static int un_take(const struct gp_plan *p, int i, int d, int q)
{
	int take = 0;
	for (int k = 0; k < p->pipes[i].nstages; k++) {
		const struct gp_stage *st = &p->pipes[i].stages[k];
		take += st->dc == d && st->pool == q ? st->tp : 0;
	}
	return take;
}

/* A pool of pipeline i other than (d, q) without room for one more of
 * its replicas: its flat index, or -1 when every pool has room. */
static int un_blocked_elsewhere(const struct un_ctx *c, int i, int d, int q)
{
	const struct gp_scenario *s = c->sc;
	for (int d2 = 0; d2 < s->ndcs; d2++)
		for (int q2 = 0; q2 < s->dcs[d2].npools; q2++) {
			int need = (d2 == d && q2 == q) ? 0 : un_take(c->p, i, d2, q2);
			int left = s->dcs[d2].pools[q2].count - un_pool_used(c, d2, q2);
			if (need > left)
				return c->off[d2] + q2;
		}
	return -1;
}

/* A pool of a DC in use where the plan has no stage: when every GPU of
 * the plan holds more than the pool's GPU has, that fact (the memory of
 * the stages as simulated, not a guess at what else would fit). */
static void un_memory(const struct un_ctx *c, int d, int q, char *why, size_t n)
{
	const struct gp_scenario *s = c->sc;
	const struct gp_gpu *g = &s->gpus[s->dcs[d].pools[q].gpu];
	if (!c->r || c->r->ndevs == 0)
		return;
	double least = c->r->devs[0].mem_peak;
	for (int i = 1; i < c->r->ndevs; i++)
		least = fmin(least, c->r->devs[i].mem_peak);
	if (least <= g->memory)
		return;
	char a[32], b[32];
	snprintf(why, n, "the least any GPU of the plan holds is %s, more than a %s's %s",
		 gp_fmt_gib(least, a, sizeof a), g->name, gp_fmt_gib(g->memory, b, sizeof b));
}

/* A pool used in part, and why when replicas come whole: the GPUs left
 * are fewer than one more replica of any pipeline there takes of it, or
 * that replica would also need GPUs another pool no longer has. Nothing
 * when some pipeline could take one more replica (the planner's choice). */
static void un_partial(const struct un_ctx *c, int d, int q, int idle, char *why, size_t n)
{
	const struct gp_scenario *s = c->sc;
	int least = 0, other = -1, oi = -1;
	for (int i = 0; i < c->p->npipes; i++) {
		int take = un_take(c->p, i, d, q);
		if (take == 0)
			continue;
		least = least == 0 || take < least ? take : least;
		if (take > idle)
			continue;
		int b = un_blocked_elsewhere(c, i, d, q);
		if (b < 0)
			return;
		if (other < 0) {
			other = b;
			oi = i;
		}
	}
	if (least == 0) {   /* no stage there */
		un_memory(c, d, q, why, n);
		return;
	}
	if (other < 0) {
		snprintf(why, n, "a replica of the pipelines there takes %d of its GPUs, more than the %d left",
			 least, idle);
		return;
	}
	int d2 = 0;
	while (c->off[d2 + 1] <= other)
		d2++;
	int q2 = other - c->off[d2];
	const struct gp_dc *dc = &s->dcs[d2];
	snprintf(why, n, "one more replica of pipeline %d would also take %d GPUs of %s/%s, which has %d left",
		 oi + 1, un_take(c->p, oi, d2, q2), dc->name, s->gpus[dc->pools[q2].gpu].name,
		 dc->pools[q2].count - un_pool_used(c, d2, q2));
}

static int un_collect(struct un_ctx *c, struct gp_unused **out, int *n)
{
	const struct gp_scenario *s = c->sc;
	int cap = 0;
	for (int d = 0; d < s->ndcs; d++) {
		if (c->dc_used[d])
			continue;
		struct gp_unused u = { .dc = d, .pool = -1 };
		for (int q = 0; q < s->dcs[d].npools; q++)
			u.count += s->dcs[d].pools[q].count;
		u.idle = u.count;
		if (!un_budget(c, d, -1, u.why, sizeof u.why) && !un_latency(c, d, u.why, sizeof u.why))
			un_links(c, d, u.why, sizeof u.why);
		if (un_push(out, n, &cap, &u))
			return -1;
	}
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; c->dc_used[d] && q < s->dcs[d].npools; q++) {
			int have = s->dcs[d].pools[q].count, take = un_pool_used(c, d, q);
			struct gp_unused u = { .dc = d, .pool = q, .idle = have - take, .count = have };
			if (take >= have)
				continue;
			if (!un_budget(c, d, q, u.why, sizeof u.why))
				un_partial(c, d, q, u.idle, u.why, sizeof u.why);
			if (un_push(out, n, &cap, &u))
				return -1;
		}
	return 0;
}

int gp_unused_find(const struct gp_scenario *sc, const struct gp_plan *p,
		   const struct gp_result *r, struct gp_unused **out, int *n)
{
	struct un_ctx c = { .sc = sc, .p = p, .r = r };
	*out = NULL;
	*n = 0;
	int rc = un_count(&c, p) ? -1 : un_collect(&c, out, n);
	free(c.used);
	free(c.off);
	free(c.dc_used);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void gp_unused_text(const struct gp_scenario *sc, const struct gp_unused *u, char *buf,
		    size_t n)
{
	const struct gp_dc *dc = &sc->dcs[u->dc];
	if (u->pool < 0)
		snprintf(buf, n, "%s: all %d GPUs, no stage there%s%s", dc->name, u->count,
			 u->why[0] ? ": " : "", u->why);
	else if (u->idle == u->count)
		snprintf(buf, n, "%s/%s: all %d GPUs, no stage there%s%s", dc->name,
			 sc->gpus[dc->pools[u->pool].gpu].name, u->count, u->why[0] ? ": " : "",
			 u->why);
	else
		snprintf(buf, n, "%s/%s: %d of %d GPUs%s%s", dc->name,
			 sc->gpus[dc->pools[u->pool].gpu].name, u->idle, u->count,
			 u->why[0] ? ": " : "", u->why);
}
