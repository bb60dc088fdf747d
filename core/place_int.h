/*
 * place_int.h: internal to the placement MILP (place_*.c); nobody else
 * includes it. The engine's faces are gp_plan_milp (planner.h) and, for
 * the tests, place_milp.h.
 *
 * The model (heterogeneous, network-aware placement),
 * decomposed by the iteration time T:
 *
 *  * Plan space. A kind is (pool, TP degree, recomputation)
 *    (place_kinds.c, which also holds each stage's memory and layer
 *    capacity). A pipeline class is S stages of kinds with a fixed layer
 *    split (place_split.c): one segment, two segments on different pools (in one DC or in
 *    two DCs joined both ways), or a chain of 3..PM_CHAINSEG segments on
 *    distinct pools (place_classes.c). A plan is y_c replicas of each class
 *    c sharing x_c of the N micro-batches.
 *  * Iteration time of one replica of class c running m micro-batches
 *    (1F1B; the form of Sailor, SOSP '25, and Metis, ATC '24):
 *       t_c(m) + E_c,
 *    t_c the 1F1B makespan of one replica as the simulator's task graph
 *    gives it (place_time.c: stored up to a period, then periodic; its
 *    slope U_c the steady cycle, Sigma_c = t_c(1) the fill), E_c the
 *    tail after the first stage's last backward: exposed DP sync and
 *    the optimizer step (place_tail.c).
 *  * Options. The plan-wide facts the tail depends on (the range [d, dhi]
 *    of the replicas D, the most DCs K, a link class q every pair of DCs
 *    used must be joined at, the DP sync mode) are enumerated outside the
 *    solver, each a set of constraints on the plan (place_tail.c). A
 *    plan's estimate is its tightest valid option's. D = 1 and the
 *    uniform options (y replicas of one class, DP inside each DC) are
 *    solved in closed form (place_uniform.c).
 *  * The covering MILP. For one option and T, class c fits m_c(T)
 *    micro-batches per replica, and a plan within T exists iff a covering
 *    MILP over the classes is feasible (place_cover.c); each probe is
 *    pruned and screened before GLPK sees it, and its LP's point rounded
 *    into a candidate plan (place_screen.c, place_round.c).
 *  * Search over T. Feasibility is monotone in T and the optimum T* is a
 *    breakpoint t_c(m) + E_c: per option a search over its
 *    breakpoints below the best T so far, one probe each (place_search.c);
 *    T* is optimal for this model. A given plan can seed the incumbent
 *    (place_warm.c).
 *  * A mix found is then timed as the simulator runs it (pm_barrier_T,
 *    place_tail.c): each bucket's collective after the latest holder of
 *    its layers, buckets and rings at the plan's replicas, lockstep
 *    replicas sharing the links they cross, and every stage's sync
 *    channel sharing the WAN ring (place_flow.c).
 *  * Objectives. time: T*. wan_bytes: the fewest WAN bytes per iteration
 *    over plans with T <= 1.05 T*. cost: the fewest $ per iteration, by
 *    branch and bound over intervals of T (place_objective.c). The
 *    budget is a constraint throughout.
 *
 * place_milp.c holds the entry points, the plan and the report made of a
 * solution, and the polish by the search engine; place_keep.c hands the
 * class sets of one solve to the next (the bound's check, the second
 * solve at the plan's pool counts), so none builds them twice.
 */
#ifndef GP_PLACE_INT_H
#define GP_PLACE_INT_H

#include "costtab.h"
#include "place_milp.h"
#include "plan.h"
#include "planner.h"
#include "cost.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define INF HUGE_VAL
#define PM_WAN_SLACK 1.05       /* wan_bytes: plans within 5 % of the fastest's T */
#define PM_MAXSEG 16            /* segments of a class (full classes, place_classes.c) */
#define PM_CHAINSEG 4           /* segments of an enumerated chain class */
#define PM_RING_DCS 8           /* ring options only up to this many DCs (place_ring.c) */
#define PM_RING_SETS 4          /* and at most this many sets of DCs */
#define PM_MAXSETS 40           /* class sets kept, one per replica bound d */
#define PM_PROBE_TL 20.0        /* a probe's wall-clock safety net (its nodes decide) */
#define PM_QUICK_TL 5.0         /* the same in the first pass over the options */
#define PM_AGREE 1e-6           /* estimate vs simulation: the most a proof allows */
#define PM_DUAL_N 1000          /* classes from which LPs go to the dual simplex */
/* The work limit beside the wall clock, so that runs repeat: the
 * engine counts its work (m->work: stage-pairs its 1F1B walks and
 * curves step through, PM_WORK_PROBE per covering MILP) and stops at
 * PM_WORK_RATE units per second of the time limit (about 60 % of what
 * this 2-core machine walks in a second, so the work limit binds first
 * unless the machine is much slower or loaded); a probe's branch and
 * bound stops at PM_PROBE_NODES nodes (PM_QUICK_NODES in the first
 * pass), its wall-clock limit (PM_PROBE_TL) only a far-off safety net:
 * when a wall clock decides anything, m->clock_stops, and the note
 * says the run may not repeat. */
#define PM_WORK_RATE 5e7
#define PM_WORK_PROBE 1e5
/* A simplex iteration of GLPK's on r rows and c columns: PM_WORK_ITER +
 * PM_WORK_ITER_RC x (r + c) units in a covering MILP (its root LP and
 * nodes, branch and bound's own work shared among them),
 * PM_WORK_ITER + PM_WORK_LP_RC x (r + c) in a screen's LP relaxation;
 * counted into m->work, and each solve's iteration limit is the work
 * left (pm_it_limit), so that a run the work limit stops in a solve
 * stops there on any machine load. Measured on the samples
 * (--no-polish): a MILP's iteration 8-11 us on P3 and P5 (100-400 rows
 * and columns), 280 us on P6's (3,037); an LP's 9 us on P3's, 46 us on
 * P6's (about 2,840); charged as the walks are, at the 8.3e7 units this
 * machine walks in a second (PM_WORK_RATE's 60 %), they come to 0.9-3x
 * the time they took. */
#define PM_WORK_ITER 400.0
#define PM_WORK_ITER_RC 7.5
#define PM_WORK_LP_RC 1.5
#define PM_PROBE_NODES 20000
#define PM_QUICK_NODES 2000

/* A kind: a pool at one TP degree and recomputation, and its costs. */
struct pm_kind {
	int dc, pool, fp;              /* fp: flat pool index */
	const struct gp_pool *p;
	const struct gp_gpu *g;
	int tp;
	enum gp_recompute rc;
	double x, bl;                  /* per layer: F + B + W, and B + W */
	double lx, lb;                 /* the logits layer: the same */
	double act, lact;              /* bytes in flight per micro-batch */
	double reserve;                /* bytes per GPU the job cannot use */
	double delta;                  /* boundary delay to the next stage of this kind */
};

/* A pipeline class: its segments (kind, stages), layer split and times. */
struct pm_class {
	int nseg, kind[PM_MAXSEG], n[PM_MAXSEG], S;
	int off;                       /* layer counts in pm.lay[off .. off + S) */
	int la, lb;                    /* links crossed a->b, b->a by the first boundary (or -1) */
	int lk[PM_MAXSEG][2];          /* links crossed by boundary s (forward, back; or -1) */
	double dcross[PM_MAXSEG];      /* delay of the boundary after segment s */
	double U, sig, E, E1, price;   /* E1: the tail of a lone replica (no sync) */
	double U0;                     /* stage time up to which the split read the stage
					 * capacities (same_as_prev): the bottleneck, + 2 max d
					 * for window splits (best_split) */
	double ulin;                   /* t(m) >= sig + (m - 1) ulin for every m */
	int cvo, cvn, per;             /* t(1 .. cvn) in pm.cv[cvo ..], then period per */
	double dper;                   /* t(m + per) = t(m) + dper past cvn (place_time.c) */
	double tlast;                  /* t(cvn) */
	double first;                  /* earliest sync bucket ready before stage 0's
					* last backward ends (pm_class_tail) */
	int ymax;
	int sg[6];                     /* signature: pools, GPUs, links (pm_class_sig) */
	int at;                        /* push_class's attempt number in its build */
	bool on;                       /* in the current option */
};

/* An option: the plan-wide facts the tail depends on (place_tail.c). */
struct pm_opt {
	bool one;                      /* D = 1 */
	bool uni;                      /* d <= y <= dhi replicas of one class, DP inside each DC */
	int d, dhi, K, q;              /* d <= D <= dhi; at most K DCs; link class q */
	double wbw, wlat;              /* ring bandwidth and latency at q */
	enum gp_sync_mode mode;        /* DP sync across DCs (K >= 2), flat or hierarchical */
	int ring;                      /* flat: the most replicas its ring counts (dhi);
					* kept when pm_probe_ws lifts the cap (a relaxation) */
	unsigned set;                  /* a ring option: every DC of this set (bit d) used,
					* any pairs, none other (0: the pairwise rule) */
	signed char nxt[PM_RING_DCS];  /* its ring: the DC after d (place_ring.c) */
};

/* A set of DCs a ring joins faster than its slowest pair (place_ring.c). */
struct pm_rset {
	unsigned set;
	int k;
	double bw, lat;                /* its ring's slowest hop bandwidth, largest latency */
	signed char nxt[PM_RING_DCS];
};

/* One d's classes, kept so that each d's are built once (options come
 * in d order twice: the uniform ones, then the covering MILP's). */
struct pm_cset {
	short *capt;
	struct pm_class *c;
	int nc, capc;
	int *lay;
	int nlay, caplay;
	double *cv;
	int ncv, capcv;
	int *order;
	int Smax, nchain;
	int natt;                      /* attempts its build made (push_class) */
	bool trunc_two, no_two, trunc_chain;
};

/* Class sets one solve leaves for the next (place_keep.c): the second
 * solve at the plan's pool counts copies the classes whose kinds cost
 * the same. */
struct pm_keep {
	struct pm_cset s[PM_MAXSETS + 1];
	int n;
	struct pm_kind *k;             /* the kinds they were built with */
	int nk;
};

/* Stage values by (kind, layers, first, last) for option o: pm_class_tail
 * asks for the same few values for thousands of classes. */
struct pm_stagev {
	double tau, loc, opt;          /* one bucket's sync, its local part, optimizer */
};

/* pm_class_tail's memo of stage values, for one option at a time. */
struct pm_memo {
	const struct pm_opt *o;
	unsigned gen;
	double W;                      /* the option's WAN sync seconds (pm_class_tail) */
	int dzhi;                      /* m->lower: the most replicas ZeRO shards over */
	unsigned *at;                  /* gen the entry was filled in */
	struct pm_stagev *v;
};

/* The engine's state for one scenario and its options. */
struct pm {
	const struct gp_scenario *sc;
	const struct gp_plan_opts *o;
	const struct gp_costtab *ct;   /* the request's cost tables, or own_ct */
	struct gp_costtab *own_ct;
	struct gp_comm *wan;           /* per link direction, achieved (costtab) */
	int L, N, Smax, npools, gpus;
	double bb, prec, Lp, Ep, budget, t0, deadline;
	double probe_tl;               /* seconds a probe may take now */
	const struct gp_plan *warm;    /* a plan to start from (pm_warm_start), or NULL */
	double warm_T;                 /* the incumbent it gave (INF: none) */
	const struct gp_pool **pl;
	int *pl_dc, *dc_gpus;
	struct pm_kind *k;
	int nk;
	struct pm_class *c;
	int nc, capc;
	int *lay;
	int nlay, caplay;
	double *cv;                    /* the classes' curves (place_time.c) */
	int ncv, capcv;
	int cur_d;                     /* d the classes were split for */
	short *capt, *capn;            /* stage_cap by kind, S - 1, i (S <= 64): the
					* classes' and the next d's */
	unsigned char *deep;           /* [kind * 65 + S]: a full class needs the row
					* (pm_full_rows), S_max or not */
	bool enumerated;               /* c holds the classes for capt */
	struct pm_memo *memo;          /* one-bucket sync times of the current option */
	int *order;                    /* classes by signature, U, index */
	int *lmat;                     /* link index from DC a to b, or -1: [a * ndcs + b] */
	double Tlb;                    /* the work bound on T (pm_work_bound) */
	bool lower;                    /* tails at their least over each option's range
					* (ring sizes, DCs, links): a relaxation, whose
					* optimum bounds every plan (place_milp.c) */
	double wan_bw_max, wan_lat_min; /* the fastest link direction's (lower) */
	struct pm_cset sets[PM_MAXSETS]; /* other d's classes, when they differ */
	int nsets;
	const struct pm_cset *prev;    /* the set built before this one, to reuse from */
	const struct pm_keep *from;    /* another solve's sets (place_keep.c), or NULL */
	unsigned char *ksame;          /* per kind: costs as from's (its classes stand) */
	bool prev_other;               /* prev is one of from's sets */
	bool no_keep;                  /* build every set anew (gp_place_milp_rebuild) */
	int attempt, prev_j;
	bool trunc_two, no_two, trunc_chain;
	int nchain;
	long chain_tries;              /* chain compositions tried in this build */
	double chain_work;             /* their work (place_classes.c) */
	double full_from;              /* m->work when this build's full classes began */
	bool trunc_full;               /* full classes cut at PM_FULL_SHARE (no proof lost) */
	double *qbw;                   /* link classes, bandwidth descending */
	int nq;
	struct pm_rset rs[PM_RING_SETS]; /* the ring options' sets */
	int nrs;
	struct pm_opt *opt;
	int capopt;
	bool opt_oom;                  /* an option could not be added: no proof */
	bool cut;                      /* some d's classes were cut (trunc_*): no proof */
	double work, work_limit;       /* work done and allowed (PM_WORK_RATE) */
	int work_probes;               /* probes the node limit left undecided */
	int it_stops;                  /* GLPK solves the work limit stopped in the
					* simplex (pm_it_limit) */
	int clock_stops;               /* probes and cuts the wall clock decided */
	int Sproof;                    /* the least Smax of the sets built (0: none) */
	int nopt;
	int probes, undecided, screened;
	int barrier;                   /* options whose mix the DP sync's barrier made
					* slower than the model, below the best: each
					* bounded at its model T (place_search.c) */
	int warm_used;                 /* probes GLPK took a warm solution in */
	int rounded;                   /* probes the LP's point, rounded, settled */
	double cost_lb;                /* cost phase: no plan left unscanned costs less */
	bool bound_only;               /* objective probes: a lower bound suffices */
	double cutoff;                 /* objective probes: only plans below it (INF: any) */
	double *ob;                    /* per option: the lowest T it may still hold
					* below the incumbent (undecided probes, gap
					* stops); INF when searched to the end */
	int cur_oi;                    /* the option being searched */
	double miss;                   /* smallest memory overshoot (need / have) */
	char why[256];
};

/* What a probe asks of the covering MILP: any plan (PM_FEAS), or the one
 * with the fewest WAN bytes, dollars per iteration, or dollars per hour. */
enum pm_goal { PM_FEAS, PM_WAN, PM_COST, PM_PRICE };

/* A probe's plan: replicas y and micro-batches x per class of m->c. */
struct pm_sol {
	double T, obj;
	double lb;                     /* objective probes: the solver's bound on
					* the optimum at T (= obj when proven) */
	bool proven;                   /* obj is the optimum at T */
	int opt;
	int *y, *x;                    /* [nc] */
	int cap;                       /* their length (the incumbent's only) */
};

/* The search's incumbent. */
struct pm_best {
	double T, obj, lo;
	int opt, d;
	bool stopped;
};

/* place_kinds.c */
int pm_enum_kinds(struct pm *m);
double pm_stage_mem(const struct pm *m, const struct pm_kind *k, int n, int i, int S, int d);
bool pm_caps_same(const struct pm *m, const short *a, const short *b, int Smax);
bool pm_caps_for(struct pm *m, int d);

/* The layers stage i of S can hold on kind k, from the table of the d
 * the classes are being built for. */
static inline int pm_cap_of(const struct pm *m, int k, int i, int S)
{
	return m->capt[((size_t)k * 64 + (size_t)(S - 1)) * 64 + (size_t)i];
}

/* place_split.c */
int pm_seg_of(const struct pm_class *c, int i, bool *end);
int pm_class_split(struct pm *m, struct pm_class *c, int *lay, int how);
int pm_class_times(struct pm *m, struct pm_class *c, const int *lay);
double pm_split_cycle(const struct pm *m, const struct pm_class *c, const int *lay);
double pm_split_tmax(const struct pm *m, const struct pm_class *c, const int *lay);

/* place_milp.c: the simulated iteration time of plan p (INF: it fails;
 * NAN: the deadline came first). */
double pm_own_sim(const struct pm *m, const struct gp_plan *p);

/* place_refute.c: "optimal" against the plans one layer from p (a
 * replica's split moved at a boundary): one simulated below the bound
 * makes rep feasible with the work bound; the note says what was tried. */
int pm_refute_near(const struct pm *m, const struct gp_plan *p, struct gp_plan_report *rep);

/* place_time.c */
double pm_curve(const struct pm *m, const struct pm_class *c, int mb);
int pm_class_curve(struct pm *m, struct pm_class *c, const int *lay);
int pm_curve_copy(struct pm *m, struct pm_class *c, const double *from);
double pm_curve_work(int S, int cvn);
double pm_class_eval(const struct pm *m, const struct pm_class *c, const double *dx, int mb);
double pm_split_walk(const struct pm *m, const struct pm_class *c, const int *lay, int mb);
bool pm_curve_le(const struct pm *m, const struct pm_class *a, double ea,
		 const struct pm_class *b, double eb);

/* place_flow.c: a plan's DP sync channels sharing the WAN ring. A
 * bucket: when it may start (every holder made it), its local
 * reduce-scatter, its transfer's work on the link alone (s), the ring's
 * latency, its local all-gather. A channel serves its nb buckets from
 * b0 in order; pm_flow sets each end (when its last bucket is synced,
 * -INFINITY for none). -1: out of memory. */
struct pm_fbk {
	double ready, rs, wan, lat, ag;
};
struct pm_fch {
	int b0, nb;
	double end;
};
int pm_flow(struct pm_fch *ch, int nch, const struct pm_fbk *bk);

/* place_classes.c */
void pm_class_sig(const struct pm *m, const struct pm_class *c, int sig[6]);
int pm_enum_classes(struct pm *m, int d);
/* place_keep.c */
size_t pm_set_bytes(const struct pm *m, const struct pm_cset *x);
void pm_keep_move(struct pm *to, struct pm *from);
void pm_sets_free(struct pm *m);
int pm_keep_store(struct pm_keep *k, struct pm *m);
void pm_keep_free(struct pm_keep *k);
int pm_keep_use(struct pm *m, const struct pm_keep *k);
const struct pm_cset *pm_keep_find(const struct pm *m);
size_t pm_keep_bytes(const struct pm *m);
int pm_full_rows(struct pm *m);

/* place_tail.c */
int pm_cmp_dbl_desc(const void *a, const void *b);
int pm_link_classes(struct pm *m);
void pm_enum_opts(struct pm *m);
double pm_grad_ring_bytes(const struct pm *m, const struct pm_opt *o);
double pm_class_tail(const struct pm *m, const struct pm_class *c, const struct pm_opt *o);
double pm_barrier_T(const struct pm *m, const struct pm_sol *sol);
int pm_set_option(struct pm *m, const struct pm_opt *o, double below, int *idx);

/* Both directions of DCs a-b at bandwidth >= bw, from the link matrix,
 * for the hot loops. */
static inline bool pm_pair_ok(const struct pm *m, int a, int b, double bw)
{
	int nd = m->sc->ndcs, x = m->lmat[a * nd + b], y = m->lmat[b * nd + a];
	return x >= 0 && y >= 0 && fmin(m->wan[x].bw, m->wan[y].bw) >= bw;
}

/* place_ring.c: plan sol's estimate with the ring its DCs run (the
 * search's T where that charges as its option did; *ring: it did not);
 * the sets of DCs the ring options take. */
double pm_plan_estimate(struct pm *m, const struct pm_sol *sol, double T, bool *ring);
void pm_ring_sets(struct pm *m);

/* May option o's plans use DCs a and b together? (A ring option: both
 * in its set; else both directions at its link class.) */
static inline bool pm_opt_pair_ok(const struct pm *m, const struct pm_opt *o, int a, int b)
{
	if (o->set)
		return (o->set >> a & 1u) && (o->set >> b & 1u);
	return pm_pair_ok(m, a, b, o->wbw);
}

/* May option o's plans use DC d? */
static inline bool pm_opt_dc_ok(const struct pm_opt *o, int d)
{
	return !o->set || (o->set >> d & 1u);
}

/* place_cover.c */
int pm_m_of(const struct pm *m, const struct pm_class *c, double T);
double pm_count_bp(const struct pm *m, const int *idx, int n, double T);
double pm_prev_bp(const struct pm *m, const int *idx, int n, double T);
double pm_next_bp(const struct pm *m, const int *idx, int n, double T);
double pm_class_egress(const struct pm *m, const struct pm_class *c, enum gp_objective goal);
double pm_probe_egress(const struct pm *m, const struct pm_class *c, enum pm_goal goal);
void pm_sol_single(const struct pm *m, struct pm_sol *sol, int ci, int y, double T, double obj,
		   int oi);
void pm_sol_copy(const struct pm *m, struct pm_sol *dst, const struct pm_sol *src, int oi);
struct gp_milp *pm_cover_build(const struct pm *m, const struct pm_opt *o, const int *idx,
			       int n, double T, enum pm_goal goal, bool relax, int *cy, int *cx,
			       const struct pm_sol *ws, double *x0);
int pm_cover_solve(struct pm *m, int oi, const struct pm_opt *o, const int *idx, int n, double T,
		   enum pm_goal goal, const struct pm_sol *ws, struct pm_sol *sol, struct gp_err *e);

/* How much earlier than stage 0's the last backward of stage i of class
 * c ends (place_time.c). */
static inline double pm_class_off(const struct pm *m, const struct pm_class *c, int i)
{
	return m->cv[c->cvo + c->cvn + i];
}

/* Class c's breakpoint at mb micro-batches per replica: t_c(mb). */
static inline double pm_bp(const struct pm *m, const struct pm_class *c, int mb)
{
	return pm_curve(m, c, mb) + c->E;
}

/* place_screen.c */
void pm_class_use(const struct pm *m, const struct pm_class *c, int f[2], int g[2]);
long pm_fewest_gpus(const struct pm *m, const int *idx, int n);
int pm_probe_ws(struct pm *m, int oi, const int *idx0, int n0, double T, enum pm_goal goal,
		const struct pm_sol *ws, struct pm_sol *sol, struct gp_err *e);
int pm_probe(struct pm *m, int oi, const int *idx0, int n0, double T, enum pm_goal goal,
	     struct pm_sol *sol, struct gp_err *e);

/* place_round.c */
bool pm_round_lp(const struct pm *m, const struct pm_opt *o, const int *idx, int n, double T,
		 const double *yl, struct pm_sol *h);

/* place_uniform.c */
int pm_solve_one(struct pm *m, int oi, const int *idx, int n, double below, struct pm_sol *sol,
		 double *T, double *lo);
int pm_one_obj(const struct pm *m, int oi, const int *idx, int n, double T, enum pm_goal goal,
	       struct pm_sol *sol);
int pm_solve_uni(struct pm *m, int oi, double below, struct pm_sol *sol, double *T);
int pm_uni_obj(struct pm *m, int oi, enum gp_objective goal, double Tlim, struct pm_best *best,
	       struct pm_sol *sol, struct pm_sol *cur, int d);

/* place_warm.c */
int pm_warm_start(struct pm *m, const struct gp_plan *warm, struct pm_best *best,
		  struct pm_sol *sol, struct gp_err *e);

/* place_search.c */
double pm_work_bound(const struct pm *m);
int pm_take_incumbent(const struct pm *m, struct pm_best *best, struct pm_sol *sol,
		      const struct pm_sol *cur, double T, int oi, int d);
int pm_search(struct pm *m, enum gp_objective goal, struct pm_sol *sol, struct pm_best *best,
	      struct gp_err *e);

/* place_objective.c */
double pm_sol_objective(const struct pm *m, const struct pm_opt *o, const struct pm_sol *sol,
			enum gp_objective goal);
double pm_work_cost_bound(const struct pm *m);
int pm_wan_option(struct pm *m, int oi, const int *idx, int n, double Tstar,
		  struct pm_best *best, struct pm_sol *sol, struct pm_sol *cur, int d,
		  struct gp_err *e);
int pm_cost_option(struct pm *m, int oi, const int *idx, int n, double Tstar,
		   struct pm_best *best, struct pm_sol *sol, struct pm_sol *cur, struct pm_sol *last,
		   int d, struct gp_err *e);

/* Seconds on the monotonic clock (deadlines, the report's times). */
static inline double pm_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The request was cancelled (another thread). */
static inline bool pm_cancelled(const struct pm *m)
{
	return m->o && m->o->cancel && atomic_load_explicit(m->o->cancel, memory_order_relaxed);
}

/* Units of one simplex iteration on lp, a MILP's or (lp_only) an LP's
 * (PM_WORK_ITER). */
static inline double pm_it_work(const struct gp_milp *lp, bool lp_only)
{
	return PM_WORK_ITER + (lp_only ? PM_WORK_LP_RC : PM_WORK_ITER_RC) *
			      (gp_milp_nrows(lp) + gp_milp_ncols(lp));
}

/* A GLPK solve's simplex iterations on lp: the work left, at least 1. */
static inline long pm_it_limit(const struct pm *m, const struct gp_milp *lp, bool lp_only)
{
	double left = (m->work_limit - m->work) / pm_it_work(lp, lp_only);
	return left < 1 ? 1 : left > 1e15 ? (long)1e15 : (long)left;
}

/* Time is up: the work limit or the deadline passed, or the request
 * was cancelled. */
static inline bool pm_stop(const struct pm *m)
{
	return m->work > m->work_limit || pm_now_s() > m->deadline || pm_cancelled(m);
}

#endif
