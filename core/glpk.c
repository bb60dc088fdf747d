/*
 * glpk.c: the solver interface (solver.h) on GLPK, the only file that
 * includes glpk.h.
 *
 * The model lives in our own arrays and becomes a glp_prob only inside
 * a solve, so a GLPK failure cannot take the model with it. GLPK keeps
 * its environment per thread; each call installs, in the calling thread,
 * a terminal hook that swallows all output (GLPK forces output on before
 * it reports a fatal error, so glp_term_out(GLP_OFF) alone is not enough)
 * and an error hook that longjmps back here. After such a jump the GLPK
 * manual allows one thing only, glp_free_env(), which frees every GLPK
 * object of the thread; we call it after every solve anyway, so nothing of
 * GLPK outlives a call (and leak checkers stay quiet).
 *
 * The root LP is solved first with the simplex method and presolve off,
 * because a warm start goes in through the branch-and-cut callback
 * (glp_ios_heur_sol at GLP_IHEUR), which needs the tree to work on our
 * own columns, not on a presolved copy. Without a warm start a caller
 * may ask for GLPK's MIP presolver instead (params.presolve): its bound
 * tightening settles some covering problems in a tenth of the time
 * branch and bound takes (the placement MILP's probes).
 */
#include "solver.h"

#include <float.h>
#include <limits.h>
#include <glpk.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARM_TOL 1e-6

struct mcol {
	double lo, hi, obj;
	bool integer;
	int64_t name;       /* offset into names */
};

struct mrow {
	double lo, hi;
	int64_t beg, name;  /* first coefficient; offset into names */
	int n;
};

struct gp_milp {
	struct mcol *col;
	struct mrow *row;
	int ncol, nrow, capcol, caprow;
	int *ci;            /* coefficients: column, value */
	double *cv;
	int64_t nnz, capnz;
	char *names;
	int64_t nlen, caplen;
	char err[256];      /* first build error; sticky */
};

/* ------------------------------------------------------------------ */
/* Building                                                            */

static bool grow(void **p, int64_t *cap, int64_t need, size_t size)
{
	if (need <= *cap)
		return true;
	int64_t c = *cap ? *cap : 64;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * size);
	if (!q)
		return false;
	*p = q;
	*cap = c;
	return true;
}

static int fail(struct gp_milp *m, const char *what)
{
	if (!m->err[0])
		snprintf(m->err, sizeof m->err, "%s", what);
	return -1;
}

static int64_t add_name(struct gp_milp *m, const char *name)
{
	if (!name)
		name = "";
	size_t n = strlen(name) + 1;
	if (n > 200)
		return fail(m, "solver: a name is longer than 200 characters");
	if (!grow((void **)&m->names, &m->caplen, m->nlen + (int64_t)n, 1))
		return fail(m, "solver: out of memory");
	memcpy(m->names + m->nlen, name, n);
	m->nlen += (int64_t)n;
	return m->nlen - (int64_t)n;
}

struct gp_milp *gp_milp_new(void)
{
	return calloc(1, sizeof(struct gp_milp));
}

void gp_milp_free(struct gp_milp *m)
{
	if (!m)
		return;
	free(m->col);
	free(m->row);
	free(m->ci);
	free(m->cv);
	free(m->names);
	free(m);
}

int gp_milp_col(struct gp_milp *m, const char *name, double lo, double hi,
		bool integer, double obj)
{
	if (m->err[0])
		return -1;
	if (isnan(lo) || isnan(hi) || lo > hi || lo == HUGE_VAL || hi == -HUGE_VAL || !isfinite(obj))
		return fail(m, "solver: a column has bad bounds or objective");
	int64_t cap = m->capcol;
	if (!grow((void **)&m->col, &cap, m->ncol + 1, sizeof *m->col))
		return fail(m, "solver: out of memory");
	m->capcol = (int)cap;
	int64_t nm = add_name(m, name);
	if (nm < 0)
		return -1;
	m->col[m->ncol] = (struct mcol){ lo, hi, obj, integer, nm };
	return m->ncol++;
}

int gp_milp_row(struct gp_milp *m, const char *name, int n, const int *col,
		const double *val, double lo, double hi)
{
	if (m->err[0])
		return -1;
	if (n < 0 || isnan(lo) || isnan(hi) || lo > hi || lo == HUGE_VAL || hi == -HUGE_VAL)
		return fail(m, "solver: a row has bad bounds");
	for (int k = 0; k < n; k++)
		if (col[k] < 0 || col[k] >= m->ncol || !isfinite(val[k]))
			return fail(m, "solver: a row names a bad column or coefficient");
	int64_t cap = m->caprow;
	if (!grow((void **)&m->row, &cap, m->nrow + 1, sizeof *m->row))
		return fail(m, "solver: out of memory");
	m->caprow = (int)cap;
	int64_t c1 = m->capnz, c2 = m->capnz;
	if (!grow((void **)&m->ci, &c1, m->nnz + n, sizeof *m->ci) ||
	    !grow((void **)&m->cv, &c2, m->nnz + n, sizeof *m->cv))
		return fail(m, "solver: out of memory");
	m->capnz = c1 < c2 ? c1 : c2;
	int64_t nm = add_name(m, name);
	if (nm < 0)
		return -1;
	memcpy(m->ci + m->nnz, col, sizeof *col * (size_t)n);
	memcpy(m->cv + m->nnz, val, sizeof *val * (size_t)n);
	m->row[m->nrow] = (struct mrow){ lo, hi, m->nnz, nm, n };
	m->nnz += n;
	return m->nrow++;
}

int gp_milp_ncols(const struct gp_milp *m) { return m->ncol; }
int gp_milp_nrows(const struct gp_milp *m) { return m->nrow; }

/* ------------------------------------------------------------------ */
/* Checking a point                                                    */

static double excess(double a, double lo, double hi)
{
	return a < lo ? lo - a : a > hi ? a - hi : 0;
}

/* Worst violation and which row (>= 0) or column (-1 - j) has it. */
static double worst(const struct gp_milp *m, const double *x, int *which)
{
	double w = 0;
	*which = 0;
	for (int j = 0; j < m->ncol; j++) {
		const struct mcol *c = &m->col[j];
		double v = excess(x[j], c->lo, c->hi);
		if (c->integer && fabs(x[j] - round(x[j])) > v)
			v = fabs(x[j] - round(x[j]));
		if (!(v <= w)) {   /* also catches NaN */
			w = isnan(v) ? HUGE_VAL : v;
			*which = -1 - j;
		}
	}
	for (int i = 0; i < m->nrow; i++) {
		const struct mrow *r = &m->row[i];
		double a = 0, s = 1;
		for (int k = 0; k < r->n; k++)
			a += m->cv[r->beg + k] * x[m->ci[r->beg + k]];
		if (isfinite(r->lo) && fabs(r->lo) + 1 > s)
			s = fabs(r->lo) + 1;
		if (isfinite(r->hi) && fabs(r->hi) + 1 > s)
			s = fabs(r->hi) + 1;
		double v = excess(a, r->lo, r->hi) / s;
		if (!(v <= w)) {
			w = isnan(v) ? HUGE_VAL : v;
			*which = i;
		}
	}
	return w;
}

double gp_milp_violation(const struct gp_milp *m, const double *x)
{
	int which;
	return worst(m, x, &which);
}

static double objective(const struct gp_milp *m, const double *x)
{
	double z = 0;
	for (int j = 0; j < m->ncol; j++)
		z += m->col[j].obj * x[j];
	return z;
}

/* The bound the column bounds alone prove. */
static double trivial_bound(const struct gp_milp *m)
{
	double z = 0;
	for (int j = 0; j < m->ncol; j++) {
		double c = m->col[j].obj;
		if (c)
			z += c * (c > 0 ? m->col[j].lo : m->col[j].hi);
	}
	return isnan(z) ? -HUGE_VAL : z;
}

/* ------------------------------------------------------------------ */
/* The guarded GLPK run                                                */

/* Everything a run changes lives here, on the heap, so its values are
 * well defined after a longjmp (unlike non-volatile locals). */
struct run {
	jmp_buf jb;
	const struct gp_milp *m;
	const struct gp_milp_params *p;
	struct gp_milp_report *r;
	double t0;
	double *warm1;        /* 1-based warm start, or NULL */
	bool warm_given;
	char log[256];        /* GLPK's output since the last reset */
	size_t loglen;
	const char *path;     /* gp_milp_write_lp */
	int glp_ret;
	bool jumped;          /* GLPK hit an internal error */
	long nodes;           /* this branch and cut's node limit (0: none) */
	bool node_stop;       /* it stopped there */
	bool it_stop;         /* p->it_limit stopped the solve */
	glp_prob *P;          /* the problem as built (branch and cut may work
			       * on a presolved copy) */
	int bc_base;          /* P's simplex iterations before this branch and cut */
	long bc_its;          /* the most this branch and cut was seen to do */
};

/* Simplex iterations the solve has done so far: those of the phases
 * before (r->iterations) and of the branch and cut under way. */
static long its_now(const struct run *run)
{
	return run->r->iterations + run->bc_its;
}

/* Iterations left of p->it_limit (LONG_MAX: no limit). */
static long its_left(const struct run *run)
{
	long lim = run->p->it_limit;
	return lim > 0 ? (its_now(run) < lim ? lim - its_now(run) : 0) : LONG_MAX;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int term_hook(void *info, const char *s)
{
	struct run *run = info;
	size_t n = strlen(s), room = sizeof run->log - 1 - run->loglen;
	if (n > room)
		n = room;
	memcpy(run->log + run->loglen, s, n);
	run->loglen += n;
	run->log[run->loglen] = '\0';
	return 1;   /* never to the terminal */
}

static void error_hook(void *info)
{
	struct run *run = info;
	/* Keep GLPK's message, not its "Error detected in file" line. */
	char *nl = strchr(run->log, '\n');
	if (nl)
		*nl = '\0';
	longjmp(run->jb, 1);
}

static int bound_type(double lo, double hi)
{
	if (isinf(lo) && isinf(hi))
		return GLP_FR;
	if (isinf(hi))
		return GLP_LO;
	if (isinf(lo))
		return GLP_UP;
	return lo == hi ? GLP_FX : GLP_DB;
}

static glp_prob *build(const struct gp_milp *m)
{
	glp_prob *P = glp_create_prob();
	glp_set_obj_dir(P, GLP_MIN);
	if (m->ncol)
		glp_add_cols(P, m->ncol);
	for (int j = 0; j < m->ncol; j++) {
		const struct mcol *c = &m->col[j];
		if (m->names[c->name])
			glp_set_col_name(P, j + 1, m->names + c->name);
		glp_set_col_kind(P, j + 1, c->integer ? GLP_IV : GLP_CV);
		glp_set_col_bnds(P, j + 1, bound_type(c->lo, c->hi), c->lo, c->hi);
		glp_set_obj_coef(P, j + 1, c->obj);
	}
	if (m->nrow)
		glp_add_rows(P, m->nrow);
	/* GLPK's arrays are 1-based; glp_alloc'd memory goes with the
	 * environment, so an error jump cannot leak it. */
	int maxn = 1;
	for (int i = 0; i < m->nrow; i++)
		maxn = m->row[i].n > maxn ? m->row[i].n : maxn;
	int *ind = glp_alloc(maxn + 1, sizeof *ind);
	double *val = glp_alloc(maxn + 1, sizeof *val);
	for (int i = 0; i < m->nrow; i++) {
		const struct mrow *r = &m->row[i];
		if (m->names[r->name])
			glp_set_row_name(P, i + 1, m->names + r->name);
		glp_set_row_bnds(P, i + 1, bound_type(r->lo, r->hi), r->lo, r->hi);
		for (int k = 0; k < r->n; k++) {
			ind[k + 1] = m->ci[r->beg + k] + 1;
			val[k + 1] = m->cv[r->beg + k];
		}
		glp_set_mat_row(P, i + 1, r->n, ind, val);
	}
	glp_free(ind);
	glp_free(val);
	return P;
}

static void progress(struct run *run)
{
	struct gp_milp_report *r = run->r;
	r->seconds = now() - run->t0;
	if (run->p->progress)
		run->p->progress(run->p->ud, r);
}

static void set_gap(struct gp_milp_report *r)
{
	if (r->bound > r->objective)
		r->bound = r->objective;
	double d = fabs(r->objective) > 1e-12 ? fabs(r->objective) : 1e-12;
	r->gap = isfinite(r->objective) && isfinite(r->bound)
		 ? (r->objective - r->bound) / d : HUGE_VAL;
}

static void callback(glp_tree *T, void *info)
{
	struct run *run = info;
	struct gp_milp_report *r = run->r;
	if (run->p->cancel && atomic_load_explicit(run->p->cancel, memory_order_relaxed))
		glp_ios_terminate(T);
	/* The simplex iterations so far (those of a presolved copy count
	 * from 0): past the limit, stop, as deterministic as the nodes. */
	glp_prob *Q = glp_ios_get_prob(T);
	long it = glp_get_it_cnt(Q) - (Q == run->P ? run->bc_base : 0);
	if (it > run->bc_its)
		run->bc_its = it;
	if (run->p->it_limit > 0 && !run->it_stop && its_left(run) == 0) {
		run->it_stop = r->work_stopped = r->it_stopped = true;
		glp_ios_terminate(T);
	}
	if (run->nodes > 0 && !run->node_stop) {
		int a, n, t;
		glp_ios_tree_size(T, &a, &n, &t);
		if (t > run->nodes) {
			run->node_stop = r->work_stopped = true;
			glp_ios_terminate(T);
		}
	}
	bool moved = false;
	int best = glp_ios_best_node(T);
	if (best) {
		double b = glp_ios_node_bound(T, best);
		if (b > -DBL_MAX / 2 && b > r->bound) {
			r->bound = b;
			moved = true;
		}
	}
	switch (glp_ios_reason(T)) {
	case GLP_IHEUR:
		if (run->warm1 && !run->warm_given) {
			run->warm_given = true;
			if (glp_ios_heur_sol(T, run->warm1) == 0)
				r->warm_used = true;
		}
		break;
	case GLP_IBINGO:
		moved = true;
		break;
	default:
		break;
	}
	if (!moved)
		return;
	glp_prob *P = glp_ios_get_prob(T);
	if (glp_mip_status(P) == GLP_FEAS) {
		r->objective = glp_mip_obj_val(P);
		r->status = GP_MILP_FEASIBLE;
		set_gap(r);
	}
	progress(run);
}

static int ms_left(const struct run *run)
{
	double lim = run->p->time_limit;
	if (!(lim > 0))
		return INT32_MAX;
	double left = (lim - (now() - run->t0)) * 1000;
	return left < 1 ? 1 : left > INT32_MAX ? INT32_MAX : (int)left;
}

static bool time_up(const struct run *run)
{
	return run->p->time_limit > 0 && now() - run->t0 >= run->p->time_limit;
}

/* The root LP; false when there is nothing more to do. */
static bool root_lp(struct run *run, glp_prob *P)
{
	struct gp_milp_report *r = run->r;
	glp_smcp sp;
	glp_init_smcp(&sp);
	sp.msg_lev = GLP_MSG_OFF;
	sp.tm_lim = ms_left(run);
	long left = its_left(run);
	if (left < INT32_MAX)
		sp.it_lim = left > 0 ? (int)left : 1;
	if (run->p->dual)
		sp.meth = GLP_DUALP;
	int before = glp_get_it_cnt(P);
	int ret = glp_simplex(P, &sp);
	r->iterations += glp_get_it_cnt(P) - before;
	int st = glp_get_status(P);
	if (ret == 0 && st == GLP_OPT) {
		double b = glp_get_obj_val(P);
		if (b > r->bound)
			r->bound = b;
		return true;
	}
	if (ret == 0 && st == GLP_NOFEAS) {
		r->status = GP_MILP_INFEASIBLE;
	} else if (ret == 0 && st == GLP_UNBND) {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "the LP relaxation is unbounded");
	} else if (ret == GLP_ETMLIM) {
		r->status = GP_MILP_NOSOL;
		snprintf(r->msg, sizeof r->msg, "time limit reached in the root LP");
	} else if (ret == GLP_EITLIM) {
		r->status = GP_MILP_NOSOL;
		run->it_stop = r->work_stopped = r->it_stopped = true;
		snprintf(r->msg, sizeof r->msg, "iteration limit reached in the root LP");
	} else {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "the root LP failed (GLPK code %d)", ret);
	}
	return false;
}

static void branch_and_cut(struct run *run, glp_prob *P, bool presolve, bool light, double share)
{
	struct gp_milp_report *r = run->r;
	glp_iocp ip;
	glp_init_iocp(&ip);
	ip.msg_lev = GLP_MSG_OFF;
	ip.presolve = presolve ? GLP_ON : GLP_OFF;
	ip.tm_lim = ms_left(run);
	if (share < 1 && ip.tm_lim < INT32_MAX)
		ip.tm_lim = (int)(ip.tm_lim * share) + 1;
	ip.mip_gap = run->p->gap > 0 ? run->p->gap : 0;
	/* Measured on 8-stage, 16-micro-batch schedules: MIR cuts lift the
	 * big-M bound; other cuts, the feasibility pump and proximity search
	 * (which spends its own time budget) did not pay. */
	ip.mir_cuts = GLP_ON;
	/* Measured on the placement MILP's probes (16 DCs x 4 GPU types,
	 * 1 % gap): 4.0 s with MIR cuts and Driebeck-Tomlin branching, 2.0 s
	 * without cuts and branching on the first fractional column. */
	if (light) {
		ip.mir_cuts = GLP_OFF;
		ip.br_tech = GLP_BR_FFV;
	}
	ip.cb_func = callback;
	ip.cb_info = run;
	long nl = run->p->node_limit;
	run->nodes = nl > 0 ? (share < 1 ? (long)(nl * share) + 1 : nl) : 0;
	run->node_stop = false;
	run->bc_base = glp_get_it_cnt(P);
	run->bc_its = 0;
	int ret = glp_intopt(P, &ip);
	long it = glp_get_it_cnt(P) - run->bc_base;
	r->iterations += it > run->bc_its ? it : run->bc_its;
	run->bc_its = 0;
	run->glp_ret = ret;
	int st = glp_mip_status(P);
	if (ret == GLP_ENOPFS) {   /* the presolver (or its LP) found no point */
		r->status = GP_MILP_INFEASIBLE;
		return;
	}
	if (ret == GLP_ENODFS) {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "the LP relaxation is unbounded");
		return;
	}
	if (ret == GLP_EFAIL || ret == GLP_EROOT || ret == GLP_EBOUND) {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "branch and cut failed (GLPK code %d)", ret);
		return;
	}
	if (st == GLP_OPT || st == GLP_FEAS) {
		r->objective = glp_mip_obj_val(P);
		for (int j = 0; j < run->m->ncol; j++)
			r->x[j] = glp_mip_col_val(P, j + 1);
	}
	if (st == GLP_OPT) {
		r->status = GP_MILP_OPTIMAL;
		r->bound = r->objective;
	} else if (st == GLP_FEAS) {
		r->status = GP_MILP_FEASIBLE;
		if (ret == 0)   /* search complete: the incumbent is optimal */
			r->bound = r->objective;
	} else if (st == GLP_NOFEAS) {
		r->status = GP_MILP_INFEASIBLE;
	} else {
		r->status = GP_MILP_NOSOL;
	}
}

static void guarded_solve(struct run *run)
{
	glp_prob *P = build(run->m);
	run->P = P;
	bool pre = run->p->presolve && !run->warm1;
	if (!pre && !(root_lp(run, P) && !time_up(run))) {
		glp_delete_prob(P);
		return;
	}
	/* Light settings are fast on most problems and hopeless on a few,
	 * which the full ones settle (and the other way round: one placement
	 * probe took 14 s light and 0.3 s full, another 0.5 s light and over
	 * 20 s full): half the time light, then what is left full. */
	if (run->p->light && run->p->then_full) {
		branch_and_cut(run, P, pre, true, 0.5);
		if (run->r->status == GP_MILP_NOSOL && !time_up(run) && !run->it_stop &&
		    (run->glp_ret == GLP_ETMLIM || (run->glp_ret == GLP_ESTOP && run->node_stop))) {
			run->r->work_stopped = false;
			branch_and_cut(run, P, pre, false, 1);
		}
	} else {
		branch_and_cut(run, P, pre, run->p->light, 1);
	}
	glp_delete_prob(P);
}

static void guarded_write(struct run *run)
{
	glp_prob *P = build(run->m);
	run->glp_ret = glp_write_lp(P, NULL, run->path);
	glp_delete_prob(P);
}

/* Runs fn with GLPK's hooks installed; false if GLPK hit an error. */
static bool guarded(struct run *run, void (*fn)(struct run *))
{
	glp_term_out(GLP_OFF);
	glp_term_hook(term_hook, run);
	glp_error_hook(error_hook, run);
	if (setjmp(run->jb))
		run->jumped = true;
	else
		fn(run);
	glp_free_env();
	return !run->jumped;
}

/* ------------------------------------------------------------------ */
/* Solving                                                             */

/* Checks and rounds the warm start into a 1-based vector for GLPK. */
static void prepare_warm(struct run *run)
{
	const struct gp_milp *m = run->m;
	struct gp_milp_report *r = run->r;
	double *w = malloc(sizeof *w * ((size_t)m->ncol + 1));
	if (!w) {
		snprintf(r->msg, sizeof r->msg, "warm start dropped: out of memory");
		return;
	}
	w[0] = 0;
	for (int j = 0; j < m->ncol; j++)
		w[j + 1] = m->col[j].integer ? round(run->p->warm[j]) : run->p->warm[j];
	int which;
	double v = worst(m, w + 1, &which);
	if (v > WARM_TOL) {
		const char *nm = m->names + (which >= 0 ? m->row[which].name
					     : m->col[-1 - which].name);
		snprintf(r->msg, sizeof r->msg, "warm start rejected: %s %s violated by %.3g",
			 which >= 0 ? "row" : "column", nm, v);
		free(w);
		return;
	}
	run->warm1 = w;
}

/* Without an incumbent of its own, a feasible warm start is the answer. */
static void fall_back_to_warm(struct run *run)
{
	struct gp_milp_report *r = run->r;
	if (!run->warm1 || r->status == GP_MILP_INFEASIBLE || r->status == GP_MILP_ERROR)
		return;
	double z = objective(run->m, run->warm1 + 1);
	if (r->status == GP_MILP_NOSOL || z < r->objective) {
		memcpy(r->x, run->warm1 + 1, sizeof *r->x * (size_t)run->m->ncol);
		r->objective = z;
		r->status = GP_MILP_FEASIBLE;
		r->warm_used = true;
	}
}

static void finish(struct run *run)
{
	struct gp_milp_report *r = run->r;
	fall_back_to_warm(run);
	if (r->status == GP_MILP_FEASIBLE || r->status == GP_MILP_OPTIMAL) {
		set_gap(r);
		if (r->status == GP_MILP_FEASIBLE && r->gap <= 1e-9 && run->glp_ret == 0)
			r->status = GP_MILP_OPTIMAL;
	} else {
		free(r->x);
		r->x = NULL;
		r->objective = HUGE_VAL;
		r->gap = HUGE_VAL;
	}
	r->seconds = now() - run->t0;
}

int gp_milp_solve(struct gp_milp *m, const struct gp_milp_params *p,
		  struct gp_milp_report *r, struct gp_err *e)
{
	static const struct gp_milp_params none = { 0 };
	if (!p)
		p = &none;
	*r = (struct gp_milp_report){
		.status = GP_MILP_NOSOL, .objective = HUGE_VAL, .bound = -HUGE_VAL,
		.gap = HUGE_VAL, .ncols = m->ncol, .nrows = m->nrow,
	};
	for (int j = 0; j < m->ncol; j++)
		r->nints += m->col[j].integer;
	if (m->err[0]) {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "%s", m->err);
		return gp_errf(e, "%s", m->err);
	}
	struct run *run = calloc(1, sizeof *run);
	r->x = malloc(sizeof *r->x * ((size_t)m->ncol + 1));
	if (!run || !r->x) {
		free(run);
		free(r->x);
		r->x = NULL;
		r->status = GP_MILP_ERROR;
		return gp_errf(e, "solver: out of memory");
	}
	run->m = m;
	run->p = p;
	run->r = r;
	run->t0 = now();
	r->bound = trivial_bound(m);
	if (p->warm)
		prepare_warm(run);
	if (!guarded(run, guarded_solve)) {
		r->status = GP_MILP_ERROR;
		snprintf(r->msg, sizeof r->msg, "GLPK: %s", run->log[0] ? run->log : "internal error");
	}
	finish(run);
	free(run->warm1);
	int rc = 0;
	if (r->status == GP_MILP_ERROR)
		rc = gp_errf(e, "solver: %s", r->msg);
	free(run);
	return rc;
}

void gp_milp_report_free(struct gp_milp_report *r)
{
	free(r->x);
	r->x = NULL;
}

int gp_milp_write_lp(struct gp_milp *m, const char *path, struct gp_err *e)
{
	if (m->err[0])
		return gp_errf(e, "%s", m->err);
	struct run *run = calloc(1, sizeof *run);
	if (!run)
		return gp_errf(e, "solver: out of memory");
	run->m = m;
	run->path = path;
	int rc = 0;
	if (!guarded(run, guarded_write))
		rc = gp_errf(e, "%s: GLPK: %s", path, run->log[0] ? run->log : "internal error");
	else if (run->glp_ret)
		rc = gp_errf(e, "%s: cannot write the LP file", path);
	free(run);
	return rc;
}

const char *gp_milp_status_name(enum gp_milp_status s)
{
	static const char *const names[] = {
		[GP_MILP_OPTIMAL] = "optimal",
		[GP_MILP_FEASIBLE] = "feasible",
		[GP_MILP_INFEASIBLE] = "infeasible",
		[GP_MILP_NOSOL] = "no solution",
		[GP_MILP_ERROR] = "error",
	};
	return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}
