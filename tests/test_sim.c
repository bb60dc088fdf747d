/*
 * test_sim.c: the simulator against closed forms of the iteration time
 * (GPipe, 1F1B, interleaved, zero bubble) and the checks it must pass.
 *
 * A fixed cost model (every layer: F = 1, B = 1, W = 1 time unit; no
 * communication cost unless a WAN link is crossed; no optimizer) makes the
 * limits exact.
 */
#include <math.h>
#include "testutil.h"
#include "cost.h"
#include "schedule.h"
#include "sim.h"

static double unit_f = 1, unit_b = 1, unit_w = 1;

static void fixed_layer(void *ud, const struct gp_layer_q *q, struct gp_layer_time *o)
{
	(void)ud;
	if (q->logits)
		*o = (struct gp_layer_time){ 0, 0, 0 };
	else
		*o = (struct gp_layer_time){ unit_f, unit_b, unit_w };
}
static void fixed_memory(void *ud, const struct gp_layer_q *q, struct gp_layer_mem *o)
{
	gp_default_cost.ops->layer_memory(ud, q, o);
}
static void fixed_state(void *ud, const struct gp_scenario *s, struct gp_state_mem *o)
{
	gp_default_cost.ops->state_memory(ud, s, o);
}
/* Transfers inside a DC are free (no latency, no bandwidth limit); a
 * WAN link runs at its nominal figures. */
static void zero_p2p(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	(void)ud;
	*o = q->kind == GP_CH_WAN ? (struct gp_comm){ q->latency, q->bandwidth }
				  : (struct gp_comm){ 0, HUGE_VAL };
}
static void real_allreduce(void *ud, const struct gp_channel_q *q, struct gp_comm *o)
{
	gp_default_cost.ops->allreduce(ud, q, o);
}
static double zero_opt(void *ud, const struct gp_gpu *g, double params)
{
	(void)ud; (void)g; (void)params;
	return 0;
}
static const struct gp_cost_ops fixed_ops = {
	.layer_time = fixed_layer, .layer_memory = fixed_memory, .state_memory = fixed_state,
	.optimizer_time = zero_opt, .p2p = zero_p2p, .allreduce = real_allreduce,
};
static const struct gp_cost_model fixed = { &fixed_ops, NULL };

/* One pipeline of S stages, k layers each, m micro-batches, in one DC
 * (wan = 0) or with the second half of the stages behind a WAN link of
 * latency `lat` seconds and bandwidth `bw`. */
static struct gp_scenario *pipeline(int S, int k, int m, const char *sched,
				    int chunks, double lat, double bw)
{
	char stages[8192] = "";
	for (int i = 0; i < S; i++) {
		size_t l = strlen(stages);
		const char *dc = lat >= 0 && i >= S / 2 ? "b" : "a";
		snprintf(stages + l, sizeof stages - l,
			 "{ dc = '%s', layers = { %d, %d } },", dc, i * k + 1, (i + 1) * k);
	}
	return scen("return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 512 } } },"
		    "                 { name = 'b', pools = { { gpu = 'H100', count = 512 } } } },"
		    " links = { { 'a', 'b', bandwidth = %.17g, latency = %.17g } },"
		    " model = { layers = %d, hidden = 1024, heads = 16, vocab = 1000 },"
		    " job = { seq = 1024, global_batch = %d },"
		    " plan = { schedule = '%s', chunks = %d, pipelines = {"
		    "   { micro_batches = %d, stages = { %s } } } } }",
		    bw, lat >= 0 ? lat : 0, S * k, m, sched, chunks, m, stages);
}

static struct gp_result run(struct gp_scenario *s)
{
	struct gp_result r;
	struct gp_err e = { "" };
	struct gp_sim_opts o = { .cost = &fixed, .record = true };
	if (gp_simulate(s, &s->plan, &o, &r, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		fail();
	}
	return r;
}

/* T = (m + S - 1)(t_f + t_b), bubble (S - 1)/(m + S - 1), for GPipe and 1F1B. */
static void test_equal_stages_closed_form(void **state)
{
	(void)state;
	const char *scheds[] = { "gpipe", "1f1b" };
	int Ss[] = { 1, 2, 4, 8 }, ms[] = { 1, 3, 8, 32 };
	for (int a = 0; a < 2; a++)
		for (int i = 0; i < 4; i++)
			for (int j = 0; j < 4; j++) {
				int S = Ss[i], m = ms[j], k = 2;
				struct gp_scenario *s = pipeline(S, k, m, scheds[a], 1, -1, 1e30);
				struct gp_result r = run(s);
				double tf = k * unit_f, tb = k * (unit_b + unit_w);
				assert_close(r.iteration_time, (m + S - 1) * (tf + tb), 1e-3);
				assert_close(r.bubble, (S - 1.0) / (m + S - 1), 1e-3);
				gp_result_free(&r);
				gp_scenario_free(s);
			}
}

/* Interleaving with v chunks shrinks 1F1B's bubble by about v
 * (Narayanan et al., SC '21: bubble (S-1)/(v m) of the ideal time). */
static void test_interleaved_bubble(void **state)
{
	(void)state;
	int S = 4, m = 16, k = 8;
	struct gp_scenario *s1 = pipeline(S, k, m, "1f1b", 1, -1, 1e30);
	struct gp_result r1 = run(s1);
	double ideal = m * k * (unit_f + unit_b + unit_w);
	for (int v = 2; v <= 4; v *= 2) {
		struct gp_scenario *sv = pipeline(S, k, m, "interleaved", v, -1, 1e30);
		struct gp_result rv = run(sv);
		double b1 = r1.iteration_time - ideal, bv = rv.iteration_time - ideal;
		assert_close(bv, (S - 1) * k * (unit_f + unit_b + unit_w) / v, 1e-3);
		assert_close(b1 / bv, v, 1e-3);
		gp_result_free(&rv);
		gp_scenario_free(sv);
	}
	gp_result_free(&r1);
	gp_scenario_free(s1);
}

/* ZB-H1 at t_F = t_B = t_W: bubble (S-1)(t_F + t_B - t_W) against
 * 1F1B's (S-1)(t_F + t_B + t_W), a third (Qi et al., ICLR '24, 3.1). */
static void test_zbh1_bubble(void **state)
{
	(void)state;
	int S = 4, m = 12, k = 2;
	struct gp_scenario *s1 = pipeline(S, k, m, "1f1b", 1, -1, 1e30);
	struct gp_scenario *sz = pipeline(S, k, m, "zb-h1", 1, -1, 1e30);
	struct gp_result r1 = run(s1), rz = run(sz);
	double ideal = m * k * (unit_f + unit_b + unit_w);
	double b1 = r1.iteration_time - ideal, bz = rz.iteration_time - ideal;
	assert_close(b1, (S - 1) * k * 3.0, 1e-6);
	assert_close(bz, (S - 1) * k * 1.0, 1e-6);
	/* At 1F1B's activation memory: the peak over devices does not grow. */
	double p1 = 0, pz = 0;
	for (int i = 0; i < S; i++) {
		p1 = fmax(p1, r1.devs[i].mem_peak);
		pz = fmax(pz, rz.devs[i].mem_peak);
	}
	assert_true(pz <= p1 * 1.0001);
	gp_result_free(&r1);
	gp_result_free(&rz);
	gp_scenario_free(s1);
	gp_scenario_free(sz);
}

/* One WAN boundary of latency a: the first forward and the last backward
 * both cross it, so the iteration grows by at least 2a. */
static void test_wan_latency(void **state)
{
	(void)state;
	int S = 4, m = 8, k = 2;
	struct gp_scenario *s0 = pipeline(S, k, m, "1f1b", 1, -1, 1e30);
	struct gp_result r0 = run(s0);
	double lats[] = { 0.5, 3, 20 };
	for (int i = 0; i < 3; i++) {
		struct gp_scenario *s = pipeline(S, k, m, "1f1b", 1, lats[i], 1e30);
		struct gp_result r = run(s);
		assert_true(r.iteration_time >= r0.iteration_time + 2 * lats[i] - 1e-9);
		/* With 1F1B's limited warm-up the latency is paid again and
		 * again (CrossPipe's point): the stage before the boundary
		 * (S/2 - 1) holds at most S/2 + 1 micro-batches, so when the
		 * latency dwarfs the work each window of that many waits a
		 * round trip. */
		int window = S / 2 + 1;
		if (lats[i] >= 20)
			assert_true(r.iteration_time >= ceil((double)m / window) * 2 * lats[i]);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
	/* Zero latency, infinite bandwidth: the closed form again. */
	struct gp_scenario *sz = pipeline(S, k, m, "1f1b", 1, 0, 1e30);
	struct gp_result rz = run(sz);
	assert_close(rz.iteration_time, r0.iteration_time, 1e-9);
	gp_result_free(&rz);
	gp_scenario_free(sz);
	gp_result_free(&r0);
	gp_scenario_free(s0);
}

/* Transfers that overlap on a link share it: two replicas crossing the
 * same link take twice as long per transfer as one. Uses GPipe with one
 * stage per DC and a slow link so the link is the bottleneck. */
static void test_link_sharing(void **state)
{
	(void)state;
	const char *fmt =
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } },"
		"                 { name = 'b', pools = { { gpu = 'H100', count = 64 } } } },"
		" links = { { 'a', 'b', bandwidth = %g, latency = 0 } },"
		" model = { layers = 2, hidden = 1024, heads = 16, vocab = 1000 },"
		" job = { seq = 1024, global_batch = %d, sync = { overlap = false } },"
		" plan = { schedule = 'gpipe', pipelines = { { micro_batches = 4, replicas = %d,"
		"   stages = { { dc = 'a', layers = { 1, 1 } }, { dc = 'b', layers = { 2, 2 } } } } } } }";
	/* activation bytes 2 * b * s * h = 2 MiB; make a transfer take 100 units. */
	double bytes = 2.0 * 1024 * 1024, bw = bytes / 100;
	struct gp_scenario *s1 = scen(fmt, bw, 4, 1);
	struct gp_scenario *s2 = scen(fmt, bw, 8, 2);
	struct gp_result r1 = run(s1), r2 = run(s2);
	/* One replica: 4 forwards serialised on the link, 100 each, after the
	 * first F (1): the last arrives at 401, then 4 x F on b, 4 x B ...
	 * Both replicas: each transfer at half bandwidth. */
	assert_close(r1.links[0].bytes, 4 * bytes, 1e-9);
	assert_close(r2.links[0].bytes, 8 * bytes, 1e-9);
	assert_true(r2.iteration_time > r1.iteration_time * 1.8);
	gp_result_free(&r1);
	gp_result_free(&r2);
	gp_scenario_free(s1);
	gp_scenario_free(s2);
}

/* A layer's gradients are all-reduced by every replica holding it: two
 * pipelines cut at layers 4 and k send over the WAN the gradients of
 * layers 5..k only, from the two stages that hold them in different DCs
 * (hierarchical: each sends its half, R / D, of them both ways); the
 * embedding and output layer ride along, spread over their stages'
 * layers. */
static void test_sync_by_layer(void **state)
{
	(void)state;
	for (int k = 4; k <= 7; k++) {
		struct gp_scenario *s = scen(
			"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } },"
			"                 { name = 'b', pools = { { gpu = 'H100', count = 64 } } } },"
			" links = { { 'a', 'b', bandwidth = 1e9, latency = 0.01 } },"
			" model = { layers = 8, hidden = 1024, heads = 16, vocab = 1000 },"
			" job = { seq = 1024, global_batch = 8, sync = { mode = 'hierarchical' } },"
			" plan = { schedule = '1f1b', pipelines = {"
			"   { micro_batches = 4, stages = { { dc = 'a', layers = { 1, 4 } }, { dc = 'b', layers = { 5, 8 } } } },"
			"   { micro_batches = 4, stages = { { dc = 'a', layers = { 1, %d } }, { dc = 'b', layers = { %d, 8 } } } } } } }",
			k, k + 1);
		struct gp_result r = run(s);
		double P = gp_layer_params(&s->model), E = gp_embedding_params(&s->model);
		double want = s->job.precision_bytes * (k - 4) * ((4 * P + E) / 4 + (k * P + E) / k);
		double got = 0;
		for (int i = 0; i < r.nlinks; i++)
			got += r.links[i].sync_bytes;
		assert_close(got, want, 1e-9);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* One stage's messages to the next go one at a time in the order sent
 * (a pipeline flow, sim.c), not sharing the link: 1F1B, one stage per
 * DC, 2 micro-batches, F = 1 and B = 2 per stage, a transfer X = 100 and
 * a latency of 10. Stage 0 sends act 0 at 1 and act 1 at 2; act 1 waits
 * for act 0 (on the link 1-101), 101-201, arrives 211 (act 0: 111).
 * Stage 1: F0 111, B0 112-114, grad 0 on 114-214 (arrives 224); F1 211,
 * B1 212-214, grad 1 on 214-314 (arrives 324). Stage 0: B1 324-326, so
 * T = f + 3 X + 2 lat + f + b + b = 326 (sharing the link: 425). */
static void test_wan_fifo(void **state)
{
	(void)state;
	const char *fmt =
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } },"
		"                 { name = 'b', pools = { { gpu = 'H100', count = 64 } } } },"
		" links = { { 'a', 'b', bandwidth = %.17g, latency = 10 } },"
		" model = { layers = 2, hidden = 1024, heads = 16, vocab = 1000 },"
		" job = { seq = 1024, global_batch = 2 },"
		" plan = { schedule = '1f1b', pipelines = { { micro_batches = 2,"
		"   stages = { { dc = 'a', layers = { 1, 1 } }, { dc = 'b', layers = { 2, 2 } } } } } } }";
	double bytes = 2.0 * 1024 * 1024, X = 100;
	struct gp_scenario *s = scen(fmt, bytes / X);
	struct gp_result r = run(s);
	assert_close(r.links[0].bytes, 2 * bytes, 1e-9);
	assert_close(r.iteration_time, 1 + 3 * X + 2 * 10 + 1 + 2 + 2, 1e-9);
	gp_result_free(&r);
	gp_scenario_free(s);
}

/* The schedules keep every dependency: a forward of (vs, mb) starts after
 * the forward of (vs - 1, mb) ended, a backward after the next stage's. */
static void test_dependencies_hold(void **state)
{
	(void)state;
	const char *scheds[] = { "gpipe", "1f1b", "interleaved", "zb-h1", "xdc-greedy",
				 "xdc-greedy" };
	for (int a = 0; a < 6; a++) {
		int S = 4, m = 8, k = 4, v = a == 2 || a == 5 ? 2 : 1;
		bool vshape = a == 5;
		struct gp_scenario *s = pipeline(S, k, m, scheds[a], v, 0.25, 1e30);
		struct gp_result r = run(s);
		int VS = S * v;
		double *fend = calloc((size_t)VS * m, sizeof *fend);
		double *bend = calloc((size_t)VS * m, sizeof *bend);
		for (int64_t i = 0; i < r.nspans; i++) {
			const struct gp_span *p = &r.spans[i];
			if (p->row >= S)
				continue;
			int vs = gp_vs_of(S, vshape, p->row, p->chunk);
			if (p->kind == GP_SPAN_F)
				fend[vs * m + p->mb] = p->t1;
			if (p->kind == GP_SPAN_B)
				bend[vs * m + p->mb] = p->t1;
		}
		for (int64_t i = 0; i < r.nspans; i++) {
			const struct gp_span *p = &r.spans[i];
			if (p->row >= S)
				continue;
			int vs = gp_vs_of(S, vshape, p->row, p->chunk);
			if (p->kind == GP_SPAN_F && vs > 0)
				assert_true(p->t0 >= fend[(vs - 1) * m + p->mb] - 1e-9);
			if (p->kind == GP_SPAN_B && vs < VS - 1)
				assert_true(p->t0 >= bend[(vs + 1) * m + p->mb] - 1e-9);
			if (p->kind == GP_SPAN_B)
				assert_true(p->t0 >= fend[vs * m + p->mb] - 1e-9);
		}
		free(fend);
		free(bend);
		gp_result_free(&r);
		gp_scenario_free(s);
	}
}

/* The P1 grid (schedbench.c) in miniature: latency and bandwidth delay at
 * 0, 0.5, 1 and 2 forward times on the one WAN boundary. xdc-greedy is
 * never worse than 1F1B, and beats it clearly once the delay is large. */
static void test_xdc_greedy_grid(void **state)
{
	(void)state;
	int S = 4, m = 8, k = 2;
	double tf = k * unit_f, bytes = 2.0 * 1024 * 1024;
	double mult[] = { 0, 0.5, 1, 2 };
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			double lat = mult[i] * tf;
			double bw = mult[j] > 0 ? bytes / (mult[j] * tf) : 1e30;
			struct gp_scenario *a = pipeline(S, k, m, "1f1b", 1, lat, bw);
			struct gp_scenario *g = pipeline(S, k, m, "xdc-greedy", 1, lat, bw);
			struct gp_result ra = run(a), rg = run(g);
			if (rg.iteration_time > ra.iteration_time * (1 + 1e-9))
				fail_msg("latency %g bw-delay %g: xdc-greedy %g > 1f1b %g", mult[i],
					 mult[j], rg.iteration_time, ra.iteration_time);
			if (mult[i] >= 2)
				assert_true(rg.iteration_time < 0.9 * ra.iteration_time);
			gp_result_free(&ra);
			gp_result_free(&rg);
			gp_scenario_free(a);
			gp_scenario_free(g);
		}
	/* Zero delay: no worse than the zero-bubble bound of ZB-H1's closed
	 * form, (S-1)(t_F + t_B - t_W) over the ideal. */
	struct gp_scenario *g = pipeline(S, k, m, "xdc-greedy", 1, 0, 1e30);
	struct gp_result rg = run(g);
	assert_true(rg.iteration_time <= m * k * 3.0 + (S - 1) * k * 1.0 + 1e-9);
	gp_result_free(&rg);
	gp_scenario_free(g);
}

/* Memory bounds xdc-greedy's run-ahead: an H100 with room for the
 * static state plus 2.5 micro-batches of a middle stage never holds more,
 * where unbounded it runs far ahead. */
static const char *mem_fmt =
	"return { gpus = { ['H100'] = { memory = %.17g } },"
	" dcs = { { name = 'a', pools = { { gpu = 'H100', count = 64 } } },"
	"         { name = 'b', pools = { { gpu = 'H100', count = 64 } } } },"
	" links = { { 'a', 'b', bandwidth = 1e30, latency = 20 } },"
	" model = { layers = 8, hidden = 1024, heads = 16, vocab = 1000 },"
	" job = { seq = 1024, global_batch = %d },"
	" plan = { schedule = '%s', pipelines = { { micro_batches = %d, stages = {"
	"   { dc = 'a', layers = { 1, 2 } }, { dc = 'a', layers = { 3, 4 } },"
	"   { dc = 'b', layers = { 5, 6 } }, { dc = 'b', layers = { 7, 8 } } } } } } }";

static void test_xdc_greedy_memory(void **state)
{
	(void)state;
	struct gp_scenario *one = scen(mem_fmt, 1e12, 1, "1f1b", 1);
	struct gp_result r1 = run(one);
	double act = 2 * gp_layer_act_bytes(&one->model, 1, 1024, 1, GP_RC_NONE);
	double stat = r1.devs[1].mem_peak - act;
	double cap = stat + 2.5 * act;
	struct gp_scenario *free_ = scen(mem_fmt, 1e12, 16, "xdc-greedy", 16);
	struct gp_scenario *tight = scen(mem_fmt, cap, 16, "xdc-greedy", 16);
	struct gp_result rf = run(free_), rt = run(tight);
	assert_true(rf.devs[1].mem_peak > stat + 4 * act);  /* runs ahead */
	assert_true(rt.devs[1].mem_peak <= cap);            /* within memory */
	assert_close(rt.devs[1].mem_peak, stat + 2 * act, 1e-9);
	assert_true(rt.fits);
	assert_true(rt.iteration_time > rf.iteration_time); /* memory costs time */
	gp_result_free(&r1);
	gp_result_free(&rf);
	gp_result_free(&rt);
	gp_scenario_free(one);
	gp_scenario_free(free_);
	gp_scenario_free(tight);
}

/* What each span waited for (gp_span.dep, ready): a compute task is ready
 * no later than it starts, and starts exactly when both its input and its
 * device are free; its input's span ended no later than it arrived (at
 * once when no link is crossed); a transfer leaves when its sender ends.
 * From the last backward on stage 1 the inputs lead back, one micro-batch,
 * through every stage to the first stage's forward. */
static void check_span_deps(const struct gp_result *r, int S, bool wan)
{
	double *prev_end = calloc((size_t)S, sizeof *prev_end);
	int64_t last_b = -1;
	for (int64_t i = 0; i < r->nspans; i++) {
		const struct gp_span *p = &r->spans[i];
		const struct gp_span *d = p->dep >= 0 ? &r->spans[p->dep] : NULL;
		assert_true(p->dep < r->nspans);
		if (p->kind <= GP_SPAN_W) {
			assert_true(p->row < S);
			assert_true(p->ready <= p->t0 + 1e-12);
			assert_close(p->t0, fmax(p->ready, prev_end[p->row]), 1e-12);
			prev_end[p->row] = p->t1;
			if (d)
				assert_true(d->t1 <= p->ready + 1e-12);
			if (d && d->row < S)
				assert_close(p->ready, d->t1, 1e-12);  /* free inside a DC */
			if (p->kind == GP_SPAN_W)
				assert_true(d && d->kind == GP_SPAN_B && d->row == p->row &&
					    d->mb == p->mb && d->chunk == p->chunk);
			if (p->kind == GP_SPAN_B && p->row == 0)
				last_b = i;
		} else if (p->kind == GP_SPAN_ACT || p->kind == GP_SPAN_GRAD) {
			assert_true(d && d->row < S && d->kind <= GP_SPAN_B);
			assert_close(p->ready, p->t0, 1e-12);
			assert_close(d->t1, p->t0, 1e-12);
		}
	}
	assert_true(last_b >= 0);
	bool *seen = calloc((size_t)S + 1, sizeof *seen);
	int mb = r->spans[last_b].mb;
	int64_t at = last_b;
	for (;;) {
		const struct gp_span *p = &r->spans[at];
		assert_int_equal(p->mb, mb);
		seen[p->row < S ? p->row : S] = true;
		if (p->dep < 0)
			break;
		at = p->dep;
	}
	const struct gp_span *first = &r->spans[at];
	assert_true(first->kind == GP_SPAN_F && first->row == 0 && first->chunk == 0);
	for (int st = 0; st < S; st++)
		assert_true(seen[st]);
	assert_int_equal(seen[S], wan);  /* and a link row when one is crossed */
	free(seen);
	free(prev_end);
}

static void test_span_deps(void **state)
{
	(void)state;
	const char *scheds[] = { "1f1b", "zb-h1", "interleaved", "gpipe" };
	for (int a = 0; a < 4; a++)
		for (int wan = 0; wan < 2; wan++) {
			int S = 4, k = 2, m = 8, v = a == 2 ? 2 : 1;
			struct gp_scenario *s = pipeline(S, k, m, scheds[a], v, wan ? 0.25 : -1,
							 wan ? 2.0 * 1024 * 1024 / 0.5 : 1e30);
			struct gp_result r = run(s);
			check_span_deps(&r, S, wan);
			gp_result_free(&r);
			gp_scenario_free(s);
		}
}

/* DP sync is a collective: a bucket's all-reduce across DCs starts only
 * once every replica has produced it. Two one-stage pipelines, one layer,
 * in DCs a and b, with 1 and 3 micro-batches (F = 1, B + W = 2): their
 * gradients are ready at 3 and 9. Hierarchical sync over 2 DCs, one
 * replica each: no local phase; each sends its share (X seconds alone on
 * a link direction) on both ring edges, then waits 2 latencies. Both
 * start at 9 and share each direction: T = 9 + 2 X + 2 lat (without the
 * barrier, 9 + X + 2 lat: the early one's share had the link to itself),
 * and the early replica ends no sooner than the late one. */
static void test_sync_barrier(void **state)
{
	(void)state;
	const char *fmt =
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } },"
		"                 { name = 'b', pools = { { gpu = 'H100', count = 8 } } } },"
		" links = { { 'a', 'b', bandwidth = %.17g, latency = 0.5 } },"
		" model = { layers = 1, hidden = 1024, heads = 16, vocab = 1000 },"
		" job = { seq = 1024, global_batch = 4, sync = { mode = 'hierarchical' } },"
		" plan = { schedule = '1f1b', pipelines = {"
		"   { micro_batches = 1, stages = { { dc = 'a', layers = { 1, 1 } } } },"
		"   { micro_batches = 3, stages = { { dc = 'b', layers = { 1, 1 } } } } } } }";
	struct gp_scenario *s = scen(fmt, 1e9);
	/* The stage's gradients (its layer, the embedding and the output
	 * layer), half of them each replica's share of the 2-DC ring. */
	double grad = (gp_layer_params(&s->model) + 2 * gp_embedding_params(&s->model)) *
		      s->job.precision_bytes;
	struct gp_sync_q q = { .bytes = grad / 2, .replicas = 2, .dcs = 2,
			       .mode = GP_SYNC_HIER, .every = 1 };
	double wan = gp_dp_sync_wan_bytes(&q);
	gp_scenario_free(s);
	s = scen(fmt, wan);   /* X = 1 */
	struct gp_result r = run(s);
	assert_close(r.iteration_time, 9 + 2 + 2 * 0.5, 1e-9);
	assert_close(r.devs[0].end, r.devs[1].end, 1e-9);
	gp_result_free(&r);
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_equal_stages_closed_form),
		cmocka_unit_test(test_interleaved_bubble),
		cmocka_unit_test(test_zbh1_bubble),
		cmocka_unit_test(test_wan_latency),
		cmocka_unit_test(test_link_sharing),
		cmocka_unit_test(test_wan_fifo),
		cmocka_unit_test(test_dependencies_hold),
		cmocka_unit_test(test_xdc_greedy_grid),
		cmocka_unit_test(test_xdc_greedy_memory),
		cmocka_unit_test(test_span_deps),
		cmocka_unit_test(test_sync_by_layer),
		cmocka_unit_test(test_sync_barrier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
