/*
 * solver.h: a small, solver-neutral mixed-integer linear programming
 * interface (minimisation), so the model builders (placement, schedule)
 * never see a solver's API and a second solver could be added behind it.
 *
 * A model is plain data kept here: columns with bounds, an integer flag
 * and an objective coefficient; rows as sparse coefficient lists with
 * bounds. Nothing is handed to the solver until gp_milp_solve, which
 * runs in the calling thread (GLPK keeps its state per thread) and never
 * prints. Infinite bounds are -HUGE_VAL / HUGE_VAL. Indices are 0-based.
 *
 * Building is fluent: gp_milp_col and gp_milp_row return the new index,
 * or -1 after the first failure (out of memory, bad argument), which the
 * model remembers and gp_milp_solve / gp_milp_write_lp report; builders
 * need not check every call.
 */
#ifndef GP_SOLVER_H
#define GP_SOLVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include "gp.h"

struct gp_milp;
struct gp_milp_report;

enum gp_milp_status {
	GP_MILP_OPTIMAL,     /* proven optimal (within the requested gap 0) */
	GP_MILP_FEASIBLE,    /* an incumbent; gap > 0 or the gap tolerance hit */
	GP_MILP_INFEASIBLE,  /* proven to have no solution */
	GP_MILP_NOSOL,       /* no solution found within the limit (or cancel) */
	GP_MILP_ERROR,       /* bad model, or the solver failed */
};

struct gp_milp_params {
	double time_limit;         /* seconds, wall clock; <= 0: none */
	double gap;                /* relative gap to stop at; 0: prove optimum */
	const double *warm;        /* [ncols] incumbent, or NULL; used only
				    * if feasible (gp_milp_violation) */
	bool presolve;             /* the solver's MIP presolve (bound
				    * tightening) before branch and bound;
				    * ignored when a warm start is used */
	bool dual;                 /* the LPs by the dual simplex (primal if
				    * it fails): for feasibility problems
				    * (every basis dual feasible), where it
				    * is several times faster */
	bool light;                /* no cutting planes, branch on the first
				    * fractional column: for many small
				    * covering problems, where cuts and
				    * costlier branching rules do not pay */
	bool then_full;            /* with light: half the time light, then
				    * the rest with cuts and the default
				    * branching when light found nothing */
	const atomic_int *cancel;    /* non-zero: stop soon (another thread) */
	long node_limit;           /* a work limit beside time_limit, so that
				    * runs repeat: branch-and-bound nodes per
				    * branch and cut (light: half of them, as
				    * then_full halves the time); <= 0: none */
	long it_limit;             /* the same for the simplex: iterations in
				    * all (the root LP's, every node's), the
				    * root LP's it_lim and a check at each
				    * branch-and-cut callback; <= 0: none */
	/* Called from the solving thread when the incumbent or bound moves;
	 * report fields status..seconds are filled, x is not. */
	void (*progress)(void *ud, const struct gp_milp_report *r);
	void *ud;
};

struct gp_milp_report {
	enum gp_milp_status status;
	double objective;          /* of the incumbent; HUGE_VAL if none */
	double bound;              /* proven lower bound; -HUGE_VAL if none */
	double gap;                /* (objective - bound) / max(|objective|, 1e-12) */
	double seconds;            /* wall time of the solve */
	double *x;                 /* [ncols] incumbent (malloc), or NULL */
	int ncols, nrows, nints;   /* model size */
	bool warm_used;            /* the warm start was feasible and handed over */
	bool work_stopped;         /* node_limit or it_limit stopped the search
				    * (not the time) */
	bool it_stopped;           /* it_limit did */
	long iterations;           /* simplex iterations GLPK did (all phases) */
	char msg[256];             /* why: solver message, warm start note */
};

struct gp_milp *gp_milp_new(void);   /* NULL if out of memory */
void gp_milp_free(struct gp_milp *m);

int gp_milp_col(struct gp_milp *m, const char *name, double lo, double hi,
		bool integer, double obj);
/* lo <= sum val[k] * x[col[k]] <= hi; a column may appear once. */
int gp_milp_row(struct gp_milp *m, const char *name, int n, const int *col,
		const double *val, double lo, double hi);

int gp_milp_ncols(const struct gp_milp *m);
int gp_milp_nrows(const struct gp_milp *m);

/* Largest violation of a bound, row or integrality by x (absolute, rows
 * scaled by 1 + |rhs|); 0 means feasible. */
double gp_milp_violation(const struct gp_milp *m, const double *x);

/* Solves. Returns 0 when r->status says what happened (including
 * INFEASIBLE and NOSOL), -1 with e set when status is ERROR. Free r->x
 * with gp_milp_report_free either way. */
int gp_milp_solve(struct gp_milp *m, const struct gp_milp_params *p,
		  struct gp_milp_report *r, struct gp_err *e);
void gp_milp_report_free(struct gp_milp_report *r);

/* Writes the model in CPLEX LP format (for cross-checks with CBC). */
int gp_milp_write_lp(struct gp_milp *m, const char *path, struct gp_err *e);

const char *gp_milp_status_name(enum gp_milp_status s);

#endif
