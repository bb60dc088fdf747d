/*
 * place_refute.c: the placement MILP's proof held against the plans one
 * layer from its own (place_int.h).
 *
 * The proof covers plans whose every class runs one layer split, the
 * fastest of those the classes are given (place_split.c). A plan that
 * runs two splits of one class is outside it and can be faster: the
 * replicas' gradient buckets then come due at different times, and the
 * DP sync overlaps them otherwise (a 3-DC Llama-2-7B case of the ring
 * family in make bench: the bound 268.3 ms, a plan with one replica's
 * layer moved across a boundary 267.2 ms). Before the status says
 * optimal, each pipeline's nearest such plans are simulated: one
 * replica (the whole pipeline when it has one) with a layer moved
 * across one boundary, either way. One below the bound refutes the
 * proof: the status is feasible, the bound the work bound, and the note
 * says which plan did it. Passing the check proves nothing more; it
 * only keeps "optimal" from standing where a neighbour beats it.
 */
#include "place_int.h"
#include "planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Into v (a copy of p with room for one more pipeline): pipeline pi
 * with the layer at boundary b (after its stage b) moved dir (+1: the
 * later stage's first layer to the earlier stage; -1: the other way),
 * for one replica (split off as a pipeline of its own when pi has more).
 * False when a stage would be left without layers. */
static bool near_plan(const struct gp_plan *p, int pi, int b, int dir, struct gp_plan *v)
{
	const struct gp_pipeline *pp = &p->pipes[pi];
	struct gp_stage *lo = &v->pipes[pi].stages[b], *hi = lo + 1;
	for (int i = 0; i < p->npipes; i++) {
		v->pipes[i].replicas = p->pipes[i].replicas;
		memcpy(v->pipes[i].stages, p->pipes[i].stages,
		       (size_t)p->pipes[i].nstages * sizeof *pp->stages);
	}
	v->npipes = p->npipes;
	if ((dir > 0 && hi->first >= hi->last) || (dir < 0 && lo->first >= lo->last))
		return false;
	if (pp->replicas > 1) {
		/* The moved replica: a pipeline of its own, last. */
		struct gp_pipeline *x = &v->pipes[p->npipes];
		memcpy(x->stages, pp->stages, (size_t)pp->nstages * sizeof *pp->stages);
		x->nstages = pp->nstages;
		x->micro_batches = pp->micro_batches;
		x->replicas = 1;
		v->pipes[pi].replicas--;
		v->npipes++;
		lo = &x->stages[b];
		hi = lo + 1;
	}
	lo->last += dir;
	hi->first += dir;
	return true;
}

/* A copy of p with one more pipeline's room (the largest's stages). */
static int near_room(const struct gp_plan *p, struct gp_plan *v)
{
	int Smax = 0;
	*v = *p;
	v->pipes = gp_xcalloc((size_t)p->npipes + 1, sizeof *v->pipes);
	if (!v->pipes)
		return -1;
	for (int i = 0; i < p->npipes; i++)
		Smax = p->pipes[i].nstages > Smax ? p->pipes[i].nstages : Smax;
	for (int i = 0; i <= p->npipes; i++) {
		const struct gp_pipeline *src = &p->pipes[i < p->npipes ? i : 0];
		v->pipes[i] = *src;
		v->pipes[i].stages = gp_xcalloc((size_t)Smax, sizeof *src->stages);
		if (!v->pipes[i].stages)
			return -1;
	}
	return 0;
}

static void near_free(struct gp_plan *v, int n)
{
	for (int i = 0; v->pipes && i < n; i++)
		free(v->pipes[i].stages);
	free(v->pipes);
}

/* place_int.h. 0, or -1 out of memory (the proof then stands unchecked,
 * said so in the note). */
int pm_refute_near(const struct pm *m, const struct gp_plan *p, struct gp_plan_report *rep)
{
	struct gp_plan v = { 0 };
	int tried = 0, rc = near_room(p, &v);
	double low = INF;
	bool cut = false;
	for (int pi = 0; rc == 0 && pi < p->npipes && !cut; pi++)
		for (int b = 0; b + 1 < p->pipes[pi].nstages && !cut; b++)
			for (int dir = -1; dir <= 1 && !cut; dir += 2) {
				if (!near_plan(p, pi, b, dir, &v))
					continue;
				double t = pm_own_sim(m, &v);
				cut = isnan(t);
				tried += !cut;
				low = fmin(low, isnan(t) ? INF : t);
			}
	near_free(&v, p->npipes + 1);
	size_t l = strlen(rep->note);
	if (rc) {
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; the plans one layer from its own not simulated (out of memory)");
		return -1;
	}
	if (!(low < rep->bound * (1 - 1e-9))) {
		snprintf(rep->note + l, sizeof rep->note - l,
			 "; %d plan%s one layer from its own (a replica's split moved at a boundary) simulated, none below the bound%s",
			 tried, tried == 1 ? "" : "s", cut ? " (the rest cut by the time limit)" : "");
		return 0;
	}
	gp_plan_refute(rep, low,
		       "one layer from its own (a replica's split moved at a boundary, outside the space's one split a class)");
	return 0;
}
