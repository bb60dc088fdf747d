/*
 * place_time.c: the compute time of a placement MILP class (place_int.h)
 * as the simulator runs it: the 1F1B makespan t(m) of one replica with m
 * micro-batches, exactly, for every m.
 *
 * A class fixes every stage's forward f_i and backward b_i (B + W) per
 * micro-batch and every boundary's delay delta_i, so its makespan is the
 * longest path through the task graph gp_simulate executes (sim.c, with
 * schedule.c's 1F1B order: stage s runs w_s = min(S - 1 - s, m) forwards,
 * then pairs F(w_s + j), B(j), then the last backwards), a WAN
 * boundary's messages crossing its link direction one at a time in the
 * order sent (its serial part; the latency after it), as sim.c's
 * pipeline flows do; no other contention. The graph is walked pair by pair: pair j of stage s depends
 * on pair j - 1 of stage s - 1 (its forward) and on pair j of stage s + 1
 * (its backward), so one pass costs O(S) per pair.
 *
 * For m >= S the first m - S + 1 pairs are the same for every m; only
 * the last S - 1 differ (stages run out of forwards: the drain, the same
 * for every m). The curve walks the shared pairs once and finishes each
 * m by the drain as a max-plus functional of the state (drain_fn:
 * O(S^2) once, then O(S) per m). The walk is max-plus linear and
 * homogeneous, so once the state
 * after pair j equals the one after pair j - p plus Delta on every
 * entry, it does forever: t(m + p) = t(m) + Delta from there on, and the
 * curve keeps t(m) up to one period past that point. Its slope Delta / p
 * is the steady cycle (the worst cycle of the graph: windows of stages
 * with their round trips, as Sailor's and Metis's maximum stage time
 * cannot see).
 *
 * With lockstep replicas sharing a link, the uniform options walk a
 * class again with longer delays (pm_class_eval), skipping the shared
 * pairs once they repeat shifted.
 *
 * Kept per class (pm_class): sig = t(1) (a micro-batch's round trip),
 * U = Delta / p, ulin = the largest slope with t(m) >= t(1) + (m - 1) ulin
 * for all m (for screens: the transient's first steps can be shorter than
 * U), and in pm.cv the stored values, then per stage how much earlier
 * than stage 0's its last backward ends (at the last m stored; the tail's
 * offsets, pm_class_off).
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PT_MAXPER 130           /* periods looked for (in pairs) */
#define PT_MAXPAIRS 4096        /* shared pairs walked before giving up on a period */
#define PT_FASTPER 64           /* periods walk_fast looks for (in pairs) */

/* A class's stages as the walk needs them. */
struct pt_stages {
	int S;
	double f[64], b[64], d[64];   /* d[i]: delay after stage i (0 after the last) */
	double q[64];                 /* of it, the part on a WAN link direction, one
				       * message at a time (the rest: its latency) */
};

/* The walk's state: the end of each stage's last forward (the one the
 * next stage takes) and last backward (its device is free then). */
struct pt_state {
	double F[64], B[64];
	double LF[64], LB[64];        /* boundary i's link, forward and back: free again */
};

/* A message sent at t over boundary i (its link free at *free) arrives
 * then: after the messages before it, and its latency. */
static inline double cross(const struct pt_stages *st, int i, double t, double *free)
{
	double a = (t > *free ? t : *free) + st->q[i];
	*free = a;
	return a + st->d[i] - st->q[i];
}

/* The larger of a and b (no NaNs here: fmax's care costs a call). */
static inline double mx(double a, double b)
{
	return a > b ? a : b;
}

/* Stage values of class c with layers lay and boundary delays dl. */
static void stages_of(const struct pm *m, const struct pm_class *c, const int *lay,
		      const double *dl, struct pt_stages *st)
{
	for (int i = 0; i < c->S; i++) {
		bool end;
		int s = pm_seg_of(c, i, &end);
		int l = end && i + 1 < c->S ? c->lk[s][0] : -1;
		st->q[i] = l >= 0 ? fmax(dl[i] - m->wan[l].lat, 0) : 0;
	}
	st->S = c->S;
	for (int i = 0; i < c->S; i++) {
		const struct pm_kind *k = &m->k[c->kind[pm_seg_of(c, i, NULL)]];
		bool last = i == c->S - 1;
		st->b[i] = lay[i] * k->bl + (last ? k->lb : 0);
		st->f[i] = lay[i] * (k->x - k->bl) + (last ? k->lx - k->lb : 0);
		st->d[i] = dl[i];
	}
}

/* Warm-up: stage s's first w_s forwards (w_s = min(S - 1 - s, mb)). */
static void warm_up(const struct pt_stages *st, int mb, struct pt_state *x)
{
	int S = st->S;
	double prev[64], cur[64];
	memset(x->LF, 0, (size_t)S * sizeof *x->LF);
	memset(x->LB, 0, (size_t)S * sizeof *x->LB);
	for (int s = 0; s < S; s++) {
		int w = S - 1 - s < mb ? S - 1 - s : mb;
		double dev = 0;
		for (int k = 0; k < w; k++) {
			double in = s > 0 ? cross(st, s - 1, prev[k], &x->LF[s - 1]) : 0;
			dev = mx(dev, in) + st->f[s];
			cur[k] = dev;
		}
		x->F[s] = w > 0 ? cur[w - 1] : 0;
		x->B[s] = dev;
		memcpy(prev, cur, (size_t)w * sizeof *cur);
	}
}

/* Pair j on every stage: F(w_s + j) where it exists (all when full),
 * then the backwards from the last stage down. */
static void pair(const struct pt_stages *st, int mb, int j, bool full, struct pt_state *x)
{
	int S = st->S;
	for (int s = S - 1; s >= 0; s--) {
		int w = S - 1 - s < mb ? S - 1 - s : mb;
		if (!full && w + j >= mb)
			continue;
		/* F(w + j) takes stage s - 1's forward of the previous pair
		 * (its w is w + 1): x->F[s - 1] still holds it, as stages
		 * go down. */
		double in = s > 0 ? cross(st, s - 1, x->F[s - 1], &x->LF[s - 1]) : 0;
		x->F[s] = mx(x->B[s], in) + st->f[s];
		x->B[s] = x->F[s];
	}
	for (int s = S - 1; s >= 0; s--) {
		double in = s == S - 1 ? x->F[s] : cross(st, s, x->B[s + 1], &x->LB[s]);
		x->B[s] = mx(x->B[s], in) + st->b[s];
	}
}

/* One replica's makespan at mb micro-batches, from scratch: O(S^2 + S mb). */
static double walk(const struct pt_stages *st, int mb)
{
	struct pt_state x;
	warm_up(st, mb, &x);
	for (int j = 0; j < mb; j++)
		pair(st, mb, j, false, &x);
	return x.B[0];
}

/* The drain (the last S - 1 pairs of a walk, the same for every mb >= S - 1:
 * stage s skips its forward in drain pair r >= s) is max-plus linear in
 * the state, with no constant term (stage 0's forwards all come before
 * it): t(mb) = max_e (x_e + W_e) over the state's entries e, W_e the
 * longest path from entry e to the last B[0]. W is the drain run
 * backwards (reverse mode: each y = max(u, v) + c hands y's weight + c
 * to u and v, and y's own entry starts over at -inf unless it is one of
 * them), in O(S^2) once; each t(mb) is then O(S), not a drain's O(S^2).
 * W holds 4 S doubles: F, B, LF, LB. */
static void drain_back(const struct pt_stages *st, int r, double *aF, double *aB, double *aLF,
		       double *aLB)
{
	int S = st->S;
	for (int s = 0; s < S; s++) {   /* the backwards, last one first */
		if (s == S - 1) {
			/* B[s] = max(B[s], F[s]) + b */
			double a = aB[s] + st->b[s];
			aB[s] = a;
			aF[s] = mx(aF[s], a);
			continue;
		}
		/* B[s] = max(B[s], LB[s] + d - q) + b, after
		 * LB[s] = max(B[s + 1], LB[s]) + q */
		double a = aB[s] + st->b[s];
		aB[s] = a;
		aLB[s] = mx(aLB[s], a + (st->d[s] - st->q[s]));
		a = aLB[s] + st->q[s];
		aLB[s] = a;
		aB[s + 1] = mx(aB[s + 1], a);
	}
	for (int s = r + 1; s < S; s++) {   /* the forwards (stages s > r) */
		/* B[s] = F[s], after F[s] = max(B[s], LF[s - 1] + d - q) + f,
		 * after LF[s - 1] = max(F[s - 1], LF[s - 1]) + q */
		double a = mx(aF[s], aB[s]) + st->f[s];
		aF[s] = -INFINITY;
		aB[s] = a;
		aLF[s - 1] = mx(aLF[s - 1], a + (st->d[s - 1] - st->q[s - 1]));
		a = aLF[s - 1] + st->q[s - 1];
		aLF[s - 1] = a;
		aF[s - 1] = mx(aF[s - 1], a);
	}
}

/* W of the drain of st (malloc'd; NULL out of memory). */
static double *drain_fn(const struct pt_stages *st)
{
	int S = st->S;
	double *W = malloc(4 * (size_t)S * sizeof *W);
	if (!W)
		return NULL;
	for (int e = 0; e < 4 * S; e++)
		W[e] = -INFINITY;
	W[S] = 0;   /* (B[0]) */
	for (int r = S - 2; r >= 0; r--)
		drain_back(st, r, W, W + S, W + 2 * S, W + 3 * S);
	return W;
}

/* t(mb): the drain of state x (after mb - S + 1 shared pairs) by W. */
static double drain_eval(const struct pt_stages *st, const double *W, const struct pt_state *x)
{
	int S = st->S;
	double t = -INFINITY;
	const double *a[4] = { x->F, x->B, x->LF, x->LB };
	for (int k = 0; k < 4; k++)
		for (int s = 0; s < S; s++)
			t = mx(t, a[k][s] + W[k * S + s]);
	return t;
}

/* Room for n more curve values in m->cv. */
static int cv_room(struct pm *m, int n)
{
	return gp_room(&m->cv, &m->capcv, m->ncv + n, sizeof *m->cv, 4096);
}

/* Boundary s's links are not shifted by dl from y to x. A link
 * without serial part (q 0) trails its stage: only its value matters
 * while it is ahead of it, which a shift of F and B covers then. */
static bool st_q(const struct pt_state *x, const struct pt_state *y, int s, double dl, double tol)
{
	return fabs(x->LF[s] - y->LF[s] - dl) > tol || fabs(x->LB[s] - y->LB[s] - dl) > tol;
}

/* A stored state's key, 24 bytes: B[0], and B and F of the last stage
 * (the last to settle into a period, as a rule: with the middle stage's
 * instead, most candidates passed the key and failed deep in the state).
 * The period search compares keys first and the whole state (2 KiB)
 * only when they agree: the same comparisons on the same values as
 * shifted's, so the same verdicts, sooner. */
struct pt_key {
	double b0, bm, fm;
};

static inline struct pt_key key_of(const struct pt_state *x, int S)
{
	return (struct pt_key){ x->B[0], x->B[S - 1], x->F[S - 1] };
}

/* shifted's tests of stage S - 1 on keys alone: false when shifted is
 * (the shift of B[0] is dl by definition). */
static inline bool key_may(const struct pt_key *x, const struct pt_key *y)
{
	double dl = x->b0 - y->b0;
	double tol = 1e-11 * fabs(x->b0) + 1e-300;
	return !(fabs(x->bm - y->bm - dl) > tol) && !(fabs(x->fm - y->fm - dl) > tol) && dl > 0;
}

/* x - y is one value on every entry (within rounding): *delta. */
static bool shifted(const struct pt_state *x, const struct pt_state *y, int S, double *delta)
{
	double dl = x->B[0] - y->B[0];
	double tol = 1e-11 * fabs(x->B[0]) + 1e-300;
	for (int s = 0; s < S; s++)
		if (fabs(x->B[s] - y->B[s] - dl) > tol || fabs(x->F[s] - y->F[s] - dl) > tol)
			return false;
	for (int s = 0; s + 1 < S; s++)
		if (st_q(x, y, s, dl, tol))
			return false;
	*delta = dl;
	return dl > 0;
}

/* Stores t(mb) of the walk of st for mb = 1, 2, ... until N or one
 * period past the point where the shared pairs repeat, and fills c's
 * curve fields (per, dper). -1 out of memory. */
static int build(struct pm *m, struct pm_class *c, const struct pt_stages *st)
{
	int S = st->S, N = m->N, top = N < S - 2 ? N : S - 2 > 0 ? S - 2 : 0;
	c->cvo = m->ncv;
	c->cvn = 0;
	c->per = 1;
	c->dper = 0;
	if (cv_room(m, top + 1))
		return -1;
	/* Fewer micro-batches than S - 1: the warm-ups are cut short. */
	for (int mb = 1; mb <= top; mb++)
		m->cv[m->ncv++] = walk(st, mb);
	c->cvn = top;
	c->tlast = top ? m->cv[c->cvo + top - 1] : 0;
	if (N <= top)
		return 0;
	struct pt_state *h = malloc(sizeof *h * (PT_MAXPER + 1));
	double *W = drain_fn(st);   /* t(mb) of the state after the shared pairs */
	if (!h || !W) {
		free(h);
		free(W);
		return -1;
	}
	struct pt_key kh[PT_MAXPER + 1];
	struct pt_state x;
	warm_up(st, N, &x);   /* (the same for every mb >= S - 1) */
	h[0] = x;
	kh[0] = key_of(&x, S);
	bool done = false;
	for (int j = 0; j + S - 1 <= N; j++) {
		/* After j shared pairs the state finishes mb = j + S - 1. */
		if (cv_room(m, 1)) {
			free(h);
			free(W);
			return -1;
		}
		if (j + S - 1 >= 1) {
			m->cv[m->ncv++] = drain_eval(st, W, &x);
			c->cvn++;
		}
		if (j + S - 1 == N)
			break;
		pair(st, N, j, true, &x);
		/* State j + 1 is state j + 1 - p shifted: t(mb + p) =
		 * t(mb) + Delta for every mb >= j + S - p, all stored. */
		struct pt_key kx = key_of(&x, S);
		for (int p = 1; !done && p <= PT_MAXPER && p <= j + 1 && j + S - p >= 1; p++) {
			double dl;
			int at = (j + 1 - p) % (PT_MAXPER + 1);
			if (key_may(&kx, &kh[at]) && shifted(&x, &h[at], S, &dl)) {
				c->per = p;
				c->dper = dl;
				done = true;
			}
		}
		if (!done && j >= PT_MAXPAIRS) {
			/* No period in sight: the last pair's growth goes on. */
			c->dper = x.B[0] - h[j % (PT_MAXPER + 1)].B[0];
			done = true;
		}
		h[(j + 1) % (PT_MAXPER + 1)] = x;
		kh[(j + 1) % (PT_MAXPER + 1)] = kx;
		if (done)
			break;
	}
	free(h);
	free(W);
	if (!done && c->cvn >= 2)   /* (stored up to N: the last step stands for the slope) */
		c->dper = m->cv[m->ncv - 1] - m->cv[m->ncv - 2];
	c->tlast = c->cvn ? m->cv[c->cvo + c->cvn - 1] : 0;
	return 0;
}

/* After the curve: how much earlier than stage 0 each stage's last
 * backward ends, at the last micro-batch count stored (past the
 * transient), for the tail (place_tail.c). */
static int offsets(struct pm *m, struct pm_class *c, const struct pt_stages *st)
{
	if (cv_room(m, st->S))
		return -1;
	struct pt_state x;
	int mb = c->cvn;
	warm_up(st, mb, &x);
	for (int j = 0; j < mb; j++)
		pair(st, mb, j, false, &x);
	for (int s = 0; s < st->S; s++)
		m->cv[m->ncv++] = x.B[0] - x.B[s];
	return 0;
}

/* The work (stage-pairs stepped through, place_int.h) of a curve of S
 * stages and cvn values: the walks below S - 1 micro-batches (about
 * 3 S^3 / 4 in all), the drain's functional (S^2), then per value a
 * shared pair, its drain by the functional and the offsets' walk (4 S). */
double pm_curve_work(int S, int cvn)
{
	return (double)S * (4.0 * cvn + S + 0.75 * S * S);
}

/* Class c's curve, stored in `from` (another set's pm.cv), into m->cv. */
int pm_curve_copy(struct pm *m, struct pm_class *c, const double *from)
{
	if (cv_room(m, c->cvn + c->S))
		return -1;
	memcpy(m->cv + m->ncv, from + c->cvo, (size_t)(c->cvn + c->S) * sizeof *m->cv);
	c->cvo = m->ncv;
	m->ncv += c->cvn + c->S;
	return 0;
}

/* t(mb) of class c: stored, or a period further on. */
double pm_curve(const struct pm *m, const struct pm_class *c, int mb)
{
	if (c->per == 1 && mb >= c->cvn && c->cvn > 0)   /* (the same sum, no cv) */
		return c->tlast + (mb - c->cvn) * c->dper;
	if (mb <= c->cvn)
		return m->cv[c->cvo + mb - 1];
	int k = (mb - c->cvn + c->per - 1) / c->per;
	return m->cv[c->cvo + mb - k * c->per - 1] + k * c->dper;
}

/* Boundary delay after stage i (0 after the last). */
static double stage_delay(const struct pm *m, const struct pm_class *c, int i)
{
	bool end;
	int s = pm_seg_of(c, i, &end);
	if (i == c->S - 1)
		return 0;
	return end ? c->dcross[s] : m->k[c->kind[s]].delta;
}

/* Class c's curve from its split (and the fields that follow). */
int pm_class_curve(struct pm *m, struct pm_class *c, const int *lay)
{
	struct pt_stages st;
	double dl[64];
	for (int i = 0; i < c->S; i++)
		dl[i] = stage_delay(m, c, i);
	stages_of(m, c, lay, dl, &st);
	if (build(m, c, &st) || offsets(m, c, &st))
		return -1;
	double *v = m->cv + c->cvo;
	for (int i = 1; i < c->cvn; i++)
		v[i] = fmax(v[i], v[i - 1]);   /* (rounding: never faster with more) */
	c->sig = v[0];
	c->U = c->per ? c->dper / c->per : 0;
	double ul = c->per ? c->U : INF;
	for (int i = 1; i < c->cvn; i++)
		ul = fmin(ul, (v[i] - v[0]) / i);
	c->ulin = ul == INF ? 0 : fmax(ul, 0);
	c->tlast = c->cvn ? v[c->cvn - 1] : 0;
	return 0;
}

/* walk(st, mb), sooner: the shared pairs only until the state repeats
 * shifted (period <= PT_FASTPER pairs), then whole periods in one step
 * and the rest of them one by one. */
static double walk_fast(const struct pt_stages *st, int mb)
{
	int S = st->S, shared = mb - S + 1;
	if (shared < 8)
		return walk(st, mb);
	struct pt_state x, *h = malloc(sizeof *h * (PT_FASTPER + 1));
	if (!h)
		return walk(st, mb);
	struct pt_key kh[PT_FASTPER + 1];
	warm_up(st, mb, &x);
	h[0] = x;
	kh[0] = key_of(&x, S);
	int j = 0;
	while (j < shared) {
		pair(st, mb, j++, true, &x);
		int p = 1;
		double dl = 0;
		struct pt_key kx = key_of(&x, S);
		for (; p <= PT_FASTPER && p <= j; p++) {
			int at = (j - p) % (PT_FASTPER + 1);
			if (key_may(&kx, &kh[at]) && shifted(&x, &h[at], S, &dl))
				break;
		}
		h[j % (PT_FASTPER + 1)] = x;
		kh[j % (PT_FASTPER + 1)] = kx;
		if (p > PT_FASTPER || p > j)
			continue;
		int k = (shared - j) / p;
		for (int s = 0; s < S; s++) {
			x.F[s] += k * dl;
			x.B[s] += k * dl;
			x.LF[s] += k * dl;
			x.LB[s] += k * dl;
		}
		for (j += k * p; j < shared; j++)
			pair(st, mb, j, true, &x);
	}
	free(h);
	for (int i = shared; i < mb; i++)
		pair(st, mb, i, false, &x);
	return x.B[0];
}

/* Class c's makespan at mb micro-batches with its cross-segment delays
 * dcross (of class c) replaced by dx: for a lockstep count of replicas
 * sharing its links (place_uniform.c). */
double pm_class_eval(const struct pm *m, const struct pm_class *c, const double *dx, int mb)
{
	struct pm_class x = *c;
	memcpy(x.dcross, dx, sizeof x.dcross);
	double dl[64];
	for (int i = 0; i < c->S; i++)
		dl[i] = stage_delay(m, &x, i);
	struct pt_stages st;
	stages_of(m, c, m->lay + c->off, dl, &st);
	return walk_fast(&st, mb);
}

/* Class c's makespan at mb micro-batches with layers lay in place of
 * its own: a candidate split judged by one walk, not a whole curve
 * (place_classes.c). */
double pm_split_walk(const struct pm *m, const struct pm_class *c, const int *lay, int mb)
{
	double dl[64];
	for (int i = 0; i < c->S; i++)
		dl[i] = stage_delay(m, c, i);
	struct pt_stages st;
	stages_of(m, c, lay, dl, &st);
	return walk_fast(&st, mb);
}

/* a's breakpoints (its curve + ea) are nowhere above b's (+ eb): checked
 * over both stored ranges and a common period past them; unknown (a
 * period too long to check) counts as no. */
bool pm_curve_le(const struct pm *m, const struct pm_class *a, double ea,
		 const struct pm_class *b, double eb)
{
	if (a->dper / a->per > b->dper / b->per * (1 + 1e-12) || a->sig + ea > b->sig + eb)
		return false;
	long per = (long)a->per * b->per;
	if (per > 256)
		return false;
	long top = (a->cvn > b->cvn ? a->cvn : b->cvn) + per;
	for (long mb = 1; mb <= top && mb <= m->N; mb++)
		if (pm_curve(m, a, (int)mb) + ea > pm_curve(m, b, (int)mb) + eb)
			return false;
	return true;
}

/* For tests (place_milp.h): the walk's makespan at each mb = 1..N of S
 * stages (f, b, d, q): from scratch (how 0), by the curve (1) or by the
 * walk that skips the periodic pairs (2). */
int gp_place_1f1b(int S, const double *f, const double *b, const double *d, const double *q,
		  int N, int how, double *t)
{
	struct pt_stages st = { .S = S };
	if (S < 1 || S > 64 || N < 1)
		return -1;
	memcpy(st.f, f, (size_t)S * sizeof *f);
	memcpy(st.b, b, (size_t)S * sizeof *b);
	memcpy(st.d, d, (size_t)S * sizeof *d);
	st.d[S - 1] = 0;
	memset(st.q, 0, sizeof st.q);
	for (int i = 0; q && i + 1 < S; i++)
		st.q[i] = fmin(fmax(q[i], 0), st.d[i]);
	if (how != 1) {
		for (int mb = 1; mb <= N; mb++)
			t[mb - 1] = how ? walk_fast(&st, mb) : walk(&st, mb);
		return 0;
	}
	struct pm tmp = { .N = N };
	struct pm_class c = { .S = S };
	int rc = build(&tmp, &c, &st);
	for (int mb = 1; rc == 0 && mb <= N; mb++)
		t[mb - 1] = pm_curve(&tmp, &c, mb);
	free(tmp.cv);
	return rc;
}
