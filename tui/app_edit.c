/*
 * app_edit.c: what changes the scenario from the terminal planner
 * (app.h): an edit becomes one override of the run (so undo drops the
 * last one and redo puts it back), each edit re-simulates the plan, and
 * a typed value is checked as it is typed. Planning is app_plan.c's,
 * saving and screenshots app_save.c's.
 */
#include "app.h"
#include "fmt.h"
#include "override.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_name(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* The loader lists a catalog in the order of a Lua table walk, which
 * changes from run to run: "(catalog: ...)" comes out sorted. */
static void sort_catalog(char *msg)
{
	char *p = strstr(msg, "(catalog: "), *end = p ? strchr(p, ')') : NULL;
	if (!end)
		return;
	p += 10;
	char list[1024], *names[128], out[1024] = "";
	int n = 0;
	snprintf(list, sizeof list, "%.*s", (int)(end - p), p);
	for (char *tok = strtok(list, ","); tok && n < 128; tok = strtok(NULL, ","))
		names[n++] = tok + strspn(tok, " ");
	qsort(names, (size_t)n, sizeof *names, by_name);
	for (int i = 0; i < n; i++) {
		size_t l = strlen(out);
		snprintf(out + l, sizeof out - l, "%s%s", i ? ", " : "", names[i]);
	}
	if (strlen(out) == (size_t)(end - p))
		memcpy(p, out, strlen(out));
}

void gp_app_bare(const struct gp_app *a, const char *msg, char *buf, size_t n)
{
	size_t pl = a->run.path ? strlen(a->run.path) : 0;
	if (pl && !strncmp(msg, a->run.path, pl) && msg[pl] == ':' && msg[pl + 1] == ' ')
		msg += pl + 2;
	/* A :set's error in the command line's words ("--set 'PATH': why"):
	 * the path as typed, without the batch's flag. */
	char typed[1200];
	const char *q = !strncmp(msg, "--set '", 7) ? strstr(msg + 7, "': ") : NULL;
	if (q) {
		snprintf(typed, sizeof typed, "%.*s%s", (int)(q - msg - 7), msg + 7, q + 1);
		msg = typed;
	} else if (!strncmp(msg, "--set ", 6)) {
		msg += 6;
	}
	/* The loader numbers DCs; the screens and the prompts name them. */
	size_t o = 0;
	const struct gp_scenario *s = a->run.sc;
	while (*msg && o + 1 < n) {
		char *end;
		long i = !strncmp(msg, "dcs[", 4) && isdigit((unsigned char)msg[4])
				 ? strtol(msg + 4, &end, 10) : 0;
		if (i >= 1 && s && i <= s->ndcs && *end == ']') {
			o += (size_t)snprintf(buf + o, n - o, "dcs[%s]", s->dcs[i - 1].name);
			msg = end + 1;
			continue;
		}
		buf[o++] = *msg++;
	}
	buf[o < n ? o : n - 1] = 0;
	sort_catalog(buf);
	/* On one line: a traceback's line breaks are no "   " in the
	 * status line (the log has it whole). */
	char one[1200];
	gp_fmt_one_line(buf, one, sizeof one);
	snprintf(buf, n, "%s", one);
}

void gp_field_show(struct gp_field *f)
{
	if (f->text)
		return;
	if (f->none && !(f->value > 0)) {   /* a budget of 0 is none, not "$0.00" */
		snprintf(f->shown, sizeof f->shown, "none");
		return;
	}
	/* An 80 GB card is sold as 80 GB: whole decimal gigabytes read as
	 * such, not as 74.51GiB. */
	double gb = f->value / 1e9;
	if (f->unit == GP_U_BYTES && gb >= 1 && gb == floor(gb) &&
	    fmod(f->value, 1073741824.0) != 0)
		snprintf(f->shown, sizeof f->shown, "%.0fGB", gb);
	else
		gp_unit_format(f->value, f->unit, f->shown, sizeof f->shown);
}

void gp_app_simulate(struct gp_app *a)
{
	if (a->has_gantt) {
		gp_gantt_free(&a->gantt);
		a->has_gantt = false;
	}
	struct gp_sim_req rq = { .schedule = -1, .record = true };
	struct gp_err e = { "" };
	if (gp_run_simulate(&a->run, &rq, &e)) {
		char msg[sizeof e.msg];
		gp_app_bare(a, e.msg, msg, sizeof msg);
		if (!gp_run_plan_of(&a->run) && !a->run.plan_note[0])
			gp_app_say(a, GP_R_WARN, "no plan: the scenario has none; p plans one");
		else
			gp_app_say(a, GP_R_ERROR, "the plan does not simulate: %s", msg);
		gp_log_post(a->log, GP_LOG_ERROR, e.msg);
		snprintf(a->problem, sizeof a->problem, "%s", a->status);
		/* The last result was of the scenario before the edit: the
		 * screens show none rather than a stale one. */
		if (a->run.has_res)
			gp_result_free(&a->run.res);
		a->run.has_res = false;
		return;
	}
	a->problem[0] = 0;
	if (gp_gantt_build(&a->gantt, a->run.sc, &a->run.res, &e) == 0)
		a->has_gantt = true;
	else
		gp_app_say(a, GP_R_ERROR, "Gantt: %s", e.msg);
	a->gt.fitted = true;
	a->gt.pick = -1;   /* the spans are new */
}

static bool is_plan_set(const char *set)
{
	return !strncmp(set, "plan=", 5);
}

/* An override as people read it: "links[ams>fra].bandwidth = 10G", the
 * unit guessed from the field's name (only for the message). */
static void describe(const char *set, char *buf, size_t n)
{
	static const struct {
		const char *field;
		enum gp_unit unit;
	} guess[] = {
		{ ".bandwidth", GP_U_BANDWIDTH }, { ".network", GP_U_BANDWIDTH },
		{ ".nvlink", GP_U_BYTERATE }, { ".hbm_bandwidth", GP_U_BYTERATE },
		{ ".latency", GP_U_TIME }, { ".memory", GP_U_BYTES }, { ".tflops", GP_U_FLOPS },
		{ ".efficiency", GP_U_RATIO }, { ".price_per_hour", GP_U_USD },
		{ ".usd_per_hour", GP_U_USD },
	};
	if (is_plan_set(set)) {   /* p's, a re-plan's or the opening's */
		snprintf(buf, n, "%s", !strcmp(set, "plan=nil") ? "plan = nil" : "the new plan");
		return;
	}
	const char *eq = strchr(set, '=');
	if (!eq) {
		snprintf(buf, n, "%s", set);
		return;
	}
	char *end;
	double v = strtod(eq + 1, &end);
	for (size_t i = 0; !*end && end != eq + 1 && i < sizeof guess / sizeof guess[0]; i++) {
		size_t fl = strlen(guess[i].field), pl = (size_t)(eq - set);
		if (pl > fl && !strncmp(eq - fl, guess[i].field, fl)) {
			char shown[48];
			gp_unit_format(v, guess[i].unit, shown, sizeof shown);
			snprintf(buf, n, "%.*s = %s", (int)pl, set, shown);
			return;
		}
	}
	snprintf(buf, n, "%.*s = %s", (int)(eq - set), set, eq + 1);
}

/* "x -> y (+z %)", or a factor from ten times on, as the compare screen
 * writes it (not "+11423184.3 %"). */
static void change_rel(double x, double y, char *buf, size_t n)
{
	if (y >= 10 * x || y <= x / 10)
		snprintf(buf, n, "%.3gx", y / x);
	else
		snprintf(buf, n, "%+.1f %%", 100 * (y - x) / x);
}

static double tokens_of(const struct gp_scenario *s)
{
	return s ? (double)s->job.global_batch * s->job.seq : 0;
}

struct gp_app_then gp_app_now(const struct gp_app *a)
{
	return (struct gp_app_then){ gp_app_now_time(a), tokens_of(a->run.sc) };
}

void gp_app_say_change(struct gp_app *a, const char *what, struct gp_app_then then)
{
	double before = then.time;
	if (!a->run.has_res) {
		/* Done, but nothing simulates (gp_app_simulate said why): say
		 * both, or "u" reads as if it failed. */
		char why[sizeof a->status];
		snprintf(why, sizeof why, "%s", a->status);
		gp_app_say(a, GP_R_WARN, "%s; %s", what, why);
		return;
	}
	double t = a->run.res.iteration_time;
	const char *fit = a->run.res.fits ? "" : "; does not fit in memory";
	char b[24], now[24];
	gp_unit_time4(t, now, sizeof now);
	double tok = tokens_of(a->run.sc);
	if (isfinite(before) && before > 0 && then.tokens > 0 && tok != then.tokens && t > 0) {
		/* Iterations of different jobs: tokens/s is the verdict. */
		char tb[32], tn[32], rel[32];
		gp_unit_time4(before, b, sizeof b);
		change_rel(then.tokens / before, tok / t, rel, sizeof rel);
		gp_app_say(a, a->run.res.fits ? GP_R_OK : GP_R_WARN,
			   "%s: tokens/s %s -> %s (%s); iteration %s -> %s, of another job%s", what,
			   gp_fmt_si(then.tokens / before, 3, "", tb, sizeof tb),
			   gp_fmt_si(tok / t, 3, "", tn, sizeof tn), rel, b, now, fit);
	} else if (isfinite(before) && before > 0) {
		gp_unit_time4(before, b, sizeof b);
		char rel[32];
		change_rel(before, t, rel, sizeof rel);
		gp_app_say(a, a->run.res.fits ? GP_R_OK : GP_R_WARN,
			   "%s: iteration %s -> %s (%s)%s", what, b, now, rel, fit);
	} else {
		gp_app_say(a, GP_R_OK, "%s: iteration %s%s", what, now, fit);
	}
}

void gp_app_clear_redo(struct gp_app *a)
{
	for (int i = 0; i < a->nredo; i++)
		free(a->redo[i].set);
	a->nredo = 0;
}

double gp_app_now_time(const struct gp_app *a)
{
	return a->run.has_res ? a->run.res.iteration_time : NAN;
}

/* Whether pool k (numbered DC by DC) of s has GPUs with a price, as
 * bits of a mask (the first 64 pools). */
static unsigned long long priced_pools(const struct gp_scenario *s)
{
	unsigned long long m = 0;
	for (int d = 0, k = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, k++)
			if (k < 64 && s->gpus[s->dcs[d].pools[q].gpu].price_per_hour > 0)
				m |= 1ULL << k;
	return m;
}

/* An edit that leaves a priced pool without a price (its GPU type
 * changed to one the scenario gives none): "; H200 has no price_per_hour
 * (its GPUs cost nothing in the figures)" after what, and in the log,
 * where it outlasts the re-plan's status line. */
static void say_unpriced(struct gp_app *a, unsigned long long was, char *what, size_t n)
{
	const struct gp_scenario *s = a->run.sc;
	unsigned long long now = priced_pools(s), lost = was & ~now;
	for (int d = 0, k = 0; lost && d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, k++)
			if (k < 64 && (lost >> k & 1)) {
				size_t l = strlen(what);
				snprintf(what + l, n - l, "; %s has no price_per_hour (its GPUs cost nothing in the figures)",
					 s->gpus[s->dcs[d].pools[q].gpu].name);
				gp_log_post(a->log, GP_LOG_WARN, what);
				return;
			}
}

bool gp_app_set(struct gp_app *a, const char *set)
{
	struct gp_app_then before = gp_app_now(a);
	unsigned long long priced = a->run.sc ? priced_pools(a->run.sc) : 0;
	struct gp_err e = { "" };
	struct gp_pin *was = gp_pin_of_run(&a->run, "");   /* the compare screen's A */
	if (gp_run_set(&a->run, set, &e)) {
		gp_pin_free(was);
		char msg[sizeof e.msg], named[sizeof e.msg];
		gp_app_bare(a, e.msg, msg, sizeof msg);
		gp_ov_as_written(set, msg, named, sizeof named);
		gp_app_say(a, GP_R_ERROR, "refused, old value kept: %s", named);
		char line[sizeof e.msg + 600];
		snprintf(line, sizeof line, "%s refused: %s", set, e.msg);
		gp_log_post(a->log, GP_LOG_ERROR, line);
		return false;
	}
	gp_app_clear_redo(a);
	gp_app_set_joined(a, a->run.nsets - 1, false);
	char what[600];
	describe(set, what, sizeof what);
	gp_app_keep_before(a, was, what);
	say_unpriced(a, priced, what, sizeof what);
	gp_app_simulate(a);
	gp_app_changed(a);
	if (a->run.has_res) {
		gp_app_say_change(a, what, before);
	} else {
		/* Set, but there is nothing to simulate: say both. */
		char why[sizeof a->status];
		snprintf(why, sizeof why, "%s", a->status);
		gp_app_say(a, GP_R_WARN, "%s: set; %s%s", what, why,
			   strstr(why, "p plans") ? "" : "; p plans anew");
	}
	return true;
}

/* The choices of f as "a, b or c". */
static void choice_list(const struct gp_field *f, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (const char *p = f->choices; *p && o + 1 < n;) {
		size_t l = strcspn(p, "|");
		bool last = !p[l];
		o += (size_t)snprintf(buf + o, n - o, "%s%.*s", o ? (last ? " or " : ", ") : "",
				      (int)l, p);
		p += l + !last;
	}
}

static bool is_choice(const struct gp_field *f, const char *text)
{
	size_t tl = strlen(text);
	for (const char *p = f->choices; *p;) {
		size_t l = strcspn(p, "|");
		if (l == tl && !strncmp(p, text, l))
			return true;
		p += l + (p[l] != 0);
	}
	return false;
}

/* Why text is no value of f (0: it is one); *v its value, lua the
 * scenario's spelling. */
static int check_value(const struct gp_field *f, const char *text, double *v, char *lua,
		       size_t nl, char *why, size_t nw)
{
	if (f->text) {
		char list[400];
		if (!text[0] || strpbrk(text, "\"\\\n"))
			return snprintf(why, nw, "expected a name (no quotes or backslashes)"), -1;
		if (f->choices[0] && !is_choice(f, text)) {
			choice_list(f, list, sizeof list);
			return snprintf(why, nw, "\"%s\" is not one of %s", text, list), -1;
		}
		return 0;
	}
	if (f->none && !strcmp(text, "none")) {
		*v = 0;
		snprintf(lua, nl, "nil");
		return 0;
	}
	if (gp_unit_bare(text, f->unit, why, nw) ||
	    gp_unit_parse(text, f->unit, v, lua, nl, why, nw))
		return -1;
	if (f->positive && !(*v > 0) && !isnan(*v))
		return snprintf(why, nw, "\"%s\" is not above 0", text), -1;
	return 0;
}

bool gp_app_commit(struct gp_app *a, const char *text)
{
	const struct gp_field *f = &a->editing;
	char set[512], lua[128], why[256];
	double v = NAN;
	if (check_value(f, text, &v, lua, sizeof lua, why, sizeof why)) {
		gp_app_say(a, GP_R_ERROR, "refused, %s kept: %s", f->shown, why);
		return false;
	}
	if (f->text ? !strcmp(text, f->shown) : v == f->value) {
		gp_app_say(a, GP_R_DIM, "%s is already %s: nothing changed", f->path, f->shown);
		return true;
	}
	const char *dot = strrchr(f->path, '.');
	if (f->text)
		snprintf(set, sizeof set, "%s=\"%s\"", f->path, text);
	else if (f->none && v == 0 && dot)   /* budget.usd_per_hour: none is budget=nil */
		snprintf(set, sizeof set, "%.*s=nil", (int)(dot - f->path), f->path);
	else
		snprintf(set, sizeof set, "%s=%s", f->path, lua);
	return gp_app_set(a, set);
}

/* The value in base units with an SI prefix, "12.5 GB/s" for 100G
 * (bits): what a value is, for the preview; never an exponent, trailing
 * zeros dropped. */
static void si_of(double v, enum gp_unit u, char *buf, size_t n)
{
	static const char *const si[] = {
		[GP_U_BANDWIDTH] = "B/s", [GP_U_BYTERATE] = "B/s", [GP_U_TIME] = "s",
		[GP_U_BYTES] = "B", [GP_U_FLOPS] = "FLOP/s",
	};
	const char *name = (size_t)u < sizeof si / sizeof si[0] && si[u] ? si[u] : NULL;
	buf[0] = 0;   /* a count, a ratio, dollars: the short form says it all */
	if (!name)
		return;
	char t[64];
	gp_fmt_si(v, 6, name, t, sizeof t);
	char *sp = strchr(t, ' '), *dot = strchr(t, '.');
	size_t end = sp ? (size_t)(sp - t) : strlen(t), keep = end;
	if (dot && dot < t + end) {
		while (keep > 0 && t[keep - 1] == '0')
			keep--;
		if (t[keep - 1] == '.')
			keep--;
	}
	snprintf(buf, n, "%.*s%s", (int)keep, t, t + end);
}

void gp_app_check_typed(struct gp_app *a)
{
	const struct gp_field *f = &a->editing;
	char lua[128], why[256], shown[48], si[64];
	double v = NAN;
	if (check_value(f, a->ed.buf, &v, lua, sizeof lua, why, sizeof why)) {
		gp_app_say(a, GP_R_WARN, "%s", why);
	} else if (f->text) {
		gp_app_say(a, GP_R_DIM, "%s; Enter sets it, Esc keeps %s",
			   f->choices[0] ? "Up/Down: the next choice" : "a name", f->shown);
	} else if (strchr(lua, '(')) {
		gp_app_say(a, GP_R_DIM, "= %s (the loader checks it); Enter sets, Esc keeps %s",
			   lua, f->shown);
	} else if (f->none && v == 0) {
		gp_app_say(a, GP_R_DIM, "= none; Enter sets, Esc keeps %s", f->shown);
	} else {
		gp_unit_format(v, f->unit, shown, sizeof shown);
		si_of(v, f->unit, si, sizeof si);
		if (!si[0] || !strcmp(shown, si))
			gp_app_say(a, GP_R_DIM, "= %s; Enter sets, Esc keeps %s", shown, f->shown);
		else
			gp_app_say(a, GP_R_DIM, "= %s (%s); Enter sets, Esc keeps %s", shown, si,
				   f->shown);
	}
}

void gp_app_cycle_choice(struct gp_app *a, int dir)
{
	const struct gp_field *f = &a->editing;
	const char *starts[64];
	int n = 0, at = -1;
	for (const char *p = f->choices; *p && n < 64;) {
		size_t l = strcspn(p, "|");
		if (strlen(a->ed.buf) == l && !strncmp(p, a->ed.buf, l))
			at = n;
		starts[n++] = p;
		p += l + (p[l] != 0);
	}
	if (!n)
		return;
	int k = at < 0 ? (dir > 0 ? 0 : n - 1) : ((at + dir) % n + n) % n;
	char buf[GP_ED_MAX];
	snprintf(buf, sizeof buf, "%.*s", (int)strcspn(starts[k], "|"), starts[k]);
	gp_ed_set(&a->ed, buf);
	gp_app_check_typed(a);
}

static bool push_redo(struct gp_app *a, char *set, bool joined)
{
	if (a->nredo == a->capredo) {
		int nc = a->capredo ? 2 * a->capredo : 16;
		struct gp_redo *nr = realloc(a->redo, sizeof *nr * (size_t)nc);
		if (!nr)
			return false;
		a->redo = nr;
		a->capredo = nc;
	}
	a->redo[a->nredo++] = (struct gp_redo){ set, joined };
	return true;
}

/* One step back: the last override, with the ones joined to it (an
 * edit and its re-plan). */
void gp_app_undo(struct gp_app *a)
{
	int n = a->run.nsets, k = 1;
	if (n == 0) {
		gp_app_say(a, GP_R_WARN, "nothing to undo");
		return;
	}
	if (gp_app_opening_plan(a)) {
		gp_app_say(a, GP_R_WARN, "nothing to undo: the plan made on opening is no edit "
			   "(:set plan=nil drops it)%s",
			   a->base_sets ? "; the --set overrides given at start lie under it" : "");
		return;
	}
	while (n - k > 0 && gp_app_joined(a, n - k))
		k++;
	char *sets[64];
	k = k < 64 ? k : 64;
	for (int i = 0; i < k; i++)
		sets[i] = strdup(a->run.sets[n - 1 - i]);
	struct gp_app_then before = gp_app_now(a);
	struct gp_err e = { "" };
	bool oom = false;
	for (int i = 0; i < k; i++)
		oom |= !sets[i];
	struct gp_pin *was = gp_pin_of_run(&a->run, "");   /* the compare screen's A */
	if (oom || gp_run_truncate(&a->run, n - k, &e)) {
		char msg[sizeof e.msg];
		gp_app_bare(a, e.msg, msg, sizeof msg);
		gp_pin_free(was);
		for (int i = 0; i < k; i++)
			free(sets[i]);
		gp_app_say(a, GP_R_ERROR, "cannot undo: %s", oom ? "out of memory" : msg);
		return;
	}
	char what[600] = "undone ";
	/* The edit the step was made of, not the plan that came after it. */
	describe(sets[k - 1], what + 7, sizeof what - 7);
	if (k > 1)
		strncat(what, " and its re-plan", sizeof what - strlen(what) - 1);
	/* A "before" the edit undone is of an edit no longer there: A is
	 * now the plan the undo took back. */
	gp_app_keep_before(a, was, what);
	if (a->prev)
		snprintf(a->prev->label, sizeof a->prev->label, "before undoing %s", what + 7);
	for (int i = 0; i < k; i++)
		if (!push_redo(a, sets[i], gp_app_joined(a, n - 1 - i)))
			free(sets[i]);
	if (a->base_sets > a->run.nsets)
		a->base_sets = a->run.nsets;   /* a --set undone is an edit undone */
	gp_app_simulate(a);
	gp_app_changed(a);
	gp_app_say_change(a, what, before);
}

/* The step undo took back, whole. */
void gp_app_redo(struct gp_app *a)
{
	if (a->nredo == 0) {
		gp_app_say(a, GP_R_WARN, "nothing to redo");
		return;
	}
	struct gp_app_then before = gp_app_now(a);
	char what[600] = "redone ";
	describe(a->redo[a->nredo - 1].set, what + 7, sizeof what - 7);
	struct gp_pin *was = gp_pin_of_run(&a->run, "");   /* A: before the redo */
	bool first = true;
	while (a->nredo > 0 && (first || a->redo[a->nredo - 1].joined)) {
		struct gp_redo r = a->redo[--a->nredo];
		struct gp_err e = { "" };
		if (gp_run_set(&a->run, r.set, &e)) {
			char msg[sizeof e.msg];
			gp_app_bare(a, e.msg, msg, sizeof msg);
			gp_app_say(a, GP_R_ERROR, "cannot redo: %s", msg);
			free(r.set);
			gp_pin_free(was);
			gp_app_simulate(a);
			return;
		}
		gp_app_set_joined(a, a->run.nsets - 1, r.joined);
		if (!first)
			strncat(what, " and its re-plan", sizeof what - strlen(what) - 1);
		free(r.set);
		first = false;
	}
	gp_app_keep_before(a, was, what);
	if (a->prev)
		snprintf(a->prev->label, sizeof a->prev->label, "before redoing %s", what + 7);
	gp_app_simulate(a);
	gp_app_changed(a);
	gp_app_say_change(a, what, before);
}
