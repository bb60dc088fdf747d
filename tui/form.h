/*
 * form.h: what the scenario, plan and help screens are made of: lines
 * of cells under section headings, a cursor over the cells that can be
 * selected, scrolling that keeps the cursor in view (down, and across
 * inside the cursor's section, whose first column stays put, so a wide
 * matrix scrolls like a spreadsheet), search, clicks. Text lines wrap
 * to the form's width. A screen builds its form from the run at every
 * frame (it is small), so what it shows is never out of date.
 */
#ifndef GP_FORM_H
#define GP_FORM_H

#include <stdbool.h>
#include "app.h"
#include "canvas.h"
#include "theme.h"

enum gp_form_kind { GP_FL_SECTION, GP_FL_HEADER, GP_FL_ROW, GP_FL_TEXT };

struct gp_form_cell {
	int x, w;                    /* from the form's left edge */
	enum gp_role role;
	bool right;                  /* right-aligned */
	bool sel;                    /* the cursor can stop here */
	int field;                   /* index into fields, -1: none */
	double bar;                  /* >= 0: a memory bar filled to this */
	char text[160];
};

struct gp_form_line {
	enum gp_form_kind kind;
	int section;
	enum gp_role role;
	int cell0, ncell;
	char text[256];
};

struct gp_form {
	struct gp_form_line *lines;
	int nlines, caplines;
	struct gp_form_cell *cells;
	int ncells, capcells;
	struct gp_field *fields;
	int nfields, capfields;
	int nsections;
	int width;                   /* > 0: text lines wrap to it */
	bool oom;
	struct gp_form_cell spare;   /* written when out of memory, never shown */
};

void gp_form_init(struct gp_form *f);
void gp_form_free(struct gp_form *f);

/* A section heading (starts a section), a column header, a row of
 * cells, a line of text. */
void gp_form_section(struct gp_form *f, const char *title);
void gp_form_header(struct gp_form *f);
void gp_form_row(struct gp_form *f);
void gp_form_text(struct gp_form *f, enum gp_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A cell of the last line. */
struct gp_form_cell *gp_form_cell(struct gp_form *f, int x, int w, enum gp_role role,
				  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Columns of widths w[0..n) one space apart from 0 (a width < 0: the
 * column is left out) into x[]; returns the width of them all. */
int gp_form_columns(const int *w, int *x, int n);
/* at_least, or the cells text takes if more: for sizing a column to
 * its data. */
int gp_form_widest(int at_least, const char *text);
/* A cell of the last line with as much of text as fits w cells (at a
 * space); the rest on rows of their own below, at the same x. */
void gp_form_cell_wrap(struct gp_form *f, int x, int w, enum gp_role role, const char *text);
/* The cell made selectable and editable as fld (copied; shown filled). */
void gp_form_edit(struct gp_form *f, struct gp_form_cell *c, const struct gp_field *fld);

/* Cursor moves: dl lines, dc cells; to a section (dir +1/-1); to the
 * first or last selectable line. A cursor that no longer points at a
 * selectable cell is brought to the nearest. */
void gp_form_fix(const struct gp_form *f, struct gp_form_cursor *c);
void gp_form_move(const struct gp_form *f, struct gp_form_cursor *c, int dl, int dc);
void gp_form_to_section(const struct gp_form *f, struct gp_form_cursor *c, int dir);
void gp_form_to_end(const struct gp_form *f, struct gp_form_cursor *c, bool last);
/* The moves every form screen shares (actions.h: up, down, left, right,
 * page up and down, top, bottom, next and previous pane; left and right
 * scroll the section across when there is no cell further that way);
 * page: lines a page moves. A reading cursor (c->read) scrolls the
 * lines instead. False for any other action. */
bool gp_form_nav(const struct gp_form *f, struct gp_form_cursor *c, int action, int page);
/* What a form screen does with an action: the moves, and the search
 * (n, N) of the app's search text. False for any other action. */
bool gp_form_act(struct gp_app *a, const struct gp_form *f, struct gp_form_cursor *c, int action);
/* The next (dir +1) or previous line with text (case-insensitive). */
bool gp_form_search(const struct gp_form *f, struct gp_form_cursor *c, const char *text,
		    int dir);

/* Draws the form into r, scrolling so the cursor shows; records r's
 * size in c (vw, vh). */
void gp_form_draw(const struct gp_form *f, struct gp_form_cursor *c, struct gp_canvas *cv,
		  struct gp_rect r, const struct gp_theme *t);
/* A click at (x, y) of the form's rectangle (h rows): the cursor there. */
void gp_form_click(const struct gp_form *f, struct gp_form_cursor *c, int x, int y);

const struct gp_form_cell *gp_form_cur(const struct gp_form *f, const struct gp_form_cursor *c);
const struct gp_field *gp_form_cur_field(const struct gp_form *f,
					 const struct gp_form_cursor *c);

#endif
