/*
 * view_solver.c: the solver screen. Above, the planning job: what it is
 * for, its engine, phase, time, incumbent, bound and gap, live, with
 * their history as a small graph; then how the plan shown was found
 * (the engine's report and its note). Below, the log pane (log_pane.c):
 * the scripts' output, warnings and errors with their tracebacks, what
 * libraries wrote to stderr. Tab moves the keys between the panes; the
 * log scrolls and searches.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "fmt.h"
#include "plot.h"

enum { LABEL_W = 11, GRAPH_H = 4 };

void gp_app_objective_value(const struct gp_app *a, double v, char *buf, size_t n)
{
	enum gp_objective goal = a->run.sc->objective;
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else if (goal == GP_OBJ_TIME)
		gp_unit_format(v, GP_U_TIME, buf, n);
	else if (goal == GP_OBJ_COST)
		gp_unit_format(v, GP_U_USD, buf, n);
	else
		gp_unit_bytes10(v, buf, n);
}

/* A section's heading: its title in the rule, brighter when focused. */
static void heading(struct gp_app *a, struct gp_canvas *cv, int y, int w, const char *title,
		    bool focus)
{
	struct gp_style st = gp_role(a->th, focus ? GP_R_BORDER_FOCUS : GP_R_BORDER);
	gp_cv_hline(cv, 0, y, w, st);
	gp_cv_printf(cv, 3, y, w - 4, gp_role(a->th, focus ? GP_R_BORDER_FOCUS : GP_R_HEADER),
		     " %s ", title);
}

/* A row's text cut at a word, with an ellipsis, where it is wider than
 * the screen ("failed: ... instruction budget …", never "budge"). */
static void row(struct gp_app *a, struct gp_canvas *cv, int y, const char *label, enum gp_role role,
		const char *text)
{
	gp_cv_text(cv, 1, y, LABEL_W, gp_role(a->th, GP_R_DIM), label);
	int w = cv->clip.x + cv->clip.w - 1 - LABEL_W - 1, next;
	if (w > 8 && gp_cv_width(text) > w) {
		char cut[600];
		int k = gp_cv_wrap(text, w - 2, &next);
		snprintf(cut, sizeof cut, "%.*s%s", k, text, cv->ascii ? " ..." : " \u2026");
		gp_cv_text(cv, 1 + LABEL_W, y, -1, gp_role(a->th, role), cut);
		return;
	}
	gp_cv_text(cv, 1 + LABEL_W, y, -1, gp_role(a->th, role), text);
}

/* How the job stands, in words. */
static void state_of(const struct gp_app *a, char *buf, size_t n)
{
	const struct gp_job_status *st = &a->js;
	if (!st->id)
		snprintf(buf, n, "none yet: p plans, and an edit re-plans by itself%s",
			 a->live ? "" : " (live re-planning is off: :set live on)");
	else if (!a->job && a->job_note[0])
		snprintf(buf, n, "%s: %s", st->label, a->job_note);
	else if (st->done || !a->job)
		snprintf(buf, n, "%s: ended", st->label);
	else if (st->cancelling)
		snprintf(buf, n, "%s: cancelling...", st->label);
	else if (st->paused)
		snprintf(buf, n, "%s: paused after report %d (the replay's <Wait %d>)", st->label,
			 st->nreports, st->nreports);
	else if (st->running)
		snprintf(buf, n, "%s: running; Esc cancels", st->label);
	else
		snprintf(buf, n, "%s: waiting to start", st->label);
}

static void figures(struct gp_app *a, struct gp_canvas *cv, int y)
{
	static const struct gp_job_status none = { .incumbent = HUGE_VAL, .bound = -HUGE_VAL,
						    .gap = HUGE_VAL };
	const struct gp_job_status *st = a->js.id ? &a->js : &none;
	char b[32], bd[32], line[200];
	/* The job's engine, as its label names it; a report from another
	 * (milp's warm start runs megatron, atlas, search) says whose. */
	const struct gp_engine *e = a->engine ? a->engine : gp_engine_default();
	const char *by = st->engine[0] && strcmp(st->engine, e->name) ? st->engine : "";
	snprintf(line, sizeof line, "%s%s%s%s%s", e->name, by[0] ? "; last report from " : "",
		 by, st->phase[0] ? ", phase " : "", st->phase);
	row(a, cv, y, "engine", GP_R_VALUE, line);
	/* A report from another engine judges its own plans, with no
	 * bound: the figures are the solver's, as its history last has
	 * them (the plan row's are another job's). */
	double inc = st->incumbent, bound = st->bound, g = st->gap;
	if (by[0] && st->nhist > 0) {
		inc = st->hist[st->nhist - 1].incumbent;
		bound = st->hist[st->nhist - 1].bound;
		g = isfinite(inc) && isfinite(bound) && inc > 0 ? (inc - bound) / inc : HUGE_VAL;
	}
	gp_app_objective_value(a, inc, b, sizeof b);
	gp_app_objective_value(a, bound, bd, sizeof bd);
	char gap[24] = "-", t[24] = "-";
	if (isfinite(g))
		gp_fmt_gap(g, gap, sizeof gap);
	if (!a->hold && st->nreports)   /* "1.23s", as the figures beside it */
		gp_unit_format(st->elapsed, GP_U_TIME, t, sizeof t);
	/* Whole at 80 columns: "time 10.02s" ends at column 79. */
	snprintf(line, sizeof line, "best %-9s bound %-9s gap %-8s reports %-3d time %s", b, bd,
		 gap, st->nreports, t);
	row(a, cv, y + 1, "incumbent", GP_R_VALUE, line);
}

/* The history of incumbent and bound; the range on the left. */
static void history(struct gp_app *a, struct gp_canvas *cv, int y, int w)
{
	const struct gp_job_status *st = &a->js;
	double inc[GP_HIST_MAX], bnd[GP_HIST_MAX];
	for (int i = 0; i < st->nhist; i++) {
		inc[i] = isfinite(st->hist[i].incumbent) ? st->hist[i].incumbent : NAN;
		bnd[i] = isfinite(st->hist[i].bound) ? st->hist[i].bound : NAN;
	}
	struct gp_plot_series s[2] = { { inc, gp_role(a->th, GP_R_VALUE) },
				       { bnd, gp_role(a->th, GP_R_DIM) } };
	double lo, hi;
	gp_cv_text(cv, 1, y, LABEL_W, gp_role(a->th, GP_R_DIM), "history");
	if (st->nhist == 0 || !gp_plot_range(s, 2, st->nhist, &lo, &hi)) {
		gp_cv_text(cv, 1 + LABEL_W, y, -1, gp_role(a->th, GP_R_DIM),
			   st->nreports ? "nothing to draw: the reports had no incumbent or bound yet"
					: "no reports yet (incumbent and bound over the reports)");
		return;
	}
	char top[32], bot[32];
	gp_cv_printf(cv, 1, y + 1, LABEL_W, gp_role(a->th, GP_R_DIM), "%s", st->hist_engine);
	gp_cv_printf(cv, 1, y + 2, LABEL_W, gp_role(a->th, GP_R_DIM), "%s", st->hist_phase);
	gp_app_objective_value(a, hi, top, sizeof top);
	gp_app_objective_value(a, lo, bot, sizeof bot);
	int gx = 1 + LABEL_W + 9, gw = w - gx - 2 > 60 ? 60 : w - gx - 2;
	gp_cv_text(cv, 1 + LABEL_W, y, 8, gp_role(a->th, GP_R_AXIS), top);
	gp_cv_text(cv, 1 + LABEL_W, y + GRAPH_H - 1, 8, gp_role(a->th, GP_R_AXIS), bot);
	gp_plot(cv, (struct gp_rect){ gx, y, gw, GRAPH_H }, s, 2, st->nhist, lo, hi);
	int x = gx + gw + 2;
	if (x + 12 < w) {
		gp_cv_text(cv, x, y, -1, gp_role(a->th, GP_R_VALUE), cv->ascii ? "* best" : "\u28ff best");
		gp_cv_text(cv, x, y + 1, -1, gp_role(a->th, GP_R_DIM), cv->ascii ? ". bound" : "\u2824 bound");
	}
}

/* The note with the MILP's own time ("in 0.006 s over") masked, for a
 * replay's screens, which are the same every time. */
static void mask_time(char *note)
{
	char *p = note;
	while ((p = strstr(p, " in "))) {
		char *num = p + 4, *end = num;
		while ((*end >= '0' && *end <= '9') || *end == '.' || *end == 'e' || *end == '-')
			end++;
		if (end > num && memchr(num, '.', (size_t)(end - num)) && !strncmp(end, " s over", 7)) {
			*num = '-';
			memmove(num + 1, end, strlen(end) + 1);
		}
		p = num;
	}
}

/* Times as the screens write them: "500.1ms", not the report's
 * "500.1 ms" (a number, a space, s, ms, us or ns, then no letter). */
static void unspace_times(char *t)
{
	static const char *const units[] = { "s", "ms", "us", "ns" };
	for (char *p = t; (p = strchr(p, ' ')); p++) {
		if (p == t || !isdigit((unsigned char)p[-1]))
			continue;
		for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
			size_t l = strlen(units[u]);
			if (!strncmp(p + 1, units[u], l) && !isalpha((unsigned char)p[1 + l])) {
				memmove(p, p + 1, strlen(p + 1) + 1);
				break;
			}
		}
	}
}

/* The plan report's note (the MILP's time masked in a replay), in buf. */
static const char *note_of(const struct gp_app *a, char *buf, size_t n)
{
	int since;
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	snprintf(buf, n, "%s", rep && gp_run_plan_of(&a->run) ? rep->note : "");
	if (a->hold)
		mask_time(buf);
	unspace_times(buf);
	return buf;
}

/* The note's width in a pane w wide, and how many lines it takes. */
static int note_w(int w)
{
	return w - 1 - LABEL_W - 1;
}

/* Lines text takes wrapped to tw cells. */
static int wrapped_lines(const char *text, int tw)
{
	int lines = 0;
	while (*text && tw > 8) {
		int next;
		gp_cv_wrap(text, tw, &next);
		lines++;
		if (next <= 0)
			break;
		text += next;
	}
	return lines;
}

/* The batch's proof line for the plan shown ("optimal over plans of <=
 * 9 stages: ..."), in buf ("" when its engine proves nothing). */
static const char *proof_of(const struct gp_app *a, char *buf, size_t n)
{
	int since;
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	buf[0] = 0;
	if (rep && gp_run_plan_of(&a->run))
		gp_app_proof(rep, buf, n);
	return buf;
}

static int note_lines(const struct gp_app *a, int w)
{
	char buf[sizeof ((struct gp_plan_report *)0)->note];
	char proof[sizeof ((struct gp_plan_report *)0)->space + 64];
	return wrapped_lines(proof_of(a, proof, sizeof proof), note_w(w)) +
	       wrapped_lines(note_of(a, buf, sizeof buf), note_w(w));
}

/* text wrapped from row y on (label on its first), before row y1, the
 * last ending in an ellipsis when it is cut; returns the next row. */
static int wrapped(struct gp_app *a, struct gp_canvas *cv, int y, int y1, int w,
		   const char *label, const char *text)
{
	int tw = note_w(w), y0 = y;
	char line[600];
	for (; *text && y < y1 && tw > 8; y++) {
		int next, cut = gp_cv_wrap(text, tw, &next);
		bool last = y + 1 == y1 && next > 0 && text[next];
		int skip;
		if (last)   /* the words that leave room for the ellipsis */
			cut = gp_cv_wrap(text, tw - 2, &skip);
		snprintf(line, sizeof line, "%.*s%s", cut, text,
			 last ? (cv->ascii ? " ..." : " \u2026") : "");
		row(a, cv, y, y == y0 ? label : "", GP_R_DIM, line);
		if (next <= 0) {
			y++;
			break;
		}
		text += next;
	}
	return y;
}

/* How the plan shown was found: the report, then its note wrapped to
 * the lines left, the last ending in an ellipsis when it is cut. */
static void found(struct gp_app *a, struct gp_canvas *cv, int y, int y1, int w)
{
	int since;
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	char line[600];
	if (!gp_run_plan_of(&a->run)) {
		row(a, cv, y, "the plan", GP_R_WARN, "none yet");
		return;
	}
	int stale = gp_app_stale(a);
	if (!rep) {
		snprintf(line, sizeof line, "the scenario file's own (no engine's report)%s",
			 stale ? "; stale: made before the last edit" : "");
		row(a, cv, y, "the plan", stale ? GP_R_STALE : GP_R_TEXT, line);
		return;
	}
	char est[32], bd[32], gap[24] = "-", t[24] = "";
	gp_unit_format(rep->estimate_s, GP_U_TIME, est, sizeof est);
	gp_app_objective_value(a, rep->bound, bd, sizeof bd);
	if (isfinite(rep->gap))
		gp_fmt_gap(rep->gap, gap, sizeof gap);
	if (!a->hold) {   /* as the figures beside it: "61ms" */
		char sec[24];
		gp_unit_format(rep->seconds, GP_U_TIME, sec, sizeof sec);
		snprintf(t, sizeof t, ", %s", sec);
	}
	/* The last job ended without a plan (cancelled, failed): this one is
	 * an earlier job's, its bound not the figures above. */
	bool earlier = a->js.id && !a->job && strncmp(a->job_note, "done", 4);
	snprintf(line, sizeof line, "%s%s, %s: estimate %s, bound %s, gap %s%s%s",
		 earlier ? "an earlier job's: " : "", rep->engine,
		 gp_app_status_word(rep), est, bd, gap, t,
		 stale ? "; stale: made before the last edit" : "");
	row(a, cv, y, "the plan", stale ? GP_R_STALE : GP_R_TEXT, line);
	char masked[sizeof rep->note], proof[sizeof rep->space + 64];
	y = wrapped(a, cv, y + 1, y1, w, "proof", proof_of(a, proof, sizeof proof));
	wrapped(a, cv, y, y1, w, "note", note_of(a, masked, sizeof masked));
}

/* Rows of the solver pane (w wide): what it needs, the note's lines
 * included (six at least), when the log leaves them, the log keeping
 * at least a third. */
static int solver_rows(const struct gp_app *a, int h, int w)
{
	int logs = gp_log_count(a->log);
	int log_rows = logs < 3 ? 3 : logs > h / 3 ? h / 3 : logs;
	int nl = note_lines(a, w);
	int want = 5 + GRAPH_H + (nl > 6 ? nl : 6);
	int sh = h - 1 - log_rows;
	sh = sh > want ? want : sh;
	return sh < 4 ? (h - 3 > 1 ? h - 3 : 1) : sh;
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	int sh = solver_rows(a, r.h, r.w);
	char line[300];
	gp_cv_clip(cv, (struct gp_rect){ r.x, r.y, r.w, sh });
	heading(a, cv, r.y, r.w, "Solver: the planning job, live", !a->lg.focus);
	state_of(a, line, sizeof line);
	row(a, cv, r.y + 1, "job", a->js.cancelling ? GP_R_WARN : GP_R_TEXT, line);
	figures(a, cv, r.y + 2);
	history(a, cv, r.y + 4, r.w);
	found(a, cv, r.y + 4 + GRAPH_H, r.y + sh, r.w);
	gp_cv_clip(cv, r);
	int n = gp_log_count(a->log);
	snprintf(line, sizeof line, "Log: scripts' output, warnings, errors (%d line%s)", n,
		 n == 1 ? "" : "s");
	heading(a, cv, r.y + sh, r.w, line, a->lg.focus);
	gp_log_pane_draw(a, cv, (struct gp_rect){ r.x, r.y + sh + 1, r.w, r.h - sh - 1 });
	gp_log_seen(a->log);
}

static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	if (act == GP_A_NEXT_PANE || act == GP_A_PREV_PANE) {
		a->lg.focus = !a->lg.focus;
		return true;
	}
	/* The solver pane has nothing to scroll: the log takes the moves. */
	return gp_log_pane_action(a, act);
}

static void click(struct gp_app *a, int x, int y)
{
	(void)x;
	a->lg.focus = y > solver_rows(a, a->view_rect.h, a->view_rect.w);
}

static void status(struct gp_app *a, char *buf, size_t n)
{
	snprintf(buf, n, "%s; Tab switches panes, / searches the log, p plans anew",
		 a->job ? "Esc cancels the job" : "arrows scroll the log");
}

const struct gp_view_ops gp_view_solver = {
	"solver", "Solver", draw, action, click, NULL, status,
};
