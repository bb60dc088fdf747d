/*
 * form.c: lines of cells with a cursor (form.h).
 */
#include "form.h"

#include "actions.h"

#include <strings.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gp_form_init(struct gp_form *f)
{
	memset(f, 0, sizeof *f);
}

void gp_form_free(struct gp_form *f)
{
	free(f->lines);
	free(f->cells);
	free(f->fields);
	memset(f, 0, sizeof *f);
}

/* Room for one more of an array of elements of size sz. */
static bool grow(void **v, int n, int *cap, size_t sz)
{
	if (n < *cap)
		return true;
	int nc = *cap ? 2 * *cap : 64;
	void *p = realloc(*v, sz * (size_t)nc);
	if (!p)
		return false;
	*v = p;
	*cap = nc;
	return true;
}

static struct gp_form_line *add_line(struct gp_form *f, enum gp_form_kind k)
{
	if (f->oom || !grow((void **)&f->lines, f->nlines, &f->caplines, sizeof *f->lines)) {
		f->oom = true;
		return NULL;
	}
	struct gp_form_line *l = &f->lines[f->nlines++];
	*l = (struct gp_form_line){ .kind = k, .section = f->nsections - 1, .role = GP_R_TEXT,
				    .cell0 = f->ncells };
	return l;
}

void gp_form_section(struct gp_form *f, const char *title)
{
	f->nsections++;
	struct gp_form_line *l = add_line(f, GP_FL_SECTION);
	if (l)
		snprintf(l->text, sizeof l->text, "%s", title);
}

void gp_form_header(struct gp_form *f)
{
	add_line(f, GP_FL_HEADER);
}

void gp_form_row(struct gp_form *f)
{
	add_line(f, GP_FL_ROW);
}

void gp_form_text(struct gp_form *f, enum gp_role role, const char *fmt, ...)
{
	struct gp_form_line *l = add_line(f, GP_FL_TEXT);
	if (!l)
		return;
	l->role = role;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->text, sizeof l->text, fmt, ap);
	va_end(ap);
}

struct gp_form_cell *gp_form_cell(struct gp_form *f, int x, int w, enum gp_role role,
				  const char *fmt, ...)
{
	if (f->oom || !f->nlines ||
	    !grow((void **)&f->cells, f->ncells, &f->capcells, sizeof *f->cells)) {
		f->oom = true;
		memset(&f->spare, 0, sizeof f->spare);
		return &f->spare;   /* written, never shown */
	}
	struct gp_form_cell *c = &f->cells[f->ncells++];
	*c = (struct gp_form_cell){ .x = x, .w = w, .role = role, .field = -1, .bar = -1 };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->text, sizeof c->text, fmt, ap);
	va_end(ap);
	f->lines[f->nlines - 1].ncell++;
	return c;
}

void gp_form_edit(struct gp_form *f, struct gp_form_cell *c, const struct gp_field *fld)
{
	if (f->oom || !grow((void **)&f->fields, f->nfields, &f->capfields, sizeof *f->fields)) {
		f->oom = true;
		return;
	}
	f->fields[f->nfields] = *fld;
	gp_field_show(&f->fields[f->nfields]);
	c->field = f->nfields++;
	c->sel = true;
	snprintf(c->text, sizeof c->text, "%s", f->fields[c->field].shown);
}

static const struct gp_form_cell *cell_of(const struct gp_form *f, int line, int cell)
{
	const struct gp_form_line *l = &f->lines[line];
	return cell >= 0 && cell < l->ncell ? &f->cells[l->cell0 + cell] : NULL;
}

static bool line_sel(const struct gp_form *f, int line)
{
	const struct gp_form_line *l = &f->lines[line];
	for (int i = 0; i < l->ncell; i++)
		if (f->cells[l->cell0 + i].sel)
			return true;
	return false;
}

/* The selectable cell of line nearest to cell index want. */
static int nearest_cell(const struct gp_form *f, int line, int want)
{
	const struct gp_form_line *l = &f->lines[line];
	int best = -1;
	for (int i = 0; i < l->ncell; i++)
		if (f->cells[l->cell0 + i].sel && (best < 0 || abs(i - want) < abs(best - want)))
			best = i;
	return best;
}

void gp_form_fix(const struct gp_form *f, struct gp_form_cursor *c)
{
	if (f->nlines == 0) {
		c->line = c->cell = 0;
		return;
	}
	if (c->line >= f->nlines)
		c->line = f->nlines - 1;
	if (c->line < 0)
		c->line = 0;
	for (int d = 0; d < f->nlines; d++) {
		int ls[2] = { c->line + d, c->line - d };
		for (int k = 0; k < 2; k++)
			if (ls[k] >= 0 && ls[k] < f->nlines && line_sel(f, ls[k])) {
				c->line = ls[k];
				c->cell = nearest_cell(f, c->line, c->cell);
				return;
			}
	}
	c->cell = -1;
}

void gp_form_move(const struct gp_form *f, struct gp_form_cursor *c, int dl, int dc)
{
	gp_form_fix(f, c);
	if (c->cell < 0)
		return;
	int step = dl > 0 ? 1 : -1;
	for (int moved = 0, l = c->line; moved < abs(dl);) {
		l += step;
		if (l < 0 || l >= f->nlines)
			break;
		if (line_sel(f, l)) {
			c->line = l;
			moved++;
		}
	}
	c->cell = nearest_cell(f, c->line, c->cell);
	for (int i = c->cell + dc, k = 0; k < abs(dc) && i >= 0; i += dc > 0 ? 1 : -1) {
		const struct gp_form_cell *x = cell_of(f, c->line, i);
		if (!x)
			break;
		if (x->sel) {
			c->cell = i;
			k++;
		}
	}
}

void gp_form_to_section(const struct gp_form *f, struct gp_form_cursor *c, int dir)
{
	gp_form_fix(f, c);
	int s = c->line < f->nlines ? f->lines[c->line].section : 0;
	for (int k = 1; k <= f->nsections; k++) {
		int want = ((s + dir * k) % f->nsections + f->nsections) % f->nsections;
		for (int l = 0; l < f->nlines; l++)
			if (f->lines[l].section == want && line_sel(f, l)) {
				c->line = l;
				c->cell = nearest_cell(f, l, 0);
				return;
			}
	}
}

void gp_form_to_end(const struct gp_form *f, struct gp_form_cursor *c, bool last)
{
	c->line = last ? f->nlines - 1 : 0;
	c->cell = 0;
	gp_form_fix(f, c);
	if (!last)
		c->top = 0;
}

bool gp_form_nav(const struct gp_form *f, struct gp_form_cursor *c, int action, int page)
{
	switch (action) {
	case GP_A_UP: gp_form_move(f, c, -1, 0); return true;
	case GP_A_DOWN: gp_form_move(f, c, 1, 0); return true;
	case GP_A_LEFT: gp_form_move(f, c, 0, -1); return true;
	case GP_A_RIGHT: gp_form_move(f, c, 0, 1); return true;
	case GP_A_PAGE_UP: gp_form_move(f, c, -page, 0); return true;
	case GP_A_PAGE_DOWN: gp_form_move(f, c, page, 0); return true;
	case GP_A_TOP: gp_form_to_end(f, c, false); return true;
	case GP_A_BOTTOM: gp_form_to_end(f, c, true); return true;
	case GP_A_NEXT_PANE: gp_form_to_section(f, c, 1); return true;
	case GP_A_PREV_PANE: gp_form_to_section(f, c, -1); return true;
	default: return false;
	}
}

static bool has_text(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (!strncasecmp(p, needle, n))
			return true;
	return false;
}

static bool line_has(const struct gp_form *f, int line, const char *text)
{
	const struct gp_form_line *l = &f->lines[line];
	if (has_text(l->text, text))
		return true;
	for (int i = 0; i < l->ncell; i++)
		if (has_text(f->cells[l->cell0 + i].text, text))
			return true;
	return false;
}

bool gp_form_search(const struct gp_form *f, struct gp_form_cursor *c, const char *text,
		    int dir)
{
	for (int k = 1; k <= f->nlines; k++) {
		int l = ((c->line + dir * k) % f->nlines + f->nlines) % f->nlines;
		if (!line_has(f, l, text))
			continue;
		c->line = l;
		c->cell = 0;
		/* The matching cell if there is one, else the line's first. */
		for (int i = 0; i < f->lines[l].ncell; i++)
			if (cell_of(f, l, i)->sel && has_text(cell_of(f, l, i)->text, text)) {
				c->cell = i;
				break;
			}
		if (!line_sel(f, l))
			c->top = l > 2 ? l - 2 : 0;   /* show a heading that matched */
		gp_form_fix(f, c);
		return true;
	}
	return false;
}

/* Scrolls so the cursor's line shows, with its section heading when it
 * fits. */
static void scroll(const struct gp_form *f, struct gp_form_cursor *c, int h)
{
	if (c->line < c->top)
		c->top = c->line;
	if (c->line >= c->top + h)
		c->top = c->line - h + 1;
	/* the heading (and the column header) above the cursor's rows */
	for (int l = c->line; l >= 0 && l > c->line - 3; l--)
		if (f->lines[l].kind == GP_FL_SECTION && l < c->top && c->line - l < h) {
			c->top = l;
			break;
		}
	if (c->top > f->nlines - h)
		c->top = f->nlines - h > 0 ? f->nlines - h : 0;
	if (c->top < 0)
		c->top = 0;
}

static void draw_bar_cell(struct gp_canvas *cv, int x, int y, const struct gp_form_cell *c,
			  const struct gp_theme *t)
{
	enum gp_role fill = c->bar > 1 ? GP_R_MEM_OVER : c->bar > 0.9 ? GP_R_MEM_HIGH
				      : GP_R_MEM_OK;
	if (t->mono) {
		int n = (int)(c->bar * c->w + 0.5);
		for (int i = 0; i < c->w; i++)
			gp_cv_put(cv, x + i, y, i < n ? (cv->ascii ? '#' : 0x2588) : '.',
				  gp_role(t, i < n ? fill : GP_R_DIM));
		return;
	}
	gp_cv_bar(cv, x, y, c->w, c->bar > 1 ? 1 : c->bar, gp_role(t, fill).fg,
		  gp_role(t, GP_R_MEM_BACK).fg);
}

/* A cell; on the cursor's line (online) over its dim bar. */
static void draw_cell(struct gp_canvas *cv, int x, int y, const struct gp_form_cell *c,
		      bool cur, bool online, const struct gp_theme *t)
{
	if (c->bar >= 0) {
		draw_bar_cell(cv, x, y, c, t);
		return;
	}
	struct gp_style st = gp_role(t, cur ? GP_R_SELECT : c->role);
	if (online && !cur && st.bg == GP_CV_DEFAULT) {
		st.bg = gp_role(t, GP_R_SELECT_DIM).bg;
		st.attr |= gp_role(t, GP_R_SELECT_DIM).attr;
	}
	int tw = gp_cv_width(c->text);
	if (cur)
		gp_cv_fill(cv, (struct gp_rect){ x, y, c->w, 1 }, ' ', st);
	int at = c->right && tw < c->w ? x + c->w - tw : x;
	gp_cv_text(cv, at, y, x + c->w - at, st, c->text);
}

static void draw_line(const struct gp_form *f, const struct gp_form_cursor *c, int l,
		      struct gp_canvas *cv, struct gp_rect r, int y, const struct gp_theme *t)
{
	const struct gp_form_line *ln = &f->lines[l];
	int cursec = c->line >= 0 && c->line < f->nlines ? f->lines[c->line].section : -1;
	if (ln->kind == GP_FL_SECTION) {
		enum gp_role role = ln->section == cursec ? GP_R_BORDER_FOCUS : GP_R_BORDER;
		gp_cv_hline(cv, r.x, y, r.w, gp_role(t, role));
		gp_cv_printf(cv, r.x + 2, y, r.w - 4, gp_role(t, ln->section == cursec ? GP_R_TITLE
										 : GP_R_HEADER),
			     " %s ", ln->text);
		return;
	}
	if (ln->kind == GP_FL_TEXT) {
		gp_cv_text(cv, r.x + 1, y, r.w - 1, gp_role(t, ln->role), ln->text);
		return;
	}
	if (l == c->line && ln->kind == GP_FL_ROW)
		gp_cv_fill(cv, (struct gp_rect){ r.x, y, r.w, 1 }, ' ', gp_role(t, GP_R_SELECT_DIM));
	for (int i = 0; i < ln->ncell; i++) {
		const struct gp_form_cell *x = &f->cells[ln->cell0 + i];
		struct gp_form_cell hc = *x;
		if (ln->kind == GP_FL_HEADER)
			hc.role = GP_R_HEADER;
		draw_cell(cv, r.x + 1 + x->x, y, &hc, l == c->line && i == c->cell,
			  l == c->line && ln->kind == GP_FL_ROW, t);
	}
}

void gp_form_draw(const struct gp_form *f, struct gp_form_cursor *c, struct gp_canvas *cv,
		  struct gp_rect r, const struct gp_theme *t)
{
	gp_form_fix(f, c);
	scroll(f, c, r.h);
	for (int y = 0; y < r.h && c->top + y < f->nlines; y++)
		draw_line(f, c, c->top + y, cv, r, r.y + y, t);
	if (f->nlines > r.h) {
		/* where the view is: a thumb in the last column */
		int th = r.h * r.h / f->nlines, ty = r.h * c->top / f->nlines;
		for (int y = 0; y < r.h; y++)
			gp_cv_put(cv, r.x + r.w - 1, r.y + y,
				  y >= ty && y <= ty + th ? (cv->ascii ? '#' : 0x2590)
							  : (cv->ascii ? '|' : 0x2502),
				  gp_role(t, y >= ty && y <= ty + th ? GP_R_VIEWPORT : GP_R_BORDER));
	}
}

void gp_form_click(const struct gp_form *f, struct gp_form_cursor *c, int x, int y)
{
	int l = c->top + y;
	if (l < 0 || l >= f->nlines || !line_sel(f, l))
		return;
	const struct gp_form_line *ln = &f->lines[l];
	for (int i = 0; i < ln->ncell; i++) {
		const struct gp_form_cell *k = &f->cells[ln->cell0 + i];
		if (k->sel && x - 1 >= k->x && x - 1 < k->x + k->w) {
			c->line = l;
			c->cell = i;
			return;
		}
	}
	c->line = l;
	c->cell = nearest_cell(f, l, 0);
}

const struct gp_form_cell *gp_form_cur(const struct gp_form *f, const struct gp_form_cursor *c)
{
	if (c->line < 0 || c->line >= f->nlines)
		return NULL;
	return cell_of(f, c->line, c->cell);
}

const struct gp_field *gp_form_cur_field(const struct gp_form *f,
					 const struct gp_form_cursor *c)
{
	const struct gp_form_cell *x = gp_form_cur(f, c);
	return x && x->field >= 0 ? &f->fields[x->field] : NULL;
}
