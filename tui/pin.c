/*
 * pin.c: plans kept for comparing (pin.h).
 */
#include "pin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of n elements of size sz (NULL when n is 0). */
static void *dup_array(const void *src, size_t n, size_t sz, bool *oom)
{
	if (!n || !src)
		return NULL;
	void *d = malloc(n * sz);
	if (!d)
		*oom = true;
	else
		memcpy(d, src, n * sz);
	return d;
}

int gp_result_copy(struct gp_result *dst, const struct gp_result *src)
{
	bool oom = false;
	*dst = *src;
	dst->devs = dup_array(src->devs, (size_t)src->ndevs, sizeof *src->devs, &oom);
	dst->links = dup_array(src->links, (size_t)src->nlinks, sizeof *src->links, &oom);
	dst->spans = dup_array(src->spans, (size_t)src->nspans, sizeof *src->spans, &oom);
	if (oom) {
		free(dst->devs);
		free(dst->links);
		free(dst->spans);
		memset(dst, 0, sizeof *dst);
		return -1;
	}
	return 0;
}

struct gp_pin *gp_pin_of_run(const struct gp_run *r, const char *label)
{
	const struct gp_plan *plan = gp_run_plan_of(r);
	if (!r->sc || !plan || !r->has_res)
		return NULL;
	struct gp_pin *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	snprintf(p->label, sizeof p->label, "%s", label);
	p->sc = gp_scenario_dup(r->sc, 0);
	if (!p->sc || gp_plan_copy(&p->plan, plan) || gp_result_copy(&p->res, &r->res)) {
		gp_scenario_free(p->sc);
		gp_plan_free(&p->plan);
		free(p);
		return NULL;
	}
	return p;
}

void gp_pin_free(struct gp_pin *p)
{
	if (!p)
		return;
	if (p->has_gantt)
		gp_gantt_free(&p->gantt);
	gp_result_free(&p->res);
	gp_plan_free(&p->plan);
	gp_scenario_free(p->sc);
	free(p);
}

const struct gp_gantt *gp_pin_gantt(struct gp_pin *p)
{
	if (!p)
		return NULL;
	struct gp_err e = { "" };
	if (!p->has_gantt && gp_gantt_build(&p->gantt, p->sc, &p->res, &e) == 0)
		p->has_gantt = true;
	return p->has_gantt ? &p->gantt : NULL;
}
