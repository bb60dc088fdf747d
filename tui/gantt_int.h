/*
 * gantt_int.h: internal to the Gantt chart's model (gantt.c builds the
 * rows, gantt_path.c the critical path); nobody else includes it.
 */
#ifndef GP_GANTT_INT_H
#define GP_GANTT_INT_H

#include "gantt.h"

/* Fills g->slack, g->crit and g->ncrit from g->r and g->rows; -1 when
 * out of memory. */
int gp_gantt_path(struct gp_gantt *g);

#endif
