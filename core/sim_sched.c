/*
 * sim_sched.c: the simulator's hand-off to the time-aware schedule
 * generators. Once a pipeline's stage costs are known (sim_setup.c),
 * xdc-greedy orders its tasks from them, the transfer paths between its
 * virtual stages and the memory each device has left; xdc-milp then
 * improves those orders with the schedule MILP (sched_milp.h), keeping
 * xdc-greedy's when it finds nothing in time or nothing fits the memory. The devices' task ranges
 * and memory peaks are set from the result.
 */
#include "sim_int.h"
#include "sched_milp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* How the output of virtual stage `from` reaches `to`, for the schedule
 * generators: a dedicated path is pure delay; a WAN link is a serial
 * resource shared by the pipeline's R lockstep replicas. */
static void path_cost(struct sim *s, int g, int from, int to, double *occ,
		      double *lat, int *link)
{
	struct group *gr = &s->g[g];
	int a = gp_vs_device(gr->S, gr->vshape, from);
	int b = gp_vs_device(gr->S, gr->vshape, to);
	*occ = *lat = 0;
	*link = -1;
	if (a == b)
		return;
	double bytes = gp_boundary_bytes(s->sc);
	int da = sim_stage_dc(s, g, a), db = sim_stage_dc(s, g, b);
	if (da == db) {
		*occ = sim_intra_p2p(s, g, a, b, bytes);
		return;
	}
	*link = sim_link_index(s->sc, da, db);
	*occ = bytes * gr->R / s->l[*link].bw;
	*lat = s->l[*link].lat;
}

/* xdc-milp: the schedule MILP, warm-started from xdc-greedy's orders
 * (already in gr->sc). Without a solution in time, xdc-greedy stays. */
static int solve_milp(struct sim *s, const struct gp_sched_input *in,
		      struct group *gr, struct gp_result *r)
{
	struct gp_solver_info *si = &r->solver;
	double tl = s->opt && s->opt->time_limit > 0 ? s->opt->time_limit : 10;
	double gap = s->opt ? s->opt->gap : 0;
	struct gp_schedule best;
	struct gp_milp_report rep = { 0 };
	int rc = gp_sched_milp(in, &gr->sc, tl, gap, &best, &rep, s->e);
	if (!si->present) {
		*si = (struct gp_solver_info){ .present = true, .engine = "xdc-milp",
					       .status = "optimal", .proven = true };
	}
	si->seconds += rep.seconds;
	si->rows += rep.nrows;
	si->cols += rep.ncols;
	si->binaries += rep.nints;
	if (rc == 0) {
		gp_schedule_free(&gr->sc);
		gr->sc = best;
		si->objective = fmax(si->objective, rep.objective);
		si->bound = fmax(si->bound, rep.bound);
		if (rep.status != GP_MILP_OPTIMAL) {
			si->proven = false;
			si->status = "feasible";
		}
	} else if (rep.status == GP_MILP_NOSOL) {
		/* Keep the greedy orders; say so. */
		si->proven = false;
		si->status = "nosol";
		rc = 0;
	} else if (rep.status == GP_MILP_INFEASIBLE) {
		/* No order fits the memory: the greedy orders run, and the
		 * simulator says which stage does not fit and by how much
		 * (exit 4, as with any schedule). */
		si->proven = false;
		si->status = "infeasible";
		rc = 0;
	}
	si->gap = si->objective > 0 ? (si->objective - si->bound) / si->objective : 0;
	gp_milp_report_free(&rep);
	return rc;
}

/* Generates a time-aware schedule for pipeline g from its cost tables,
 * then measures its memory like any other. */
int sim_gen_timed(struct sim *s, int g, struct gp_result *r)
{
	struct group *gr = &s->g[g];
	int VS = gr->VS, S = gr->S;
	double *a = gp_xcalloc((size_t)VS * 10 + (size_t)S, sizeof *a);
	int *links = gp_xcalloc((size_t)VS * 2, sizeof *links);
	if (!a || !links) {
		free(a);
		free(links);
		return gp_errf(s->e, "out of memory");
	}
	double *f = a, *b = f + VS, *w = b + VS, *uo = w + VS, *ul = uo + VS,
	       *dO = ul + VS, *dl = dO + VS, *act = dl + VS, *wact = act + VS,
	       *mem = wact + VS + VS;
	for (int x = 0; x < VS; x++) {
		f[x] = gr->vc[x].f;
		b[x] = gr->vc[x].b;
		w[x] = gr->vc[x].w;
		act[x] = gr->vc[x].act;
		wact[x] = gr->vc[x].wact;
		if (x + 1 < VS)
			path_cost(s, g, x, x + 1, &uo[x], &ul[x], &links[x]);
		else
			links[x] = -1;
		if (x > 0)
			path_cost(s, g, x, x - 1, &dO[x], &dl[x], &links[VS + x]);
		else
			links[VS + x] = -1;
	}
	for (int st = 0; st < S; st++) {
		int di = gr->dev0 + st;
		mem[st] = r->devs[di].mem_capacity - s->d[di].stat;
	}
	struct gp_sched_input in = {
		.S = S, .v = gr->v, .m = gr->m, .split_bw = gr->split, .vshape = gr->vshape,
		.f = f, .b = b, .w = w, .up_occ = uo, .up_lat = ul, .down_occ = dO,
		.down_lat = dl, .up_link = links, .down_link = links + VS,
		.nlinks = s->nl, .act = act, .wact = wact, .mem_free = mem,
	};
	int rc = gp_schedule_greedy(&in, &gr->sc, s->e);
	if (rc == 0 && s->plan->schedule == GP_SCHED_XDC_MILP)
		rc = solve_milp(s, &in, gr, r);
	free(a);
	free(links);
	if (rc) {
		char pre[64];
		snprintf(pre, sizeof pre, "plan.pipelines[%d]", g + 1);
		gp_err_prefix(s->e, pre);
		return -1;
	}
	for (int st = 0; st < S; st++) {
		int di = gr->dev0 + st;
		s->d[di].next = gr->sc.off[st];
		s->d[di].end = gr->sc.off[st + 1];
		r->devs[di].mem_peak = s->d[di].stat + sim_walk_peak(gr, st, gr->vc);
		sim_check_fit(s, r, di);
	}
	return 0;
}
