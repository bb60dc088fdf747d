/*
 * sim_ring.c: the order of the simulator's cross-DC gradient rings
 * (sim_int.h). Every collective over the same set of DCs runs one ring,
 * chosen by gp_ring_choose (ring.h) for what the iteration puts on it:
 * the bytes every run of that set sends over each hop (all pipelines'
 * shares), and the latency terms of the most buckets one device serves
 * (each bucket's hops wait 2 (steps - 1) latencies / sync.every, steps
 * = the DCs, or flat the replicas; devices serve theirs at once, so the
 * bytes add up and the latencies of the longest series do). The order
 * never depends on the order the scenario lists the DCs in, only on the
 * links (ties: the lower DC indices first).
 */
#include "ring.h"
#include "sim_int.h"

#include <stdlib.h>
#include <string.h>

/* A set of DCs some DP group spans, and what its ring carries. */
struct rset {
	const int *dcs;      /* ascending: the first run's, before ordering */
	int k, nb, dev, run;
	double bytes;
	int *order;
};

static bool same_set(const struct rset *x, const struct sync_run *u)
{
	return x->k == u->k && !memcmp(x->dcs, u->ring, (size_t)u->k * sizeof *u->ring);
}

/* The distinct sets into *out (each run's index in u->set). */
static int gather_sets(struct sim *s, struct rset **out, int *nset)
{
	int n = 0, cap = 0;
	struct rset *v = NULL;
	for (int i = 0; i < s->nd; i++)
		for (int r = 0; r < s->d[i].nruns; r++) {
			struct sync_run *u = &s->d[i].runs[r];
			if (u->k < 2)
				continue;
			int j = 0;
			while (j < n && !same_set(&v[j], u))
				j++;
			if (j == n) {
				if (n == cap) {
					cap = cap ? 2 * cap : 8;
					struct rset *nv = realloc(v, (size_t)cap * sizeof *nv);
					if (!nv) {
						free(v);
						return gp_errf(s->e, "out of memory");
					}
					v = nv;
				}
				v[n++] = (struct rset){ u->ring, u->k, 0, i, r, 0, NULL };
			}
			u->set = j;
			v[j].bytes += u->hop_bytes;
			if (u->nb > v[j].nb)
				v[j].nb = u->nb;
		}
	*out = v;
	*nset = n;
	return 0;
}

/* Set x has no ring with a link on every hop. */
static int no_ring(struct sim *s, const struct rset *x)
{
	const struct dev *d = &s->d[x->dev];
	const struct sync_run *u = &d->runs[x->run];
	char names[512] = "";
	size_t l = 0;
	for (int i = 0; i < x->k && l + 1 < sizeof names; i++)
		l += (size_t)snprintf(names + l, sizeof names - l, "%s\"%s\"", i ? ", " : "",
				      s->sc->dcs[x->dcs[i]].name);
	return gp_errf(s->e, "plan.pipelines[%d].stages[%d]: the gradient sync of layers %d-%d spans %s, which no ring joins with a link on every hop",
		       d->g + 1, d->s + 1, u->first, u->last, names);
}

/* The result's ring: the set of the most DCs (the first of those). */
static void show_ring(struct gp_result *r, const struct rset *v, int n)
{
	int w = -1;
	for (int j = 0; j < n; j++)
		if (w < 0 || v[j].k > v[w].k)
			w = j;
	r->sync_ring_n = w < 0 ? 0 : v[w].k;
	for (int i = 0; w >= 0 && i < v[w].k && i < GP_RING_SHOWN; i++)
		r->sync_ring[i] = v[w].order[i];
}

int sim_rings(struct sim *s, struct gp_result *r)
{
	struct rset *v = NULL;
	int n = 0, rc = 0;
	if (gather_sets(s, &v, &n))
		return -1;
	const struct gp_job *j = &s->sc->job;
	for (int x = 0; x < n && !rc; x++) {
		int steps = s->mode == GP_SYNC_HIER ? v[x].k : s->d[v[x].dev].D;
		double latm = v[x].nb * 2.0 * (steps - 1) / j->sync_every, t;
		v[x].order = malloc((size_t)v[x].k * sizeof *v[x].order);
		if (!v[x].order)
			rc = gp_errf(s->e, "out of memory");
		else if (gp_ring_choose(s->sc, s->ct, v[x].dcs, v[x].k, v[x].bytes, latm, v[x].order,
					&t))
			rc = gp_errf(s->e, "out of memory");
		else if (t == SIM_INF)
			rc = no_ring(s, &v[x]);
	}
	if (!rc)
		show_ring(r, v, n);
	/* The orders replace the runs' index order only now: the sets'
	 * keys are the first runs' arrays. */
	for (int i = 0; !rc && i < s->nd; i++)
		for (int q = 0; q < s->d[i].nruns; q++) {
			struct sync_run *u = &s->d[i].runs[q];
			if (u->k >= 2)
				memcpy(u->ring, v[u->set].order, (size_t)u->k * sizeof *u->ring);
		}
	for (int x = 0; x < n; x++)
		free(v[x].order);
	free(v);
	return rc;
}
