/*
 * place_tail.c: the placement MILP's options and the tail E_c of a class
 * under one (place_int.h).
 *
 * Options: the plan-wide facts the tail depends on, enumerated outside
 * the solver, each a set of constraints on the plan: D = 1 (one replica,
 * no sync); or d <= D <= 2d - 1 (d = 1, 2, 4, ...; the last range up to
 * min(GPUs, N)), which also caps every ring the tail assumes at 2d - 1
 * (else the tail would assume the whole DC's ring); D >= d instead where
 * no ring exceeds 2d - 1 anyway, and for the covering options above
 * d = PM_CAPD; with K DCs used at most (1, 2, 3, 4, then 6, 8, 12, ... at
 * the upper end) and, for K >= 2, a link class q: any two DCs used must
 * be joined both ways by links of bandwidth >= beta_q (so the ring, in
 * any order, runs at least at beta_q; latency the largest among those
 * links). The simulator orders its ring (ring.h: the fastest over the
 * DCs used), which the model cannot take exactly, since the DCs are its
 * decision: every hop of any ring over such DCs is at least as fast as
 * (beta_q, that latency), so the charge is an upper bound on the ring
 * the simulator runs, and m->lower's fastest link direction a lower
 * bound on every ring; the proof stands on the lower one
 * (place_milp.c's verify_bound), and report_honest takes "optimal"
 * away when the estimate of the plan returned differs from its
 * simulated time. DCs with a slow pair (a, b, c, d with a-b and c-d
 * slow, which the simulator rings a-c-b-d on the fast links) come in
 * the slow class, and in a ring option (place_ring.c: up to
 * PM_RING_SETS sets of 3 or more DCs, scenarios of at most PM_RING_DCS
 * DCs, whose ring beats their slowest pair or which only a ring joins):
 * every DC of the set used, any pairs, charged at the ring's slowest
 * hop and largest latency, K = the set's DCs, the ring's bytes on its
 * hops only (place_cover.c); and when the plan is fixed,
 * pm_plan_estimate charges it at the ring of the DCs it uses, so its
 * estimate is the simulator's ring, whichever option found it. The
 * lower one stays valid for both. Without a ring option the pairwise
 * rule keeps out DCs some pair of which has no link both ways (a
 * 4-cycle of links); and for K >= 2 a DP sync
 * mode: the job's, or flat and
 * hierarchical both when it says auto (the plan then carries the
 * winner's; flat: one ring of all replicas, 2 (p - 1) / p of the
 * gradients on every edge, p <= dhi, and its WAN latencies, at least
 * 2 (d - 1), the part that leaves the link idle; none of it depends on
 * K, so flat options come with the most DCs only). The uniform options
 * (place_uniform.c) come first, then the covering ones from the most
 * replicas and DCs down: the incumbent they leave lets the screens
 * dismiss the capped options with few replicas.
 *
 * E_c, the tail after the first stage's last backward: max over stages
 * of exposed DP sync + optimizer step - tail_i (tail_i = sum_{j<i} b_j +
 * delta_j, how much earlier stage i's last backward ends). Sync as sim.c
 * runs it: one bucket per layer (embedding gradients spread over the
 * layers), ready evenly over the last backward, served one after
 * another, each taking tau = gp_dp_sync_time of one bucket; exposed =
 * max(tau, n tau - (n - 1) beta), beta = last backward / n. Ranks and
 * local ring bandwidth are not known before the plan: tau is the worst
 * over ring sizes 2..p_max (p_max = replicas the DC, or for flat sync all
 * DCs, could hold, capped at N and at the option's dhi), so it is an
 * upper bound. WAN part: K DCs at the option's (bandwidth, latency), as
 * if this stage alone used the ring. Plan-wide WAN sync (K >= 2): every
 * stage of every replica shares the ring's link directions, which carry
 * W = pm_grad_ring_bytes / beta_q seconds of sync per iteration whatever
 * the plan (gp_dp_sync_wan_bytes summed over stages), so stage i's sync
 * also ends no earlier than its buckets' local phases (n (tau - its WAN
 * part)) + W after the class's first bucket is ready (its last stage's
 * last backward): exposed_i >= that - (first - tail_i). A class cut
 * across DCs pays W more: its last gradients and its replicas'
 * activations share the ring's links with the sync, which gp_simulate
 * shows does not overlap. Optimizer: optimizer_time(params / t / d) with
 * ZeRO-1, d the option's lower bound on replicas (an upper bound on the
 * time).
 *
 * m->lower turns every one of these upper bounds into a lower one, for
 * the proof's relaxation (place_milp.c): rings at their least size (a
 * DC's hierarchical ring from 1, else from d), two DCs, the fastest link
 * direction's bandwidth and latency, the optimizer sharded over as many
 * replicas as the GPUs hold (at most dhi), no
 * W on top for a class cut across DCs.
 */
#include "place_int.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PM_CAPD 8               /* covering options cap the replicas at 2d - 1 up to this d */

/* qsort's order for doubles, largest first. */
int pm_cmp_dbl_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Link classes: distinct bandwidths of links present both ways. */
int pm_link_classes(struct pm *m)
{
	const struct gp_scenario *s = m->sc;
	m->qbw = gp_xcalloc((size_t)s->nlinks + 1, sizeof *m->qbw);
	if (!m->qbw)
		return -1;
	for (int i = 0; i < s->nlinks; i++) {
		const struct gp_link *l = &s->links[i], *r = gp_find_link(s, l->to, l->from);
		if (!r)
			continue;
		double bw = fmin(m->wan[i].bw, m->wan[r - s->links].bw);
		bool dup = false;
		for (int j = 0; j < m->nq && !dup; j++)
			dup = m->qbw[j] == bw;
		if (!dup)
			m->qbw[m->nq++] = bw;
	}
	qsort(m->qbw, (size_t)m->nq, sizeof *m->qbw, pm_cmp_dbl_desc);
	return 0;
}



static void add_opt(struct pm *m, struct pm_opt o)
{
	if (m->nopt == m->capopt) {
		int nc = m->capopt ? 2 * m->capopt : 64;
		struct pm_opt *a = realloc(m->opt, (size_t)nc * sizeof *a);
		if (!a) {
			m->opt_oom = true;
			return;
		}
		m->opt = a;
		m->capopt = nc;
	}
	m->opt[m->nopt++] = o;
}

/* The largest DP ring any kind's tail would assume (bucket_time's
 * p_max before the option's cap). */
static int ring_max(const struct pm *m, int K, enum gp_sync_mode mode)
{
	int r = 2;
	for (int i = 0; i < m->nk; i++) {
		const struct pm_kind *k = &m->k[i];
		int p = K >= 2 && mode == GP_SYNC_HIER ? m->dc_gpus[k->dc] / k->tp
								      : m->gpus / k->tp;
		if (p > m->N)
			p = m->N;
		if (p > r)
			r = p;
	}
	return r;
}

/* m->opt: every option, in the order the search takes them. */
void pm_enum_opts(struct pm *m)
{
	const struct gp_scenario *s = m->sc;
	pm_ring_sets(m);
	/* The sync mode matters across DCs only: options with K >= 2 come
	 * once per mode the job allows (both when it says auto). */
	enum gp_sync_mode m1 = gp_plan_sync(s, NULL), modes[2] = { m1, GP_SYNC_FLAT };
	int nmodes = s->job.sync_mode == GP_SYNC_AUTO ? 2 : 1;
	add_opt(m, (struct pm_opt){ .one = true, .d = 1, .dhi = 1, .K = 1, .q = -1, .mode = m1 });
	/* Replicas D in [d, 2d - 1] (the last range up to Dmax): the bound
	 * caps every DP ring the tail assumes. The uniform options first:
	 * solved in closed form, they give the covering MILPs a good
	 * incumbent to search below. */
	int Dmax = m->gpus < m->N ? m->gpus : m->N;
	/* Where no ring the tail assumes exceeds 2d - 1, the cap changes
	 * nothing and the option admits every D >= d. The uniform options,
	 * solved in closed form, are capped otherwise; the covering ones
	 * only up to d = PM_CAPD (the cap weakens prune, and above that the
	 * ring's (p - 1) / p changes by a few per cent at most). */
	for (int d = 1; d <= Dmax; d *= 2)
		add_opt(m, (struct pm_opt){ .uni = true, .d = d,
					    .dhi = 2 * d <= Dmax && (d == 1 || ring_max(m, 1, m1) > 2 * d - 1)
						   ? 2 * d - 1 : Dmax,
					    .K = 1, .q = -1, .mode = m1 });
	/* Then most replicas first: their optimum is usually the best, and
	 * below it the options capped at few replicas fall to the screens. */
	int dtop = 1;
	while (dtop * 2 <= Dmax)
		dtop *= 2;
	for (int d = dtop; d >= 2; d /= 2) {
		/* The DC counts K: 1, 2, 3, 4, then 6, 8, 12, ... and all; the
		 * most first, for the same reason. */
		int Ks[64], nK = 0;
		for (int K = 1; K <= s->ndcs && nK < 64;) {
			Ks[nK++] = K;
			int next = K < 4 ? K + 1 : K % 3 == 0 ? K / 3 * 4 : K / 2 * 3;
			if (K < s->ndcs && next > s->ndcs)
				next = s->ndcs;
			K = next;
		}
		for (int i = nK - 1; i >= 0; i--) {
			int K = Ks[i];
			if (K == 1) {
				int dhi = 2 * d <= Dmax && d <= PM_CAPD && ring_max(m, 1, m1) > 2 * d - 1
					  ? 2 * d - 1 : Dmax;
				add_opt(m, (struct pm_opt){ .d = d, .dhi = dhi, .K = 1, .q = -1, .mode = m1 });
				continue;
			}
			for (int q = 0; q < m->nq; q++) {
				double lat = 0;
				for (int l = 0; l < s->nlinks; l++)
					if (pm_pair_ok(m, s->links[l].from, s->links[l].to, m->qbw[q]))
						lat = fmax(lat, m->wan[l].lat);
				for (int mi = 0; mi < nmodes; mi++) {
					/* A flat ring's tail and WAN bytes do not depend
					 * on K (>= 2): the most DCs admit every plan the
					 * fewer do, at the same estimate. */
					if (modes[mi] == GP_SYNC_FLAT && i != nK - 1)
						continue;
					int dhi = 2 * d <= Dmax && d <= PM_CAPD &&
						  ring_max(m, K, modes[mi]) > 2 * d - 1 ? 2 * d - 1 : Dmax;
					add_opt(m, (struct pm_opt){ .d = d, .dhi = dhi, .K = K, .q = q,
								    .wbw = m->qbw[q], .wlat = lat,
								    .mode = modes[mi], .ring = dhi });
				}
			}
		}
		/* Ring options (place_ring.c): every DC of a set the
		 * pairwise rule charges at a slow pair, or keeps out, at
		 * its ring's links. */
		for (int r = 0; r < m->nrs; r++)
			for (int mi = 0; mi < nmodes; mi++) {
				const struct pm_rset *x = &m->rs[r];
				int dhi = 2 * d <= Dmax && d <= PM_CAPD &&
					  ring_max(m, x->k, modes[mi]) > 2 * d - 1 ? 2 * d - 1 : Dmax;
				struct pm_opt o = { .d = d, .dhi = dhi, .K = x->k, .q = -1, .wbw = x->bw,
						    .wlat = x->lat, .mode = modes[mi], .ring = dhi,
						    .set = x->set };
				memcpy(o.nxt, x->nxt, sizeof o.nxt);
				add_opt(m, o);
			}
	}
}

/* Bytes each edge of the option's WAN ring carries per iteration (0: no
 * WAN sync). */
double pm_grad_ring_bytes(const struct pm *m, const struct pm_opt *o)
{
	if (o->one || o->K < 2)
		return 0;
	double G = gp_grad_reduce_bytes(&m->sc->job) * (m->L * m->Lp + 2 * m->Ep);
	/* Each ring edge carries 2 (p - 1) / p of the gradients, p = the
	 * DCs (hierarchical) or the replicas (flat), at most K or dhi. */
	int p = o->mode == GP_SYNC_HIER ? o->K : o->ring;
	if (m->lower)   /* at least 2 DCs, at least d replicas */
		p = o->mode == GP_SYNC_HIER ? 2 : o->d > 2 ? o->d : 2;
	double f = p >= 2 ? 2.0 * (p - 1) / p : 2.0;
	return f * G / m->sc->job.sync_every;
}

/* The ring's WAN bandwidth and latency at option o: the option's class,
 * or, for a lower bound, the fastest link direction's (a ring over any
 * DCs is no faster). */
static double ring_bw(const struct pm *m, const struct pm_opt *o)
{
	return m->lower ? m->wan_bw_max : o->wbw;
}

static double ring_lat(const struct pm *m, const struct pm_opt *o)
{
	return m->lower ? m->wan_lat_min : o->wlat;
}

/* Worst one-bucket sync time over ring sizes 2..pmax (see the header),
 * from d where the ring holds every replica (one DC, or flat sync);
 * m->lower: the least over the ring sizes a plan of the option may have
 * (a DC's ring in hierarchical sync from 1, else from d), with the DCs
 * at 2 and the fastest link's bandwidth and latency. */
static double bucket_time(const struct pm *m, const struct pm_kind *k, double bytes,
			  const struct pm_opt *o, int pmax)
{
	const struct gp_job *j = &m->sc->job;
	bool hier = o->K >= 2 && o->mode == GP_SYNC_HIER;
	int lo = hier ? (m->lower ? 1 : 2) : o->d > 2 ? o->d : 2;
	double best = m->lower ? INFINITY : 0;
	for (int p = lo < pmax ? lo : pmax; p <= pmax; p++) {
		if (!m->lower && p > k->p->per_node / k->tp + 1 && p < pmax)
			p = pmax;   /* the NIC regime only grows with p */
		struct gp_sync_q q = { .bytes = bytes, .job = j, .tp = k->tp,
				       .replicas = hier && p < 2 ? 2 : p,
				       .dcs = o->K < 2 ? 1 : m->lower ? 2 : o->K, .local = p,
				       .wan_bw = ring_bw(m, o), .wan_lat = ring_lat(m, o),
				       .mode = o->mode, .every = j->sync_every };
		/* The simulator's ring: NVLink when it fits in a node. */
		struct gp_comm ring = gp_costtab_dp_ring(m->ct, m->sc, k->dc, k->pool, k->tp, p);
		q.local_bw = ring.bw;
		q.local_lat = ring.lat;
		double t = gp_dp_sync_time(&q);
		if (m->lower ? t < best : t > best)
			best = t;
		/* The NIC regime only grows with p: its least is its first. */
		if (m->lower && p > k->p->per_node / k->tp + 1)
			break;
	}
	return best;
}

/* The WAN part of one bucket's sync time at option o: what the ring's
 * edge carries for this bucket, alone on the link, plus its latency. */
static double bucket_wan(const struct pm *m, double bytes, const struct pm_opt *o)
{
	const struct gp_job *j = &m->sc->job;
	if (o->one || o->K < 2)
		return 0;
	if (o->mode == GP_SYNC_FLAT) {
		/* One ring of all the replicas, every step across the WAN:
		 * the link carries the bytes (2 (p - 1) / p of them, p <= dhi). */
		int p = m->lower ? (o->d > 2 ? o->d : 2) : o->ring;
		double f = p >= 2 ? 2.0 * (p - 1) / p : 2.0;
		return f * bytes / j->sync_every / ring_bw(m, o);
	}
	int K = m->lower ? 2 : o->K;
	return 2.0 * (K - 1) / K * bytes / j->sync_every / ring_bw(m, o) +
	       2.0 * (K - 1) * ring_lat(m, o) / j->sync_every;
}

/* One bucket's sync (all of it, and its local part) and the optimizer
 * step of a stage of kind kd with n layers (first, last: the ends, which
 * hold the embedding), in nb buckets, into v; no ring the tail assumes
 * holds more than pcap replicas. */
static void stage_calc(const struct pm *m, const struct pm_opt *o, int kd, int n, bool first,
		       bool last, int nb, int dz, int pcap, struct pm_stagev *v)
{
	const struct gp_scenario *s = m->sc;
	const struct pm_kind *k = &m->k[kd];
	double params = n * m->Lp + (first ? m->Ep : 0) + (last ? m->Ep : 0);
	double grad = params * gp_grad_reduce_bytes(&s->job);
	v->tau = v->loc = 0;
	if (!o->one) {
		int pmax = o->K >= 2 && o->mode == GP_SYNC_HIER
			   ? m->dc_gpus[k->dc] / k->tp : m->gpus / k->tp;
		if (pmax > m->N)
			pmax = m->N;
		if (pmax > pcap)
			pmax = pcap;   /* no ring holds more than the plan's replicas */
		if (pmax < 2)
			pmax = 2;
		v->tau = bucket_time(m, k, grad / nb, o, pmax);
		/* What of it leaves the link idle: the local phases
		 * (hierarchical), or for a flat ring across DCs its
		 * 2 (p - 1) WAN latencies, p >= d (this feeds a lower
		 * bound, where tau takes the worst ring). */
		if (o->K >= 2 && o->mode == GP_SYNC_FLAT)
			v->loc = 2.0 * (o->d - 1) * ring_lat(m, o) / s->job.sync_every;
		else
			v->loc = fmax(v->tau - bucket_wan(m, grad / nb, o), 0);
	}
	v->opt = gp_costtab_optimizer(m->ct, k->dc, k->pool, params / k->tp / dz);
}

/* stage_calc at the option's replica cap, memoised for the option the
 * memo holds (the values depend on kd, n, first and last only there). */
static const struct pm_stagev *stage_values(const struct pm *m, const struct pm_opt *o, int kd,
					    int n, bool first, bool last, int nb, int dz)
{
	struct pm_memo *mm = m->memo;
	size_t key = (((size_t)kd * (size_t)(m->L + 1) + (size_t)n) * 2 + first) * 2 + last;
	struct pm_stagev *v = &mm->v[key];
	if (mm->at[key] == mm->gen)
		return v;
	mm->at[key] = mm->gen;
	stage_calc(m, o, kd, n, first, last, nb, dz, o->dhi, v);
	return v;
}

/* The GPUs of the K largest DCs (all of them for K >= the DCs, or for a
 * uniform option): the most a plan of option o may use. */
static long most_gpus(const struct pm *m, const struct pm_opt *o)
{
	int nd = m->sc->ndcs, K = o->one || o->K < 1 ? 1 : o->K;
	long sum = 0;
	bool taken[64] = { false };
	/* A uniform option's class may cross DCs. */
	if (o->uni || K >= nd || nd > 64)
		return m->gpus;
	for (int k = 0; k < K; k++) {
		int best = -1;
		for (int d = 0; d < nd; d++)
			if (!taken[d] && (best < 0 || m->dc_gpus[d] > m->dc_gpus[best]))
				best = d;
		taken[best] = true;
		sum += m->dc_gpus[best];
	}
	return sum;
}

/* Layers per bucket of a stage of kind k with n layers (first, last:
 * the ends, which hold the embedding) as sim.c's add_buckets makes
 * them: whole layers of at least max(40M, 1M x D) parameters of a GPU's
 * shard, D the option's least replicas (the bound's relaxation keeps a
 * bucket per layer); all n without overlap. */
static int bucket_layers(const struct pm *m, const struct pm_kind *k, int n, bool first,
			 bool last, int D)
{
	if (!m->sc->job.sync_overlap)
		return n;
	if (m->lower)
		return 1;
	double params = n * m->Lp + (first ? m->Ep : 0) + (last ? m->Ep : 0);
	double shard = params / n / k->tp, want = fmax(40e6, 1e6 * D);
	return shard >= want ? 1 : (int)fmin(n, ceil(want / shard));
}

/* ZeRO's parameter all-gather of a stage synced in nb buckets of one-DC
 * sync time tau, as gp_simulate charges it after the optimizer: it runs
 * under the next iteration's first forward, which ends at f1 (the
 * stage's and those before it), and what that does not hide delays the
 * step; the rest slows compute by the contention share. Per bucket it
 * moves the 16-bit parameters where the reduce-scatter (tau) moved the
 * gradients: tau scaled by their bytes (exact in 16 bits, less in fp32).
 * The cost grows with G, so the bound's relaxation (tau at its least)
 * keeps a lower bound. */
static double gather_cost(const struct pm *m, const struct pm_kind *k, const struct pm_opt *o,
			  double tau, int nb, double f1)
{
	const struct gp_job *j = &m->sc->job;
	if (o->one || o->K >= 2 || !j->zero || !j->sync_overlap)
		return 0;
	double G = nb * tau * j->precision_bytes / gp_grad_reduce_bytes(j);
	double late = fmax(0, G - f1);
	return late + gp_costtab_contention(m->ct, k->dc, k->pool) * (G - late);
}

/* A stage's sync sticking out `exposed` past its last backward, with
 * `local` seconds of local phases in all (a flat ring across DCs has
 * none): gp_simulate slows the compute by the contention share c of
 * those that ran under it (all but what sticks out), so the optimizer
 * waits for the later of the two. For the bound's relaxation, whose
 * exposed and local are at their least, the least of that maximum over
 * every split of local, c local / (1 + c). */
static double contended(const struct pm *m, const struct pm_kind *k, const struct pm_opt *o,
			double exposed, double local)
{
	double c = gp_costtab_contention(m->ct, k->dc, k->pool);
	if (o->K >= 2 && o->mode == GP_SYNC_FLAT)
		return exposed;
	if (m->lower)
		return fmax(exposed, c * local / (1 + c));
	return fmax(exposed, c * fmax(0, local - exposed));
}

/* E_c of class c under option o (see the header). */
double pm_class_tail(const struct pm *m, const struct pm_class *c, const struct pm_opt *o)
{
	const struct gp_scenario *s = m->sc;
	const int *lay = m->lay + c->off;
	struct pm_memo *mm = m->memo;
	if (mm->o != o) {
		mm->o = o;
		mm->gen++;
		mm->W = pm_grad_ring_bytes(m, o) / (o->K >= 2 ? ring_bw(m, o) : 1);
		/* No more replicas than the option's DCs hold at the
		 * fewest GPUs a replica of any class takes. */
		long g = pm_fewest_gpus(m, m->order, m->nc), have = most_gpus(m, o);
		mm->dzhi = o->dhi;
		if (g > 0 && g < LONG_MAX && have / g < mm->dzhi)
			mm->dzhi = (int)(have / g);
		if (mm->dzhi < o->d)
			mm->dzhi = o->d;
	}
	/* Per stage: its kind. */
	int kd[64];
	for (int g = 0, i = 0; g < c->nseg; g++)
		for (int j = 0; j < c->n[g]; j++, i++)
			kd[i] = c->kind[g];
	double E = 0, tail = 0, f1 = 0;
	/* Plan-wide WAN sync (K >= 2): every stage of every replica shares
	 * the ring's edges, which carry pm_grad_ring_bytes per iteration in all;
	 * the link can start on the first bucket the pipeline makes ready
	 * (its last stage's first layer of the last backward), so stage i's
	 * sync ends no earlier than its own local phases (RS + AG + latency
	 * of its n buckets, which leave the link idle in lockstep) plus the
	 * link's whole work after that point. */
	double W = mm->W;
	double first = c->first;   /* earliest bucket ready, before stage 0's last backward ends */
	/* ZeRO shards the optimizer over the replicas: at least d of them,
	 * at most dzhi (lower). */
	int dz = s->job.zero && !o->one && o->d > 1 ? (m->lower ? mm->dzhi : o->d) : 1;
	for (int i = 0; i < c->S; i++) {
		const struct pm_kind *k = &m->k[kd[i]];
		bool last = i == c->S - 1;
		int n = lay[i];
		double b = n * k->bl + (last ? k->lb : 0);
		int g = bucket_layers(m, k, n, i == 0, last, o->d), nb = (n + g - 1) / g;
		const struct pm_stagev *v = stage_values(m, o, kd[i], n, i == 0, last, nb, dz);
		double exposed = 0;
		if (!o->one) {
			double beta = b / nb;
			exposed = fmax(v->tau, nb * v->tau - (nb - 1) * beta);
			if (W > 0)
				exposed = fmax(exposed, nb * v->loc + W - (first - tail));
			exposed = contended(m, k, o, exposed, nb * v->loc);
		}
		f1 += n * (k->x - k->bl) + (last ? k->lx - k->lb : 0);
		double x = exposed + v->opt + gather_cost(m, k, o, v->tau, nb, f1) - tail;
		if (x > E || i == 0)
			E = x;
		tail = i + 1 < c->S ? pm_class_off(m, c, i + 1) : 0;
	}
	/* A pipeline cut across DCs sends its last gradients back over a
	 * link the ring's sync is already filling (processor sharing: every
	 * flow slows), and its lockstep replicas' activations compete with
	 * the sync too: gp_simulate shows the overlap assumed above does not
	 * hold there, so such a class pays the ring's whole link time on top. */
	if (W > 0 && c->la >= 0 && !m->lower)
		E += W;
	return E;
}

static bool same_run(const struct pm_class *a, const struct pm_class *b)
{
	return !memcmp(a->sg, b->sg, sizeof a->sg) && a->U == b->U;
}

/* Sets E and the on flags of the classes for option o that could take
 * part in a plan faster than `below`, prunes dominated ones (same pools,
 * links and DCs; no faster cycle and no shorter fill/tail); returns the
 * classes left in idx, sorted by signature, U, fill + tail. */
int pm_set_option(struct pm *m, const struct pm_opt *o, double below, int *idx)
{
	double W = o->one || o->K < 2 ? 0 : pm_grad_ring_bytes(m, o) / ring_bw(m, o);
	int n = 0;
	for (int j = 0; j < m->nc; j++) {
		int i = m->order[j];
		struct pm_class *c = &m->c[i];
		c->on = false;
		if (c->nseg > 2)
			continue;   /* chains: only in the uniform options */
		/* The tail is >= 0 (stage 0's), so no plan below `below` can
		 * use a class whose fill alone reaches it. */
		if (c->sig >= below)
			continue;
		bool xdc = c->nseg == 2 && m->k[c->kind[0]].dc != m->k[c->kind[1]].dc;
		if (!o->one && o->K == 1 && xdc)
			continue;
		if (!o->one && o->K >= 2 && xdc &&
		    !pm_opt_pair_ok(m, o, m->k[c->kind[0]].dc, m->k[c->kind[1]].dc))
			continue;
		if (o->set && (!pm_opt_dc_ok(o, m->k[c->kind[0]].dc) ||
			       !pm_opt_dc_ok(o, m->k[c->kind[c->nseg - 1]].dc)))
			continue;
		/* The tail is at least stage 0's, whose sync ends no earlier
		 * than the option's WAN time W after the first bucket is
		 * ready (pm_class_tail), plus W for a class cut across DCs. */
		if (W > 0 && c->sig + fmax(W - c->first, 0) + (c->la >= 0 && !m->lower ? W : 0) >= below)
			continue;
		c->E = pm_class_tail(m, c, o);
		/* Insertion into the run of equal signature and U by fill +
		 * tail, then index. */
		int p = n++;
		while (p > 0) {
			const struct pm_class *q = &m->c[idx[p - 1]];
			double eq = q->sig + q->E, ec = c->sig + c->E;
			if (!same_run(q, c) || eq < ec || (eq == ec && idx[p - 1] < i))
				break;
			idx[p] = idx[p - 1];
			p--;
		}
		idx[p] = i;
	}
	int kept = 0;
	const struct pm_class *ref = NULL;
	for (int j = 0; j < n; j++) {
		struct pm_class *c = &m->c[idx[j]];
		if (j > 0 && memcmp(m->c[idx[j - 1]].sg, c->sg, sizeof c->sg))
			ref = NULL;
		/* Sorted by U within a signature: dominated when the kept one
		 * of least fill + tail has no breakpoint above this one's.
		 * The cycle rows weigh a class that crosses a link by 1 / U:
		 * there only an equal U dominates. */
		if (c->la >= 0 && j > 0 && m->c[idx[j - 1]].U != c->U)
			ref = NULL;
		if (ref && pm_curve_le(m, ref, ref->E, c, c->E))
			continue;
		c->on = true;
		idx[kept++] = idx[j];
		if (!ref || c->sig + c->E < ref->sig + ref->E)
			ref = c;
	}
	return kept;
}

/* Stage i of a pipeline of class c whose stage 0 ends its last backward
 * at F: its last backward's span [t0, t1] and layers first..top. */
static void stage_span(const struct pm *m, const struct pm_class *c, int i, double F,
		       double *t0, double *t1, int *first, int *top)
{
	const int *lay = m->lay + c->off;
	const struct pm_kind *k = &m->k[c->kind[pm_seg_of(c, i, NULL)]];
	int lo = 1;
	for (int j = 0; j < i; j++)
		lo += lay[j];
	*first = lo;
	*top = lo + lay[i] - 1;
	*t1 = F - (i > 0 ? pm_class_off(m, c, i) : 0);
	*t0 = *t1 - (lay[i] * k->bl + (i == c->S - 1 ? k->lb : 0));
}

/* The buckets' ready times of a pipeline of class c whose stage 0 ends
 * its last backward at F folded into env[l], the latest any holder of layer l makes it (buckets as sim.c's add_buckets
 * makes them for the plan's D replicas, each ready with its lowest layer
 * over the last backward). */
static void fold_ready(const struct pm *m, const struct pm_class *c, double F, int D,
		       double *env)
{
	for (int i = 0; i < c->S; i++) {
		double t0, t1;
		int lo, top;
		stage_span(m, c, i, F, &t0, &t1, &lo, &top);
		int n = top - lo + 1, g = bucket_layers(m, &m->k[c->kind[pm_seg_of(c, i, NULL)]], n,
							  i == 0, i == c->S - 1, D);
		/* Layer l is made with its bucket's lowest layer. */
		for (int l = top; l >= lo; l--) {
			int bot = top - ((top - l) / g + 1) * g + 1;
			double r = t0 + (t1 - t0) * (top - (bot > lo ? bot : lo) + 1) / n;
			env[l] = fmax(env[l], r);
		}
	}
}

/* One bucket's sync of a stage of kind kd when the ring of its layers
 * stays in one DC (every replica holding them sits there): the option's
 * ring without its WAN part, as gp_simulate runs a one-DC ring. */
static double local_tau(const struct pm *m, const struct pm_opt *o, int kd, double bytes,
			int D)
{
	const struct pm_kind *k = &m->k[kd];
	struct pm_opt o1 = *o;
	o1.K = 1;
	o1.q = -1;
	int pmax = m->gpus / k->tp;
	pmax = pmax > m->N ? m->N : pmax;
	pmax = pmax > o->dhi ? o->dhi : pmax;
	pmax = pmax > D ? D : pmax;
	return bucket_time(m, k, bytes, &o1, pmax < 2 ? 2 : pmax);
}

/* The barrier's view of the plan: its pipelines (a class at one count
 * of micro-batches, R replicas), a sync channel per stage of each, and
 * their buckets for pm_flow. */
struct bpipe {
	const struct pm_class *c;
	int mb, R;
	double F;                       /* its stage 0's last backward ends */
};
struct bchan {
	double t1, loc, opt, tau, f1;   /* its last backward's end; stage_calc's; forward so far */
	double gl;                      /* its buckets' one-DC ring times (ZeRO's gather follows) */
	int kd, nb;
};
struct bview {
	const struct pm_opt *o;
	const double *env;
	const int *span;
	int D, dz, pcap, nch, nbk;
	double wsec, wlat;              /* all gradients' ring work on the link, s; a ring's latency */
	struct bchan *cs;
	struct pm_fch *ch;
	struct pm_fbk *bk;
};

/* Channels and buckets of pipeline p into v: per stage its buckets as
 * sim.c's add_buckets makes them for the plan's D replicas, each to
 * start once every holder of its layers made them (env); a bucket whose
 * layers every replica holds in this stage's DC (span) rings inside it
 * (the local ring's time), else reduce-scatter, this pipeline's share
 * (R / D) of the ring's WAN work, its latency, all-gather (a flat ring
 * has no local phases). Rings, ZeRO's shards at D, where pm_class_tail
 * knows only the option's range. */
static void chan_build(const struct pm *m, struct bview *v, const struct bpipe *p)
{
	const struct pm_class *c = p->c;
	const struct pm_opt *o = v->o;
	const struct gp_job *j = &m->sc->job;
	bool hier = o->K >= 2 && o->mode == GP_SYNC_HIER;
	double F = p->F, f1 = 0;
	double all = (m->L * m->Lp + 2 * m->Ep) * gp_grad_reduce_bytes(j);
	for (int i = 0; i < c->S; i++) {
		double t0, t1;
		int lo, top;
		stage_span(m, c, i, F, &t0, &t1, &lo, &top);
		int kd = c->kind[pm_seg_of(c, i, NULL)], n = top - lo + 1, dc = m->k[kd].dc;
		const struct pm_kind *k = &m->k[kd];
		int g = bucket_layers(m, k, n, i == 0, i == c->S - 1, v->D);
		int nb = (n + g - 1) / g;
		struct pm_stagev sv;
		stage_calc(m, o, kd, n, i == 0, i == c->S - 1, nb, v->dz, v->pcap, &sv);
		double grad = (n * m->Lp + (i == 0 ? m->Ep : 0) + (i == c->S - 1 ? m->Ep : 0)) *
			      gp_grad_reduce_bytes(j);
		double tl = -1;
		f1 += n * (k->x - k->bl) + (i == c->S - 1 ? k->lx - k->lb : 0);
		struct pm_fch *ch = &v->ch[v->nch];
		struct bchan *cs = &v->cs[v->nch++];
		*cs = (struct bchan){ t1, nb * sv.loc, sv.opt, sv.tau, f1, 0, kd, nb };
		ch->b0 = v->nbk;
		ch->nb = 0;
		for (int hi = top; hi >= lo; hi -= g) {
			int bot = hi - g + 1 > lo ? hi - g + 1 : lo;
			struct pm_fbk *b = &v->bk[v->nbk++];
			bool here = o->K >= 2;
			b->ready = 0;
			for (int l = bot; l <= hi; l++) {
				b->ready = fmax(b->ready, v->env[l]);
				here = here && v->span[l] == dc;
			}
			ch->nb++;
			b->wan = b->lat = b->ag = 0;
			if (o->K < 2) {
				b->rs = sv.tau;   /* the whole ring inside the DC */
				cs->gl += b->rs;
				continue;
			}
			if (here) {
				if (tl < 0)
					tl = fmin(local_tau(m, o, kd, grad / nb, v->D), sv.tau);
				b->rs = tl;
				cs->gl += b->rs;
				continue;
			}
			double share = grad * (hi - bot + 1) / n / all;
			b->rs = b->ag = hier ? sv.loc / 2 : 0;
			b->wan = v->wsec * share * p->R / v->D;
			b->lat = v->wlat;
		}
	}
}

/* The end of channel i of v after pm_flow: its sync past its last
 * backward, with the contention share of the local phases under compute
 * (contended), then the optimizer and ZeRO's all-gather of the buckets
 * that ring in one DC (sim.c gathers those only, whatever the option). */
static double chan_end(const struct pm *m, const struct bview *v, int i)
{
	const struct bchan *b = &v->cs[i];
	const struct pm_kind *k = &m->k[b->kd];
	double fin = v->ch[i].end > -INF ? v->ch[i].end : b->t1;
	double ready = b->t1 + contended(m, k, v->o, fmax(0, fin - b->t1), b->loc);
	struct pm_opt o1 = *v->o;
	o1.K = 1;
	return ready + b->opt + gather_cost(m, k, &o1, b->gl, 1, b->f1);
}

/* Pipeline (c, mb)'s stages' DCs folded into span[l]: the one DC every
 * holder of layer l so far has it in, -2 for several (-1: none yet). */
static void fold_span(const struct pm *m, const struct pm_class *c, int *span)
{
	const int *lay = m->lay + c->off;
	for (int i = 0, l = 1; i < c->S; i++) {
		int dc = m->k[c->kind[pm_seg_of(c, i, NULL)]].dc;
		for (int j = 0; j < lay[i]; j++, l++)
			span[l] = span[l] == -1 || span[l] == dc ? dc : -2;
	}
}

/* The share of the plan-wide WAN sync W that the layers whose rings
 * cross DCs (span -2) make: their share of the gradients. */
static double span_share(const struct pm *m, const int *span)
{
	double all = m->L * m->Lp + 2 * m->Ep, x = 0;
	for (int l = 1; l <= m->L; l++)
		if (span[l] == -2)
			x += m->Lp + (l == 1 ? m->Ep : 0) + (l == m->L ? m->Ep : 0);
	return all > 0 ? x / all : 1;
}

/* Each pipeline's F, its stage 0's last backward's end: its class's
 * curve, or where its replicas and the others' cross a link together,
 * the class walked with each boundary message sharing the link with
 * theirs (latency + y bb / bandwidth, y the replicas crossing that link
 * direction; as the uniform options' uni_T and gp_simulate's processor
 * sharing). */
static void pipes_F(const struct pm *m, struct bpipe *pp, int np)
{
	const struct gp_scenario *s = m->sc;
	int *yl = gp_xcalloc((size_t)s->nlinks + 1, sizeof *yl);
	for (int i = 0; yl && i < np; i++)
		for (int b = 0; b + 1 < pp[i].c->nseg; b++)
			if (pp[i].c->lk[b][0] >= 0)
				yl[pp[i].c->lk[b][0]] += pp[i].R;
	for (int i = 0; i < np; i++) {
		const struct pm_class *c = pp[i].c;
		pp[i].F = pm_curve(m, c, pp[i].mb);
		double dx[PM_MAXSEG];
		bool shared = false;
		for (int b = 0; b < PM_MAXSEG; b++) {
			dx[b] = c->dcross[b];
			int l = b + 1 < c->nseg ? c->lk[b][0] : -1;
			if (yl && l >= 0 && yl[l] > 1) {
				dx[b] = m->wan[l].lat + yl[l] * m->bb / m->wan[l].bw;
				shared = true;
			}
		}
		if (shared)
			pp[i].F = fmax(pp[i].F, pm_class_eval(m, c, dx, pp[i].mb));
	}
	free(yl);
}

/* The estimate of plan sol (a covering option's) under the DP sync's
 * real semantics: a bucket's collective starts once every participant
 * has produced it, so a pipeline's sync waits for the latest class
 * holding the same layers; and a layer's ring spans the DCs its
 * replicas sit in, so a layer every replica holds in one DC pays no WAN
 * sync (the covering model's E_c charges every layer's); and every
 * stage's sync channel shares the WAN ring with the others (pm_flow),
 * where E_c assumes the link idles during each stage's local phases.
 * Buckets, rings and ZeRO's shards at the plan's D replicas. With one
 * channel on the link, every layer made at one time by all and every
 * layer's ring across DCs, it is E_c's lockstep form. -INF for one
 * replica or a uniform option (one class). */
double pm_barrier_T(const struct pm *m, const struct pm_sol *sol)
{
	if (sol->opt < 0 || sol->opt >= m->nopt || !sol->y || !sol->x)
		return -INF;
	const struct pm_opt *o = &m->opt[sol->opt];
	if (o->one || o->uni || m->lower)
		return -INF;
	double *env = gp_xcalloc((size_t)m->L + 2, sizeof *env);
	int *span = gp_xcalloc((size_t)m->L + 2, sizeof *span);
	if (!env || !span) {
		free(env);
		free(span);
		return -INF;
	}
	for (int l = 0; l <= m->L + 1; l++) {
		env[l] = -INF;
		span[l] = -1;
	}
	int D = 0;   /* the plan's replicas: every one holds every layer */
	for (int i = 0; i < m->nc; i++)
		D += sol->y[i] > 0 && sol->x[i] > 0 ? sol->y[i] : 0;
	/* The plan's pipelines as make_plan forms them: per class, x mod y
	 * replicas at ceil(x / y) micro-batches, the rest at floor. */
	int np = 0, nch = 0, nbk = 0;
	struct bpipe *pp = gp_xcalloc((size_t)2 * m->nc + 1, sizeof *pp);
	for (int i = 0; pp && i < m->nc; i++) {
		int y = sol->y[i], x = sol->x[i];
		if (y < 1 || x < 1)
			continue;
		if (x % y)
			pp[np++] = (struct bpipe){ &m->c[i], x / y + 1, x % y, 0 };
		if (x / y >= 1)
			pp[np++] = (struct bpipe){ &m->c[i], x / y, y - x % y, 0 };
	}
	pipes_F(m, pp, np);
	for (int i = 0; i < np; i++) {
		fold_ready(m, pp[i].c, pp[i].F, D, env);
		fold_span(m, pp[i].c, span);
	}
	for (int i = 0; i < np; i++) {
		nch += pp[i].c->S;
		nbk += m->L + 2;
	}
	const struct gp_job *j = &m->sc->job;
	bool hier = o->mode == GP_SYNC_HIER;
	int p = hier ? o->K : D;
	struct bview v = { .o = o, .env = env, .span = span, .D = D,
			   .dz = j->zero && D > 1 ? D : 1, .pcap = D < o->dhi ? D : o->dhi,
			   .cs = gp_xcalloc((size_t)nch + 1, sizeof *v.cs),
			   .ch = gp_xcalloc((size_t)nch + 1, sizeof *v.ch),
			   .bk = gp_xcalloc((size_t)nbk + 1, sizeof *v.bk) };
	/* The ring's work on each edge for all the gradients (2 (p - 1) / p
	 * of them, p the DCs or, flat, the replicas) and its latency, as
	 * sim.c's on_sync. */
	if (o->K >= 2 && p >= 2) {
		double G = gp_grad_reduce_bytes(j) * (m->L * m->Lp + 2 * m->Ep);
		v.wsec = 2.0 * (p - 1) / p * G / j->sync_every / ring_bw(m, o);
		v.wlat = 2.0 * (p - 1) * ring_lat(m, o) / j->sync_every;
	}
	double T = -INF;
	if (pp && v.cs && v.ch && v.bk) {
		for (int i = 0; i < np; i++)
			chan_build(m, &v, &pp[i]);
		if (pm_flow(v.ch, v.nch, v.bk) == 0) {
			pm_class_tail(m, pp[0].c, o);   /* the memo's W, for o */
			double W = m->memo->W * span_share(m, span);
			for (int i = 0, ci = 0; i < np; i++) {
				const struct pm_class *c = pp[i].c;
				double end = pp[i].F;
				for (int s = 0; s < c->S; s++, ci++)
					end = fmax(end, chan_end(m, &v, ci));
				/* A class cut across DCs pays W on top (as
				 * pm_class_tail). */
				T = fmax(T, end + (W > 0 && c->la >= 0 ? W : 0));
			}
			/* Each link direction carries its pipelines' messages. */
			for (int l = 0; l < m->sc->nlinks; l++) {
				double bytes = 0;
				for (int i = 0; i < np; i++)
					for (int b = 0; b + 1 < pp[i].c->nseg; b++)
						if (pp[i].c->lk[b][0] == l || pp[i].c->lk[b][1] == l)
							bytes += m->bb * pp[i].R * pp[i].mb;
				T = fmax(T, bytes / m->wan[l].bw);
			}
		}
	}
	free(pp);
	free(v.cs);
	free(v.ch);
	free(v.bk);
	free(env);
	free(span);
	return T;
}
