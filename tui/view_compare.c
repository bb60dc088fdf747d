/*
 * view_compare.c: the compare screen. A (the plan pinned, or as it was
 * before the last edit, or another engine's) beside B (the plan shown
 * now): every figure of the plan screen side by side with the signed
 * change from A to B, marked with an arrow (up or down: which way the
 * figure went) and a word and role (better or worse: which way is good
 * for it), so nothing rests on colour; a line saying what each plan is;
 * then the two Gantt charts one above the other on one time scale, the
 * longer iteration's, so the eye compares lengths directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "gantt_draw.h"
#include "fmt.h"
#include "report.h"

/* How a figure is written and which way is better (-1: lower, 1:
 * higher, 0: neither). */
enum fmt { F_TIME, F_COUNT, F_RATE, F_PCT, F_USD, F_BYTES, F_FITS };

struct metric {
	const char *name;
	enum fmt fmt;
	int better;
	double (*get)(const struct gp_result *r);
};

static double m_time(const struct gp_result *r) { return r->iteration_time; }
static double m_tokens(const struct gp_result *r) { return r->tokens_per_s; }
static double m_mfu(const struct gp_result *r) { return r->mfu; }
static double m_bubble(const struct gp_result *r) { return r->bubble; }
static double m_idle(const struct gp_result *r) { return gp_result_idle(r); }
static double m_usd(const struct gp_result *r) { return r->usd_per_iteration; }
static double m_wan(const struct gp_result *r) { return r->wan_bytes; }
static double m_gpus(const struct gp_result *r) { return r->gpus; }
static double m_fits(const struct gp_result *r) { return r->fits; }

static double m_sync(const struct gp_result *r)
{
	double x = 0;
	for (int i = 0; i < r->ndevs; i++)
		x = fmax(x, r->devs[i].sync_exposed);
	return x;
}

static const struct metric metrics[] = {
	{ "iteration", F_TIME, -1, m_time },
	{ "tokens/s", F_RATE, 1, m_tokens },
	{ "MFU", F_PCT, 1, m_mfu },
	{ "bubble", F_PCT, -1, m_bubble },
	{ "GPU idle", F_PCT, -1, m_idle },
	{ "exposed DP sync", F_TIME, -1, m_sync },
	{ "cost per iteration", F_USD, -1, m_usd },
	{ "WAN bytes", F_BYTES, -1, m_wan },
	{ "GPUs", F_COUNT, 0, m_gpus },
	{ "fits in memory", F_FITS, 1, m_fits },
};
#define NMETRICS (int)(sizeof metrics / sizeof metrics[0])

static void value(enum fmt f, double v, char *buf, size_t n)
{
	switch (f) {
	case F_TIME: gp_unit_time4(v, buf, n); break;   /* 1.410s beside 1.481s */
	case F_COUNT: gp_unit_grouped(v, buf, n); break;
	case F_RATE:   /* as the plan screen: grouped, decimals under 1000 */
		(v >= 1000 ? gp_unit_grouped : gp_unit_rate)(v, buf, n);
		break;
	case F_PCT: snprintf(buf, n, "%.1f %%", 100 * v); break;
	case F_USD: gp_fmt_usd(v, buf, n); break;   /* as the plan screen */
	case F_BYTES: gp_unit_bytes10(v, buf, n); break;
	case F_FITS: snprintf(buf, n, "%s", v ? "yes" : "NO"); break;
	}
}

/* "+187ms (+7.0 %)", "-2.1 pt", "+6,375 (+6.5 %)", "+1.2s (113x)" (ten
 * times or more as a factor). */
static void delta(enum fmt f, double a, double b, bool pct, char *buf, size_t n)
{
	double d = b - a;
	/* Whole numbers shown whole: the change of the figures shown, not
	 * of the unrounded ones (160,232 -> 176,990 is +16,758). */
	if (f == F_COUNT || (f == F_RATE && a >= 1000 && b >= 1000))
		d = round(b) - round(a);
	char mag[32], rel[24] = "";
	if (f == F_FITS) {
		snprintf(buf, n, "%s", a == b ? "" : b ? "now fits" : "no longer fits");
		return;
	}
	if (f == F_PCT) {
		snprintf(buf, n, "%+.1f pt", 100 * d);
		return;
	}
	value(f, fabs(d), mag, sizeof mag);
	if (f == F_USD)
		gp_fmt_usd(fabs(d), mag, sizeof mag);   /* "$0.0000954", no exponent */
	if (pct && a != 0 && isfinite(a) && fabs(d / a) >= 10)
		snprintf(rel, sizeof rel, " (%.0fx)", fabs(b / a));   /* not "+11218.4 %" */
	else if (pct && a != 0 && isfinite(a))
		snprintf(rel, sizeof rel, " (%+.1f %%)", 100 * d / fabs(a));
	snprintf(buf, n, "%c%s%s", d < 0 ? '-' : '+', mag, rel);
}

/* Which way the change is: 1 better, -1 worse, 0 the same or neither. */
static int verdict(const struct metric *m, double a, double b)
{
	double scale = fmax(fabs(a), fabs(b));
	if (m->better == 0 || fabs(b - a) <= 1e-9 * scale)
		return 0;
	return (b > a) == (m->better > 0) ? 1 : -1;
}

/* Where the table's columns go: at 80 columns and more A and B are 12
 * wide and B - A 24, then the verdict; narrower, A and B take 9 (the
 * figures' short forms) and B - A what is left before the verdict,
 * which always shows (in mono it is the only word for better or
 * worse). */
struct cols {
	int a, b, w, arrow, d, dw, v;
};

static struct cols cols_of(int w)
{
	if (w >= 80)
		return (struct cols){ 20, 33, 12, 47, 49, 24, 74 };
	struct cols c = { 20, 30, 9, 40, 42, 0, w - 6 };
	c.dw = c.v - 1 - c.d;
	return c;
}

/* Tokens an iteration of s trains on. */
static double tokens_of(const struct gp_scenario *s)
{
	return (double)s->job.global_batch * s->job.seq;
}

/* Does every GPU plan p runs on have a price (else its cost leaves
 * those GPUs out, and a lower cost is no verdict)? */
static bool gpus_priced(const struct gp_scenario *s, const struct gp_plan *p)
{
	for (int g = 0; s && p && g < p->npipes; g++)
		for (int k = 0; k < p->pipes[g].nstages; k++) {
			const struct gp_stage *x = &p->pipes[g].stages[k];
			if (!(s->gpus[s->dcs[x->dc].pools[x->pool].gpu].price_per_hour > 0))
				return false;
		}
	return true;
}

/* nocmp: why the row's two figures are no change to judge (a side's
 * cost leaves unpriced GPUs out; the iterations hold different work),
 * said in place of the change; NULL: judged. */
static void metric_row(struct gp_app *a, struct gp_canvas *cv, int y, const struct metric *m,
		       const struct gp_result *ra, const struct gp_result *rb, const char *nocmp)
{
	const struct gp_theme *t = a->th;
	struct cols c = cols_of(cv->w);
	double va = m->get(ra), vb = m->get(rb);
	char sa[32], sb[32], d[48];
	value(m->fmt, va, sa, sizeof sa);
	value(m->fmt, vb, sb, sizeof sb);
	delta(m->fmt, va, vb, true, d, sizeof d);
	if (gp_cv_width(d) > c.dw)   /* the change without its percentage */
		delta(m->fmt, va, vb, false, d, sizeof d);
	int v = nocmp ? 0 : verdict(m, va, vb);
	bool same = fabs(vb - va) <= 1e-9 * fmax(fabs(va), fabs(vb));
	gp_cv_text(cv, 1, y, 18, gp_role(t, GP_R_TEXT), m->name);
	gp_cv_printf(cv, c.a, y, c.w, gp_role(t, GP_R_VALUE), "%*s", c.w, sa);
	gp_cv_printf(cv, c.b, y, c.w, gp_role(t, GP_R_VALUE), "%*s", c.w, sb);
	const char *arrow = same ? "=" : vb > va ? (cv->ascii ? "^" : "\u25b2")
						: (cv->ascii ? "v" : "\u25bc");
	enum gp_role role = v > 0 ? GP_R_BETTER : v < 0 ? GP_R_WORSE : GP_R_DIM;
	if (nocmp) {
		gp_cv_text(cv, c.arrow, y, -1, gp_role(t, GP_R_WARN), nocmp);
		return;
	}
	gp_cv_text(cv, c.arrow, y, 1, gp_role(t, role), arrow);
	if (!same)
		gp_cv_text(cv, c.d, y, c.dw, gp_role(t, role), d);
	if (v)
		gp_cv_text(cv, c.v, y, -1, gp_role(t, role), v > 0 ? "better" : "worse");
}

/* "ams H100 tp2 1-32 (8 x 8 mb); ... 1f1b": what a plan is, in a line. */
static void summary(const struct gp_scenario *s, const struct gp_plan *p, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (int g = 0; g < p->npipes && o + 1 < n; g++) {
		const struct gp_pipeline *pp = &p->pipes[g];
		for (int st = 0; st < pp->nstages && o + 1 < n; st++) {
			const struct gp_stage *x = &pp->stages[st];
			o += (size_t)snprintf(buf + o, n - o, "%s%s %s tp%d %d-%d", st ? ", " : g ? "; " : "",
					      s->dcs[x->dc].name,
					      s->gpus[s->dcs[x->dc].pools[x->pool].gpu].name, x->tp,
					      x->first, x->last);
		}
		if (o + 1 < n)
			o += (size_t)snprintf(buf + o, n - o, " (%d x %d mb)", pp->replicas,
					      pp->micro_batches);
	}
	if (o + 1 < n)
		snprintf(buf + o, n - o, "; %s", gp_sched_name(p->schedule));
}

static int widest(int w, const char *s)
{
	return gp_cv_width(s) > w ? gp_cv_width(s) : w;
}

/* The label column: the longest label of either chart, up to two
 * fifths of the width. */
static int label_w(const struct gp_gantt *ga, const struct gp_gantt *gb, int w)
{
	int lw = 8;
	for (int i = 0; i < ga->nrows; i++)
		lw = widest(lw, ga->rows[i].label);
	for (int i = 0; i < gb->nrows; i++)
		lw = widest(lw, gb->rows[i].label);
	return lw < w * 2 / 5 ? lw : w * 2 / 5;
}

/* Ticks of 1, 2 or 5 x 10^k over [0, T]. */
static void axis(struct gp_app *a, struct gp_canvas *cv, int x0, int y, int cw, double T)
{
	const struct gp_theme *t = a->th;
	double step = gp_gantt_nice_step(T, cw / 14 > 1 ? cw / 14 : 1), dt = T / cw;
	int last = -2;
	for (int k = 0; k * step <= T * (1 + 1e-9) && k < 100; k++) {
		char lab[24];
		if (k == 0)
			snprintf(lab, sizeof lab, "0");
		else
			gp_unit_format(k * step, GP_U_TIME, lab, sizeof lab);
		int c = (int)floor(k * step / dt + 1e-9), w = gp_cv_width(lab);
		if (c >= cw || c + 1 + w > cw || c <= last)
			continue;
		gp_cv_put(cv, x0 + c, y, cv->ascii ? '|' : 0x2502, gp_role(t, GP_R_AXIS));
		gp_cv_text(cv, x0 + c + 1, y, w, gp_role(t, GP_R_AXIS), lab);
		last = c + 1 + w;
	}
}

/* The two charts, A above B, from time 0 to the longer iteration. */
static void charts(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r, struct gp_pin *pa)
{
	const struct gp_theme *t = a->th;
	const struct gp_gantt *ga = gp_pin_gantt(pa), *gb = a->has_gantt ? &a->gantt : NULL;
	if (!ga || !gb || r.h < 3)
		return;
	double T = fmax(ga->t_end, gb->t_end);
	int lw = label_w(ga, gb, r.w), cw = r.w - lw - 4;
	if (cw < 8 || T <= 0)
		return;
	double dt = T / cw;
	char tb[24], lab[80];
	gp_cv_printf(cv, 1, r.y, lw + 2, gp_role(t, GP_R_DIM), "time");
	axis(a, cv, lw + 3, r.y, cw, T);
	struct gp_gantt_cell *cells = malloc((size_t)cw * sizeof *cells);
	if (!cells)
		return;
	int rows = r.h - 1, half = rows / 2;
	int na = ga->nrows < half ? ga->nrows : half, nb = gb->nrows < rows - na ? gb->nrows : rows - na;
	if (nb < gb->nrows && na < ga->nrows)
		na = half;
	if (nb == gb->nrows)   /* B whole: A takes the rows B leaves */
		na = ga->nrows < rows - nb ? ga->nrows : rows - nb;
	const struct gp_gantt *gs[2] = { ga, gb };
	int ns[2] = { na, nb }, y = r.y + 1;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < ns[k]; i++, y++) {
			gp_cv_text(cv, 1, y, 1, gp_role(t, GP_R_HEADER), i ? "" : k ? "B" : "A");
			if (i && i == ns[k] - 1 && ns[k] < gs[k]->nrows) {
				/* Rows cut by the screen's height: say how many. */
				snprintf(lab, sizeof lab, "%s%d more rows%s",
					 cv->ascii ? "... " : "\u2026 ", gs[k]->nrows - i,
					 k ? " (3 Gantt shows them all)" : "");
				gp_cv_text(cv, 3, y, -1, gp_role(t, GP_R_DIM), lab);
				continue;
			}
			gp_gantt_fit_label(gs[k]->rows[i].label, lw, cv->ascii, lab, sizeof lab);
			gp_cv_text(cv, 3, y, lw, gp_role(t, gs[k]->rows[i].link ? GP_R_DIM : GP_R_TEXT),
				   lab);
			gp_gantt_draw_row(cv, gs[k], i, lw + 3, y, cw, 0, dt, t, cells);
			gp_unit_format(gs[k]->t_end, GP_U_TIME, tb, sizeof tb);
			/* The shorter plan's end, whole or not at all ("1." of
			 * 1.443s at 80 columns reads as a figure). */
			int ex = lw + 3 + (int)(gs[k]->t_end / dt) + 1;
			if (i == 0 && gs[k]->t_end < T * (1 - 1e-9) &&
			    ex + gp_cv_width(tb) <= r.x + r.w)
				gp_cv_text(cv, ex, y, -1, gp_role(t, GP_R_DIM), tb);
		}
	free(cells);
}

/* A plan's summary in w cells: whole, or cut with an ellipsis at its end
 * (the summaries are ASCII: names as the files spell them). */
static void fit_end(char *line, size_t n, int w, bool ascii)
{
	if (w < 2 || (int)strlen(line) <= w)
		return;
	size_t at = (size_t)w - 1;   /* < strlen(line) < n */
	snprintf(line + at, n - at, "%s", ascii ? "~" : "\u2026");
}

static void sides(struct gp_app *a, struct gp_canvas *cv, int y, const struct gp_pin *pa)
{
	const struct gp_theme *t = a->th;
	char line[600];
	gp_cv_text(cv, 1, y, 2, gp_role(t, GP_R_HEADER), "A");
	gp_cv_text(cv, 3, y, -1, gp_role(t, GP_R_TEXT), pa->label);
	int w = cv->w - 4;
	summary(pa->sc, &pa->plan, line, sizeof line);
	fit_end(line, sizeof line, w, cv->ascii);
	gp_cv_text(cv, 3, y + 1, -1, gp_role(t, GP_R_DIM), line);
	int since;
	const struct gp_plan_report *rep = gp_app_plan_report(a, &since);
	int stale = gp_app_stale(a);
	int l = snprintf(line, sizeof line, "now: %s%s", rep ? rep->engine : "the file's plan",
			 stale ? " (stale: made before the last edit)" : rep ? "'s plan" : "");
	const struct gp_run *run = &a->run;
	if (!stale && a->replan_set && run->nsets > 0 &&
	    !strcmp(a->replan_set, run->sets[run->nsets - 1])) {
		/* What the edit alone did is A against the plan the re-plan
		 * replaced, in the edited scenario. */
		char tb[24];
		gp_unit_time4(a->replan_before, tb, sizeof tb);
		snprintf(line + l, sizeof line - (size_t)l,
			 ", re-planned after the edit (the plan before it: %s in this scenario)", tb);
	}
	fit_end(line, sizeof line, w, cv->ascii);
	gp_cv_text(cv, 1, y + 2, 2, gp_role(t, GP_R_HEADER), "B");
	gp_cv_text(cv, 3, y + 2, -1, gp_role(t, stale ? GP_R_STALE : GP_R_TEXT), line);
	summary(a->run.sc, gp_run_plan_of(&a->run), line, sizeof line);
	fit_end(line, sizeof line, w, cv->ascii);
	gp_cv_text(cv, 3, y + 3, -1, gp_role(t, GP_R_DIM), line);
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	const struct gp_theme *t = a->th;
	struct gp_pin *pa = gp_app_side_a(a);
	if (!pa || !a->run.has_res) {
		const char *p = !pa ? "nothing to compare yet: an edit keeps the plan before it as A, "
				      "beside the plan shown as B; P pins the plan shown as A; E makes A "
				      "another engine's plan for this scenario"
				    : "no simulated plan now to compare with A";
		for (int y = r.y + 1; *p && y < r.y + r.h; y++) {
			char line[200];
			int next, k = gp_cv_wrap(p, r.w - 2, &next);
			snprintf(line, sizeof line, "%.*s", k, p);
			gp_cv_text(cv, 1, y, r.w - 2, gp_role(t, GP_R_DIM), line);
			p += next;
		}
		return;
	}
	sides(a, cv, r.y, pa);
	int y = r.y + 4;
	struct cols c = cols_of(cv->w);
	gp_cv_text(cv, 1, y, 18, gp_role(t, GP_R_HEADER), "figure");
	gp_cv_printf(cv, c.a, y, c.w, gp_role(t, GP_R_HEADER), "%*s", c.w, "A");
	gp_cv_printf(cv, c.b, y, c.w, gp_role(t, GP_R_HEADER), "%*s", c.w, "B");
	gp_cv_text(cv, c.arrow, y, -1, gp_role(t, GP_R_HEADER), "B - A");
	bool unpriced = !gpus_priced(pa->sc, &pa->plan) ||
			!gpus_priced(a->run.sc, gp_run_plan_of(&a->run));
	/* An edit of the job (seq, batch) changes the work an iteration
	 * does: its time, cost and bytes are then no verdict on the plans;
	 * tokens/s and MFU still are. */
	bool other_work = pa->sc && a->run.sc &&
			  tokens_of(pa->sc) != tokens_of(a->run.sc);
	for (int i = 0; i < NMETRICS && y + 1 < r.y + r.h; i++) {
		const struct metric *m = &metrics[i];
		bool per_iter = m->get == m_time || m->get == m_usd || m->get == m_wan;
		metric_row(a, cv, ++y, m, &pa->res, &a->run.res,
			   other_work && per_iter ? "the jobs differ: see tokens/s"
			   : unpriced && m->get == m_usd ? "some GPUs have no price" : NULL);
	}
	y += 1;
	if (y + 3 < r.y + r.h) {
		gp_cv_hline(cv, 0, y, r.w, gp_role(t, GP_R_BORDER));
		gp_cv_text(cv, 3, y, -1, gp_role(t, GP_R_HEADER),
			   " The iterations on one time scale: A above, B below ");
		charts(a, cv, (struct gp_rect){ r.x, y + 1, r.w, r.y + r.h - y - 1 }, pa);
	}
}

static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	if (act == GP_A_COMPARE_ENGINE) {
		gp_app_compare_next(a);
		return true;
	}
	return false;
}

static void status(struct gp_app *a, char *buf, size_t n)
{
	snprintf(buf, n, "%sP pins the plan shown as A; E compares with the next engine",
		 a->cmp_job ? "planning A... " : "");
}

const struct gp_view_ops gp_view_compare = {
	"compare", "Compare", draw, action, NULL, NULL, status,
};
