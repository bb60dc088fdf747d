/*
 * report.h: what a simulated iteration looks like on paper: a text
 * summary (report_text.c), JSON (the contract of geoplan(1), JSON
 * OUTPUT), the timeline as CSV, and an SVG Gantt chart (svg.c). Writers
 * take a FILE * from the caller; core never decides where output goes.
 */
#ifndef GP_REPORT_H
#define GP_REPORT_H

#include <stdio.h>
#include "json.h"
#include "scenario.h"
#include "sim.h"

/* The highest peak of any GPU, bytes. */
double gp_result_peak_memory(const struct gp_result *r);
/* The GPUs' idle share of the iteration (GPU-weighted), and the part of
 * it after the last backward (exposed DP sync and the optimizer step):
 * the rest is the bubble. */
double gp_result_idle(const struct gp_result *r);
double gp_result_idle_after(const struct gp_result *r);
/* DP sync past the last backward, the worst stage's, s. */
double gp_result_sync_exposed(const struct gp_result *r);
/* Whether any stage has gradients to sync: another replica holds its
 * layers (every replica holds every layer, so: more than one). */
bool gp_report_syncs(const struct gp_plan *p);
/* Whether the cost has prices in it: a GPU type the plan uses has a
 * price; a link the iteration sends bytes over has one. */
void gp_report_prices(const struct gp_scenario *sc, const struct gp_plan *p,
		      const struct gp_result *r, bool *gpus, bool *egress);
/* The cost's two parts as the report says them: "GPUs $0.0218 (no price
 * for B200)" or "no GPU prices given"; "WAN egress $0.0859", "no egress
 * prices given" or "no WAN traffic". */
void gp_report_cost_parts(const struct gp_scenario *sc, const struct gp_plan *p,
			  const struct gp_result *r, char *gpus, size_t ng, char *egress,
			  size_t ne);
/* "label      text", the text wrapped before column 80 under itself. */
void gp_report_line(FILE *f, const char *label, const char *text);

int gp_report_text(FILE *f, const struct gp_scenario *sc,
		   const struct gp_plan *p, const struct gp_result *r);
int gp_report_json(FILE *f, const struct gp_scenario *sc,
		   const struct gp_plan *p, const struct gp_result *r);
/* The same into a writer (as one value), and its parts: the solver
 * object of r (engine, status, objective_s, bound_s, gap, time_s; null
 * where not finite; for the xdc-milp schedule simulated_pipeline_s, the
 * simulated makespan the solver's objective estimates), the metrics as
 * keys of the open object, the plan in the scenario schema. */
void gp_report_json_to(struct gp_json *j, const struct gp_scenario *sc,
		       const struct gp_plan *p, const struct gp_result *r);
void gp_report_json_solver(struct gp_json *j, const struct gp_result *r);
/* "prices_given": {"gpus": b, "egress": b}: whether the cost is made of
 * a GPU price the plan uses and a link price it sends bytes over. */
void gp_report_json_prices(struct gp_json *j, const struct gp_scenario *sc,
			   const struct gp_plan *p, const struct gp_result *r);
void gp_report_json_metrics(struct gp_json *j, const struct gp_result *r);
void gp_report_json_plan(struct gp_json *j, const struct gp_scenario *sc,
			 const struct gp_plan *p);
/* Where a GPU type's efficiency comes from (report_eff.c): the name of
 * an enum gp_eff_src ("default", "scenario", "measured", "borrowed"); the
 * GPU types p runs on (used[]: sc->ngpus entries); a sentence ("MI300X
 * borrows H100's fit, 0.642 of peak (no measured MI300X runs)"); an
 * "efficiency" line per type p uses whose figure is borrowed or the
 * default (a measured or the scenario's own needs no caveat); and the
 * "gpu_efficiency" key, one object per type p uses: gpu, efficiency,
 * source, and data (measured) or borrows (borrowed). */
const char *gp_eff_src_name(int src);
void gp_report_gpus_used(const struct gp_scenario *sc, const struct gp_plan *p, bool *used);
void gp_report_eff_note(const struct gp_gpu *g, char *buf, size_t n);
/* The next GPU type after g (-1: from the first) that plan p uses and
 * whose efficiency is borrowed or the default, or -1: what the
 * "efficiency" lines are said of. */
int gp_report_eff_next(const struct gp_scenario *sc, const struct gp_plan *p, int g);
void gp_report_eff_text(FILE *f, const struct gp_scenario *sc, const struct gp_plan *p);
void gp_report_eff_json(struct gp_json *j, const struct gp_scenario *sc, const struct gp_plan *p);
/* One row per task and transfer: row,kind,micro_batch,chunk,start_s,end_s */
int gp_report_csv(FILE *f, const struct gp_scenario *sc,
		  const struct gp_plan *p, const struct gp_result *r);
int gp_report_svg(FILE *f, const struct gp_scenario *sc,
		  const struct gp_plan *p, const struct gp_result *r);

/* The label of timeline row `row` ("p1 s2 ams H100x4", "ams>fra"). */
void gp_row_label(const struct gp_scenario *sc, const struct gp_result *r,
		  int row, char *buf, size_t n);
/* The plan in the scenario's Lua schema, so it can be pasted back. */
int gp_plan_write_lua(FILE *f, const struct gp_scenario *sc,
		      const struct gp_plan *p, const char *indent);

#endif
