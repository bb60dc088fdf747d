/*
 * gantt.h: the Gantt chart's model, pure (no drawing): the rows of a
 * simulated iteration (a row per stage device, then one per busy WAN
 * link direction), each an interval index sorted by start; per column
 * of a viewport what a cell shows; hit tests and moves for the cursor;
 * the critical path and every task's slack in the executed schedule.
 *
 * Cost: building sorts the spans once, O(n log n). A row's columns over
 * a viewport of w columns cost O(log n + visible spans + w): a binary
 * search for the first span ending after the viewport's start, then a
 * walk to its end.
 */
#ifndef GP_GANTT_H
#define GP_GANTT_H

#include <stdbool.h>
#include <stdint.h>
#include "gp.h"
#include "scenario.h"
#include "sim.h"

struct gp_gantt_row {
	bool link;                 /* a WAN link direction, else a stage device */
	int index;                 /* r->devs[index] or r->links[index] */
	int result_row;            /* the row number the spans carry */
	char label[64];            /* "p1 s2 ams H100x4", "ams>fra" */
	int32_t *span;             /* span indices, by start then end */
	int n;
	double *max_end;           /* [n] running max of end times (overlaps) */
	double busy;               /* seconds some span covers */
};

struct gp_gantt {
	const struct gp_result *r; /* not owned: must outlive the model */
	struct gp_gantt_row *rows;
	int nrows;
	double t_end;              /* the iteration's end */
	double *slack;             /* [r->nspans] seconds; NAN where not defined */
	int32_t *crit;             /* the critical path, first task first */
	int ncrit;
};

/* Slack is the critical path method on the executed schedule, every
 * device's order kept: a compute task waits for its device's previous
 * compute task and for its input (gp_span.dep) plus the time that took
 * to arrive (ready - the input's end); a DP sync phase (on the device's
 * row, or a transfer on a link row) waits for what its sync channel
 * waited for (the gradient task that made its bucket ready, or the
 * previous phase); an optimizer step for the device's last compute task
 * and its last sync phase. A span's slack is how much later it could
 * end without the iteration ending later (a span nothing waits for, to
 * the iteration's end). The transfers of one ring step (a bucket's sync
 * on link rows over the same interval) are one collective: what waits
 * for the step waits for all of them though a span records one input,
 * so each has the step's least slack. The critical path runs back from the
 * optimizer step with the least slack (ties: the one ending last) along
 * what held each span: its device's previous task if that ended as it
 * started, else what it waited for; every span on it has slack 0, so
 * it ends when the iteration does, DP sync included. */

/* What a cell of a row shows: kinds are enum gp_span_kind, -1 idle.
 * eighths 0: a space in bg_kind's colour; 8: a full cell of fg_kind;
 * 1..7: the left eighths block of that many eighths, fg_kind on the
 * left, bg_kind on the right (where the boundary falls, quantised to
 * 1/8). mixed: three kinds or more met in the cell; fg_kind is then the
 * one covering most of it.
 * In detail: a kind counts in a column if it covers more than a
 * billionth of it (spans of zero length never do). One kind: eighths 0,
 * fg_kind = bg_kind = it. Two: the one met first in the column is on
 * the left, eighths = its share of their cover rounded to eighths; a
 * share rounding to 0 or 8 leaves a plain cell of the other, unless it
 * is of a span shorter than a column, which keeps one eighth. Mixed:
 * fg_kind is the span kind covering most (never idle), bg_kind what
 * covers most of the rest (idle on a tie); eighths 0. Ties between
 * kinds go to the lower enum value. */
struct gp_gantt_cell {
	int8_t fg_kind, bg_kind;
	uint8_t eighths;
	bool mixed;
};

int gp_gantt_build(struct gp_gantt *g, const struct gp_scenario *sc,
		   const struct gp_result *r, struct gp_err *e);
void gp_gantt_free(struct gp_gantt *g);

/* Columns c = 0..w-1 of row `row`, column c spanning [t0 + c dt,
 * t0 + (c + 1) dt). */
void gp_gantt_cells(const struct gp_gantt *g, int row, double t0, double dt, int w,
		    struct gp_gantt_cell *out);

/* The span of row covering time t (the latest starting one if several),
 * else the nearest within tol seconds (ties: the first in the row's
 * order); -1 if none. */
int gp_gantt_hit(const struct gp_gantt *g, int row, double t, double tol);
/* The next span of the row starting after t (dir > 0), or the last one
 * starting before t (dir < 0); -1 if none. Spans starting together are
 * taken in the row's order. */
int gp_gantt_step(const struct gp_gantt *g, int row, double t, int dir);
/* How many spans of the row start in [t0, t1); *lo: the position (in
 * the row's span[]) of the first. O(log n). */
int gp_gantt_starting(const struct gp_gantt *g, int row, double t0, double t1, int *lo);
/* The row a span is on (index into g->rows), -1 if not shown. */
int gp_gantt_row_of(const struct gp_gantt *g, int span);
/* Position of span in g->crit, -1 if it is not on the critical path. */
int gp_gantt_crit_pos(const struct gp_gantt *g, int span);

#endif
