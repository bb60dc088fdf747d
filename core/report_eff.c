/*
 * report_eff.c: where the efficiency of each GPU type a plan uses comes
 * from (report.h), for the text report and the JSON: fitted to measured
 * runs on that type, borrowed from another type's fit, the scenario's own
 * figure, or the built-in default. A borrowed or default figure is a
 * guess the user should see under the times it produces.
 */
#include "report.h"
#include "json.h"

#include <stdio.h>

const char *gp_eff_src_name(int src)
{
	static const char *const names[] = { "default", "scenario", "measured", "borrowed" };
	return src >= 0 && src <= GP_EFF_BORROWED ? names[src] : "default";
}

/* Marks in used[] (ngpus entries) the GPU types plan p runs on. */
void gp_report_gpus_used(const struct gp_scenario *sc, const struct gp_plan *p, bool *used)
{
	for (int g = 0; g < sc->ngpus; g++)
		used[g] = false;
	for (int i = 0; i < p->npipes; i++)
		for (int k = 0; k < p->pipes[i].nstages; k++) {
			const struct gp_stage *st = &p->pipes[i].stages[k];
			used[sc->dcs[st->dc].pools[st->pool].gpu] = true;
		}
}

void gp_report_eff_note(const struct gp_gpu *g, char *buf, size_t n)
{
	switch (g->eff_src) {
	case GP_EFF_MEASURED:
		snprintf(buf, n, "%s %.3g of peak, fitted to %s", g->name, g->efficiency, g->eff_ref);
		break;
	case GP_EFF_BORROWED:
		snprintf(buf, n, "%s borrows %s's fit, %.3g of peak (no measured %s runs)", g->name,
			 g->eff_ref, g->efficiency, g->name);
		break;
	case GP_EFF_SCENARIO:
		snprintf(buf, n, "%s %.3g of peak, the scenario's figure", g->name, g->efficiency);
		break;
	default:
		snprintf(buf, n, "%s takes the built-in default, %.3g of peak (no measured %s runs)",
			 g->name, g->efficiency, g->name);
	}
}

int gp_report_eff_next(const struct gp_scenario *sc, const struct gp_plan *p, int g)
{
	bool used[256];
	if (sc->ngpus > 256)
		return -1;
	gp_report_gpus_used(sc, p, used);
	for (g++; g < sc->ngpus; g++) {
		const struct gp_gpu *u = &sc->gpus[g];
		if (used[g] && u->eff_src != GP_EFF_MEASURED && u->eff_src != GP_EFF_SCENARIO)
			return g;
	}
	return -1;
}

void gp_report_eff_text(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p)
{
	for (int g = gp_report_eff_next(sc, p, -1); g >= 0; g = gp_report_eff_next(sc, p, g)) {
		char line[300];
		gp_report_eff_note(&sc->gpus[g], line, sizeof line);
		gp_report_line(f, "efficiency", line);
	}
}

void gp_report_eff_json(struct gp_json *j, const struct gp_scenario *sc, const struct gp_plan *p)
{
	bool used[256];
	gp_json_key(j, "gpu_efficiency");
	gp_json_arr(j, false);
	if (sc->ngpus <= 256) {
		gp_report_gpus_used(sc, p, used);
		for (int g = 0; g < sc->ngpus; g++) {
			const struct gp_gpu *u = &sc->gpus[g];
			if (!used[g])
				continue;
			gp_json_obj(j, false);
			gp_json_kstr(j, "gpu", u->name);
			gp_json_knum(j, "efficiency", u->efficiency);
			gp_json_kstr(j, "source", gp_eff_src_name(u->eff_src));
			if (u->eff_src == GP_EFF_MEASURED)
				gp_json_kstr(j, "data", u->eff_ref);
			if (u->eff_src == GP_EFF_BORROWED)
				gp_json_kstr(j, "borrows", u->eff_ref);
			gp_json_end(j);
		}
	}
	gp_json_end(j);
}
