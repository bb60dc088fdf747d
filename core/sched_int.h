/*
 * sched_int.h: internal to the schedule MILP (sched_milp.c, sched_graph.c,
 * sched_warm.c); nobody else includes it.
 *
 * sched_graph.c turns a struct gp_sched_input into the task graph below
 * (tasks on unary resources, precedence edges, heads, tails, transitive
 * closure); sched_warm.c runs device orders on it (list execution) for a
 * warm start; sched_milp.c builds and solves the model over it.
 */
#ifndef GP_SCHED_INT_H
#define GP_SCHED_INT_H

#include <stddef.h>
#include <stdint.h>
#include "sched_milp.h"

/* Task kinds: passes, and transfers up (F) and down (B) a shared link. */
enum { SM_F, SM_B, SM_W, SM_UP, SM_DN, SM_NKINDS };

/* One task: a pass of micro-batch j on virtual stage vs, or its transfer. */
struct sm_task {
	int kind, vs, j;
	int res;          /* device, or S + link */
	int lidx;         /* index among its resource's tasks */
	double p;         /* duration (scaled) */
	int col;          /* start-time column */
};

struct sm_edge {
	int a, b;
	double lag;       /* x_b >= x_a + p_a + lag */
	bool phys;        /* a real dependency, not a micro-batch order */
};

/* The task graph of one pipeline; times scaled by unit. */
struct sm_graph {
	const struct gp_sched_input *in;
	int S, v, m, VS, R, n, ne;
	double unit;               /* time scale: input time = scaled * unit */
	struct sm_task *t;
	struct sm_edge *e;
	int *id[SM_NKINDS];        /* [vs * m + j] -> task, or -1 */
	int *rbeg, *rtask;         /* tasks of each resource (CSR) */
	int *ibeg, *iedge;         /* incoming edges of each task (CSR) */
	int *obeg, *oedge;         /* outgoing edges */
	int *topo;
	double *head, *tail;
	uint64_t *reach;           /* reach[a * words ..]: descendants of a */
	int words;
};

/* A list execution: start times, and who ran first on each resource. */
struct sm_exec {
	double *start;   /* [n] scaled */
	int *seq;        /* [n] commit order: who ran first on a resource */
	double makespan;
};

/* Input and task graph (sched_graph.c). sm_graph_build leaves g for
 * sm_graph_free even when it fails. */
int sm_check_input(const struct gp_sched_input *in, struct gp_err *e);
/* Bytes the graph's closure and the model's pair relations take, from
 * the input alone (so a graph too large is never built). */
size_t sm_graph_bytes(const struct gp_sched_input *in);
int sm_graph_build(const struct gp_sched_input *in, struct sm_graph *g,
		   struct gp_err *e);
void sm_graph_free(struct sm_graph *g);

/* Whether the precedences order a before b (the transitive closure). */
static inline bool sm_reaches(const struct sm_graph *g, int a, int b)
{
	return g->reach[(size_t)a * g->words + b / 64] >> (b % 64) & 1;
}

/* Whether the input limits activation memory at all. */
static inline bool sm_mem_limited(const struct gp_sched_input *in)
{
	return in->act && in->mem_free;
}

/* What task t adds to its device's activation memory when it runs
 * (F: allocates; B and W free). Only with sm_mem_limited. */
double sm_mem_delta(const struct sm_graph *g, const struct sm_task *t);

/* Warm starts (sched_warm.c): x->start and x->seq hold g->n entries.
 * sm_warm_exec runs the caller's schedule, 0 if the model admits it (else
 * why says why not); sm_builtin_warm runs 1F1B, else serial order. */
int sm_warm_exec(const struct sm_graph *g, const struct gp_schedule *w,
		 struct sm_exec *x, char *why, size_t whylen);
int sm_builtin_warm(const struct sm_graph *g, struct sm_exec *x);

#endif
