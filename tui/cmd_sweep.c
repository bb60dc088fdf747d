/*
 * cmd_sweep.c: geoplan sweep: a row per point (core/whatif.h). Points
 * run in -j worker processes, each writing JSON lines to a file of its
 * own, which the parent prints in point order. --points reads points as
 * JSON lines {"set": ["PATH=V", ...]} and --jsonl writes them, so a
 * sweep larger than one machine splits with GNU parallel or a job array
 * and merges with cat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "json.h"
#include "whatif.h"

#define MAX_JOBS 256

/* Reads a JSON string at *p (after the opening quote) into a new buffer. */
static char *json_string(const char **p)
{
	size_t cap = 64, n = 0;
	char *out = malloc(cap);
	const char *s = *p;
	while (out && *s && *s != '"') {
		char c = *s++;
		if (c == '\\') {
			c = *s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '"': case '\\': case '/': break;
			default:
				free(out);
				return NULL; /* \u and the rest: not in a PATH=VALUE */
			}
		}
		if (n + 2 > cap) {
			char *nb = realloc(out, cap *= 2);
			if (!nb) {
				free(out);
				return NULL;
			}
			out = nb;
		}
		out[n++] = c;
	}
	if (!out || *s != '"') {
		free(out);
		return NULL;
	}
	out[n] = 0;
	*p = s + 1;
	return out;
}

/* {"set": ["PATH=V", ...], ...} into sets[0..*n) (malloc'd strings). */
static int parse_point_line(const char *line, char **sets, int max, int *n)
{
	const char *p = strstr(line, "\"set\"");
	p = p ? strchr(p + 5, '[') : NULL;
	if (!p)
		return -1;
	p++;
	*n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == ']')
			return 0;
		char *v = *p == '"' && *n < max ? (p++, json_string(&p)) : NULL;
		if (!v) {
			for (int i = 0; i < *n; i++)
				free(sets[i]);
			return -1;
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
	char line[16384], *sets[GP_SWEEP_MAX_AXES + MAX_SETS];
	long lineno = 0;
	while (rc == EXIT_OK && fgets(line, sizeof line, f)) {
		lineno++;
		int n;
		if (strspn(line, " \t\r\n") == strlen(line))
			continue;
		if (parse_point_line(line, sets, GP_SWEEP_MAX_AXES + MAX_SETS, &n)) {
			rc = cli_error(EXIT_INPUT, "%s:%ld: expected {\"set\": [\"PATH=VALUE\", ...]}",
				       a->points, lineno);
			break;
		}
		if (gp_sweep_add(sw, (const char *const *)sets, n, &e))
			rc = cli_error(EXIT_INPUT, "%s:%ld: %s", a->points, lineno, e.msg);
		for (int i = 0; i < n; i++)
			free(sets[i]);
	}
	if (f != stdin)
		fclose(f);
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
	gp_json_kint(&j, "point", k);
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
		gp_json_knum(&j, "wan_bytes_per_iteration", m.wan_bytes);
		gp_json_kbool(&j, "fits", m.fits);
	} else {
		gp_json_kstr(&j, "error", e.msg);
	}
	gp_json_end(&j);
	fputc('\n', out);
}

static void print_row(const char *line)
{
	char *sets[GP_SWEEP_MAX_AXES + MAX_SETS], vals[512] = "";
	int n;
	if (parse_point_line(line, sets, GP_SWEEP_MAX_AXES + MAX_SETS, &n) == 0)
		for (int i = 0; i < n; i++) {
			size_t l = strlen(vals);
			snprintf(vals + l, sizeof vals - l, "%s%s", i ? "  " : "", sets[i]);
			free(sets[i]);
		}
	double t, tok, usd, wan;
	const char *m = strstr(line, "\"iteration_time_s\"");
	if (m && sscanf(m, "\"iteration_time_s\": %lf, \"tokens_per_s\": %lf, \"mfu\": %*f, "
			   "\"usd_per_iteration\": %lf, \"wan_bytes_per_iteration\": %lf",
			&t, &tok, &usd, &wan) == 4)
		printf("%-44s %11.4gs %12.4g %12.4g %12.4g%s\n", vals, t, tok, usd, wan,
		       strstr(line, "\"fits\": false") ? "  (does not fit)" : "");
	else {
		const char *err = strstr(line, "\"error\": ");
		printf("%-44s %s", vals, err ? err + 9 : "failed\n");
	}
}

/* Runs the points in `jobs` processes, worker w taking w, w + jobs, ...
 * into tmp[w]. */
static int run_workers(const struct args *a, const struct gp_sweep *sw, int jobs, FILE **tmp)
{
	pid_t pid[MAX_JOBS];
	int rc = EXIT_OK;
	for (int w = 0; w < jobs; w++) {
		fflush(NULL);
		pid[w] = jobs > 1 ? fork() : 0;
		if (pid[w] < 0)
			return cli_error(EXIT_INPUT, "sweep: fork: %s", strerror(errno));
		if (pid[w] == 0) {
			for (long k = w; k < sw->n; k += jobs)
				eval_point(a, sw, k, tmp[w]);
			fflush(tmp[w]);
			if (jobs > 1)
				_exit(0);
		}
	}
	for (int w = 0; w < jobs && jobs > 1; w++) {
		int st;
		waitpid(pid[w], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			rc = cli_error(EXIT_INPUT, "sweep: worker %d failed", w + 1);
	}
	return rc;
}

/* Prints the points in order; exit 1 when one failed. */
static int collect(const struct args *a, const struct gp_sweep *sw, int jobs, FILE **tmp)
{
	if (!a->jsonl)
		printf("%-44s %12s %12s %12s %12s\n", "point", "iteration", "tokens/s", "$/iteration",
		       "WAN bytes");
	for (int w = 0; w < jobs; w++)
		rewind(tmp[w]);
	char line[32768];
	for (long k = 0; k < sw->n; k++) {
		if (!fgets(line, sizeof line, tmp[k % jobs]))
			return cli_error(EXIT_INPUT, "sweep: point %ld is missing", k + 1);
		if (a->jsonl)
			fputs(line, stdout);
		else
			print_row(line);
	}
	return EXIT_OK;
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
	.opts = "set jobs jsonl points engine time-limit gap seed no-polish schedule chunks cost-model heuristic",
	.file = true,
	.run = run,
};
