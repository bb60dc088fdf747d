/*
 * schedule.c: the classic pipeline schedules as task orders.
 *
 *  gpipe        all forwards, then all backwards (Huang et al., NeurIPS '19)
 *  1f1b         warm-up of S-1-s forwards, then one forward one backward,
 *               then the remaining backwards (PipeDream-Flush; Narayanan et
 *               al., SC '21)
 *  interleaved  1F1B over v chunks per device, Megatron-LM's order
 *               (Narayanan et al., SC '21, section 2.2)
 *  zb-h1        1F1B with backward split into B (input gradient) and W
 *               (weight gradient); W runs late to fill the cool-down
 *               bubbles at 1F1B's activation memory (Qi et al., ICLR '24)
 */
#include "schedule.h"

#include <stdlib.h>

struct emit {
	struct gp_task *t;
	int64_t n;
};

static inline void put(struct emit *o, int kind, int mb, int chunk)
{
	o->t[o->n++] = (struct gp_task){ .mb = mb, .kind = (uint8_t)kind,
					 .chunk = (uint8_t)chunk };
}

static void gen_gpipe(struct emit *o, int S, int s, int m)
{
	(void)S;
	(void)s;
	for (int j = 0; j < m; j++)
		put(o, GP_TASK_F, j, 0);
	for (int j = 0; j < m; j++)
		put(o, GP_TASK_B, j, 0);
}

static void gen_1f1b(struct emit *o, int S, int s, int m)
{
	int w = S - 1 - s < m ? S - 1 - s : m;
	for (int j = 0; j < w; j++)
		put(o, GP_TASK_F, j, 0);
	for (int j = 0; j < m - w; j++) {
		put(o, GP_TASK_F, w + j, 0);
		put(o, GP_TASK_B, j, 0);
	}
	for (int j = m - w; j < m; j++)
		put(o, GP_TASK_B, j, 0);
}

/* Megatron's interleaved order: the k-th forward of a device is chunk
 * (k / S) % v of micro-batch (k / (S v)) S + k % S; backwards walk the
 * chunks in reverse. Needs m to be a multiple of S. */
static void gen_interleaved(struct emit *o, int S, int s, int m, int v)
{
	int64_t total = (int64_t)m * v;
	int64_t w = (int64_t)(S - s - 1) * 2 + (int64_t)(v - 1) * S;
	if (w > total)
		w = total;
#define MB(k) ((int)(((k) / ((int64_t)S * v)) * S + (k) % S))
#define FCH(k) ((int)(((k) / S) % v))
#define BCH(k) (v - 1 - FCH(k))
	for (int64_t k = 0; k < w; k++)
		put(o, GP_TASK_F, MB(k), FCH(k));
	for (int64_t j = 0; j < total - w; j++) {
		put(o, GP_TASK_F, MB(w + j), FCH(w + j));
		put(o, GP_TASK_B, MB(j), BCH(j));
	}
	for (int64_t j = total - w; j < total; j++)
		put(o, GP_TASK_B, MB(j), BCH(j));
#undef MB
#undef FCH
#undef BCH
}

/* ZB-H1: 1F1B's warm-up (so at most S-s activations in flight, as in
 * 1F1B), B and W split. Backwards are on the critical path back to stage
 * 0, weight gradients are not: stage s runs each W d = s slots late, so
 * the last stages hurry the gradient upstream and do their held-back W
 * passes at the end, while stage 0 is still finishing. */
static void gen_zbh1(struct emit *o, int S, int s, int m)
{
	int w = S - 1 - s < m ? S - 1 - s : m, d = s, nextw = 0;
	for (int j = 0; j < w; j++)
		put(o, GP_TASK_F, j, 0);
	for (int j = 0; j < m; j++) {
		if (w + j < m)
			put(o, GP_TASK_F, w + j, 0);
		put(o, GP_TASK_B, j, 0);
		if (j >= d)
			put(o, GP_TASK_W, nextw++, 0);
	}
	while (nextw < m)
		put(o, GP_TASK_W, nextw++, 0);
}

int gp_schedule_build(enum gp_sched kind, int S, int v, int m,
		      struct gp_schedule *out, struct gp_err *e)
{
	*out = (struct gp_schedule){ 0 };
	if (S < 1 || m < 1 || v < 1 || v > 255)
		return gp_errf(e, "schedule: need stages >= 1, micro-batches >= 1 and 1..255 chunks (got %d, %d, %d)",
			       S, m, v);
	if (kind != GP_SCHED_INTERLEAVED)
		v = 1;
	if (kind == GP_SCHED_INTERLEAVED && v > 1 && m % S)
		return gp_errf(e, "schedule interleaved: %d micro-batches are not a multiple of the %d stages",
			       m, S);
	if (kind == GP_SCHED_INTERLEAVED && v == 1)
		kind = GP_SCHED_1F1B;
	bool split = kind == GP_SCHED_ZBH1;
	int64_t per = (int64_t)m * v * (split ? 3 : 2);
	/* About 40 bytes of state a task: keep a run within a few GB. */
	if (per * S > GP_MAX_TASKS)
		return gp_errf(e, "schedule: %lld tasks (stages x micro-batches x chunks x passes) are too many to simulate; at most %lld",
			       (long long)(per * S), (long long)GP_MAX_TASKS);
	out->stages = S;
	out->chunks = v;
	out->micro_batches = m;
	out->split_bw = split;
	out->tasks = malloc(sizeof *out->tasks * (size_t)(per * S));
	out->off = malloc(sizeof *out->off * (size_t)(S + 1));
	if (!out->tasks || !out->off) {
		gp_schedule_free(out);
		return gp_errf(e, "schedule: out of memory");
	}
	struct emit o = { out->tasks, 0 };
	for (int s = 0; s < S; s++) {
		out->off[s] = o.n;
		switch (kind) {
		case GP_SCHED_GPIPE: gen_gpipe(&o, S, s, m); break;
		case GP_SCHED_INTERLEAVED: gen_interleaved(&o, S, s, m, v); break;
		case GP_SCHED_ZBH1: gen_zbh1(&o, S, s, m); break;
		default: gen_1f1b(&o, S, s, m); break;
		}
	}
	out->off[S] = o.n;
	return 0;
}

void gp_schedule_free(struct gp_schedule *sc)
{
	free(sc->tasks);
	free(sc->off);
	sc->tasks = NULL;
	sc->off = NULL;
}
