/*
 * pin.h: a plan kept for comparing (the compare screen's A): a copy of
 * a run's scenario, plan and simulated iteration (its timeline
 * included), so it outlives every later edit, undo and reload of the
 * run it came from. Its Gantt model is built the first time it is
 * drawn.
 */
#ifndef GP_PIN_H
#define GP_PIN_H

#include <stdbool.h>
#include "gantt.h"
#include "run.h"

struct gp_pin {
	char label[200];             /* what it is: "before links[ams>fra].bandwidth = 10G" */
	struct gp_scenario *sc;      /* owned copy */
	struct gp_plan plan;         /* owned copy */
	struct gp_result res;        /* owned copy */
	struct gp_gantt gantt;
	bool has_gantt;
};

/* A copy of the run's state: NULL when it has no simulated plan (or
 * out of memory). */
struct gp_pin *gp_pin_of_run(const struct gp_run *r, const char *label);
void gp_pin_free(struct gp_pin *p);
/* Its Gantt model (built now if not yet), or NULL. */
const struct gp_gantt *gp_pin_gantt(struct gp_pin *p);
/* A deep copy of a simulated iteration (timeline included): 0, or -1
 * out of memory (dst then holds nothing to free). */
int gp_result_copy(struct gp_result *dst, const struct gp_result *src);

#endif
