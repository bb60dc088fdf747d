/*
 * frame.c: what surrounds every screen: the tab row (the screens, the
 * file, whether it has unsaved edits, the iteration; on narrow
 * terminals the file's name goes before [+] and the iteration do), the
 * live line while the plan is stale or being made (what the solver is
 * at), the status line (a message, wrapped onto more lines when it is
 * long so it reads in full; the editor; or what the screen says) and
 * the function-key bar, made from the key map so it shows what each key
 * does here; and the screen that asks for a larger terminal.
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "actions.h"

static const int tab_keys[GP_V__N] = { '1', '2', '3', '4', '5', '?' };
static const char brand[] = " geoplan ";

/* The tab row's right part, shortest last: what matters most ([+], the
 * iteration) survives narrow terminals; the file name, then the
 * program's name go first. */
static void title_right(const struct gp_app *a, int form, char *buf, size_t n)
{
	const struct gp_run *r = &a->run;
	const char *path = r->path ? r->path : "";
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *plus = gp_app_dirty(a) ? " [+]" : "";
	char t[40] = "no iteration";
	if (r->has_res) {
		gp_unit_format(r->res.iteration_time, GP_U_TIME, t, sizeof t);
		strcat(t, form < 2 ? "/iter" : "");
	}
	const char *stale = gp_app_stale(a) || r->stale & GP_STALE_PLAN ? " (stale)" : "";
	switch (form) {
	case 0: snprintf(buf, n, "%s%s  %s%s ", path, plus, t, stale); break;
	case 1: snprintf(buf, n, "%s%s  %s%s ", base, plus, t, stale); break;
	case 2: snprintf(buf, n, "%s%s %s%s ", base, plus, t, stale); break;
	case 3: snprintf(buf, n, "%s%s%s ", plus[0] ? "[+] " : "", t, stale[0] ? "~" : ""); break;
	default: snprintf(buf, n, "%s", plus[0] ? "[+] " : ""); break;
	}
}

/* Where the tabs go: whether the program's name shows, whether the
 * tabs lose their padding, and the right part's form (-1: none fits). */
struct title {
	bool brand, compact;
	int form;
};

static int tabs_end(bool with_brand, bool compact)
{
	int x = with_brand ? gp_cv_width(brand) + 1 : 0;
	for (int i = 0; i < GP_V__N; i++)
		x += gp_cv_width(gp_app_view(i)->title) + (compact ? 3 : 5);
	return x;
}

/* The roomiest that fits: the program's name goes first, then the
 * tabs' padding before the file's name shrinks further. */
static struct title title_of(const struct gp_app *a)
{
	static const struct title tries[] = {
		{ true, false, 0 }, { false, false, 0 }, { true, false, 1 }, { false, false, 1 },
		{ false, true, 1 }, { false, false, 2 }, { false, true, 2 }, { false, false, 3 },
		{ false, true, 3 }, { false, true, 4 },
	};
	for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		char right[640];
		title_right(a, tries[i].form, right, sizeof right);
		if (tabs_end(tries[i].brand, tries[i].compact) + gp_cv_width(right) <= a->w)
			return tries[i];
	}
	return (struct title){ false, true, -1 };
}

/* Tab v spans [*x0, *x1). */
static void tab_span(const struct gp_app *a, int v, int *x0, int *x1)
{
	struct title ti = title_of(a);
	int x = ti.brand ? gp_cv_width(brand) + 1 : 0;
	for (int i = 0; i < GP_V__N; i++) {
		int w = gp_cv_width(gp_app_view(i)->title) + (ti.compact ? 2 : 4);
		if (i == v) {
			*x0 = x;
			*x1 = x + w;
			return;
		}
		x += w + 1;
	}
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
	struct title ti = title_of(a);
	gp_cv_fill(cv, (struct gp_rect){ 0, 0, a->w, 1 }, ' ', gp_role(t, GP_R_TAB));
	if (ti.brand)
		gp_cv_text(cv, 0, 0, -1, gp_role(t, GP_R_TITLE), brand);
	for (int v = 0; v < GP_V__N; v++) {
		int x0, x1;
		tab_span(a, v, &x0, &x1);
		gp_cv_printf(cv, x0, 0, x1 - x0, gp_role(t, v == a->view ? GP_R_TAB_ON : GP_R_TAB),
			     ti.compact ? "%c %s" : " %c %s ", tab_keys[v], gp_app_view(v)->title);
	}
	if (ti.form < 0)
		return;
	char right[640];
	title_right(a, ti.form, right, sizeof right);
	int w = gp_cv_width(right);
	gp_cv_text(cv, a->w - w, 0, w, gp_role(t, gp_app_dirty(a) ? GP_R_WARN : GP_R_TAB), right);
}

/* Splits text into lines of at most w cells, at spaces where it can:
 * starts[i], lens[i] in bytes; returns how many (at most max; the last
 * then holds the rest). */
static int wrap(const char *text, int w, int *starts, int *lens, int max)
{
	int n = 0, at = 0, len = (int)strlen(text);
	while (at < len && n < max) {
		int next, k = gp_cv_wrap(text + at, w, &next);
		if (n + 1 == max)
			k = next = len - at;
		starts[n] = at;
		lens[n++] = k;
		at += next;
	}
	return n;
}

enum { STATUS_MAX = 8 };

/* Lines of the status area: msg (the message, or the screen's own
 * status when there is none) wrapped to the width, and the editor's
 * line under it when one is open. */
static int status_layout(const struct gp_app *a, const char *msg, int *starts, int *lens,
			 int *nmsg)
{
	int cap = (a->h - 3) / 3;
	cap = cap < 1 ? 1 : cap > STATUS_MAX ? STATUS_MAX : cap;
	*nmsg = 0;
	if (gp_app_editing(a)) {
		int x = gp_cv_width(a->ed.prompt) + 2, ew = gp_cv_width(a->ed.buf) + 2;
		/* The message beside a value's editor (its preview, its
		 * refusal) and a command line's own hint (dim); any other over
		 * a command line, which it would read as part of (":set lin
		 * re-planned by ..."). */
		if (!msg[0] || ((a->mode != GP_MODE_COMMAND || a->status_role == GP_R_DIM) &&
				x + (ew < 12 ? 12 : ew) + 1 + gp_cv_width(msg) <= a->w))
			return 1;
		*nmsg = wrap(msg, a->w, starts, lens, cap > 1 ? cap - 1 : 1);
		return *nmsg + 1;
	}
	if (!msg[0])
		return 1;
	*nmsg = wrap(msg, a->w, starts, lens, cap);
	return *nmsg > 0 ? *nmsg : 1;
}

/* What the status line says: the message, else (no editor open) the
 * screen's own status, dim; it wraps as a message does. */
static enum gp_role status_text(struct gp_app *a, char *buf, size_t n)
{
	buf[0] = 0;
	if (a->status[0] || gp_app_editing(a)) {
		snprintf(buf, n, "%s", a->status);
		return a->status_role;
	}
	const struct gp_view_ops *v = gp_app_view(a->view);
	if (v->status)
		v->status(a, buf, n);
	return GP_R_DIM;
}

/* A figure in the objective's unit. */
static void objective_value(double v, enum gp_objective goal, char *buf, size_t n)
{
	if (goal == GP_OBJ_TIME)
		gp_unit_format(v, GP_U_TIME, buf, n);
	else if (goal == GP_OBJ_COST)
		gp_unit_format(v, GP_U_USD, buf, n);
	else
		gp_unit_bytes10(v, buf, n);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ", search 1.2 s, best 2.90s, bound 2.81s, gap 3.1 %": what the job is
 * at (no time when replaying headless: the same every run). */
static void job_figures(const struct gp_app *a, char *buf, size_t n)
{
	const struct gp_job_status *st = &a->js;
	enum gp_objective goal = a->run.sc->objective;
	int o = 0;
	buf[0] = 0;
	if (!st->running) {
		snprintf(buf, n, ": waiting to start");
		return;
	}
	if (st->phase[0])
		o += snprintf(buf + o, n - (size_t)o, ", %s", st->phase);
	if (!a->hold)
		o += snprintf(buf + o, n - (size_t)o, " %.1f s",
			      st->nreports ? fmax(st->elapsed, now_s() - st->started)
					   : now_s() - st->started);
	char v[32];
	if (isfinite(st->incumbent)) {
		objective_value(st->incumbent, goal, v, sizeof v);
		o += snprintf(buf + o, n - (size_t)o, ", best %s", v);
	}
	if (isfinite(st->bound)) {
		objective_value(st->bound, goal, v, sizeof v);
		o += snprintf(buf + o, n - (size_t)o, ", bound %s", v);
	}
	if (isfinite(st->gap))
		snprintf(buf + o, n - (size_t)o, ", gap %.1f %%", 100 * st->gap);
}

void gp_frame_live_text(const struct gp_app *a, char *buf, size_t n)
{
	int stale = gp_app_stale(a);
	const char *head = stale ? "plan stale, " : "";
	buf[0] = 0;
	if (a->job) {
		char fig[200];
		job_figures(a, fig, sizeof fig);
		const struct gp_engine *e = a->engine ? a->engine : gp_engine_default();
		snprintf(buf, n, "%s%s%s%s%s; Esc cancels", head, a->js.label,
			 strstr(a->js.label, e->name) ? "" : " with ", strstr(a->js.label, e->name)
								? "" : e->name, fig);
	} else if (stale) {
		char edits[32] = "edit";
		if (stale > 1)
			snprintf(edits, sizeof edits, "%d edits", stale);
		snprintf(buf, n, "plan stale: made before the last %s; p plans anew", edits);
	}
}

static struct gp_rect view_rect(const struct gp_app *a, const char *msg)
{
	int starts[STATUS_MAX], lens[STATUS_MAX], nmsg;
	int sh = status_layout(a, msg, starts, lens, &nmsg);
	char live[400];
	gp_frame_live_text(a, live, sizeof live);
	int lh = live[0] && a->h - 3 - sh > 6 ? 1 : 0;
	return (struct gp_rect){ 0, 1, a->w, a->h - 2 - sh - lh };
}

struct gp_rect gp_frame_view_rect(const struct gp_app *a)
{
	return view_rect(a, a->status);
}

/* The live line: under the screen, over the status line. */
static void draw_live(struct gp_app *a, struct gp_canvas *cv, struct gp_rect view)
{
	char live[400];
	gp_frame_live_text(a, live, sizeof live);
	int y = view.y + view.h;
	if (!live[0] || y >= a->h - 2)
		return;
	const struct gp_theme *t = a->th;
	gp_cv_fill(cv, (struct gp_rect){ 0, y, a->w, 1 }, ' ', gp_role(t, GP_R_STALE));
	int x = gp_cv_text(cv, 0, y, 2, gp_role(t, GP_R_STALE), cv->ascii ? "*" : "\u25cf");
	gp_cv_text(cv, x + 1, y, a->w - x - 1, gp_role(t, GP_R_STALE), live);
}

/* "path: " before a value, ":" alone before a command. */
static const char *prompt_end(const struct gp_app *a)
{
	return a->mode == GP_MODE_COMMAND ? "" : ": ";
}

static void draw_editor(struct gp_app *a, struct gp_canvas *cv, int y, bool beside)
{
	const struct gp_theme *t = a->th;
	int x = gp_cv_printf(cv, 0, y, a->w / 2, gp_role(t, GP_R_HEADER), "%s%s", a->ed.prompt,
			     prompt_end(a));
	int ew = gp_cv_width(a->ed.buf) + 2;
	if (ew < 12)
		ew = 12;
	if (x + ew > a->w - 1)
		ew = a->w - 1 - x > 4 ? a->w - 1 - x : 4;
	gp_cv_fill(cv, (struct gp_rect){ x, y, ew, 1 }, ' ', gp_role(t, GP_R_EDIT));
	/* Offered text (typing replaces it) looks selected. */
	gp_cv_text(cv, x, y, ew, gp_role(t, a->ed.fresh ? GP_R_SELECT : GP_R_EDIT), a->ed.buf);
	if (beside && a->status[0] && x + ew + 1 < a->w)
		gp_cv_text(cv, x + ew + 1, y, -1, gp_role(t, a->status_role), a->status);
}

static void draw_status(struct gp_app *a, struct gp_canvas *cv, const char *msg,
			enum gp_role role)
{
	const struct gp_theme *t = a->th;
	int starts[STATUS_MAX], lens[STATUS_MAX], nmsg;
	int sh = status_layout(a, msg, starts, lens, &nmsg), y0 = a->h - 1 - sh;
	gp_cv_fill(cv, (struct gp_rect){ 0, y0, a->w, sh }, ' ', gp_role(t, GP_R_STATUS));
	for (int i = 0; i < nmsg; i++) {
		char line[sizeof a->status];
		snprintf(line, sizeof line, "%.*s", lens[i], msg + starts[i]);
		int cut = i == nmsg - 1 && gp_cv_width(line) > a->w;
		gp_cv_text(cv, 0, y0 + i, a->w - cut, gp_role(t, role), line);
		if (cut)
			gp_cv_put(cv, a->w - 1, y0 + i, cv->ascii ? '>' : 0x2026, gp_role(t, role));
	}
	if (gp_app_editing(a))
		draw_editor(a, cv, a->h - 2, nmsg == 0);
}

/* The bar's item for F-key n at a level of shortening: 0 "F1? Help"
 * (the letter the same action has, then the label), 1 without the
 * letter "F1Help", 2 without the F too, "1Help" (as Midnight Commander
 * at its narrowest), so ten keys fit 60 columns. */
static int bar_item(const struct gp_app *a, int n, int level, char *key, size_t nk, char *lab,
		    size_t nl)
{
	bool shrt = level > 0;
	/* config.lua's bindings first, as the keys themselves go */
	int act = gp_config_action(&a->cfg, GP_K_F(n));
	if (act == GP_A_NONE)
		act = gp_fkey_action(a->view, n);
	if (act == GP_A_NONE)
		return -1;
	int keys[16], nkeys = 0;
	for (int i = 0; i < a->cfg.nkeys && nkeys < 8; i++)
		if (a->cfg.keys[i].action == act)
			keys[nkeys++] = a->cfg.keys[i].key;
	nkeys += gp_keymap_keys(a->view, act, keys + nkeys, 8);
	char letter[16] = "";
	for (int i = 0; i < nkeys && !shrt; i++) {
		int mine = gp_config_action(&a->cfg, keys[i]);
		if (keys[i] > 32 && keys[i] < 127 && (mine == GP_A_NONE || mine == act)) {
			snprintf(letter, sizeof letter, "%c", keys[i]);
			break;
		}
	}
	snprintf(key, nk, "%s%d", level > 1 ? "" : "F", n);
	snprintf(lab, nl, "%s%s%s", letter, letter[0] ? " " : "", gp_action_label(act));
	return act;
}

/* Lays the bar out; calls put for each item (x, key, label, action). */
static int bar_layout(const struct gp_app *a, int level, void (*put)(void *, int, const char *,
								     const char *), void *ud)
{
	int x = 0;
	for (int n = 1; n <= 10; n++) {
		char key[8], lab[32];
		if (bar_item(a, n, level, key, sizeof key, lab, sizeof lab) < 0)
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

/* The least shortening that fits the width (the last if none does). */
static int bar_level(const struct gp_app *a)
{
	int level = 0;
	while (level < 2 && bar_layout(a, level, NULL, NULL) > a->w)
		level++;
	return level;
}

static void draw_bar(struct gp_app *a, struct gp_canvas *cv)
{
	gp_cv_fill(cv, (struct gp_rect){ 0, a->h - 1, a->w, 1 }, ' ',
		   gp_role(a->th, GP_R_BAR_LABEL));
	struct bar_draw b = { a, cv };
	bar_layout(a, bar_level(a), put_item, &b);
}

int gp_frame_bar_at(const struct gp_app *a, int x)
{
	int level = bar_level(a), at = 0;
	for (int n = 1; n <= 10; n++) {
		char key[8], lab[32];
		int act = bar_item(a, n, level, key, sizeof key, lab, sizeof lab);
		if (act < 0)
			continue;
		int w = gp_cv_width(key) + gp_cv_width(lab) + 1;
		if (x >= at && x < at + w)
			return act;
		at += w;
	}
	return GP_A_NONE;
}

/* Below the size the screens need: say so, and keep q and resize;
 * lines wrap to fit even a tiny terminal. */
static void draw_too_small(struct gp_app *a, struct gp_canvas *cv)
{
	const struct gp_theme *t = a->th;
	char text[3][80];
	snprintf(text[0], sizeof text[0], "geoplan needs %dx%d", GP_APP_MIN_W, GP_APP_MIN_H);
	snprintf(text[1], sizeof text[1], "this terminal is %dx%d", a->w, a->h);
	snprintf(text[2], sizeof text[2], "%s",
		 a->mode == GP_MODE_QUIT ? "unsaved edits: q again quits"
		 : a->quit_armed ? "an edit is half typed: q again quits"
		 : gp_app_editing(a) ? "resize it to finish the edit, or q" : "resize it, or q to quit");
	static const enum gp_role roles[3] = { GP_R_TITLE, GP_R_TEXT, GP_R_DIM };
	int starts[3][8], lens[3][8], n[3], total = 0;
	for (int i = 0; i < 3; i++)
		total += n[i] = wrap(text[i], a->w, starts[i], lens[i], 8);
	int y = (a->h - total) / 2;
	if (y < 0)
		y = 0;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < n[i]; j++, y++) {
			char line[80];
			snprintf(line, sizeof line, "%.*s", lens[i][j], text[i] + starts[i][j]);
			int w = gp_cv_width(line);
			gp_cv_text(cv, w < a->w ? (a->w - w) / 2 : 0, y, a->w, gp_role(t, roles[i]), line);
		}
}

/* A command's answer, boxed in the middle of the screen. */
static void draw_table(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	if (!a->table)
		return;
	const struct gp_theme *t = a->th;
	int lines = 1, w = gp_cv_width(a->table_title) + 20;
	for (const char *p = a->table; *p;) {
		size_t l = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)l, p);
		if (gp_cv_width(line) > w)
			w = gp_cv_width(line);
		p += l;
		if (*p && *++p)
			lines++;
	}
	struct gp_rect b = { 0, 0, w + 4 < r.w ? w + 4 : r.w, lines + 2 < r.h ? lines + 2 : r.h };
	b.x = r.x + (r.w - b.w) / 2;
	b.y = r.y + (r.h - b.h) / 2;
	gp_cv_fill(cv, b, ' ', gp_role(t, GP_R_TEXT));
	char title[96];
	snprintf(title, sizeof title, "%s: any key closes", a->table_title);
	gp_cv_box(cv, b, gp_role(t, GP_R_BORDER_FOCUS), title);
	int y = b.y + 1;
	for (const char *p = a->table; *p && y < b.y + b.h - 1; y++) {
		size_t l = strcspn(p, "\n");
		char line[512];
		snprintf(line, sizeof line, "%.*s", (int)l, p);
		gp_cv_text(cv, b.x + 2, y, b.w - 4, gp_role(t, GP_R_TEXT), line);
		p += l;
		if (*p)
			p++;
	}
}

void gp_frame_draw(struct gp_app *a, struct gp_canvas *cv)
{
	if (gp_app_too_small(a)) {
		draw_too_small(a, cv);
		return;
	}
	draw_tabs(a, cv);
	char msg[sizeof a->status];
	enum gp_role role = status_text(a, msg, sizeof msg);
	struct gp_rect r = view_rect(a, msg);
	a->view_rect = r;   /* clicks go by the screen as drawn */
	gp_cv_clip(cv, r);
	gp_app_view(a->view)->draw(a, cv, r);
	draw_table(a, cv, r);
	gp_cv_unclip(cv);
	draw_live(a, cv, r);
	draw_status(a, cv, msg, role);
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
	gp_log_drain(a->log);
	gp_cv_clear(&a->cv, gp_role(a->th, GP_R_TEXT));
	gp_frame_draw(a, &a->cv);
}

void gp_app_cursor(const struct gp_app *a, int *x, int *y)
{
	*x = *y = -1;
	if (gp_app_too_small(a))
		return;
	if (gp_app_editing(a)) {
		*x = gp_cv_width(a->ed.prompt) + gp_cv_width(prompt_end(a)) +
		     gp_ed_caret_cells(&a->ed);
		*y = a->h - 2;
	}
}
