/*
 * ring.c: the order of a DP group's DCs round its gradient ring (ring.h).
 */
#include "ring.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TIE 1e-12   /* relative: closer than this is a tie */

/* A ring's rank: hops without a link, slowest hop, sum of hops. */
struct key {
	int miss;
	double max, sum;
};

static struct key ring_key(int n, const double *cost, const int *o)
{
	struct key k = { 0, 0, 0 };
	for (int i = 0; n >= 2 && i < n; i++) {
		double h = cost[o[i] * n + o[(i + 1) % n]];
		if (!isfinite(h)) {
			k.miss++;
			continue;
		}
		k.max = fmax(k.max, h);
		k.sum += h;
	}
	return k;
}

static bool lt(double a, double b)
{
	return a < b - TIE * fabs(b);
}

/* a ranks strictly before b. */
static bool key_better(struct key a, struct key b)
{
	if (a.miss != b.miss)
		return a.miss < b.miss;
	if (lt(a.max, b.max))
		return true;
	if (lt(b.max, a.max))
		return false;
	return lt(a.sum, b.sum);
}

static bool key_tie(struct key a, struct key b)
{
	return !key_better(a, b) && !key_better(b, a);
}

/* a before b as sequences of indices. */
static bool lex_less(int n, const int *a, const int *b)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i];
	return false;
}

static void identity(int n, int *o)
{
	for (int i = 0; i < n; i++)
		o[i] = i;
}

double gp_ring_time(int n, const double *cost, const int *order)
{
	struct key k = ring_key(n, cost, order);
	return k.miss ? INFINITY : k.max;
}

double gp_ring_sum(int n, const double *cost, const int *order)
{
	struct key k = ring_key(n, cost, order);
	return k.miss ? INFINITY : k.sum;
}

/* --- exact: depth-first over orders, the first DC fixed ------------- */

struct dfs {
	int n;
	const double *c;
	int path[GP_RING_EXACT_MAX], best[GP_RING_EXACT_MAX];
	bool used[GP_RING_EXACT_MAX];
	bool found;
	struct key b;
};

/* No completion of a path at (mx, sm) can rank before the best: every
 * hop's time is >= 0, so the ring's slowest and sum only grow. */
static bool dfs_prune(const struct dfs *d, double mx, double sm)
{
	if (!d->found)
		return false;
	if (lt(d->b.max, mx))
		return true;
	return !lt(mx, d->b.max) && !lt(sm, d->b.sum);
}

/* Paths extend in increasing index, so among ties the first found is the
 * lexicographically first: only a strictly better ring replaces it. */
static void dfs_go(struct dfs *d, int depth, double mx, double sm)
{
	int n = d->n, last = d->path[depth - 1];
	if (depth == n) {
		double h = d->c[last * n];
		if (!isfinite(h))
			return;
		struct key k = { 0, fmax(mx, h), sm + h };
		if (!d->found || key_better(k, d->b)) {
			d->found = true;
			d->b = k;
			memcpy(d->best, d->path, (size_t)n * sizeof *d->path);
		}
		return;
	}
	for (int j = 1; j < n; j++) {
		double h = d->c[last * n + j];
		if (d->used[j] || !isfinite(h))
			continue;
		double m2 = fmax(mx, h), s2 = sm + h;
		if (dfs_prune(d, m2, s2))
			continue;
		d->used[j] = true;
		d->path[depth] = j;
		dfs_go(d, depth + 1, m2, s2);
		d->used[j] = false;
	}
}

double gp_ring_exact(int n, const double *cost, int *order)
{
	identity(n, order);
	if (n < 2)
		return 0;
	if (n > GP_RING_EXACT_MAX)
		return gp_ring_heur(n, cost, order);
	struct dfs d = { .n = n, .c = cost };
	d.path[0] = 0;
	d.used[0] = true;
	dfs_go(&d, 1, 0, 0);
	if (!d.found)
		return INFINITY;
	memcpy(order, d.best, (size_t)n * sizeof *order);
	return d.b.max;
}

/* --- beyond: greedy, then 2-opt, relocations and swaps -------------- */

/* The local search ranks rings by their hops' times sorted slowest
 * first, compared in turn (missing hops first): a move that speeds up
 * the second slowest hop counts, so the search does not stall on a
 * plateau of the slowest. */
struct lkey {
	int miss, n;
	double *h;   /* n finite hop times, slowest first */
};

static int cmp_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static void lkey_of(int n, const double *cost, const int *o, struct lkey *k)
{
	k->miss = k->n = 0;
	for (int i = 0; i < n; i++) {
		double h = cost[o[i] * n + o[(i + 1) % n]];
		if (isfinite(h))
			k->h[k->n++] = h;
		else
			k->miss++;
	}
	qsort(k->h, (size_t)k->n, sizeof *k->h, cmp_desc);
}

static bool lkey_better(const struct lkey *a, const struct lkey *b)
{
	if (a->miss != b->miss)
		return a->miss < b->miss;
	for (int i = 0; i < a->n && i < b->n; i++) {
		if (lt(a->h[i], b->h[i]))
			return true;
		if (lt(b->h[i], a->h[i]))
			return false;
	}
	return false;
}

/* From DC `from`, each next the unvisited one of the fastest hop (ties:
 * the lower index; none linked: the lowest unvisited); then rotated so
 * that DC 0 comes first. */
static void greedy(int n, const double *cost, int from, int *o, int *t, bool *seen)
{
	memset(seen, 0, (size_t)n * sizeof *seen);
	t[0] = from;
	seen[from] = true;
	for (int i = 1; i < n; i++) {
		int at = -1;
		double bt = INFINITY;
		for (int j = 0; j < n; j++) {
			double h = cost[t[i - 1] * n + j];
			if (!seen[j] && (at < 0 || h < bt)) {
				at = j;
				bt = h;
			}
		}
		t[i] = at;
		seen[at] = true;
	}
	int z = 0;
	while (t[z] != 0)
		z++;
	for (int i = 0; i < n; i++)
		o[i] = t[(z + i) % n];
}

static void reverse(int *o, int i, int j)
{
	for (; i < j; i++, j--) {
		int t = o[i];
		o[i] = o[j];
		o[j] = t;
	}
}

/* Moves the DC at position i to position j (both >= 1). */
static void relocate(int *o, int i, int j)
{
	int v = o[i];
	if (i < j)
		memmove(o + i, o + i + 1, (size_t)(j - i) * sizeof *o);
	else
		memmove(o + j + 1, o + j, (size_t)(i - j) * sizeof *o);
	o[j] = v;
}

/* Move `kind` (0: reverse positions i..j, 1: move i to j, 2: swap i and
 * j) applied to o, into t; false when it is no move. */
static bool apply_move(int n, const int *o, int kind, int i, int j, int *t)
{
	if (kind != 1 && j <= i)
		return false;
	if (j == i)
		return false;
	memcpy(t, o, (size_t)n * sizeof *o);
	if (kind == 0)
		reverse(t, i, j);
	else if (kind == 1)
		relocate(t, i, j);
	else {
		int x = t[i];
		t[i] = t[j];
		t[j] = x;
	}
	return true;
}

/* First-improvement local search from o (position 0 fixed): a segment
 * reversed (2-opt; asymmetric links make it a different ring), one DC
 * moved elsewhere, or two swapped; until no move gains or the work cap
 * (moves x n <= 2.5e5 in all: about 7 ms for 16 DCs). t, k: scratch. */
static void local_search(int n, const double *cost, int *o, int *t, struct lkey *cur,
			 struct lkey *k, long *budget)
{
	lkey_of(n, cost, o, cur);
	bool moved = true;
	while (moved && *budget > 0) {
		moved = false;
		for (int kind = 0; kind < 3 && !moved; kind++)
			for (int i = 1; i < n && !moved && *budget > 0; i++)
				for (int j = 1; j < n && !moved && *budget > 0; j++) {
					if (!apply_move(n, o, kind, i, j, t))
						continue;
					--*budget;
					lkey_of(n, cost, t, k);
					if (lkey_better(k, cur)) {
						memcpy(o, t, (size_t)n * sizeof *o);
						double *h = cur->h;
						*cur = *k;
						k->h = h;
						moved = true;
					}
				}
	}
}

/* At most this many greedy starts (DCs 0, 1, ...), besides the index
 * order; then this many kicks of the best ring. */
#define HEUR_STARTS 8
#define HEUR_KICKS 50

/* A double bridge of o (positions 1..n-1 cut in four, the middle two
 * swapped) into t, at cuts drawn from *x (a 64-bit LCG: the same rings
 * every run). */
static void kick(int n, const int *o, int *t, uint64_t *x)
{
	int c[3];
	for (int i = 0; i < 3; i++) {
		*x = *x * 6364136223846793005ull + 1442695040888963407ull;
		c[i] = 1 + (int)((*x >> 33) % (uint64_t)(n - 1));
	}
	for (int i = 0; i < 3; i++)   /* sorted: 1 <= c0 <= c1 <= c2 < n */
		for (int j = i + 1; j < 3; j++)
			if (c[j] < c[i]) {
				int y = c[i];
				c[i] = c[j];
				c[j] = y;
			}
	int m = 0;
	for (int i = 0; i < c[0]; i++)
		t[m++] = o[i];
	for (int i = c[1]; i < c[2]; i++)
		t[m++] = o[i];
	for (int i = c[0]; i < c[1]; i++)
		t[m++] = o[i];
	for (int i = c[2]; i < n; i++)
		t[m++] = o[i];
}

double gp_ring_heur(int n, const double *cost, int *order)
{
	identity(n, order);
	if (n < 2)
		return 0;
	int *a = malloc((size_t)n * 3 * sizeof *a);
	bool *seen = malloc((size_t)n * sizeof *seen);
	double *h = malloc((size_t)n * 2 * sizeof *h);
	if (!a || !seen || !h) {
		free(a);
		free(seen);
		free(h);
		return gp_ring_time(n, cost, order);   /* the index order, timed */
	}
	int *b = a + n, *t = b + n;
	struct lkey cur = { 0, 0, h }, k = { 0, 0, h + n };
	long budget = 250000L / n;
	struct key best = ring_key(n, cost, order);
	/* The index order, then greedy rings from the first DCs; the best
	 * by ring.h's rank (ties: the lexicographically first). */
	for (int st = -1; st < n && st < HEUR_STARTS; st++) {
		if (st < 0)
			identity(n, a);
		else
			greedy(n, cost, st, a, t, seen);
		local_search(n, cost, a, t, &cur, &k, &budget);
		struct key ka = ring_key(n, cost, a);
		if (key_better(ka, best) || (key_tie(ka, best) && lex_less(n, a, order))) {
			best = ka;
			memcpy(order, a, (size_t)n * sizeof *order);
		}
	}
	/* Iterated: kick the best, search again, keep what ranks first. */
	uint64_t x = (uint64_t)n;
	for (int i = 0; n >= 5 && i < HEUR_KICKS && budget > 0; i++) {
		kick(n, order, b, &x);
		local_search(n, cost, b, t, &cur, &k, &budget);
		struct key kb = ring_key(n, cost, b);
		if (key_better(kb, best) || (key_tie(kb, best) && lex_less(n, b, order))) {
			best = kb;
			memcpy(order, b, (size_t)n * sizeof *order);
		}
	}
	free(a);
	free(seen);
	free(h);
	return best.miss ? INFINITY : best.max;
}

double gp_ring_best(int n, const double *cost, int *order)
{
	return n <= GP_RING_EXACT ? gp_ring_exact(n, cost, order) : gp_ring_heur(n, cost, order);
}

int gp_ring_choose(const struct gp_scenario *sc, const struct gp_costtab *ct, const int *dcs,
		   int n, double bytes, double latm, int *ring, double *t)
{
	*t = 0;
	if (n < 2) {
		for (int i = 0; i < n; i++)
			ring[i] = dcs[i];
		return 0;
	}
	double *cost = malloc((size_t)n * (size_t)n * sizeof *cost);
	int *o = malloc((size_t)n * sizeof *o);
	if (!cost || !o) {
		free(cost);
		free(o);
		return -1;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			const struct gp_link *l = i == j ? NULL : gp_find_link(sc, dcs[i], dcs[j]);
			struct gp_comm c = l ? gp_costtab_wan(ct, (int)(l - sc->links))
					     : (struct gp_comm){ .lat = 0, .bw = 0 };
			cost[i * n + j] = l ? bytes / c.bw + latm * c.lat : INFINITY;
		}
	*t = gp_ring_best(n, cost, o);
	for (int i = 0; i < n; i++)
		ring[i] = dcs[o[i]];
	free(cost);
	free(o);
	return 0;
}
