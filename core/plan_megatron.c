/*
 * plan_megatron.c: the megatron engine of planner.h, a reference the
 * placement MILP is measured against: uniform TP x PP x DP on one GPU
 * type, blind to the WAN. GPUs are taken in DC order, ranks in
 * Megatron-LM's order (TP innermost, then DP, then PP; Narayanan et al.,
 * SC '21), layers split equally. Every (TP, PP) of every GPU type, with
 * the most replicas that fit and divide the batch, is estimated
 * (estimate.c); the best MEGATRON_SIMS are simulated.
 */
#include "baseline.h"
#include "fmt.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MEGATRON_SIMS 50     /* simulated layouts, best estimates first */

struct mg_cand {
	double est;   /* first: bl_cmp_est */
	int gi, t, p, d;
};

/* TP groups of GPU type gi at degree t over all its pools, in DC order;
 * fills the first cap of them into sdc/spool when given. */
static int type_slots(const struct gp_scenario *s, int gi, int t, int *sdc, int *spool, int cap)
{
	int n = 0;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = &s->dcs[d].pools[q];
			if (p->gpu != gi || !bl_tp_ok(s, p, t))
				continue;
			int k = bl_pool_slots(p, t);
			for (int i = 0; sdc && i < k && n + i < cap; i++) {
				sdc[n + i] = d;
				spool[n + i] = q;
			}
			n = k > INT_MAX - n ? INT_MAX : n + k;
		}
	return n;
}

/* The layout: stage j of replica i on slot j d + i (Megatron-LM's rank
 * order: TP innermost, then DP, then PP); replicas whose stages sit in
 * the same pools are one pipeline of the plan. */
static int megatron_build(const struct bl_ctx *c, const struct mg_cand *k, struct gp_plan *out)
{
	const struct gp_scenario *s = c->sc;
	/* The layout uses the first p d slots only (a pool of a billion
	 * GPUs has more). */
	int N = k->p * k->d, L = s->model.layers;
	int *sdc = malloc((size_t)N * sizeof *sdc), *spool = malloc((size_t)N * sizeof *spool);
	struct gp_stage *st = malloc((size_t)k->p * sizeof *st);
	struct bl_builder b;
	bl_builder_init(&b, c->eval);
	if (!sdc || !spool || !st) {
		b.oom = true;
	} else {
		type_slots(s, k->gi, k->t, sdc, spool, N);
		int m = c->M / k->d;
		for (int i = 0; i < k->d;) {
			int i2 = i + 1;
			while (i2 < k->d) {
				bool same = true;
				for (int j = 0; j < k->p && same; j++)
					same = sdc[j * k->d + i] == sdc[j * k->d + i2] &&
					       spool[j * k->d + i] == spool[j * k->d + i2];
				if (!same)
					break;
				i2++;
			}
			/* Equal split; the first L % p stages take one more. */
			for (int j = 0, next = 1; j < k->p; j++) {
				int n = L / k->p + (j < L % k->p);
				st[j] = bl_mkstage(s, sdc[j * k->d + i], spool[j * k->d + i], k->t,
						next, next + n - 1);
				next += n;
			}
			bl_builder_pipe(&b, st, k->p, i2 - i, m);
			i = i2;
		}
	}
	free(sdc);
	free(spool);
	free(st);
	return bl_builder_take(&b, out);
}

/* Every (GPU type, TP, PP) with the most replicas that fit and divide
 * the batch, estimated (INF when it cannot be built), until the deadline
 * once there is one. -1: out of memory. */
static int mg_candidates(struct bl_ctx *c, struct mg_cand **out, int *nout)
{
	const struct gp_scenario *s = c->sc;
	int L = s->model.layers, n = 0, cap = 64;
	struct mg_cand *cand = malloc((size_t)cap * sizeof *cand);
	if (!cand)
		return -1;
	for (int gi = 0; gi < s->ngpus; gi++)
		for (int t = 1; t <= 1024; t *= 2) {
			int N = type_slots(s, gi, t, NULL, NULL, 0);
			for (int p = 1; p <= L && p <= N && !(n && bl_out_of_time(c)); p++) {
				/* The most replicas the slots and the budget allow. */
				int d = N / p, dsl = bl_afford(c, s->gpus[gi].price_per_hour, t * p, 1);
				if (dsl < d)
					d = dsl;
				if (d < 1)
					continue;
				if (d > c->M)
					d = c->M;   /* a replica takes one micro-batch at least */
				while (d > 1 && c->M % d)
					d--;
				if (n == cap) {
					struct mg_cand *nc = realloc(cand, (size_t)(cap *= 2) * sizeof *nc);
					if (!nc) {
						free(cand);
						return -1;
					}
					cand = nc;
				}
				struct mg_cand k = { .est = INF, .gi = gi, .t = t, .p = p, .d = d };
				struct gp_plan pl;
				if (megatron_build(c, &k, &pl) == 0) {
					k.est = bl_est_plan(c, &pl);
					gp_plan_free(&pl);
				}
				cand[n++] = k;
			}
		}
	*out = cand;
	*nout = n;
	return 0;
}

static int mg_build_i(const struct bl_ctx *c, const void *ud, int i, struct gp_plan *out)
{
	const struct mg_cand *cand = ud;
	return megatron_build(c, &cand[i], out);
}

/* Nothing fitted: what each GPU type would need, and the closest miss. */
static int mg_no_fit(struct bl_ctx *c, struct gp_plan_report *rep, struct gp_err *e)
{
	const struct gp_scenario *s = c->sc;
	int L = s->model.layers;
	char msg[1024];
	int len = snprintf(msg, sizeof msg, "megatron: no uniform TP x PP x DP layout fits on one GPU type");
	for (int gi = 0; gi < s->ngpus && len < (int)sizeof msg; gi++) {
		int G = type_slots(s, gi, 1, NULL, NULL, 0);
		if (!G)
			continue;
		/* The room a GPU of this type gives the job: its memory less the
		 * reserve of its first pool, as the MILP's and the simulator's
		 * memory check take it (the pools of one type share the model's
		 * reserve unless a cost model says otherwise). */
		int d0, q0;
		type_slots(s, gi, 1, &d0, &q0, 1);
		double room = s->gpus[gi].memory - gp_costtab_reserve(c->ct, d0, q0);
		double state = (L * gp_layer_params(&s->model) + 2 * gp_embedding_params(&s->model)) *
			       gp_costtab_state_bytes(c->ct, 1);
		char r[32], m[32];
		if (room <= 0)
			len += snprintf(msg + len, sizeof msg - (size_t)len,
					"; %s: %d GPUs, and its reserve takes all of its %s",
					s->gpus[gi].name, G, gp_fmt_gib(s->gpus[gi].memory, m, sizeof m));
		else
			len += snprintf(msg + len, sizeof msg - (size_t)len,
					"; %s: %d GPUs, and weights, gradients and optimizer state alone need %.0f GPUs of %s (%s less a reserve) without ZeRO",
					s->gpus[gi].name, G, ceil(state / room), gp_fmt_gib(room, r, sizeof r),
					gp_fmt_gib(s->gpus[gi].memory, m, sizeof m));
	}
	if (c->why[0] && len < (int)sizeof msg)
		snprintf(msg + len, sizeof msg - (size_t)len, " (closest: %s)", c->why);
	return bl_fail(c, rep, e, msg);
}

static int mg_plan(const struct gp_scenario *s, const struct gp_plan_opts *o,
		   struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_report rloc;
	struct bl_ctx c;
	if (bl_begin(&c, s, o, "megatron", out, &rep, &rloc, e))
		return -1;
	struct mg_cand *cand;
	int n;
	if (mg_candidates(&c, &cand, &n))
		return bl_fail(&c, rep, e, "megatron: out of memory");
	qsort(cand, (size_t)n, sizeof *cand, bl_cmp_est);
	struct gp_plan best = { 0 };
	int bi = bl_pick(&c, n, MEGATRON_SIMS, mg_build_i, cand, &best);
	if (bi < 0) {
		free(cand);
		return mg_no_fit(&c, rep, e);
	}
	struct mg_cand k = cand[bi];
	int tried = c.nsim;
	free(cand);
	if (bl_finish(&c, &best, out, rep, e))
		return -1;
	snprintf(rep->note, sizeof rep->note,
		 "megatron: %s TP %d x PP %d x DP %d (%d micro-batches each), equal layers, GPUs taken in DC order blind to the WAN; %d layouts estimated, %d simulated",
		 s->gpus[k.gi].name, k.t, k.p, k.d, c.M / k.d, n, tried);
	bl_note_clock(&c, rep);
	return 0;
}

int gp_plan_megatron(const struct gp_scenario *s, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return bl_run(s, o, "megatron", mg_plan, out, rep, e);
}
