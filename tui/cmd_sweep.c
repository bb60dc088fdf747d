/*
 * cmd_sweep.c: geoplan sweep: a row per point (core/whatif.h). Points
 * run in -j worker processes, each writing JSON lines to a file of its
 * own, which the parent prints in point order. --points reads points as
 * JSON lines {"set": ["PATH=V", ...]} and --jsonl writes them, so a
 * sweep larger than one machine splits with GNU parallel or a job array
 * and merges with cat. A point that fails is a row with its message and
 * makes the exit code 1; SIGINT, SIGTERM and SIGHUP end the workers with
 * the sweep.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "fmt.h"
#include "json.h"
#include "override.h"
#include "table.h"
#include "whatif.h"

#define MAX_JOBS 256

/* Four hex digits at s, or -1. */
static long hex4(const char *s)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* The \u escape at *s (after the u; a surrogate pair takes two) as a
 * code point, *s past it; U+FFFD for a lone surrogate, -1 if malformed. */
static long json_u(const char **s)
{
	long c = hex4(*s);
	if (c < 0)
		return -1;
	*s += 4;
	if (c >= 0xD800 && c <= 0xDBFF && (*s)[0] == '\\' && (*s)[1] == 'u') {
		long lo = hex4(*s + 2);
		if (lo >= 0xDC00 && lo <= 0xDFFF) {
			*s += 6;
			return 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
		}
	}
	return c >= 0xD800 && c <= 0xDFFF ? 0xFFFD : c;
}

/* Appends code point c as UTF-8 to out[*n] (room for 4 checked). */
static void put_utf8(char *out, size_t *n, long c)
{
	if (c < 0x80) {
		out[(*n)++] = (char)c;
	} else if (c < 0x800) {
		out[(*n)++] = (char)(0xC0 | c >> 6);
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	} else if (c < 0x10000) {
		out[(*n)++] = (char)(0xE0 | c >> 12);
		out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3F));
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	} else {
		out[(*n)++] = (char)(0xF0 | c >> 18);
		out[(*n)++] = (char)(0x80 | (c >> 12 & 0x3F));
		out[(*n)++] = (char)(0x80 | (c >> 6 & 0x3F));
		out[(*n)++] = (char)(0x80 | (c & 0x3F));
	}
}

/* One character of a JSON string at *s (escapes decoded), *s past it;
 * -1 if malformed. */
static long json_char(const char **s)
{
	unsigned char c = (unsigned char)*(*s)++;
	if (c != '\\')
		return c;
	switch (*(*s)++) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'b': return '\b';
	case 'f': return '\f';
	case '"': return '"';
	case '\\': return '\\';
	case '/': return '/';
	case 'u': return json_u(s);
	default: return -1;
	}
}

/* Reads a JSON string at *p (after the opening quote) into a new buffer. */
static char *json_string(const char **p)
{
	size_t cap = 64, n = 0;
	char *out = malloc(cap);
	const char *s = *p;
	while (out && *s && *s != '"') {
		bool raw = *s != '\\';
		long c = json_char(&s);
		if (c < 0) {
			free(out);
			return NULL;
		}
		if (n + 5 > cap) {
			char *nb = realloc(out, cap *= 2);
			if (!nb) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		if (raw)
			out[n++] = (char)c;   /* a byte as it is: UTF-8 passes through */
		else
			put_utf8(out, &n, c);
	}
	if (!out || *s != '"') {
		free(out);
		return NULL;
	}
	out[n] = 0;
	*p = s + 1;
	return out;
}

/* {"set": ["PATH=V", ...], ...} into sets[0..*n) (malloc'd strings);
 * the rest of the line after the list, or NULL. */
static const char *parse_point_line(const char *line, char **sets, int max, int *n)
{
	const char *p = strstr(line, "\"set\"");
	p = p ? strchr(p + 5, '[') : NULL;
	if (!p)
		return NULL;
	p++;
	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == ']')
			return p + 1;
		char *v = *p == '"' && *n < max ? (p++, json_string(&p)) : NULL;
		if (!v) {
			for (int i = 0; i < *n; i++)
				free(sets[i]);
			return NULL;
		}
		sets[(*n)++] = v;
	}
}

/* Points from --points (the --sets are shared by all). */
static int read_points(const struct args *a, struct gp_sweep *sw)
{
	FILE *f = strcmp(a->points, "-") ? fopen(a->points, "r") : stdin;
	if (!f)
		return cli_error(EXIT_INPUT, "%s: %s", a->points, strerror(errno));
	struct gp_err e = { "" };
	memset(sw, 0, sizeof *sw);
	sw->base = calloc((size_t)a->nsets + 1, sizeof *sw->base);
	int rc = sw->base ? EXIT_OK : cli_error(EXIT_INPUT, "out of memory");
	for (int i = 0; rc == EXIT_OK && i < a->nsets; i++)
		if ((sw->base[sw->nbase] = strdup(a->sets[i])))
			sw->nbase++;
	char *line = NULL, *sets[GP_SWEEP_MAX_AXES + MAX_SETS];
	size_t cap = 0;
	long lineno = 0;
	while (rc == EXIT_OK && getline(&line, &cap, f) >= 0) {   /* no length limit */
		lineno++;
		int n;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (!parse_point_line(line, sets, GP_SWEEP_MAX_AXES + MAX_SETS, &n)) {
			rc = cli_error(EXIT_INPUT, "%s:%ld: expected {\"set\": [\"PATH=VALUE\", ...]}",
				       a->points, lineno);
			break;
		}
		if (gp_sweep_add(sw, (const char *const *)sets, n, &e))
			rc = cli_error(EXIT_INPUT, "%s:%ld: %s", a->points, lineno, e.msg);
		for (int i = 0; i < n; i++)
			free(sets[i]);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	if (rc == EXIT_OK && sw->n == 0)   /* a split job that lost its input */
		rc = cli_error(EXIT_INPUT, "%s: no points (one {\"set\": [...]} a line)",
			       strcmp(a->points, "-") ? a->points : "standard input");
	if (rc)
		gp_sweep_free(sw);
	return rc;
}

/* Evaluates point k and writes its JSON line. */
static void eval_point(const struct args *a, const struct gp_sweep *sw, long k, FILE *out)
{
	struct gp_plan_req rq;
	bool plan = a->engine != NULL;
	if (plan)
		rq = (struct gp_plan_req){ .engine = gp_engine_find(a->engine),
					   .o = { .time_limit = a->time_limit, .gap = a->gap,
						  .work_s = a->work_limit,
						  .seed = a->seed ? a->seed : 1,
						  .polish = !a->no_polish } };
	struct gp_sim_req sim = { .schedule = -1, .chunks = plan ? 0 : a->chunks,
				  .time_limit = a->time_limit, .gap = a->gap };
	enum gp_sched kind;
	if (a->schedule && gp_sched_parse(a->schedule, &kind) == 0) {
		if (plan)
			rq.o.schedule = kind;
		else
			sim.schedule = (int)kind;
	}
	struct gp_metrics m;
	struct gp_err e = { "" };
	int rc = gp_sweep_point(sw, k, a->file, plan ? &rq : NULL, &sim, &m, &e);
	struct gp_json j;
	gp_json_init(&j, out);
	gp_json_obj(&j, false);
	gp_json_kint(&j, "point", k + 1);   /* counted from 1, as the summary counts */
	gp_json_key(&j, "set");
	gp_json_arr(&j, false);
	for (int i = 0; i < sw->npt[k]; i++)
		gp_json_str(&j, sw->pts[k][i]);
	gp_json_end(&j);
	if (rc == 0) {
		gp_json_knum(&j, "iteration_time_s", m.iteration_time);
		gp_json_knum(&j, "tokens_per_s", m.tokens_per_s);
		gp_json_knum(&j, "mfu", m.mfu);
		gp_json_knum(&j, "usd_per_iteration", m.usd_per_iteration);
		gp_json_kbytes(&j, "wan_bytes_per_iteration", m.wan_bytes);
		gp_json_kbool(&j, "fits", m.fits);
		gp_json_kbool(&j, "prices_given", m.priced);
		if (m.doubt[0])   /* what cli_load says of a file, per point */
			gp_json_kstr(&j, "warning", m.doubt);
	} else {   /* the entry named as the point or a --set named it */
		char named[sizeof e.msg];
		if (!gp_ov_name((const char *const *)sw->pts[k], sw->npt[k], a->file, e.msg,
				named, sizeof named))
			gp_ov_name((const char *const *)sw->base, sw->nbase, a->file, e.msg, named,
				   sizeof named);
		gp_json_kstr(&j, "error", named);
	}
	gp_json_end(&j);
	fputc('\n', out);
}

/* The message of a result line whose point failed (malloc'd), or NULL;
 * the keys after the set list are numbers or this one string. */
static char *line_error(const char *line)
{
	char *sets[GP_SWEEP_MAX_AXES + MAX_SETS];
	int n;
	const char *rest = parse_point_line(line, sets, GP_SWEEP_MAX_AXES + MAX_SETS, &n);
	for (int i = 0; rest && i < n; i++)
		free(sets[i]);
	if (!rest)
		return strdup("a result line that does not read back");
	const char *p = strstr(rest, "\"error\": \"");
	if (!p)
		return NULL;
	p += 10;
	char *m = json_string(&p);
	return m ? m : strdup("a message that does not read back");
}

/* The points' warnings, each told once with the first point and how
 * many more have it. */
struct warns {
	int n;
	char *msg[8];
	long first[8], more[8];
};

static void warn_add(struct warns *w, const char *line, long k)
{
	const char *p = strstr(line, "\"warning\": \"");
	if (!p)
		return;
	p += 12;
	char *m = json_string(&p);
	if (!m)
		return;
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->msg[i], m)) {
			w->more[i]++;
			free(m);
			return;
		}
	if (w->n == 8) {
		free(m);
		return;
	}
	w->msg[w->n] = m;
	w->first[w->n] = k;
	w->more[w->n++] = 0;
}

static void warn_print(struct warns *w, const char *file)
{
	for (int i = 0; i < w->n; i++) {
		if (w->more[i])
			fprintf(stderr, "geoplan: warning: %s, point %ld and %ld more: %s\n", file,
				w->first[i] + 1, w->more[i], w->msg[i]);
		else
			fprintf(stderr, "geoplan: warning: %s, point %ld: %s\n", file, w->first[i] + 1,
				w->msg[i]);
		free(w->msg[i]);
	}
}

/* The number after "key": in a result line; false when absent. */
static bool line_num(const char *line, const char *key, double *v)
{
	char k[64];
	snprintf(k, sizeof k, "\"%s\": ", key);
	const char *p = strstr(line, k);
	char *end;
	if (!p)
		return false;
	*v = strtod(p + strlen(k), &end);
	return end != p + strlen(k);
}

/* The value of "PATH=V" under its column's head (the first point's
 * PATH), or the whole setting when the paths differ. */
static const char *set_value(const char *set, const char *head)
{
	const char *eq = strchr(set, '=');
	size_t n = eq ? (size_t)(eq - set) : 0;
	return eq && strlen(head) == n && !strncmp(set, head, n) ? eq + 1 : set;
}

/* A row: the point's values and figures, or its message (without the
 * file's name, which every message of the sweep would repeat). */
/* One point's row; what a reader needs told under the table: a - for
 * $/iteration (foot_usd), a point the file's plan does not fit
 * (foot_plan, the failure's first field is the plan). */
static void add_row(struct gp_table *t, int nax, const char *line, const char *err,
		    const char *file, bool *foot_usd, bool *foot_plan)
{
	char *sets[GP_SWEEP_MAX_AXES + MAX_SETS], a[32];
	int n = 0;
	const char *rest = parse_point_line(line, sets, GP_SWEEP_MAX_AXES + MAX_SETS, &n);
	gp_table_row(t);
	for (int i = 0; rest && i < n; i++) {
		gp_table_set(t, i < nax ? i : nax - 1, "%s",
			     i < nax ? set_value(sets[i], t->head[i]) : sets[i]);
		free(sets[i]);
	}
	double v[4], priced = 1;
	static const char *const keys[] = { "iteration_time_s", "tokens_per_s",
		"usd_per_iteration", "wan_bytes_per_iteration" };
	bool ok = rest != NULL;
	for (int i = 0; i < 4; i++)
		ok = ok && line_num(rest, keys[i], &v[i]);
	if (err) {
		size_t l = strlen(file);
		bool named = !strncmp(err, file, l) && !strncmp(err + l, ": ", 2);
		const char *why = err + (named ? l + 2 : 0);
		gp_table_note(t, nax, "failed: %s", why);
		*foot_plan = *foot_plan || !strncmp(why, "plan.", 5) || !strncmp(why, "plan:", 5);
		return;
	}
	if (!ok) {
		gp_table_note(t, nax, "(no figures)");
		return;
	}
	if (strstr(rest, "\"prices_given\": false"))
		priced = 0;
	*foot_usd = *foot_usd || !priced;
	gp_table_set(t, nax, "%s", gp_fmt_time(v[0], 4, a, sizeof a));
	gp_table_set(t, nax + 1, "%s", gp_fmt_si(v[1], 3, "", a, sizeof a));
	gp_table_set(t, nax + 2, "%s", priced ? gp_fmt_usd(v[2], a, sizeof a) : "-");
	gp_table_set(t, nax + 3, "%s", gp_fmt_bytes(v[3], a, sizeof a));
	if (strstr(rest, "\"fits\": false"))
		gp_table_note(t, nax + 4, "does not fit");
}

/* The table's columns: one per setting of the first point (its PATH),
 * then the figures; heads point into heads_buf. */
static int sweep_heads(const struct gp_sweep *sw, struct gp_table *t, char *buf, size_t n)
{
	static const char *const figs[] = { "iteration", "tokens/s", "$/iteration", "WAN bytes" };
	int nax = sw->n ? sw->npt[0] : 0;
	if (nax > GP_TABLE_COLS - 4)
		nax = GP_TABLE_COLS - 4;
	if (nax < 1)
		nax = 1;
	char spec[GP_TABLE_COLS + 1];
	const char *heads[GP_TABLE_COLS];
	size_t o = 0;
	for (int i = 0; i < nax; i++) {
		const char *set = sw->n && i < sw->npt[0] ? sw->pts[0][i] : "point";
		size_t l = strcspn(set, "=");
		heads[i] = buf + o;
		o += (size_t)snprintf(buf + o, o < n ? n - o : 0, "%.*s", (int)l, set) + 1;
		if (o > n)
			o = n;
		spec[i] = 'l';
	}
	for (int i = 0; i < 4; i++) {
		heads[nax + i] = figs[i];
		spec[nax + i] = 'r';
	}
	spec[nax + 4] = 0;
	gp_table_init(t, spec, heads);
	t->wrap = 79;
	return nax;
}

/* SIGCHLD's handler: none is needed (sigtimedwait takes the signal),
 * but an ignored signal might not be kept pending. */
static void on_child(int sig)
{
	(void)sig;
}

/* The signals that end a sweep and its workers: those not ignored of
 * SIGINT, SIGTERM and SIGHUP (a sweep started in the background ignores
 * SIGINT, and so should its end), and SIGCHLD. */
static void wait_set(sigset_t *set)
{
	static const int ends[] = { SIGINT, SIGTERM, SIGHUP };
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
		struct sigaction cur;
		if (sigaction(ends[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
			sigaddset(set, ends[i]);
	}
}

/* Reaps the workers that ended; -1 when one failed. */
static int reap(const pid_t *pid, bool *alive, int jobs, int *left)
{
	int rc = 0;
	for (int w = 0; w < jobs; w++) {
		int st;
		if (alive[w] && waitpid(pid[w], &st, WNOHANG) == pid[w]) {
			alive[w] = false;
			(*left)--;
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				rc = cli_error(EXIT_INPUT, "sweep: worker %d failed", w + 1);
		}
	}
	return rc;
}

/* Waits for the workers. A SIGINT, SIGTERM or SIGHUP goes to every
 * worker still running, then ends the sweep the same way once they have
 * ended (with old, the mask before, back in force). */
static int wait_workers(const pid_t *pid, int jobs, const sigset_t *set, const sigset_t *old)
{
	bool alive[MAX_JOBS];
	int left = jobs, rc = EXIT_OK;
	for (int w = 0; w < jobs; w++)
		alive[w] = pid[w] > 0;
	while (left > 0) {
		if (reap(pid, alive, jobs, &left))
			rc = EXIT_INPUT;
		if (!left)
			break;
		struct timespec tick = { 1, 0 };
		int sig = sigtimedwait(set, NULL, &tick);
		if (sig < 0 || sig == SIGCHLD)
			continue;
		for (int w = 0; w < jobs; w++)
			if (alive[w])
				kill(pid[w], sig);
		for (int w = 0; w < jobs; w++)
			if (alive[w])
				waitpid(pid[w], NULL, 0);
		signal(sig, SIG_DFL);
		sigprocmask(SIG_SETMASK, old, NULL);
		raise(sig);
		return 128 + sig;   /* (only if the signal did not end us) */
	}
	return rc;
}

/* Runs the points in `jobs` processes, worker w taking w, w + jobs, ...
 * into tmp[w]; one job runs here. */
static int run_workers(const struct args *a, const struct gp_sweep *sw, int jobs, FILE **tmp)
{
	if (jobs <= 1) {
		for (long k = 0; k < sw->n; k++)
			eval_point(a, sw, k, tmp[0]);
		fflush(tmp[0]);
		return EXIT_OK;
	}
	pid_t pid[MAX_JOBS];
	sigset_t set, old;
	struct sigaction chld = { .sa_handler = on_child }, was;
	sigemptyset(&chld.sa_mask);
	wait_set(&set);
	sigaction(SIGCHLD, &chld, &was);
	sigprocmask(SIG_BLOCK, &set, &old);
	int rc = EXIT_OK, started = 0;
	for (int w = 0; w < jobs; w++) {
		fflush(NULL);
		pid[w] = fork();
		if (pid[w] < 0) {
			rc = cli_error(EXIT_INPUT, "sweep: fork: %s", strerror(errno));
			for (int v = 0; v < w; v++)
				kill(pid[v], SIGTERM);
			break;
		}
		started++;
		if (pid[w] == 0) {
			sigaction(SIGCHLD, &was, NULL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			for (long k = w; k < sw->n; k += jobs)
				eval_point(a, sw, k, tmp[w]);
			fflush(tmp[w]);
			_exit(ferror(tmp[w]) ? 1 : 0);
		}
	}
	int wr = wait_workers(pid, started, &set, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	sigaction(SIGCHLD, &was, NULL);
	return rc ? rc : wr;
}

/* Prints the points in order (lines of any length), as JSON lines or a
 * table sized to its content; exit 1 when one failed. */
static int collect(const struct args *a, const struct gp_sweep *sw, int jobs, FILE **tmp)
{
	struct gp_table t;
	char heads[4096];
	int nax = sweep_heads(sw, &t, heads, sizeof heads);
	for (int w = 0; w < jobs; w++)
		rewind(tmp[w]);
	char *line = NULL;
	size_t cap = 0;
	long failed = 0, first = -1;
	int rc = EXIT_OK;
	bool foot_usd = false, foot_plan = false;
	struct warns warns = { 0 };
	for (long k = 0; k < sw->n && rc == EXIT_OK; k++) {
		if (getline(&line, &cap, tmp[k % jobs]) < 0) {
			rc = cli_error(EXIT_INPUT, "sweep: point %ld is missing", k + 1);
			break;
		}
		char *err = line_error(line);
		if (err && failed++ == 0)
			first = k;
		warn_add(&warns, line, k);
		if (a->jsonl)
			fputs(line, stdout);
		else
			add_row(&t, nax, line, err, a->file, &foot_usd, &foot_plan);
		free(err);
	}
	free(line);
	if (!a->jsonl && gp_table_print(&t, stdout, "") && rc == EXIT_OK)
		rc = cli_error(EXIT_INPUT, "sweep: out of memory");
	gp_table_free(&t);
	if (foot_usd && rc == EXIT_OK)
		printf("\n$/iteration: - where no prices are given (gpus' price_per_hour,\n"
		       "links' price_per_gb)\n");
	if (foot_plan && !a->engine && rc == EXIT_OK)
		printf("\nEach point simulates the file's plan as it is; --engine NAME plans each\n"
		       "point anew.\n");
	fflush(stdout);   /* the summary after the table, in a pipe too */
	warn_print(&warns, a->file);
	if (rc == EXIT_OK && failed)
		rc = sw->n == 1 ? cli_error(EXIT_INPUT, "sweep: the one point failed")
		     : failed == sw->n ? cli_error(EXIT_INPUT, "sweep: all %ld points failed", sw->n)
		     : cli_error(EXIT_INPUT, "sweep: %ld of %ld points failed (the first: point %ld)",
				 failed, sw->n, first + 1);
	return rc;
}

static int run(const struct args *a)
{
	struct gp_sweep sw;
	struct gp_err e = { "" };
	int rc = EXIT_OK;
	if (a->points)
		rc = read_points(a, &sw);
	else if (gp_sweep_product(&sw, a->sets, a->nsets, &e))
		rc = cli_error(EXIT_INPUT, "%s", e.msg);
	if (rc)
		return rc;
	sw.cost_path = a->cost_model;
	sw.heur_path = a->heuristic;
	sw.xlate = gp_ov_xlate;
	int jobs = a->jobs > sw.n ? (int)(sw.n ? sw.n : 1) : a->jobs;
	FILE *tmp[MAX_JOBS] = { 0 };
	for (int w = 0; w < jobs && rc == EXIT_OK; w++)
		if (!(tmp[w] = tmpfile()))
			rc = cli_error(EXIT_INPUT, "sweep: cannot create a temporary file: %s",
				       strerror(errno));
	if (rc == EXIT_OK)
		rc = run_workers(a, &sw, jobs, tmp);
	if (rc == EXIT_OK)
		rc = collect(a, &sw, jobs, tmp);
	for (int w = 0; w < jobs; w++)
		if (tmp[w])
			fclose(tmp[w]);
	gp_sweep_free(&sw);
	return rc;
}

const struct cmd cmd_sweep = {
	.name = "sweep",
	.help = "a row per value (or per combination); JSON lines in and out",
	.opts = "set jobs jsonl points engine time-limit work-limit gap seed no-polish schedule chunks cost-model heuristic",
	.file = true,
	.run = run,
};
