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

#include <limits.h>
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

int gp_group_check(int S, int m, int group, struct gp_err *e)
{
	int n = group > 0 ? group : S, r = n > 0 ? m % n : 0;
	if (group > 0 && (n < S || n > m))
		return gp_errf(e, "a micro-batch group of %d is outside [%d, %d], the stages to the micro-batches",
			       n, S, m);
	if (r && r < S && group > 0)
		return gp_errf(e, "%d micro-batches in groups of %d leave a last group of %d, fewer than the %d stages (0 or at least the stages)",
			       m, n, r, S);
	if (r && r < S)
		return gp_errf(e, "interleaved needs a multiple of the %d stages, got %d (or a plan.microbatch_group of %d to %d whose last group holds 0 or at least %d)",
			       S, m, S, m, S);
	return 0;
}

int gp_plan_group_least(const struct gp_plan *p)
{
	int lo = 1, hi = INT_MAX;
	for (int i = 0; i < p->npipes; i++) {
		lo = p->pipes[i].nstages > lo ? p->pipes[i].nstages : lo;
		hi = p->pipes[i].micro_batches < hi ? p->pipes[i].micro_batches : hi;
	}
	for (int n = lo; n <= hi; n++) {
		int i = 0;
		while (i < p->npipes && !gp_group_check(p->pipes[i].nstages, p->pipes[i].micro_batches,
							n, NULL))
			i++;
		if (i == p->npipes)
			return n;
	}
	return 0;
}

/* Megatron-Core's interleaved order (get_schedule_table): micro-batches
 * in groups of n, the last group the rest; a device runs the group's
 * micro-batches through chunk 0, then chunk 1, ..., so its k-th forward
 * is the k-th (micro-batch, chunk) of that table and its k-th backward
 * the same with the chunks in reverse. Warm-up: 2 (S - s - 1) + (v - 1) n
 * forwards (get_pp_rank_microbatches). n = S: Narayanan et al.'s. */
static void interleave_at(int64_t k, int m, int v, int n, int *mb, int *ch)
{
	int64_t full = (int64_t)(m / n) * n * v;
	if (k < full) {
		int64_t w = k % ((int64_t)n * v);
		*ch = (int)(w / n);
		*mb = (int)(k / ((int64_t)n * v) * n + w % n);
	} else {
		int r = m % n;
		*ch = (int)((k - full) / r);
		*mb = m / n * n + (int)((k - full) % r);
	}
}

static void gen_interleaved(struct emit *o, int S, int s, int m, int v, int n)
{
	int64_t total = (int64_t)m * v;
	int64_t w = (int64_t)(S - s - 1) * 2 + (int64_t)(v - 1) * n;
	int mb, ch;
	if (w > total)
		w = total;
	for (int64_t k = 0; k < total + w; k++) {
		if (k < total) {        /* forward k */
			interleave_at(k, m, v, n, &mb, &ch);
			put(o, GP_TASK_F, mb, ch);
		}
		if (k >= w) {           /* backward k - w */
			interleave_at(k - w, m, v, n, &mb, &ch);
			put(o, GP_TASK_B, mb, v - 1 - ch);
		}
	}
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

int gp_schedule_build(enum gp_sched kind, int S, int v, int m, int group,
		      struct gp_schedule *out, struct gp_err *e)
{
	*out = (struct gp_schedule){ 0 };
	if (S < 1 || m < 1 || v < 1 || v > 255)
		return gp_errf(e, "schedule: need stages >= 1, micro-batches >= 1 and 1..255 chunks (got %d, %d, %d)",
			       S, m, v);
	if (kind != GP_SCHED_INTERLEAVED)
		v = 1;
	if (kind == GP_SCHED_INTERLEAVED && v > 1 && gp_group_check(S, m, group, e)) {
		gp_err_prefix(e, "schedule interleaved");
		return -1;
	}
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
		case GP_SCHED_INTERLEAVED:
			gen_interleaved(&o, S, s, m, v, group > 0 ? group : S);
			break;
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
