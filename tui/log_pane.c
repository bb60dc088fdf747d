/*
 * log_pane.c: the log pane of the solver screen (app.h, log.h): the
 * log's lines, newest at the bottom, following the end until the user
 * scrolls back; each line marked by its level with a glyph as well as
 * a role (an error reads as one without colour) and wrapped to the
 * pane, so a Lua error reads whole; a search for text with / then n
 * and N, the line found shown selected. Scrolling goes by log lines.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "actions.h"

/* Rows line i takes in a pane of w text cells. */
static int rows_of(const struct gp_app *a, int i, int w)
{
	const char *t = gp_log_at(a->log, i)->text;
	int n = 0, next;
	do {
		gp_cv_wrap(t, w, &next);
		t += next;
		n++;
	} while (*t);
	return n;
}

static int text_w(const struct gp_app *a)
{
	return a->lg.vw - 3 > 8 ? a->lg.vw - 3 : 8;
}

/* The first line shown: lg.top, or (following the end) the first of the
 * last lines that fill the pane. */
static int first_shown(const struct gp_app *a, int vh)
{
	int n = gp_log_count(a->log), top = a->lg.top;
	if (top >= 0 && top < n)
		return top;
	int rows = 0;
	for (top = n; top > 0 && rows + rows_of(a, top - 1, text_w(a)) <= vh; top--)
		rows += rows_of(a, top - 1, text_w(a));
	return top < n || n == 0 ? top : n - 1;
}

static const char *mark(enum gp_log_level lv, bool cont, bool ascii)
{
	if (cont)
		return "  ";
	if (lv == GP_LOG_ERROR)
		return ascii ? "E " : "\u2716 ";
	if (lv == GP_LOG_WARN)
		return ascii ? "! " : "\u25b2 ";
	return "  ";
}

void gp_log_pane_draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	const struct gp_theme *t = a->th;
	int n = gp_log_count(a->log);
	a->lg.vh = r.h;
	if (n == 0) {   /* wrapped, so it is whole at 80 columns */
		const char *p = "nothing yet: what cost-model and heuristic scripts print and warn, "
				"their errors, and what libraries write to stderr come here";
		for (int y = r.y; *p && y < r.y + r.h && r.w > 10; y++) {
			int next, cut = gp_cv_wrap(p, r.w - 2, &next);
			char line[200];
			snprintf(line, sizeof line, "%.*s", cut, p);
			gp_cv_text(cv, r.x + 1, y, r.w - 1, gp_role(t, GP_R_DIM), line);
			if (next <= 0)
				break;
			p += next;
		}
		return;
	}
	a->lg.vw = r.w;
	int top = first_shown(a, r.h), tw = text_w(a);
	for (int i = top, y = r.y; i < n && y < r.y + r.h; i++) {
		const struct gp_log_line *l = gp_log_at(a->log, i);
		enum gp_role role = l->level == GP_LOG_ERROR ? GP_R_ERROR
				    : l->level == GP_LOG_WARN ? GP_R_WARN : GP_R_TEXT;
		if (i == a->lg.line)
			role = GP_R_SELECT;
		gp_cv_text(cv, r.x + 1, y, 2, gp_role(t, role), mark(l->level, l->cont, cv->ascii));
		const char *p = l->text;
		do {
			int next, k = gp_cv_wrap(p, tw, &next);
			char part[GP_LOG_WIDTH];
			snprintf(part, sizeof part, "%.*s", k, p);
			gp_cv_text(cv, r.x + 3, y++, tw, gp_role(t, role), part);
			p += next;
		} while (*p && y < r.y + r.h);
	}
}

static bool line_has(const struct gp_log_line *l, const char *s)
{
	size_t n = strlen(s);
	for (const char *p = l->text; *p; p++)
		if (!strncasecmp(p, s, n))
			return true;
	return false;
}

/* The next (dir 1) or previous line holding the search text. */
static void search(struct gp_app *a, int dir)
{
	int n = gp_log_count(a->log), from = a->lg.line >= 0 ? a->lg.line
				      : dir > 0 ? first_shown(a, a->lg.vh) - 1 : n;
	for (int k = 1; k <= n; k++) {
		int i = ((from + dir * k) % n + n) % n;
		if (line_has(gp_log_at(a->log, i), a->search)) {
			a->lg.line = i;
			int top = first_shown(a, a->lg.vh);
			if (i < top || i >= top + a->lg.vh)
				a->lg.top = i - a->lg.vh / 2 < 0 ? 0 : i - a->lg.vh / 2;
			return;
		}
	}
	gp_app_say(a, GP_R_WARN, "no log line holds \"%s\"", a->search);
}

/* From line top on, the rest of the log fits the pane. */
static bool follows_end(const struct gp_app *a, int top, int vh)
{
	int rows = 0, n = gp_log_count(a->log);
	for (int i = top; i < n && rows <= vh; i++)
		rows += rows_of(a, i, text_w(a));
	return rows <= vh;
}

bool gp_log_pane_action(struct gp_app *a, int act)
{
	int n = gp_log_count(a->log), vh = a->lg.vh > 0 ? a->lg.vh : 1;
	int top = first_shown(a, vh), page = vh > 1 ? vh - 1 : 1;
	switch (act) {
	case GP_A_UP: top--; break;
	case GP_A_DOWN: top++; break;
	case GP_A_PAGE_UP: top -= page; break;
	case GP_A_PAGE_DOWN: top += page; break;
	case GP_A_TOP: top = 0; break;
	case GP_A_BOTTOM: top = n; break;
	case GP_A_SEARCH_NEXT: case GP_A_SEARCH_PREV:
		if (!a->search[0] || n == 0)
			return false;
		search(a, act == GP_A_SEARCH_NEXT ? 1 : -1);
		return true;
	default: return false;
	}
	/* At (or past) the end: follow it again. */
	if (top < 0)
		top = 0;
	a->lg.top = top >= n || follows_end(a, top, vh) ? -1 : top;
	return true;
}
