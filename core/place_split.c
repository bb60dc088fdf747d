/*
 * place_split.c: the layer split of a placement MILP class (place_int.h)
 * and the times that follow from it.
 *
 * Layer split (outside the solver): the smallest U0 = max_i t_i (t_i =
 * F + B of stage i per micro-batch) under each stage's memory
 * (place_kinds.c), found per stage type by bisection on the layer count;
 * then the fewest compute seconds (layers to the faster segment); then
 * per segment either each stage filled to U0 in turn (the
 * lexicographically largest vector: a light last stage buffers the
 * boundary after it) or levelled (the fewest stages at U0). A class
 * whose boundary crosses a WAN link has two more: the window splits,
 * the least cycle U under the window form of 1F1B (every window i..j of
 * stages, sum t + 2 sum d <= (j - i + 1) U, d the boundary delays with
 * the link shared by the class's replicas), stages filled in turn from
 * the first or from the last, so that light stages sit beside the link
 * and absorb its round trip (the "buffer" stages of the plans that win
 * across WANs). The class keeps the split of the fastest walk
 * (place_classes.c). From the split, the class's
 * curve t(m) (place_time.c: the 1F1B makespan as gp_simulate runs it,
 * with each boundary's delay: the cost model's p2p time on the NICs
 * inside a DC, latency + 2bsh / bandwidth on a WAN link for one replica;
 * the uniform options re-walk it with lockstep replicas sharing the
 * link), and the option-independent part of the tail (c->first,
 * place_tail.c). */
#include "place_int.h"

#include <math.h>

/* Segment of stage i; *end: i is its segment's last stage. */
int pm_seg_of(const struct pm_class *c, int i, bool *end)
{
	int s = 0, acc = c->n[0];
	while (i >= acc && s + 1 < c->nseg)
		acc += c->n[++s];
	if (end)
		*end = i == acc - 1;
	return s;
}

struct pm_split {
	int S, kd[64], cap[64];
	double x[64], e[64];           /* per layer time, extra (logits) */
};

static int max_layers(const struct pm_split *p, int i, double U)
{
	int n = p->cap[i];
	if (n > 0 && n * p->x[i] + p->e[i] > U && p->x[i] > 0) {
		double f = floor((U - p->e[i]) / p->x[i]);
		n = f < 0 ? 0 : f < n ? (int)f + 1 : n;
	}
	while (n > 0 && n * p->x[i] + p->e[i] > U)
		n--;
	return n;
}

static bool split_ok(const struct pm_split *p, int L, double U)
{
	long tot = 0;
	for (int i = 0; i < p->S; i++) {
		int n = max_layers(p, i, U);
		if (n < 1)
			return false;
		tot += n;
	}
	return tot >= L;
}

/* Stage i's time at n layers. */
static double stage_t(const struct pm_split *p, int i, int n)
{
	return n * p->x[i] + p->e[i];
}

/* The layers of stages i0 .. i0 + ns (one segment), Ls in all, each at
 * most mx[i] and at least 1: levelled, the least level V at which the
 * stages hold Ls, then one layer off the slowest stages (the last first)
 * until they hold Ls exactly. Fewer stages at the bottleneck than
 * filling each to mx in turn: in 1F1B two busiest stages side by side
 * expose the boundary delays between them (the window form of the
 * cycle, place_time.c). */
static void level(const struct pm_split *p, int i0, int ns, int Ls, const int *mx, int *lay)
{
	double lo = 0, hi = 0;
	for (int j = 0; j < ns; j++)
		hi = fmax(hi, stage_t(p, i0 + j, mx[i0 + j]));
	for (int it = 0; it < 60 && hi - lo > 1e-12 * hi; it++) {
		double V = 0.5 * (lo + hi);
		long tot = 0;
		for (int j = 0; j < ns; j++) {
			int n = max_layers(p, i0 + j, V);
			tot += n < 1 ? 1 : n < mx[i0 + j] ? n : mx[i0 + j];
		}
		if (tot >= Ls)
			hi = V;
		else
			lo = V;
	}
	long tot = 0;
	for (int j = 0; j < ns; j++) {
		int n = max_layers(p, i0 + j, hi);
		lay[j] = n < 1 ? 1 : n < mx[i0 + j] ? n : mx[i0 + j];
		tot += lay[j];
	}
	while (tot > Ls) {
		int b = -1;
		for (int j = ns - 1; j >= 0; j--)
			if (lay[j] > 1 && (b < 0 || stage_t(p, i0 + j, lay[j]) > stage_t(p, i0 + b, lay[b])))
				b = j;
		if (b < 0)
			break;
		lay[b]--;
		tot--;
	}
}

/* The most layers stages 0, 1, ... of p take, each in turn, under the
 * window form of the 1F1B cycle at U (place_time.c): every window i..j
 * of stages with the round trips inside it, sum t + 2 sum d <= (j - i + 1)
 * U. Stage j's slack U - t_j must cover the worst deficit G_j of the
 * windows ending before it (G_j = 2 d_(j-1) - slack_(j-1) + max(0,
 * G_(j-1))), and leave what the next stage, at one layer, cannot take
 * of the round trip after it (2 d_j - (U - t_(j+1)(1))): a round trip
 * longer than one stage's slack is shared by the stages on both sides
 * of its link, each a light buffer. lay, the total returned; 0 when a
 * stage holds none. */
static long win_fill(const struct pm_split *p, const double *d, double U, int *lay)
{
	long tot = 0;
	double G = 0, slack = 0;
	for (int i = 0; i < p->S; i++) {
		G = i ? 2 * d[i - 1] - slack + fmax(G, 0) : 0;
		double ahead = i + 1 < p->S ? 2 * d[i] - (U - stage_t(p, i + 1, 1)) : 0;
		int n = max_layers(p, i, U - fmax(G, 0) - fmax(ahead, 0));
		if (n < 1)
			return 0;
		lay[i] = n;
		slack = U - stage_t(p, i, n);
		tot += n;
	}
	return tot;
}

/* The window split (how 2; 3: filled from the last stage back, so the
 * light stage follows a boundary): the least U at which win_fill holds
 * L layers, then a layer off the slowest stages until it holds L
 * exactly (fewer layers never break a window). -1: none fits. */
static int win_split(struct pm_split *p, const double *d0, int L, double lo, bool back, int *lay)
{
	int S = p->S;
	double d[64] = { 0 }, dmax = 0, tmax = 0, sum = 0, xmin = INF;
	if (back) {
		for (int i = 0; i < S / 2; i++) {
			double t = p->x[i]; p->x[i] = p->x[S - 1 - i]; p->x[S - 1 - i] = t;
			t = p->e[i]; p->e[i] = p->e[S - 1 - i]; p->e[S - 1 - i] = t;
			int u = p->cap[i]; p->cap[i] = p->cap[S - 1 - i]; p->cap[S - 1 - i] = u;
		}
	}
	for (int i = 0; i + 1 < S; i++) {
		d[i] = back ? d0[S - 2 - i] : d0[i];
		dmax = fmax(dmax, d[i]);
		sum += 2 * d[i] + p->e[i];
	}
	for (int i = 0; i < S; i++) {
		tmax = fmax(tmax, stage_t(p, i, p->cap[i]));
		xmin = fmin(xmin, p->x[i]);
	}
	/* Feasible at hi when at all: a window's deficit never passes
	 * 2 max d, so every stage holds its capacity (or, given the
	 * bottleneck U0 as lo, its layers at U0). Below lo (the whole
	 * pipeline as one window, or U0) never. */
	double hi = lo > 0 ? lo + 2 * dmax : tmax + 2 * dmax;   /* (lo: U0, each stage holds mx) */
	lo = fmax(lo, (sum + p->e[S - 1] + L * xmin) / S);
	if (win_fill(p, d, hi, lay) < L)
		return -1;
	for (int it = 0; it < 40 && hi - lo > 1e-4 * hi; it++) {
		double U = 0.5 * (lo + hi);
		if (win_fill(p, d, U, lay) >= L)
			hi = U;
		else
			lo = U;
	}
	long tot = win_fill(p, d, hi, lay);
	while (tot > L) {
		int b = -1;
		for (int j = S - 1; j >= 0; j--)
			if (lay[j] > 1 && (b < 0 || stage_t(p, j, lay[j]) > stage_t(p, b, lay[b])))
				b = j;
		if (b < 0)
			return -1;
		lay[b]--;
		tot--;
	}
	for (int i = 0; back && i < S / 2; i++) {
		int u = lay[i]; lay[i] = lay[S - 1 - i]; lay[S - 1 - i] = u;
	}
	return 0;
}

/* Fills lay[0..S) for the class, filling each stage to the bottleneck
 * in turn (how 0: a light last stage of a segment, a buffer at its
 * boundary), levelled (1), or under the window form of the cycle with
 * the boundary delays (2, 3: win_split, from c->U0, the greedy split's
 * bottleneck, up to U0 + 2 max d; c->U0 then INF: best_split, in
 * place_classes.c, sets the class's); returns -1 when no split fits. */
int pm_class_split(struct pm *m, struct pm_class *c, int *lay, int how)
{
	struct pm_split p;
	int L = m->L, S = c->S;
	double d[64];
	p.S = S;
	for (int i = 0; i < S; i++) {
		bool end;
		int seg = pm_seg_of(c, i, &end);
		const struct pm_kind *k = &m->k[c->kind[seg]];
		p.kd[i] = seg;
		p.x[i] = k->x;
		p.e[i] = i == S - 1 ? k->lx : 0;
		p.cap[i] = pm_cap_of(m, c->kind[seg], i, S);
		d[i] = i == S - 1 ? 0 : end ? c->dcross[seg] : k->delta;
		if (p.cap[i] < 1)
			return -1;
	}
	if (how >= 2) {
		double lo = c->U0 < INF ? c->U0 : 0;   /* (the bottleneck split's) */
		c->U0 = INF;
		return win_split(&p, d, L, lo, how == 3, lay);
	}
	/* U0 is n x_i + e_i for some stage i: per stage, the fewest layers
	 * whose time is a feasible cycle (bisection: feasibility is monotone). */
	double U0 = INF;
	for (int i = 0; i < S; i++) {
		if (i > 0 && i < S - 1 && p.kd[i] == p.kd[i - 1])
			continue;   /* same values as the previous stage */
		int lo = 1, hi = p.cap[i];
		if (!split_ok(&p, L, hi * p.x[i] + p.e[i]))
			continue;
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (split_ok(&p, L, mid * p.x[i] + p.e[i]))
				hi = mid;
			else
				lo = mid + 1;
		}
		double u = lo * p.x[i] + p.e[i];
		if (u < U0)
			U0 = u;
	}
	if (U0 == INF)
		return -1;
	c->U0 = U0;
	int mx[64];
	long cap[PM_MAXSEG] = { 0 };
	for (int i = 0; i < S; i++) {
		mx[i] = max_layers(&p, i, U0);
		cap[p.kd[i]] += mx[i];
	}
	/* Layers per segment: the fewest compute seconds (each segment its
	 * stages, the rest to the faster segments first), ties to the earlier
	 * segment (the lexicographically largest split). */
	int Ls[PM_MAXSEG], left = L;
	bool done[PM_MAXSEG] = { false };
	for (int s = 0; s < c->nseg; s++) {
		Ls[s] = c->n[s];
		left -= c->n[s];
	}
	for (int r = 0; r < c->nseg; r++) {
		int b = -1;
		for (int s = 0; s < c->nseg; s++)
			if (!done[s] && (b < 0 || m->k[c->kind[s]].x < m->k[c->kind[b]].x))
				b = s;
		done[b] = true;
		long add = cap[b] - c->n[b] < left ? cap[b] - c->n[b] : left;
		Ls[b] += (int)add;
		left -= (int)add;
	}
	for (int seg = 0, i = 0; seg < c->nseg; seg++) {
		int rem = Ls[seg], ns = c->n[seg];
		if (how) {
			level(&p, i, ns, rem, mx, lay + i);
			i += ns;
			continue;
		}
		for (int j = 0; j < ns; j++, i++) {
			int v = rem - (ns - 1 - j);
			lay[i] = mx[i] < v ? mx[i] : v;
			rem -= lay[i];
		}
	}
	return 0;
}

/* The curve t(m) of a class from its split (place_time.c: sig, U and
 * ulin with it), and the option-independent part of its tail. -1 out
 * of memory. */
int pm_class_times(struct pm *m, struct pm_class *c, const int *lay)
{
	int S = c->S;
	if (pm_class_curve(m, c, lay))
		return -1;
	/* As pm_class_tail's: option-independent, so pm_set_option can bound the
	 * tail before computing it. */
	double first = 0, tmax = 0;
	for (int i = 0; i < S; i++) {
		const struct pm_kind *k = &m->k[c->kind[pm_seg_of(c, i, NULL)]];
		double b = lay[i] * k->bl + (i == S - 1 ? k->lb : 0);
		double f = pm_class_off(m, c, i) +
			   (m->sc->job.sync_overlap ? b * (lay[i] - 1) / lay[i] : 0);
		if (f > first)
			first = f;
		tmax = fmax(tmax, lay[i] * k->x + (i == S - 1 ? k->lx : 0));
	}
	c->first = first;
	/* The steady cycle is never shorter than the busiest stage. */
	c->U = fmax(c->U, tmax);
	return 0;
}

/* Class c at split lay: its worst window of stages with the round
 * trips inside it (the window form of the 1F1B cycle, place_time.c;
 * the link's serial part aside), or (tmax) its busiest stage. For
 * screening splits (place_classes.c). */
static double split_cycle(const struct pm *m, const struct pm_class *c, const int *lay, bool tmax)
{
	int S = c->S;
	double t[64], d[64], u = 0;
	for (int i = 0; i < S; i++) {
		bool end;
		int seg = pm_seg_of(c, i, &end);
		const struct pm_kind *k = &m->k[c->kind[seg]];
		t[i] = lay[i] * k->x + (i == S - 1 ? k->lx : 0);
		d[i] = i == S - 1 ? 0 : end ? c->dcross[seg] : k->delta;
		u = fmax(u, t[i]);
	}
	for (int i = 0; i < S && !tmax; i++) {
		double sum = 0;
		for (int j = i; j < S; j++) {
			sum += t[j] + (j > i ? 2 * d[j - 1] : 0);
			u = fmax(u, sum / (j - i + 1));
		}
	}
	return u;
}

double pm_split_cycle(const struct pm *m, const struct pm_class *c, const int *lay)
{
	return split_cycle(m, c, lay, false);
}

double pm_split_tmax(const struct pm *m, const struct pm_class *c, const int *lay)
{
	return split_cycle(m, c, lay, true);
}
