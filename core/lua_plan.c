/*
 * lua_plan.c: reads a scenario's optional `plan` (the schedule, chunks,
 * sync mode and pipelines, each a list of stages naming a DC, a GPU
 * pool, a TP degree and a range of layers) into struct gp_plan. Names
 * are resolved against the DCs and pools read before it; whether the
 * plan is consistent as a whole is gp_plan_validate's question.
 */
#include "lua_int.h"

#include <stdio.h>
#include <string.h>

static const char *const plan_keys[] = { "schedule", "chunks", "microbatch_group", "sync",
					 "pipelines", NULL };
static const char *const pipe_keys[] = { "micro_batches", "replicas", "stages", NULL };
static const char *const stage_keys[] = { "dc", "gpu", "tp", "layers",
	"recompute", NULL };

static int conv_stage(struct lh_cv *c, int t, const char *path, struct gp_stage *st)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	char dc[GP_NAME_MAX], gpu[GP_NAME_MAX], p[300];
	int rc;
	if (lh_check_keys(c, t, path, stage_keys, 0) ||
	    lh_get_str(c, t, path, "dc", LH_REQ, NULL, dc, sizeof dc) ||
	    lh_get_str(c, t, path, "gpu", 0, "", gpu, sizeof gpu) ||
	    lh_get_int(c, t, path, "tp", LH_POS, 1, &st->tp) ||
	    lh_get_enum(c, t, path, "recompute", lh_recomputes, -1, &rc))
		return -1;
	st->recompute_set = rc >= 0;
	st->recompute = rc >= 0 ? (enum gp_recompute)rc : s->job.recompute;
	st->dc = gp_find_dc(s, dc);
	if (st->dc < 0) {
		char hint[1024];
		lh_suggest_dc(s, dc, hint, sizeof hint);
		lh_join(p, sizeof p, path, "dc");
		return lh_err(c, p, "unknown DC \"%s\" (%s)", dc, hint);
	}
	const struct gp_dc *d = &s->dcs[st->dc];
	st->pool = -1;
	if (!gpu[0]) {
		if (d->npools != 1) {
			lh_join(p, sizeof p, path, "gpu");
			return lh_err(c, p, "DC \"%s\" has %d pools: say which GPU", dc,
				      d->npools);
		}
		st->pool = 0;
	}
	for (int i = 0; gpu[0] && i < d->npools; i++)
		if (!strcmp(s->gpus[d->pools[i].gpu].name, gpu))
			st->pool = i;
	if (st->pool < 0) {
		const char *names[64];
		char hint[1024];
		for (int i = 0; i < d->npools && i < 64; i++)
			names[i] = s->gpus[d->pools[i].gpu].name;
		lh_suggest(gpu, names, d->npools < 64 ? d->npools : 64, "its pools", hint, sizeof hint);
		lh_join(p, sizeof p, path, "gpu");
		return lh_err(c, p, "DC \"%s\" has no pool of \"%s\" (%s)", dc, gpu, hint);
	}
	lh_join(p, sizeof p, path, "layers");
	if (lh_get_table(c, t, path, "layers", 1) != 1)
		return -1;
	double first, last;
	if (lh_check_array(c, -1, p, 2) != 2) {
		if (!c->failed)
			lh_err(c, p, "expected { first, last }");
		lua_pop(L, 1);
		return -1;
	}
	char q[310];
	lua_rawgeti(L, -1, 1);
	snprintf(q, sizeof q, "%s[1]", p);
	if (lh_take_number(c, q, LH_POS | LH_INT, &first)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_rawgeti(L, -1, 2);
	snprintf(q, sizeof q, "%s[2]", p);
	if (lh_take_number(c, q, LH_POS | LH_INT, &last)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	st->first = (int)first;
	st->last = (int)last;
	return 0;
}

/* Reads the pipeline table at the top of the stack (path p). */
static int conv_pipeline(struct lh_cv *c, const char *p, struct gp_pipeline *pp)
{
	lua_State *L = c->L;
	char sp[300];
	if (lh_check_keys(c, -1, p, pipe_keys, 0) ||
	    lh_get_int(c, -1, p, "micro_batches", LH_REQ | LH_POS, 0, &pp->micro_batches) ||
	    lh_get_int(c, -1, p, "replicas", LH_POS, 1, &pp->replicas))
		return -1;
	lh_join(sp, sizeof sp, p, "stages");
	if (lh_get_table(c, -1, p, "stages", 1) != 1)
		return -1;
	long ns = lh_check_array(c, -1, sp, 100000);
	if (ns < 0)
		goto fail;
	if (ns == 0) {
		lh_err(c, sp, "expected at least one stage");
		goto fail;
	}
	pp->stages = gp_xcalloc(ns, sizeof *pp->stages);
	if (!pp->stages) {
		lh_err(c, sp, "out of memory");
		goto fail;
	}
	for (long j = 1; j <= ns; j++) {
		char q[310];
		lh_joini(q, sizeof q, sp, j);
		if (lh_get_elem_table(c, -1, q, j))
			goto fail;
		if (conv_stage(c, -1, q, &pp->stages[pp->nstages++])) {
			lua_pop(L, 1);
			goto fail;
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return 0;
fail:
	lua_pop(L, 1);
	return -1;
}

int lh_conv_plan(struct lh_cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	struct gp_plan *pl = &s->plan;
	int got = lh_get_table(c, top, "", "plan", 0);
	if (got <= 0)
		return got;
	s->has_plan = true;
	const char *sched_names[GP_SCHED__N + 1] = { NULL };
	for (int k = 0; k < GP_SCHED__N; k++)
		sched_names[k] = gp_sched_name(k);
	static const char *const plan_syncs[] = { "flat", "hierarchical", NULL };
	int sched, sync;
	if (lh_check_keys(c, -1, "plan", plan_keys, 0) ||
	    lh_get_enum(c, -1, "plan", "schedule", sched_names, GP_SCHED_1F1B, &sched) ||
	    lh_get_int(c, -1, "plan", "chunks", LH_POS, 1, &pl->chunks) ||
	    lh_get_int(c, -1, "plan", "microbatch_group", LH_POS, 0, &pl->microbatch_group) ||
	    lh_get_enum(c, -1, "plan", "sync", plan_syncs, -1, &sync))
		goto fail;
	pl->schedule = sched;
	pl->sync_set = sync >= 0;
	pl->sync_mode = sync >= 0 ? sync : GP_SYNC_HIER;
	if (lh_get_table(c, -1, "plan", "pipelines", 1) != 1)
		goto fail;
	long n = lh_check_array(c, -1, "plan.pipelines", 100000);
	if (n < 0)
		goto fail1;
	if (n == 0) {
		lh_err(c, "plan.pipelines", "expected at least one pipeline");
		goto fail1;
	}
	pl->pipes = gp_xcalloc(n, sizeof *pl->pipes);
	if (!pl->pipes) {
		lh_err(c, "plan.pipelines", "out of memory");
		goto fail1;
	}
	for (long i = 1; i <= n; i++) {
		char p[300];
		lh_joini(p, sizeof p, "plan.pipelines", i);
		if (lh_get_elem_table(c, -1, p, i))
			goto fail1;
		int rc = conv_pipeline(c, p, &pl->pipes[pl->npipes++]);
		lua_pop(L, 1);
		if (rc)
			goto fail1;
	}
	lua_pop(L, 2);
	return 0;
fail1:
	lua_pop(L, 1);
fail:
	lua_pop(L, 1);
	return -1;
}
