/*
 * oom.c: the least memory a GPU needs for the model (oom.h).
 *
 * The memory of a 1F1B stage is the simulator's and the placement MILP's:
 * its parameters' state over TP (ZeRO-1 has nothing to shard over with
 * one replica), the activations of the micro-batches in flight (S for
 * the first of S stages, or all M when fewer: Narayanan et al., SC '21,
 * section 2.2), against the device's memory less the pool's reserve
 * (the framework's and the allocator's). More replicas only add state per GPU (each holds the
 * whole model), so one replica over all the GPUs is the least; the first
 * stage, holding the most in flight and the embedding, is the worst.
 */
#include "oom.h"
#include "cost.h"
#include "fmt.h"

#include <math.h>
#include <stdio.h>

struct oom_best {
	double ratio, need, have, reserve;
	int dc, pool, tp, S, first_layers, gpus, flight;
};

/* All the GPUs: one pipeline may cross DCs and GPU types. */
static int oom_gpus(const struct gp_scenario *sc)
{
	int n = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++)
			n += sc->dcs[d].pools[q].count;
	return n;
}

static enum gp_recompute oom_rc(const struct gp_scenario *sc)
{
	return sc->job.recompute == GP_RC_AUTO ? GP_RC_FULL : sc->job.recompute;
}

/* The first stage on pool (d, q) at TP tp, S stages over all the GPUs. */
static void oom_try(const struct gp_scenario *sc, const struct gp_costtab *ct, int d, int q,
		    int tp, struct oom_best *b)
{
	const struct gp_pool *p = &sc->dcs[d].pools[q];
	const struct gp_layer_cost *lc = gp_costtab_layer(ct, d, q, tp, oom_rc(sc));
	if (!lc || tp > p->per_node || tp > p->count)
		return;
	int G = oom_gpus(sc), L = sc->model.layers;
	int S = G / tp < L ? G / tp : L;
	if (S < 1)
		return;
	int n = (L + S - 1) / S, nl = S > 1 ? L / S : L;
	double M = floor(sc->job.global_batch / sc->job.micro_batch);
	double flight = S < M ? S : M, sb = gp_costtab_state_bytes(ct, 1);
	double lp = gp_layer_params(&sc->model), ep = gp_embedding_params(&sc->model);
	double reserve = gp_costtab_reserve(ct, d, q);
	const struct gp_layer_cost *lg = gp_costtab_logits(ct, d, q, tp);
	/* The first stage, and the last (the output layer and the logits,
	 * one micro-batch in flight); one stage is both. */
	double first = (n * lp + ep + (S == 1 ? ep : 0)) / tp * sb + flight * n * lc->m.act +
		       (S == 1 && lg ? flight * lg->m.act : 0);
	double last = (nl * lp + ep) / tp * sb + nl * lc->m.act + (lg ? lg->m.act : 0);
	/* What the job can use: the device less the framework's reserve,
	 * the room the state-alone figure below counts too. */
	double need = fmax(first, last), have = sc->gpus[p->gpu].memory - reserve;
	double ratio = have > 0 ? need / have : INFINITY;
	if (b->ratio < 0 || ratio < b->ratio)
		*b = (struct oom_best){ ratio, need, have, reserve, d, q, tp, S, n, G, (int)flight };
}

/* The GPUs the state alone takes: all of it over the most usable memory
 * a GPU of the scenario has (0 when every GPU is eaten by its reserve). */
static double oom_state_gpus(const struct gp_scenario *sc, const struct gp_costtab *ct,
			     double *state, double *room)
{
	const struct gp_model *m = &sc->model;
	*state = (m->layers * gp_layer_params(m) + 2 * gp_embedding_params(m)) *
		 gp_costtab_state_bytes(ct, 1);
	double best = 0;
	*room = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++) {
			const struct gp_pool *p = &sc->dcs[d].pools[q];
			double u = sc->gpus[p->gpu].memory - gp_costtab_reserve(ct, d, q);
			*room += p->count * fmax(0, u);
			best = fmax(best, u);
		}
	return best > 0 ? ceil(*state / best) : 0;
}

int gp_oom_explain(const struct gp_scenario *sc, const struct gp_costtab *ct, char *msg,
		   size_t n)
{
	struct oom_best b = { .ratio = -1 };
	msg[0] = 0;
	for (int d = 0; d < sc->ndcs; d++)
		for (int q = 0; q < sc->dcs[d].npools; q++)
			for (int tp = 1; tp <= sc->dcs[d].pools[q].per_node; tp++)
				oom_try(sc, ct, d, q, tp, &b);
	if (b.ratio < 0 || b.ratio <= 1)
		return 0;
	char need[32], have[32], res[32], x[32];
	const struct gp_gpu *g = &sc->gpus[sc->dcs[b.dc].pools[b.pool].gpu];
	/* Two digits below ten times, whole above: never an exponent. */
	snprintf(x, sizeof x, b.ratio < 10 ? "%.2g" : "%.0f", b.ratio);
	int len = snprintf(msg, n, "the model does not fit in GPU memory: even its leanest layout, one replica over %s%d GPU%s (%d stage%s at TP %d, the first on %s), needs %s per GPU in the first stage (%d layer%s, %d micro-batch%s in flight), %s available after a reserve of %s (%sx too much)",
			   b.gpus > 1 ? "all " : "", b.gpus, b.gpus == 1 ? "" : "s", b.S,
			   b.S == 1 ? "" : "s", b.tp, g->name,
			   gp_fmt_gib(b.need, need, sizeof need), b.first_layers,
			   b.first_layers == 1 ? "" : "s", b.flight, b.flight == 1 ? "" : "es",
			   gp_fmt_gib(b.have, have, sizeof have),
			   gp_fmt_gib(b.reserve, res, sizeof res), x);
	double state, space, k = oom_state_gpus(sc, ct, &state, &space);
	if (state > space && len > 0 && (size_t)len < n)
		/* Both in whole GiB, the unit of the need above, to compare. */
		snprintf(msg + len, n - (size_t)len, "; its weights, gradients and optimizer state alone, %.0f GiB, exceed all the GPUs' %.0f GiB: they take at least %.0f GPUs",
			 state / 1073741824.0, space / 1073741824.0, k);
	return 1;
}
