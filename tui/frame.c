/*
 * frame.c: what surrounds every screen: the tab row (the screens, the
 * file, whether it has unsaved edits, the iteration), the status line
 * (a message, the editor, or what the screen says) and the function-key
 * bar, made from the key map so it shows what each key does here; and
 * the screen that asks for a larger terminal.
 */
#include "app.h"

#include <stdio.h>
#include <string.h>

#include "actions.h"

static const int tab_keys[GP_V__N] = { '1', '2', '3', '?' };

/* Tab v spans [*x0, *x1). */
static void tab_span(const struct gp_app *a, int v, int *x0, int *x1)
{
	int x = gp_cv_width(" geoplan ") + 1;
	for (int i = 0; i < GP_V__N; i++) {
		int w = gp_cv_width(gp_app_view(i)->title) + 4;
		if (i == v) {
			*x0 = x;
			*x1 = x + w;
			return;
		}
		x += w + 1;
	}
	(void)a;
	*x0 = *x1 = -1;
}

int gp_frame_tab_at(const struct gp_app *a, int x)
{
	for (int v = 0; v < GP_V__N; v++) {
		int x0, x1;
		tab_span(a, v, &x0, &x1);
		if (x >= x0 && x < x1)
			return v;
	}
	return -1;
}

static void draw_tabs(struct gp_app *a, struct gp_canvas *cv)
{
	const struct gp_theme *t = a->th;
	gp_cv_fill(cv, (struct gp_rect){ 0, 0, a->w, 1 }, ' ', gp_role(t, GP_R_TAB));
	gp_cv_text(cv, 0, 0, -1, gp_role(t, GP_R_TITLE), " geoplan ");
	for (int v = 0; v < GP_V__N; v++) {
		int x0, x1;
		tab_span(a, v, &x0, &x1);
		gp_cv_printf(cv, x0, 0, x1 - x0, gp_role(t, v == a->view ? GP_R_TAB_ON : GP_R_TAB),
			     " %c %s ", tab_keys[v], gp_app_view(v)->title);
	}
	char right[200];
	const struct gp_run *r = &a->run;
	int n = snprintf(right, sizeof right, "%s%s", r->path ? r->path : "",
			 gp_app_dirty(a) ? " [+]" : "");
	if (r->has_res)
		snprintf(right + n, sizeof right - (size_t)n, "  %.4g s/iter%s ", r->res.iteration_time,
			 r->stale & GP_STALE_PLAN ? " (plan stale)" : "");
	else
		snprintf(right + n, sizeof right - (size_t)n, "  no iteration ");
	int w = gp_cv_width(right), x1;
	int x0;
	tab_span(a, GP_V__N - 1, &x0, &x1);
	if (a->w - w > x1 + 1)
		gp_cv_text(cv, a->w - w, 0, w, gp_role(t, gp_app_dirty(a) ? GP_R_WARN : GP_R_TAB),
			   right);
}

static void draw_status(struct gp_app *a, struct gp_canvas *cv)
{
	const struct gp_theme *t = a->th;
	int y = a->h - 2;
	gp_cv_fill(cv, (struct gp_rect){ 0, y, a->w, 1 }, ' ', gp_role(t, GP_R_STATUS));
	if (a->mode == GP_MODE_EDIT || a->mode == GP_MODE_SEARCH || a->mode == GP_MODE_SAVE_AS) {
		/* The editor on the left half, what it says on the right. */
		int x = gp_cv_printf(cv, 0, y, a->w / 2, gp_role(t, GP_R_HEADER), "%s: ",
				     a->ed.prompt);
		int ew = gp_cv_width(a->ed.buf) + 2;
		if (ew < 12)
			ew = 12;
		if (x + ew > a->w - 20)
			ew = a->w - 20 - x > 8 ? a->w - 20 - x : 8;
		gp_cv_fill(cv, (struct gp_rect){ x, y, ew, 1 }, ' ', gp_role(t, GP_R_EDIT));
		gp_cv_text(cv, x, y, ew, gp_role(t, GP_R_EDIT), a->ed.buf);
		if (a->status[0] && x + ew + 1 < a->w)
			gp_cv_text(cv, x + ew + 1, y, -1, gp_role(t, a->status_role), a->status);
		return;
	}
	if (a->status[0]) {
		gp_cv_text(cv, 0, y, -1, gp_role(t, a->status_role), a->status);
		return;
	}
	char buf[512] = "";
	const struct gp_view_ops *v = gp_app_view(a->view);
	if (v->status)
		v->status(a, buf, sizeof buf);
	gp_cv_text(cv, 0, y, -1, gp_role(t, GP_R_DIM), buf);
}

/* The bar's item for F-key n: "F1?Help" (the letter the same action
 * has, then the label), or without the letter when short is set. */
static int bar_item(const struct gp_app *a, int n, bool shrt, char *key, size_t nk, char *lab,
		    size_t nl)
{
	int act = gp_fkey_action(a->view, n);
	if (act == GP_A_NONE)
		return -1;
	int keys[8], nkeys = gp_keymap_keys(a->view, act, keys, 8);
	char letter[16] = "";
	for (int i = 0; i < nkeys && !shrt; i++)
		if (keys[i] > 32 && keys[i] < 127) {
			snprintf(letter, sizeof letter, "%c", keys[i]);
			break;
		}
	snprintf(key, nk, "F%d", n);
	snprintf(lab, nl, "%s%s%s", letter, letter[0] ? " " : "", gp_action_label(act));
	return act;
}

/* Lays the bar out; calls put for each item (x, key, label, action). */
static int bar_layout(const struct gp_app *a, bool shrt, void (*put)(void *, int, const char *,
								     const char *), void *ud)
{
	int x = 0;
	for (int n = 1; n <= 10; n++) {
		char key[8], lab[32];
		if (bar_item(a, n, shrt, key, sizeof key, lab, sizeof lab) < 0)
			continue;
		if (put)
			put(ud, x, key, lab);
		x += gp_cv_width(key) + gp_cv_width(lab) + 1;
	}
	return x;
}

struct bar_draw {
	struct gp_app *a;
	struct gp_canvas *cv;
};

static void put_item(void *ud, int x, const char *key, const char *lab)
{
	struct bar_draw *b = ud;
	int y = b->a->h - 1, kw = gp_cv_width(key);
	gp_cv_text(b->cv, x, y, kw, gp_role(b->a->th, GP_R_BAR_KEY), key);
	gp_cv_text(b->cv, x + kw, y, -1, gp_role(b->a->th, GP_R_BAR_LABEL), lab);
}

static void draw_bar(struct gp_app *a, struct gp_canvas *cv)
{
	gp_cv_fill(cv, (struct gp_rect){ 0, a->h - 1, a->w, 1 }, ' ',
		   gp_role(a->th, GP_R_BAR_LABEL));
	struct bar_draw b = { a, cv };
	bool shrt = bar_layout(a, false, NULL, NULL) > a->w;
	bar_layout(a, shrt, put_item, &b);
}

int gp_frame_bar_at(const struct gp_app *a, int x)
{
	bool shrt = bar_layout(a, false, NULL, NULL) > a->w;
	int at = 0;
	for (int n = 1; n <= 10; n++) {
		char key[8], lab[32];
		int act = bar_item(a, n, shrt, key, sizeof key, lab, sizeof lab);
		if (act < 0)
			continue;
		int w = gp_cv_width(key) + gp_cv_width(lab) + 1;
		if (x >= at && x < at + w)
			return act;
		at += w;
	}
	return GP_A_NONE;
}

/* Below the size the screens need: say so, and keep q and resize. */
static void draw_too_small(struct gp_app *a, struct gp_canvas *cv)
{
	const struct gp_theme *t = a->th;
	char l1[80], l2[80];
	snprintf(l1, sizeof l1, "geoplan needs %d x %d", GP_APP_MIN_W, GP_APP_MIN_H);
	snprintf(l2, sizeof l2, "this terminal is %d x %d", a->w, a->h);
	const char *l3 = a->mode == GP_MODE_QUIT ? "unsaved edits: q again quits" :
			 "resize it, or q to quit";
	int y = a->h / 2 - 1;
	gp_cv_text(cv, (a->w - gp_cv_width(l1)) / 2, y, -1, gp_role(t, GP_R_TITLE), l1);
	gp_cv_text(cv, (a->w - gp_cv_width(l2)) / 2, y + 1, -1, gp_role(t, GP_R_TEXT), l2);
	gp_cv_text(cv, (a->w - gp_cv_width(l3)) / 2, y + 2, -1, gp_role(t, GP_R_DIM), l3);
}

void gp_frame_draw(struct gp_app *a, struct gp_canvas *cv)
{
	if (gp_app_too_small(a)) {
		draw_too_small(a, cv);
		return;
	}
	draw_tabs(a, cv);
	struct gp_rect r = { 0, 1, a->w, a->h - 3 };
	gp_cv_clip(cv, r);
	gp_app_view(a->view)->draw(a, cv, r);
	gp_cv_unclip(cv);
	draw_status(a, cv);
	draw_bar(a, cv);
}

void gp_app_draw(struct gp_app *a)
{
	if (a->cv.w != a->w || a->cv.h != a->h || !a->cv.cells) {
		if (a->cv.cells)
			gp_cv_resize(&a->cv, a->w, a->h);
		else
			gp_cv_init(&a->cv, a->w, a->h);
	}
	a->cv.ascii = a->ascii;
	gp_cv_clear(&a->cv, gp_role(a->th, GP_R_TEXT));
	gp_frame_draw(a, &a->cv);
}

void gp_app_cursor(const struct gp_app *a, int *x, int *y)
{
	*x = *y = -1;
	if (gp_app_too_small(a))
		return;
	if (a->mode == GP_MODE_EDIT || a->mode == GP_MODE_SEARCH || a->mode == GP_MODE_SAVE_AS) {
		*x = gp_cv_width(a->ed.prompt) + 2 + gp_ed_caret_cells(&a->ed);
		*y = a->h - 2;
	}
}
