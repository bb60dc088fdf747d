/*
 * sweep.c: what-if from the command line.
 *
 * sweep: every --set whose value lists several (PATH=v1,v2,...) becomes an
 * axis; each combination is a point, loaded with its overrides and then
 * simulated (the file's plan) or planned (--engine). Points run in -j
 * worker processes, each writing JSON lines to a file of its own, which
 * the parent prints in point order. --points reads points as JSON lines
 * {"set": ["PATH=V", ...]}, and --jsonl writes them, so a sweep larger
 * than one machine splits with GNU parallel or a job array and merges
 * with cat.
 *
 * sensitivity: for the plan, each link direction and each pool made 10 %
 * better (link: bandwidth x 1.1, latency / 1.1; pool: GPU efficiency and
 * NIC bandwidth x 1.1), re-simulated, ranked by the iteration time saved.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define MAX_POINTS 100000
#define MAX_AXES 8

struct point {
	char *sets[MAX_AXES + MAX_SETS];
	int n;
};

/* Splits "PATH=v1,v2" on the commas outside (), {}, [] and quotes. */
static int split_values(const char *item, char ***vals)
{
	const char *eq = strchr(item, '=');
	if (!eq)
		return 0;
	size_t plen = (size_t)(eq - item) + 1;
	int n = 0, depth = 0;
	char quote = 0;
	*vals = NULL;
	const char *start = eq + 1;
	for (const char *p = start;; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (!*p)
				break;
			continue;
		}
		if (*p == '"' || *p == '\'')
			quote = *p;
		else if (*p == '(' || *p == '{' || *p == '[')
			depth++;
		else if (*p == ')' || *p == '}' || *p == ']')
			depth--;
		if ((*p == ',' && depth == 0) || !*p) {
			char **nv = realloc(*vals, sizeof **vals * (size_t)(n + 1));
			size_t vlen = (size_t)(p - start);
			char *v = malloc(plen + vlen + 1);
			if (!nv || !v) {
				free(nv ? nv : *vals);
				free(v);
				*vals = NULL;
				return -1;
			}
			*vals = nv;
			memcpy(v, item, plen);
			memcpy(v + plen, start, vlen);
			v[plen + vlen] = 0;
			(*vals)[n++] = v;
			start = p + 1;
			if (!*p)
				break;
		}
	}
	return n;
}

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

/* Parses {"set": ["PATH=V", ...], ...} into a point. */
static int parse_point_line(const char *line, struct point *pt)
{
	const char *p = strstr(line, "\"set\"");
	if (!p)
		return -1;
	p = strchr(p + 5, '[');
	if (!p)
		return -1;
	p++;
	pt->n = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == ']')
			return 0;
		if (*p != '"' || pt->n == MAX_AXES + MAX_SETS)
			return -1;
		p++;
		char *v = json_string(&p);
		if (!v)
			return -1;
		pt->sets[pt->n++] = v;
	}
}

static void json_esc(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Evaluates one point and writes its JSON line. */
static void eval_point(const struct args *base, const struct point *pt, long idx, FILE *out)
{
	struct gp_result r;
	int rc = EXIT_INPUT, have = 0;
	cli_last_error[0] = 0;
	/* A planner ignores the file's plan: drop it before validation. */
	const char *sets[MAX_AXES + MAX_SETS + 1];
	int n = 0;
	for (int i = 0; i < pt->n; i++)
		sets[n++] = pt->sets[i];
	struct gp_scenario *s = base->engine ? load_planning(base, sets, n) : load_with(base, sets, n);
	if (s) {
		if (base->engine) {
			int k = find_engine(base->engine);
			struct gp_plan plan;
			struct gp_plan_report rep;
			rc = plan_with(s, base, k, &plan, &rep, &r, 0);
			if (rc == EXIT_OK)
				gp_plan_free(&plan);
		} else {
			rc = simulate(s, base, 0, &r);
		}
		have = rc == EXIT_OK;
	}
	fprintf(out, "{\"point\": %ld, \"set\": [", idx);
	for (int i = 0; i < pt->n; i++) {
		if (i)
			fputs(", ", out);
		json_esc(out, pt->sets[i]);
	}
	fputs("]", out);
	if (have) {
		fprintf(out, ", \"iteration_time_s\": %.9g, \"tokens_per_s\": %.9g, \"mfu\": %.6g, "
			"\"usd_per_iteration\": %.9g, \"wan_bytes_per_iteration\": %.9g, \"fits\": %s",
			r.iteration_time, r.tokens_per_s, r.mfu, r.usd_per_iteration, r.wan_bytes,
			r.fits ? "true" : "false");
		gp_result_free(&r);
	} else {
		fputs(", \"error\": ", out);
		json_esc(out, cli_last_error[0] ? cli_last_error : "failed");
	}
	fputs("}\n", out);
	gp_scenario_free(s);
}

/* The points: from --points, or the product of the multi-valued --sets.
 * base receives the single-valued sets. */
static long make_points(const struct args *a, struct args *base, struct point **out)
{
	*base = *a;
	base->nsets = 0;
	long n = 1;
	char **axis[MAX_AXES];
	int len[MAX_AXES], naxes = 0;
	if (a->points) {
		FILE *f = strcmp(a->points, "-") ? fopen(a->points, "r") : stdin;
		if (!f) {
			cli_fail("%s: %s", a->points, strerror(errno));
			return -1;
		}
		for (int i = 0; i < a->nsets; i++)
			base->sets[base->nsets++] = a->sets[i];
		long cap = 64, k = 0, lineno = 0;
		struct point *pts = malloc(sizeof *pts * (size_t)cap);
		char line[16384];
		while (pts && fgets(line, sizeof line, f)) {
			lineno++;
			if (strspn(line, " \t\r\n") == strlen(line))
				continue;
			if (k == cap) {
				struct point *np = realloc(pts, sizeof *pts * (size_t)(cap *= 2));
				if (!np)
					break;
				pts = np;
			}
			if (k == MAX_POINTS || parse_point_line(line, &pts[k])) {
				cli_fail("%s:%ld: expected {\"set\": [\"PATH=VALUE\", ...]}%s", a->points,
					 lineno, k == MAX_POINTS ? " (at most 100000 points)" : "");
				for (long i = 0; i < k; i++)
					for (int j = 0; j < pts[i].n; j++)
						free(pts[i].sets[j]);
				free(pts);
				if (f != stdin)
					fclose(f);
				return -1;
			}
			k++;
		}
		if (f != stdin)
			fclose(f);
		*out = pts;
		return pts ? k : -1;
	}
	for (int i = 0; i < a->nsets; i++) {
		char **vals;
		int nv = split_values(a->sets[i], &vals);
		if (nv > 1) {
			if (naxes == MAX_AXES) {
				cli_fail("sweep: at most %d axes", MAX_AXES);
				for (int j = 0; j < nv; j++)
					free(vals[j]);
				free(vals);
				goto fail;
			}
			axis[naxes] = vals;
			len[naxes++] = nv;
			n *= nv;
		} else {
			if (nv == 1) {
				free(vals[0]);
				free(vals);
			}
			base->sets[base->nsets++] = a->sets[i];
		}
	}
	if (naxes == 0) {
		cli_fail("sweep: give at least one --set PATH=v1,v2,... (or --points FILE)");
		return -1;
	}
	if (n > MAX_POINTS) {
		cli_fail("sweep: %ld points, at most %d", n, MAX_POINTS);
		goto fail;
	}
	struct point *pts = calloc((size_t)n, sizeof *pts);
	for (long k = 0; pts && k < n; k++) {
		long rest = k;
		for (int x = naxes - 1; x >= 0; x--) {
			pts[k].sets[x] = strdup(axis[x][rest % len[x]]);
			rest /= len[x];
		}
		pts[k].n = naxes;
	}
	for (int x = 0; x < naxes; x++) {
		for (int j = 0; j < len[x]; j++)
			free(axis[x][j]);
		free(axis[x]);
	}
	*out = pts;
	return pts ? n : -1;
fail:
	for (int x = 0; x < naxes; x++) {
		for (int j = 0; j < len[x]; j++)
			free(axis[x][j]);
		free(axis[x]);
	}
	return -1;
}

static void print_row(const char *line)
{
	/* Text: the point's values (PATH=VALUE without the PATH when it is
	 * the same on every row would be nicer; keep it whole and simple). */
	struct point pt = { .n = 0 };
	char vals[512] = "";
	if (parse_point_line(line, &pt) == 0)
		for (int i = 0; i < pt.n; i++) {
			size_t l = strlen(vals);
			snprintf(vals + l, sizeof vals - l, "%s%s", i ? "  " : "", pt.sets[i]);
			free(pt.sets[i]);
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

int cmd_sweep(const struct args *a)
{
	if (a->engine && find_engine(a->engine) < 0)
		return usage_error("--engine: unknown engine '%s'", a->engine);
	struct args base;
	struct point *pts = NULL;
	cli_quiet = 0;
	long n = make_points(a, &base, &pts);
	if (n < 0)
		return EXIT_INPUT;
	int jobs = a->jobs < 1 ? 1 : a->jobs;
	if (jobs > n)
		jobs = (int)(n ? n : 1);
	FILE *tmp[256] = { 0 };
	pid_t pid[256];
	int rc = EXIT_OK;
	cli_quiet = 1;
	for (int w = 0; w < jobs; w++) {
		tmp[w] = tmpfile();
		if (!tmp[w]) {
			cli_quiet = 0;
			cli_fail("sweep: cannot create a temporary file: %s", strerror(errno));
			rc = EXIT_INPUT;
			jobs = w;
			break;
		}
		fflush(NULL);
		pid[w] = jobs > 1 ? fork() : 0;
		if (pid[w] < 0) {
			pid[w] = 0;
			jobs = w + 1; /* run the rest in this process */
		}
		if (pid[w] == 0) {
			for (long k = w; k < n; k += jobs)
				eval_point(&base, &pts[k], k, tmp[w]);
			fflush(tmp[w]);
			if (jobs > 1)
				_exit(0);
		}
	}
	for (int w = 0; w < jobs && jobs > 1; w++)
		if (pid[w] > 0) {
			int st;
			waitpid(pid[w], &st, 0);
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				rc = EXIT_INPUT;
				fprintf(stderr, "geoplan: sweep: worker %d failed\n", w + 1);
			}
		}
	cli_quiet = 0;
	/* Collect: worker w wrote points w, w + jobs, ... in order. */
	if (!a->jsonl)
		printf("%-44s %12s %12s %12s %12s\n", "point", "iteration", "tokens/s", "$/iteration",
		       "WAN bytes");
	for (int w = 0; w < jobs; w++)
		rewind(tmp[w]);
	char line[32768];
	for (long k = 0; k < n && rc == EXIT_OK; k++) {
		FILE *f = tmp[k % jobs];
		if (!fgets(line, sizeof line, f)) {
			fprintf(stderr, "geoplan: sweep: point %ld is missing\n", k + 1);
			rc = EXIT_INPUT;
			break;
		}
		if (a->jsonl)
			fputs(line, stdout);
		else
			print_row(line);
	}
	for (int w = 0; w < jobs; w++)
		if (tmp[w])
			fclose(tmp[w]);
	for (long k = 0; k < n; k++)
		for (int j = 0; j < pts[k].n; j++)
			free(pts[k].sets[j]);
	free(pts);
	return rc;
}

/* ------------------------------------------------------------------ */

struct gain {
	char what[128];
	double t, saved;
};

static int by_saved(const void *x, const void *y)
{
	const struct gain *a = x, *b = y;
	return (a->saved < b->saved) - (a->saved > b->saved);
}

int cmd_sensitivity(const struct args *a)
{
	struct gp_scenario *s = a->engine ? load_planning(a, NULL, 0) : load(a);
	if (!s)
		return EXIT_INPUT;
	struct gp_result r;
	struct gp_plan plan;
	struct gp_plan_report rep;
	int rc;
	if (a->engine) {
		int k = find_engine(a->engine);
		if (k < 0) {
			gp_scenario_free(s);
			return usage_error("--engine: unknown engine '%s'", a->engine);
		}
		rc = plan_with(s, a, k, &plan, &rep, &r, 0);
		if (rc == EXIT_OK) {
			gp_plan_free(&s->plan);
			s->plan = plan;
			s->has_plan = true;
		}
	} else {
		rc = simulate(s, a, 0, &r);
	}
	if (rc != EXIT_OK) {
		gp_scenario_free(s);
		return rc;
	}
	double base = r.iteration_time;
	gp_result_free(&r);
	int n = s->nlinks;
	for (int d = 0; d < s->ndcs; d++)
		n += s->dcs[d].npools;
	struct gain *g = calloc((size_t)n, sizeof *g);
	int k = 0;
	struct gp_sim_opts o = { .time_limit = a->time_limit, .gap = a->gap };
	struct gp_err e;
	for (int i = 0; g && i < s->nlinks; i++, k++) {
		struct gp_link keep = s->links[i];
		s->links[i].bandwidth *= 1.1;
		s->links[i].latency /= 1.1;
		snprintf(g[k].what, sizeof g[k].what, "link %s -> %s", s->dcs[keep.from].name,
			 s->dcs[keep.to].name);
		g[k].t = gp_simulate(s, &s->plan, &o, &r, &e) ? NAN : r.iteration_time;
		if (!isnan(g[k].t))
			gp_result_free(&r);
		s->links[i] = keep;
	}
	for (int d = 0; g && d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++, k++) {
			struct gp_pool *p = &s->dcs[d].pools[q];
			struct gp_pool keep = *p;
			snprintf(g[k].what, sizeof g[k].what, "pool %s/%s (%d GPUs)", s->dcs[d].name,
				 s->gpus[p->gpu].name, p->count);
			/* A private copy of the GPU type (the array has room for
			 * 256), so other pools of the same type stay as they are. */
			if (s->ngpus >= 256) {
				g[k].t = NAN;
				continue;
			}
			s->gpus[s->ngpus] = s->gpus[p->gpu];
			p->gpu = s->ngpus++;
			s->gpus[p->gpu].efficiency = fmin(1, s->gpus[p->gpu].efficiency * 1.1);
			p->network *= 1.1;
			p->nvlink *= 1.1;
			g[k].t = gp_simulate(s, &s->plan, &o, &r, &e) ? NAN : r.iteration_time;
			if (!isnan(g[k].t))
				gp_result_free(&r);
			*p = keep;
			s->ngpus--;
		}
	for (int i = 0; i < k; i++)
		g[i].saved = isnan(g[i].t) ? -HUGE_VAL : base - g[i].t;
	qsort(g, (size_t)k, sizeof *g, by_saved);
	printf("iteration %.4g s with the plan as it is; each line: one thing 10 %% better\n"
	       "(link: bandwidth x 1.1, latency / 1.1; pool: GPU efficiency, NVLink and NIC x 1.1)\n\n",
	       base);
	printf("%-44s %12s %10s\n", "", "iteration", "saved");
	for (int i = 0; i < k; i++)
		printf("%-44s %11.4gs %9.2f%%\n", g[i].what, g[i].t,
		       isnan(g[i].t) ? NAN : 100 * g[i].saved / base);
	free(g);
	gp_scenario_free(s);
	return EXIT_OK;
}
