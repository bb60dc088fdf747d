/*
 * form.c: lines of cells with a cursor (form.h).
 *
 * Across, only the cursor's section scrolls (by c->left columns), and
 * the cell at a line's column 0 (a row's name) stays: the rest is drawn
 * shifted and clipped to the right of it. Marks at the ends of the
 * section's header say there is more to either side.
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

/* Bytes of the first line of p wrapped to w cells (w <= 8: no wrap)
 * that fit cap bytes: a line too long in bytes for its buffer (wide
 * terminals, multi-byte text) wraps narrower, so no word is lost. */
static int fit_wrap(const char *p, int w, int cap, int *next)
{
	int len;
	if (w <= 8) {
		len = *next = (int)strlen(p);
	} else {
		len = gp_cv_wrap(p, w, next);
		while (len >= cap && w > 8)
			len = gp_cv_wrap(p, --w, next);
	}
	if (len >= cap)   /* one unbroken word longer than the buffer */
		len = *next = cap - 1;
	while (len > 1 && ((unsigned char)p[len] & 0xC0) == 0x80)
		len = --*next;   /* not inside a character */
	return len;
}

void gp_form_text(struct gp_form *f, enum gp_role role, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	const char *p = text;
	do {
		struct gp_form_line *l = add_line(f, GP_FL_TEXT);
		if (!l)
			return;
		l->role = role;
		int next, len = fit_wrap(p, f->width, (int)sizeof l->text, &next);
		snprintf(l->text, sizeof l->text, "%.*s", len, p);
		p += next;
	} while (*p);
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

int gp_form_columns(const int *w, int *x, int n)
{
	int at = 0;
	for (int i = 0; i < n; i++) {
		x[i] = at;
		if (w[i] >= 0)
			at += w[i] + 1;
	}
	return at;
}

int gp_form_widest(int at_least, const char *text)
{
	int w = gp_cv_width(text);
	return w > at_least ? w : at_least;
}

void gp_form_cell_wrap(struct gp_form *f, int x, int w, enum gp_role role, const char *text)
{
	const char *p = text;
	for (bool first = true; first || *p; first = false) {
		if (!first)
			gp_form_row(f);
		int next, len = fit_wrap(p, w, (int)sizeof f->spare.text, &next);
		gp_form_cell(f, x, w, role, "%.*s", len, p);
		p += next;
	}
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

/* The columns a cell's content takes: all of it when right-aligned or
 * a bar, else its text's. */
static int cell_span(const struct gp_form_cell *k)
{
	int tw = gp_cv_width(k->text);
	return k->right || k->bar >= 0 || tw > k->w ? k->w : tw;
}

/* The columns the section's rows and headers reach. */
static int section_extent(const struct gp_form *f, int sec)
{
	int x = 0;
	for (int l = 0; l < f->nlines; l++) {
		const struct gp_form_line *ln = &f->lines[l];
		if (ln->section != sec || (ln->kind != GP_FL_ROW && ln->kind != GP_FL_HEADER))
			continue;
		for (int i = 0; i < ln->ncell; i++) {
			const struct gp_form_cell *k = &f->cells[ln->cell0 + i];
			if (k->x + cell_span(k) > x)
				x = k->x + cell_span(k);
		}
	}
	return x;
}

static int frozen_w(const struct gp_form *f, int l);
static int snap(const struct gp_form *f, int sec, int fw, int want, int dir);

/* The most the section can scroll: its last column just in view. */
static int most_left(const struct gp_form *f, const struct gp_form_cursor *c, int sec)
{
	int most = section_extent(f, sec) - c->vw;
	return most > 0 ? snap(f, sec, frozen_w(f, c->line), most, 1) : 0;
}

/* Left or right with no cell further that way: scroll across by a
 * column. */
static void pan(const struct gp_form *f, struct gp_form_cursor *c, int dir)
{
	if (c->line < 0 || c->line >= f->nlines)
		return;
	int sec = f->lines[c->line].section, fw = frozen_w(f, c->line);
	if (sec != c->lsec) {
		c->lsec = sec;
		c->left = 0;
	}
	int most = most_left(f, c, sec);
	c->left = dir > 0 ? snap(f, sec, fw, c->left + 1, 1) : snap(f, sec, fw, c->left - 1, -1);
	if (c->left > most)
		c->left = most;
	if (c->left < 0)
		c->left = 0;
}

static bool read_nav(const struct gp_form *f, struct gp_form_cursor *c, int action, int page)
{
	int most = f->nlines - (c->vh > 0 ? c->vh : 1);
	switch (action) {
	case GP_A_UP: c->top--; break;
	case GP_A_DOWN: c->top++; break;
	case GP_A_PAGE_UP: c->top -= page; break;
	case GP_A_PAGE_DOWN: c->top += page; break;
	case GP_A_TOP: c->top = 0; break;
	case GP_A_BOTTOM: c->top = most; break;
	case GP_A_NEXT_PANE: case GP_A_PREV_PANE:
		for (int k = 1; k < f->nlines; k++) {
			int l = c->top + (action == GP_A_NEXT_PANE ? k : -k);
			if (l < 0 || l >= f->nlines)
				break;
			if (f->lines[l].kind == GP_FL_SECTION) {
				c->top = l;
				break;
			}
		}
		break;
	default: return false;
	}
	if (c->top > most)
		c->top = most;
	if (c->top < 0)
		c->top = 0;
	return true;
}

bool gp_form_nav(const struct gp_form *f, struct gp_form_cursor *c, int action, int page)
{
	if (c->read)
		return read_nav(f, c, action, page);
	struct gp_form_cursor was = *c;
	switch (action) {
	case GP_A_UP: gp_form_move(f, c, -1, 0); return true;
	case GP_A_DOWN: gp_form_move(f, c, 1, 0); return true;
	case GP_A_LEFT: case GP_A_RIGHT:
		gp_form_move(f, c, 0, action == GP_A_LEFT ? -1 : 1);
		if (c->line == was.line && c->cell == was.cell)
			pan(f, c, action == GP_A_LEFT ? -1 : 1);
		return true;
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

bool gp_form_act(struct gp_app *a, const struct gp_form *f, struct gp_form_cursor *c, int action)
{
	int page = c->vh > 2 ? c->vh - 2 : 1;
	if (action != GP_A_SEARCH_NEXT && action != GP_A_SEARCH_PREV)
		return gp_form_nav(f, c, action, page);
	if (!a->search[0])
		return false;
	int dir = action == GP_A_SEARCH_NEXT ? 1 : -1;
	if (c->read) {
		/* From the first line shown: the match becomes the first. */
		for (int i = 1; i <= f->nlines; i++) {
			int l = ((c->top + dir * i) % f->nlines + f->nlines) % f->nlines;
			if (line_has(f, l, a->search)) {
				c->top = l;
				return true;
			}
		}
	} else if (gp_form_search(f, c, a->search, dir)) {
		return true;
	}
	gp_app_say(a, GP_R_WARN, "\"%s\" is not on this screen", a->search);
	return true;
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
	/* Past the last line the cursor can reach: the text after it too. */
	bool more = false;
	for (int l = c->line + 1; l < f->nlines && !more; l++)
		more = line_sel(f, l);
	if (!more && c->top < f->nlines - h)
		c->top = f->nlines - h < c->line ? f->nlines - h : c->line;
	if (c->top > f->nlines - h)
		c->top = f->nlines - h > 0 ? f->nlines - h : 0;
	if (c->top < 0)
		c->top = 0;
}

/* The width of line l's fixed first column (its cell at column 0). */
static int frozen_w(const struct gp_form *f, int l)
{
	const struct gp_form_line *ln = &f->lines[l];
	return ln->ncell && f->cells[ln->cell0].x == 0 ? f->cells[ln->cell0].w + 1 : 0;
}

/* A scroll that puts a column of the section's header right after the
 * fixed column, so columns are not shown cut in half where that can be
 * helped: the smallest at least want (dir > 0), or the largest at most
 * want (dir < 0); want itself when there is none. */
static int snap(const struct gp_form *f, int sec, int fw, int want, int dir)
{
	int best = -1;
	for (int l = 0; l < f->nlines; l++) {
		const struct gp_form_line *ln = &f->lines[l];
		if (ln->section != sec || ln->kind != GP_FL_HEADER)
			continue;
		for (int i = 0; i < ln->ncell; i++) {
			int at = f->cells[ln->cell0 + i].x - fw;
			if (at < 0 || (dir > 0 ? at < want : at > want))
				continue;
			if (best < 0 || (dir > 0 ? at < best : at > best))
				best = at;
		}
	}
	return best >= 0 ? best : want;
}

/* Scrolls the cursor's section across so its cell shows. */
static void scroll_across(const struct gp_form *f, struct gp_form_cursor *c)
{
	if (c->line < 0 || c->line >= f->nlines)
		return;
	int sec = f->lines[c->line].section;
	if (sec != c->lsec) {
		c->lsec = sec;
		c->left = 0;
	}
	const struct gp_form_cell *k = gp_form_cur(f, c);
	int fw = frozen_w(f, c->line), most = most_left(f, c, sec);
	if (k && k->x > 0) {
		if (k->x - c->left < fw)
			c->left = snap(f, sec, fw, k->x - fw, -1);
		int w = cell_span(k) > 0 ? cell_span(k) : 1;
		if (k->x + w - c->left > c->vw)
			c->left = snap(f, sec, fw, k->x + w - c->vw, 1);
	}
	if (c->left > most)
		c->left = most;
	if (c->left < 0)
		c->left = 0;
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
	int left = ln->section == c->lsec ? c->left : 0, fw = frozen_w(f, l);
	struct gp_rect outer = cv->clip;
	for (int i = 0; i < ln->ncell; i++) {
		const struct gp_form_cell *x = &f->cells[ln->cell0 + i];
		struct gp_form_cell hc = *x;
		if (ln->kind == GP_FL_HEADER)
			hc.role = GP_R_HEADER;
		bool fixed = x->x == 0;
		int sx = r.x + 1 + x->x - (fixed ? 0 : left);
		/* A figure past the right edge is left out whole, never cut
		 * ("30ms" as "3"); the header's mark says more is there. */
		if (!fixed && x->right && ln->kind == GP_FL_ROW && sx + x->w > r.x + 1 + c->vw)
			continue;
		if (!fixed && left)
			gp_cv_clip(cv, (struct gp_rect){ r.x + 1 + fw, y, r.w - 1 - fw, 1 });
		draw_cell(cv, sx, y, &hc,
			  l == c->line && i == c->cell, l == c->line && ln->kind == GP_FL_ROW, t);
		cv->clip = outer;
	}
}

/* On the scrolled section's header lines: marks where more is hidden. */
static void draw_marks(const struct gp_form *f, const struct gp_form_cursor *c, int l,
		       struct gp_canvas *cv, struct gp_rect r, int y, const struct gp_theme *t)
{
	const struct gp_form_line *ln = &f->lines[l];
	if (ln->kind != GP_FL_HEADER)
		return;
	int left = ln->section == c->lsec ? c->left : 0;
	struct gp_style st = gp_role(t, GP_R_VIEWPORT);
	if (left > 0)
		gp_cv_put(cv, r.x + frozen_w(f, l), y, cv->ascii ? '<' : 0x25c2, st);
	if (section_extent(f, ln->section) - left > c->vw)
		gp_cv_put(cv, r.x + c->vw, y, cv->ascii ? '>' : 0x25b8, st);
}

void gp_form_draw(const struct gp_form *f, struct gp_form_cursor *c, struct gp_canvas *cv,
		  struct gp_rect r, const struct gp_theme *t)
{
	c->vw = r.w - (f->nlines > r.h ? 2 : 1);
	c->vh = r.h;
	struct gp_form_cursor shown = *c;
	if (c->read) {
		if (c->top > f->nlines - r.h)
			c->top = f->nlines - r.h;
		if (c->top < 0)
			c->top = 0;
		shown = *c;
		shown.line = shown.cell = -1;
	} else {
		gp_form_fix(f, c);
		scroll(f, c, r.h);
		scroll_across(f, c);
		shown = *c;
	}
	for (int y = 0; y < r.h && c->top + y < f->nlines; y++) {
		draw_line(f, &shown, c->top + y, cv, r, r.y + y, t);
		draw_marks(f, &shown, c->top + y, cv, r, r.y + y, t);
	}
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
	if (c->read || l < 0 || l >= f->nlines || !line_sel(f, l))
		return;
	const struct gp_form_line *ln = &f->lines[l];
	int left = ln->section == c->lsec ? c->left : 0;
	for (int i = 0; i < ln->ncell; i++) {
		const struct gp_form_cell *k = &f->cells[ln->cell0 + i];
		int at = x - 1 + (k->x == 0 ? 0 : left);
		if (k->sel && at >= k->x && at < k->x + k->w) {
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
