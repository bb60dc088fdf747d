/*
 * place_uniform.c: the placement MILP's options solved in closed form
 * (place_int.h), with no MILP: D = 1 and the uniform options.
 *
 * D = 1: one replica of one class takes all N micro-batches; its links
 * must carry them (bb N / bandwidth <= T) and keep up with its cycle
 * (bb <= bandwidth U_c), within the budget. Its T is the smallest
 * breakpoint of the option at or above both bp(c, N) and the links'
 * time; an objective probe at T takes the class that does best.
 *
 * Uniform options (DP inside each DC, as megatron and atlas plan): y in
 * [d, dhi] replicas of one class (any class, chains included), so every
 * stage's DP ring stays in its DC, holds exactly y replicas, and the
 * tail is the K = 1 one with rings of at most y (no WAN sync; y = 1,
 * only with d = 1: no sync at all). T(y) = t_y(ceil(N / y)) + E(y),
 * t_y the class's curve (place_time.c) with each link boundary delayed
 * by latency + y bb / bandwidth (lockstep replicas share the link),
 * and T >= bb N / bandwidth per link crossed; y <= the pools', cycle
 * rows' and budget's limits. Solved per class, for wan_bytes and cost
 * too (pm_uni_obj: every y whose bound can still beat the best).
 * gp_place_milp_classes reports the MILP's options only; covering_only
 * (gp_plan_opts) leaves the uniform ones out, for the exhaustive and CBC
 * cross-checks.
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>


/* A lone replica of c taking all N micro-batches: its link (if any) must
 * keep up with its cycle; *req the time the link needs for them. */
static bool lone_link(const struct pm *m, const struct pm_class *c, double *req)
{
	*req = 0;
	if (c->la < 0)
		return true;
	double bw = fmin(m->wan[c->la].bw, m->wan[c->lb].bw);
	*req = m->bb * m->N / bw;
	return m->bb <= bw * c->U;
}

/* D = 1 needs no MILP: one replica of one class takes all N micro-batches;
 * its links must carry them (bb N / bandwidth <= T), so its T is the
 * smallest breakpoint of the option at or above both pm_bp(c, N) and that. */
int pm_solve_one(struct pm *m, int oi, const int *idx, int n, double below, struct pm_sol *sol,
		 double *T, double *lo)
{
	int bc = -1;
	double bt = INF;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		if (c->ymax < 1 || (m->budget > 0 && c->price > m->budget))
			continue;
		double t = pm_bp(m, c, m->N), req;
		if (!lone_link(m, c, &req))
			continue;   /* its cycle row */
		if (req > t) {
			/* The breakpoint at or above req is no less than req:
			 * only worth a scan when req can still win. */
			if (!(req < fmin(bt, below)))
				continue;
			t = pm_next_bp(m, idx, n, nextafter(req, -INF));
		}
		if (t < bt) {
			bt = t;
			bc = idx[j];
		}
	}
	if (bc < 0 || bt >= below)
		return 0;
	*T = bt;
	*lo = pm_prev_bp(m, idx, n, nextafter(bt, -INF));
	if (sol)
		pm_sol_single(m, sol, bc, 1, bt, 0, oi);
	return 1;
}

/* An objective probe of the D = 1 option at T, in closed form: one class
 * takes all N micro-batches (fits them by T, its link carries them within
 * T and keeps up with its cycle, within the budget); the one that does
 * best. 1 with sol filled, 0 when none fits. */
int pm_one_obj(const struct pm *m, int oi, const int *idx, int n, double T, enum pm_goal goal,
	       struct pm_sol *sol)
{
	int bc = -1;
	double bv = INF;
	for (int j = 0; j < n; j++) {
		const struct pm_class *c = &m->c[idx[j]];
		if (c->ymax < 1 || (m->budget > 0 && c->price > m->budget) || pm_m_of(m, c, T) < m->N)
			continue;
		double req, v = goal == PM_PRICE ? c->price : goal == PM_COST ? c->price * T / 3600 : 0;
		if (!lone_link(m, c, &req) || req > T)
			continue;
		v += m->N * pm_probe_egress(m, c, goal);
		if (v < bv) {
			bv = v;
			bc = idx[j];
		}
	}
	if (bc < 0)
		return 0;
	if (sol)
		pm_sol_single(m, sol, bc, 1, T, bv, oi);
	return 1;
}

/* Uniform option: y >= d replicas of one class c, every stage's DP ring
 * inside its DC (K = 1 sync), N micro-batches spread evenly: T(y) =
 * pm_bp(c, ceil(N / y)) with E (E1 for y = 1: no sync), and every link c
 * crosses carries bb N <= bandwidth T and y bb <= bandwidth U (its cycle
 * row). T falls with y, so per class the largest y the pools, cycle rows
 * and budget allow, and y = 1 when d = 1. No MILP. */
static double uni_T(const struct pm *m, const struct pm_class *c, int y, double E, double cap)
{
	int mb = (m->N + y - 1) / y;
	/* Unshared, every delay is shorter: a lower bound, enough above cap. */
	double lb = pm_curve(m, c, mb) + E;
	if (lb > cap)
		return lb;
	/* Lockstep replicas cross a link together: each boundary message
	 * shares it with the y - 1 others (latency + y bb / bandwidth, as
	 * gp_simulate's processor sharing gives them). */
	double dx[PM_MAXSEG];
	bool shared = false;
	for (int b = 0; b < PM_MAXSEG; b++) {
		dx[b] = c->dcross[b];
		if (b + 1 < c->nseg && c->lk[b][0] >= 0 && y > 1) {
			const struct gp_comm *l = &m->wan[c->lk[b][0]];
			dx[b] = l->lat + y * m->bb / l->bw;
			shared = true;
		}
	}
	double T = shared ? pm_class_eval(m, c, dx, mb) + E : lb;
	for (int b = 0; b + 1 < c->nseg; b++)
		for (int w = 0; w < 2; w++)
			if (c->lk[b][w] >= 0)
				T = fmax(T, m->bb * m->N / m->wan[c->lk[b][w]].bw);
	return T;
}

static int uni_ymax(const struct pm *m, const struct pm_class *c)
{
	int y = c->ymax < m->N ? c->ymax : m->N;
	for (int b = 0; b + 1 < c->nseg; b++)
		for (int w = 0; w < 2; w++)
			if (c->lk[b][w] >= 0) {
				double r = floor(m->wan[c->lk[b][w]].bw * c->U / m->bb * (1 + 1e-12));
				if (r < y)
					y = r < 0 ? 0 : (int)r;
			}
	if (m->budget > 0 && c->price > 0) {
		double r = floor(m->budget / c->price * (1 + 1e-12));
		if (r < y)
			y = (int)r;
	}
	return y;
}

/* The lone replica's option (no sync), for the uniform options' y = 1. */
static const struct pm_opt lone_opt = { .one = true, .d = 1, .dhi = 1, .K = 1, .q = -1 };

/* Copies of uniform option o at each y in [d, dhi] (oy[y - d]): the
 * tail of y replicas takes rings of y and shards over y, and pm_class_tail's memo
 * keys on the option, so each y gets its own. Reset m->memo->o before
 * freeing them. */
static struct pm_opt *capped_copies(const struct pm_opt *o)
{
	int ny = o->dhi - o->d + 1;
	struct pm_opt *oy = gp_xcalloc((size_t)ny + 1, sizeof *oy);
	for (int k = 0; oy && k < ny; k++) {
		oy[k] = *o;
		oy[k].d = oy[k].dhi = o->d + k;
	}
	return oy;
}

/* The fastest plan of uniform option oi below `below`: 1 with *T (and
 * sol if given), else 0. */
int pm_solve_uni(struct pm *m, int oi, double below, struct pm_sol *sol, double *T)
{
	const struct pm_opt *o = &m->opt[oi];
	int bc = -1, by = 0;
	double bt = INF;
	*T = INF;
	/* With y replicas of one class every stage's ring holds y: the tail
	 * of T(y) takes the rings up to y (oy[y - d]: the option capped at y;
	 * pm_class_tail's memo keys on the option, so each gets its own copy).
	 * The option's tail with every ring and shard count at its least
	 * over [d, dhi] (m->lower) bounds every y's from below: only a
	 * (class, y) whose bound beats the best so far gets its own tail. */
	struct pm_opt *oy = capped_copies(o);
	double *Elo = gp_xcalloc((size_t)m->nc + 1, sizeof *Elo);
	if (!oy || !Elo) {
		free(oy);
		free(Elo);
		return 0;
	}
	/* (The memo keys on one option at a time: the lone replica's tails
	 * first, then oy[0]'s.) T(y) >= Sigma_c (tails are >= 0): classes
	 * whose fill reaches the best get no tail. */
	for (int i = 0; o->d == 1 && i < m->nc; i++)
		m->c[i].E1 = m->c[i].sig < below ? pm_class_tail(m, &m->c[i], &lone_opt) : INF;
	bool lower = m->lower;
	m->lower = true;
	m->memo->o = NULL;
	for (int i = 0; i < m->nc; i++)
		Elo[i] = m->c[i].sig < below ? pm_class_tail(m, &m->c[i], o) : INF;
	m->lower = lower;
	m->memo->o = NULL;
	for (int i = 0; i < m->nc; i++) {
		struct pm_class *c = &m->c[i];
		if (!(c->sig < fmin(below, bt)))
			continue;
		/* d = 1: a lone replica (still within its cycle row). */
		int ym = o->d == 1 ? uni_ymax(m, c) >= 1 : uni_ymax(m, c);
		if (ym > o->dhi)
			ym = o->dhi;
		if (ym < o->d)
			continue;
		c->E = Elo[i];
		if (o->d != 1)
			c->E1 = INF;
		/* Without links, the most replicas; else every y (the shared
		 * links slow the cycle as y grows); and y = 1. */
		int y0 = c->la >= 0 ? o->d : ym;
		for (int y = y0; y <= ym + 1; y++) {
			int yy = y <= ym ? y : 1;
			if (y > ym && (o->d > 1 || y0 == 1))
				break;
			if (m->budget > 0 && yy * c->price > m->budget * (1 + 1e-12))
				continue;
			double t = uni_T(m, c, yy, yy == 1 ? c->E1 : Elo[i], bt);
			if (!(t < bt))
				continue;
			if (yy > 1 || o->d > 1)
				t = uni_T(m, c, yy, pm_class_tail(m, c, &oy[yy - o->d]), bt);
			if (t < bt) {
				bt = t;
				bc = i;
				by = yy;
			}
		}
	}
	/* The copies die here: the memo must not take their address for
	 * another option later. */
	m->memo->o = NULL;
	free(oy);
	free(Elo);
	if (bc < 0 || bt >= below)
		return 0;
	*T = bt;
	if (sol)
		pm_sol_single(m, sol, bc, by, bt, 0, oi);
	return 1;
}

/* A uniform option in the wan_bytes or cost phase, in closed form: per
 * class and replicas y (pm_solve_uni's T(y) with the rings of exactly y),
 * the plans with T(y) <= Tlim (wan_bytes: 1.05 T*) and their objective;
 * those better than the best are taken. For cost, y T(y) >= N u + y
 * (Sigma_c - u) grows with y (u = ulin <= Sigma_c: the curve is above
 * that line, and sharing links only slows it), which ends each class's
 * scan. */
int pm_uni_obj(struct pm *m, int oi, enum gp_objective goal, double Tlim, struct pm_best *best,
	       struct pm_sol *sol, struct pm_sol *cur, int d)
{
	const struct pm_opt *o = &m->opt[oi];
	int rc = 0;
	struct pm_opt *oy = capped_copies(o);
	if (!oy)
		return -1;
	for (int i = 0; i < m->nc && rc == 0; i++) {
		struct pm_class *c = &m->c[i];
		int ym = o->d == 1 ? uni_ymax(m, c) >= 1 : uni_ymax(m, c);
		if (ym > o->dhi)
			ym = o->dhi;
		double eg = m->N * pm_class_egress(m, c, goal);
		if (ym < o->d || c->sig > Tlim || eg >= best->obj)
			continue;
		for (int y = o->d; y <= ym; y++) {
			if (pm_stop(m)) {
				best->stopped = true;
				m->cost_lb = 0;   /* classes left unscanned */
				rc = 1;
				break;
			}
			if (m->budget > 0 && y * c->price > m->budget * (1 + 1e-12))
				break;
			if (goal == GP_OBJ_COST &&
			    c->price / 3600 * (m->N * c->ulin + y * (c->sig - c->ulin)) + eg >= best->obj)
				break;
			/* T(y) >= Sigma_c + (ceil(N / y) - 1) ulin (tails >= 0). */
			if (c->sig + ((m->N + y - 1) / y - 1) * c->ulin > Tlim)
				continue;
			double E = o->d == 1 ? pm_class_tail(m, c, &lone_opt) : pm_class_tail(m, c, &oy[y - o->d]);
			double T = uni_T(m, c, y, E, Tlim);
			if (T > Tlim)
				continue;
			double v = eg + (goal == GP_OBJ_COST ? y * c->price * T / 3600 : 0);
			if (!(v < best->obj))
				continue;
			pm_sol_single(m, cur, i, y, T, v, oi);
			best->obj = v;
			if (pm_take_incumbent(m, best, sol, cur, T, oi, d)) {
				rc = -1;
				break;
			}
			if (goal == GP_OBJ_WAN)
				break;   /* the same bytes at every y */
		}
	}
	m->memo->o = NULL;   /* (the copies die here) */
	free(oy);
	return rc < 0 ? -1 : 0;
}
