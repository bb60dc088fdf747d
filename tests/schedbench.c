/*
 * schedbench.c: the cross-DC schedule grids (CrossPipe's). For P1 and P2
 * (samples/p1.lua, p2.lua) the WAN latency and bandwidth delay are set to
 * multiples of the stage forward time T_F, and every schedule is
 * simulated; printed with the gain over 1F1B and the peak memory against
 * 1F1B's. Then how long xdc-greedy takes to generate as the pipeline grows.
 *
 * usage: schedbench SAMPLES_DIR
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lua_host.h"
#include "scenario.h"
#include "schedule.h"
#include "sim.h"

static struct gp_solver_info last_solver;

static double sim_time(struct gp_scenario *s, enum gp_sched k, int chunks,
		       double *mem)
{
	struct gp_plan p = s->plan;
	p.schedule = k;
	p.chunks = chunks;
	struct gp_result r;
	struct gp_err e;
	struct gp_sim_opts o = { .time_limit = 2 };
	if (gp_simulate(s, &p, &o, &r, &e))
		return NAN; /* e.g. interleaving needs a link back to the first DC */
	double t = r.iteration_time;
	last_solver = r.solver;
	*mem = 0;
	for (int i = 0; i < r.ndevs; i++)
		*mem = fmax(*mem, r.devs[i].mem_peak);
	gp_result_free(&r);
	return t;
}

static void grid(const char *path, const double *mults, int nm)
{
	struct gp_err e;
	struct gp_scenario *s = gp_scenario_load(path, &e);
	if (!s) {
		fprintf(stderr, "%s\n", e.msg);
		return;
	}
	/* T_F: the first stage's forward per micro-batch, as simulated. */
	struct gp_result r;
	if (gp_simulate(s, &s->plan, NULL, &r, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		gp_scenario_free(s);
		return;
	}
	double tf = r.devs[0].t_f, bytes = 2 * s->job.micro_batch * s->job.seq * s->model.hidden;
	gp_result_free(&r);
	printf("%s (%s): T_F = %.2f ms, boundary %.1f MB per micro-batch\n", s->name, path,
	       tf * 1e3, bytes / 1e6);
	printf("%6s %6s %10s %10s %10s %10s %10s %10s %14s %8s %8s %7s\n", "a/T_F", "b/T_F",
	       "ideal", "1f1b", "interl.x2", "zb-h1", "xdc-greedy", "xdc-V", "xdc-milp", "gain",
	       "mem", "gr/milp");
	int proven = 0, within3 = 0;
	for (int i = 0; i < nm; i++)
		for (int j = 0; j < nm; j++) {
			for (int l = 0; l < s->nlinks; l++) {
				s->links[l].latency = fmax(mults[i] * tf, 0);
				s->links[l].bandwidth = mults[j] > 0 ? bytes / (mults[j] * tf) : 1e30;
			}
			double m1, mi, mz, mg, mv, m0;
			double t1 = sim_time(s, GP_SCHED_1F1B, 1, &m1);
			double ti = sim_time(s, GP_SCHED_INTERLEAVED, 2, &mi);
			double tz = sim_time(s, GP_SCHED_ZBH1, 1, &mz);
			double tg = sim_time(s, GP_SCHED_XDC_GREEDY, 1, &mg);
			double tv = sim_time(s, GP_SCHED_XDC_GREEDY, 2, &mv);
			double mm, tm = sim_time(s, GP_SCHED_XDC_MILP, 1, &mm);
			struct gp_solver_info si = last_solver;
			for (int l = 0; l < s->nlinks; l++) {
				s->links[l].latency = 0;
				s->links[l].bandwidth = 1e30;
			}
			double t0 = fmin(sim_time(s, GP_SCHED_ZBH1, 1, &m0),
					 fmin(sim_time(s, GP_SCHED_XDC_GREEDY, 1, &m0),
					      sim_time(s, GP_SCHED_XDC_GREEDY, 2, &m0)));
			double best = fmin(tg, fmin(tv, tm));
			double ratio = tg / tm;
			if (si.proven) {
				proven++;
				within3 += ratio <= 1.03;
			}
			printf("%6.2f %6.2f %9.1fms %9.1fms %9.1fms %9.1fms %9.1fms %9.1fms %9.1fms%s %7.1f%% %7.2fx %7.3f\n",
			       mults[i], mults[j], t0 * 1e3, t1 * 1e3, ti * 1e3, tz * 1e3, tg * 1e3,
			       tv * 1e3, tm * 1e3, si.proven ? " opt" : " gap",
			       100 * (1 - best / t1), (tg <= tv ? mg : mv) / m1, ratio);
		}
	printf("xdc-milp proven optimal at %d of %d points; xdc-greedy within 3 %% of it at %d of those\n",
	       proven, nm * nm, within3);
	gp_scenario_free(s);
	printf("(ideal: the best of zb-h1 and xdc-greedy with no WAN delay; gain: the\n"
	       " best xdc schedule against 1f1b; mem: xdc-greedy's peak memory per GPU against\n"
	       " 1f1b's; nan: not possible, e.g. interleaving needs a link from the\n"
	       " last DC back to the first)\n\n");
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void gen_speed(void)
{
	printf("xdc-greedy generation time (equal stages, one WAN boundary in the middle):\n");
	int shapes[][2] = { { 8, 64 }, { 16, 256 }, { 32, 512 }, { 64, 1024 } };
	for (int k = 0; k < 4; k++) {
		int S = shapes[k][0], m = shapes[k][1], VS = S;
		static double f[256], b[256], w[256], uo[256], ul[256], dO[256], dl[256],
			act[256], wact[256], mem[256];
		static int ulink[256], dlink[256];
		for (int i = 0; i < VS; i++) {
			f[i] = 1;
			b[i] = 1;
			w[i] = 1;
			act[i] = 1;
			wact[i] = 0.4;
			mem[i] = 2.0 * S;
			uo[i] = dO[i] = 0.1;
			ul[i] = dl[i] = i == S / 2 - 1 || i == S / 2 ? 5 : 0;
			ulink[i] = i == S / 2 - 1 ? 0 : -1;
			dlink[i] = i == S / 2 ? 1 : -1;
		}
		struct gp_sched_input in = { .S = S, .v = 1, .m = m, .split_bw = true,
			.f = f, .b = b, .w = w, .up_occ = uo, .up_lat = ul, .down_occ = dO,
			.down_lat = dl, .up_link = ulink, .down_link = dlink, .nlinks = 2,
			.act = act, .wact = wact, .mem_free = mem };
		struct gp_schedule sc;
		struct gp_err e;
		double t0 = now();
		if (gp_schedule_greedy(&in, &sc, &e)) {
			fprintf(stderr, "%s\n", e.msg);
			return;
		}
		double t1 = now();
		printf("  %2d stages x %4d micro-batches: %8lld tasks in %7.2f ms\n", S, m,
		       (long long)sc.off[S], (t1 - t0) * 1e3);
		gp_schedule_free(&sc);
	}
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "samples";
	char p1[512], p2[512];
	snprintf(p1, sizeof p1, "%s/p1.lua", dir);
	snprintf(p2, sizeof p2, "%s/p2.lua", dir);
	const double g1[] = { 0, 0.5, 1, 2 }, g2[] = { 0, 0.25, 2 };
	grid(p1, g1, 4);
	grid(p2, g2, 3);
	gen_speed();
	return 0;
}
