/*
 * main.c: geoplan's command line. Each subcommand is a table entry
 * (name, usage, function), as tmux does it; all of them are thin faces of
 * the same core calls.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gp.h"
#include "report.h"

struct cmd {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(const struct args *a);
};

int cli_quiet;
char cli_last_error[1200];

/* Reports an error of a command step: to standard error, or only into
 * cli_last_error when a sweep collects errors per point. */
void cli_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cli_last_error, sizeof cli_last_error, fmt, ap);
	va_end(ap);
	if (!cli_quiet)
		fprintf(stderr, "geoplan: %s\n", cli_last_error);
}

int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "geoplan: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'geoplan --help'.\n");
	return EXIT_USAGE;
}

struct gp_scenario *load_with(const struct args *a, const char *const *extra, int nextra)
{
	struct gp_err e;
	const char *sets[4 * MAX_SETS];
	int n = 0;
	for (int i = 0; i < a->nsets; i++)
		sets[n++] = a->sets[i];
	for (int i = 0; i < nextra && n < 4 * MAX_SETS; i++)
		sets[n++] = extra[i];
	struct gp_scenario *s = gp_scenario_load_set(a->file, sets, n, &e);
	if (!s)
		cli_fail("%s", e.msg);
	return s;
}

struct gp_scenario *load(const struct args *a)
{
	return load_with(a, NULL, 0);
}

/* Applies --schedule / --chunks to the scenario's plan. */
static int override_plan(struct gp_scenario *s, const struct args *a)
{
	if (!s->has_plan) {
		cli_fail("%s: the scenario has no plan = { ... } to simulate (try geoplan plan)",
			 s->path);
		return EXIT_INPUT;
	}
	if (a->schedule) {
		enum gp_sched k;
		if (gp_sched_parse(a->schedule, &k))
			return usage_error("--schedule: unknown schedule '%s' (gpipe, 1f1b, interleaved, zb-h1, xdc-greedy, xdc-milp)",
					   a->schedule);
		s->plan.schedule = k;
		if (k == GP_SCHED_INTERLEAVED && s->plan.chunks < 2 && !a->chunks)
			s->plan.chunks = 2;
		if (k != GP_SCHED_INTERLEAVED && k != GP_SCHED_XDC_GREEDY &&
		    k != GP_SCHED_XDC_MILP)
			s->plan.chunks = 1;
	}
	if (a->chunks)
		s->plan.chunks = a->chunks;
	return EXIT_OK;
}

int simulate(struct gp_scenario *s, const struct args *a, int record,
		    struct gp_result *r)
{
	int rc = override_plan(s, a);
	if (rc)
		return rc;
	struct gp_err e;
	struct gp_sim_opts o = { .record = record, .time_limit = a->time_limit,
				 .gap = a->gap };
	if (gp_simulate(s, &s->plan, &o, r, &e)) {
		cli_fail("%s: %s", s->path, e.msg);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

static int cmd_check(const struct args *a)
{
	struct gp_scenario *s = load(a);
	if (!s)
		return EXIT_INPUT;
	int gpus = 0;
	for (int i = 0; i < s->ndcs; i++)
		for (int j = 0; j < s->dcs[i].npools; j++)
			gpus += s->dcs[i].pools[j].count;
	printf("%s: ok: %d DCs, %d GPUs, %d link directions, model %s (%d layers)%s\n",
	       a->file, s->ndcs, gpus, s->nlinks, s->model.name, s->model.layers,
	       s->has_plan ? ", with a plan" : "");
	gp_scenario_free(s);
	return EXIT_OK;
}

static int cmd_sim(const struct args *a)
{
	if (a->json && a->csv)
		return usage_error("%s", "--json and --csv exclude each other");
	struct gp_scenario *s = load(a);
	if (!s)
		return EXIT_INPUT;
	struct gp_result r;
	int rc = simulate(s, a, a->csv, &r);
	if (rc == EXIT_OK) {
		if (a->json)
			gp_report_json(stdout, s, &s->plan, &r);
		else if (a->csv)
			gp_report_csv(stdout, s, &s->plan, &r);
		else
			gp_report_text(stdout, s, &s->plan, &r);
		if (!r.fits) {
			fprintf(stderr, "geoplan: %s: does not fit: %s\n", a->file, r.fit_msg);
			rc = EXIT_INFEASIBLE;
		} else if (r.solver.present && !r.solver.proven) {
			rc = EXIT_GAP;
		}
		gp_result_free(&r);
	}
	gp_scenario_free(s);
	return rc;
}

static int cmd_gantt(const struct args *a)
{
	if (!a->out)
		return usage_error("%s", "gantt needs -o FILE.svg");
	struct gp_scenario *s = load(a);
	if (!s)
		return EXIT_INPUT;
	struct gp_result r;
	int rc = simulate(s, a, 1, &r);
	if (rc == EXIT_OK) {
		int to_stdout = !strcmp(a->out, "-");
		FILE *f = to_stdout ? stdout : fopen(a->out, "w");
		if (!f) {
			fprintf(stderr, "geoplan: %s: %s\n", a->out, strerror(errno));
			rc = EXIT_INPUT;
		} else {
			if (gp_report_svg(f, s, &s->plan, &r) || (!to_stdout && fclose(f))) {
				fprintf(stderr, "geoplan: %s: write failed\n", a->out);
				rc = EXIT_INPUT;
			}
		}
		if (rc == EXIT_OK && !r.fits) {
			fprintf(stderr, "geoplan: %s: does not fit: %s\n", a->file, r.fit_msg);
			rc = EXIT_INFEASIBLE;
		}
		gp_result_free(&r);
	}
	gp_scenario_free(s);
	return rc;
}

typedef int (*engine_fn)(const struct gp_scenario *, const struct gp_plan_opts *,
			 struct gp_plan *, struct gp_plan_report *, struct gp_err *);

/* --warm: the engine whose plan starts the MILP; WARM_FILE: the
 * scenario's own plan. */
#define WARM_FILE (-2)
static int warm_engine = -1;
static bool warm_dropped;   /* --warm plan: the file's plan did not validate */
static int plan_with_engine(int k, const struct gp_scenario *s, const struct gp_plan_opts *o,
			    struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e);

/* The placement MILP, started from --warm's plan when given (a plan
 * that engine cannot make only leaves the MILP cold). */
static int plan_milp(const struct gp_scenario *s, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	struct gp_plan_opts mo = *o;
	if (mo.time_limit <= 0)
		mo.time_limit = 10;
	struct gp_plan w;
	struct gp_plan_report wr;
	struct gp_err we = { "" };
	if (warm_engine == WARM_FILE)
		return gp_plan_milp(s, &mo, s->has_plan ? &s->plan : NULL, out, rep, e);
	bool have = warm_engine >= 0 && plan_with_engine(warm_engine, s, o, &w, &wr, &we) == 0;
	int rc = gp_plan_milp(s, &mo, have ? &w : NULL, out, rep, e);
	if (have)
		gp_plan_free(&w);
	return rc;
}

static const struct {
	const char *name;
	engine_fn fn;
} engines[] = {
	{ "milp", plan_milp },
	{ "megatron", gp_plan_megatron },
	{ "dp-across-dcs", gp_plan_dp_across_dcs },
	{ "atlas", gp_plan_atlas },
	{ "search", gp_plan_search },
};
#define NENGINES (int)(sizeof engines / sizeof engines[0])

static int plan_with_engine(int k, const struct gp_scenario *s, const struct gp_plan_opts *o,
			    struct gp_plan *out, struct gp_plan_report *rep, struct gp_err *e)
{
	return engines[k].fn(s, o, out, rep, e);
}

int find_engine(const char *name)
{
	for (int i = 0; i < NENGINES; i++)
		if (!strcmp(engines[i].name, name))
			return i;
	return -1;
}

static struct gp_plan_opts plan_opts(const struct gp_scenario *s, const struct args *a)
{
	struct gp_plan_opts o = { .time_limit = a->time_limit, .gap = a->gap,
				  .seed = a->seed ? a->seed : 1, .objective = s->objective,
				  .budget_usd_per_hour = s->budget_usd_per_hour,
				  .schedule = GP_SCHED_1F1B, .polish = !a->no_polish };
	if (a->schedule)
		gp_sched_parse(a->schedule, &o.schedule);
	return o;
}

/* The planner's report as the solver object of the JSON and the text. */
static struct gp_solver_info solver_info(const struct gp_plan_report *rep,
				       enum gp_objective goal)
{
	struct gp_solver_info si = { .present = true, .engine = rep->engine,
				     .status = gp_milp_status_name(rep->status),
				     .proven = rep->status == GP_MILP_OPTIMAL,
				     .objective = rep->estimate_s, .bound = rep->bound,
				     .gap = rep->gap, .seconds = rep->seconds,
				     .has_own = rep->has_own, .own_sim = rep->own_sim_s,
				     .polished = rep->polished };
	/* The MILP's bound and gap are in its objective's unit. */
	if (goal != GP_OBJ_TIME && !strcmp(rep->engine, "milp")) {
		si.unit = goal == GP_OBJ_COST ? "usd" : "bytes";
		si.value = rep->objective;
		si.value_bound = rep->bound;
		si.bound = -HUGE_VAL;
	}
	return si;
}

/* Runs engine k on s; on success *plan and *r hold the plan and its
 * simulation. */
int plan_with(struct gp_scenario *s, const struct args *a, int k,
	      struct gp_plan *plan, struct gp_plan_report *rep,
	      struct gp_result *r, int record)
{
	struct gp_err e;
	struct gp_plan_opts o = plan_opts(s, a);
	*rep = (struct gp_plan_report){ .engine = engines[k].name };
	warm_engine = !a->warm ? -1 : !strcmp(a->warm, "plan") ? WARM_FILE : find_engine(a->warm);
	if (warm_engine == WARM_FILE && !s->has_plan && !warm_dropped) {
		cli_fail("%s: --warm plan: the scenario has no plan to start from", a->file);
		return EXIT_USAGE;
	}
	if (engines[k].fn(s, &o, plan, rep, &e)) {
		cli_fail("%s: %s", a->file, e.msg);
		return rep->status == GP_MILP_INFEASIBLE ? EXIT_INFEASIBLE : EXIT_INPUT;
	}
	struct gp_sim_opts so = { .record = record, .time_limit = a->time_limit, .gap = a->gap };
	if (gp_simulate(s, plan, &so, r, &e)) {
		cli_fail("%s: the %s plan does not simulate: %s", a->file, engines[k].name,
			 e.msg);
		gp_plan_free(plan);
		return EXIT_INPUT;
	}
	return EXIT_OK;
}

/* Planning commands ignore the file's plan: drop it before validation,
 * so a plan that no longer fits an overridden scenario does not stop
 * them. */
const char *const cli_no_plan[1] = { "plan=nil" };

struct gp_scenario *load_planning(const struct args *a, const char *const *extra, int nextra)
{
	const char *sets[3 * MAX_SETS + 1];
	int n = 0;
	for (int i = 0; i < nextra && n < 3 * MAX_SETS; i++)
		sets[n++] = extra[i];
	warm_dropped = false;
	if (a->warm && !strcmp(a->warm, "plan")) {
		const char *all[4 * MAX_SETS];
		int na = 0;
		for (int i = 0; i < a->nsets; i++)
			all[na++] = a->sets[i];
		for (int i = 0; i < n && na < 4 * MAX_SETS; i++)
			all[na++] = sets[i];
		struct gp_err e = { "" };
		struct gp_scenario *s = gp_scenario_load_set(a->file, all, na, &e);
		if (s)
			return s;
		sets[n++] = cli_no_plan[0];
		s = load_with(a, sets, n);
		if (s) {
			warm_dropped = true;
			fprintf(stderr, "geoplan: %s: --warm plan: the file's plan is left out: %s\n",
				a->file, e.msg);
		}
		return s;
	}
	sets[n++] = cli_no_plan[0];
	return load_with(a, sets, n);
}

static int cmd_plan(const struct args *a)
{
	const char *name = a->engine ? a->engine : "milp";
	int k = find_engine(name);
	if (k < 0)
		return usage_error("--engine: unknown engine '%s' (milp, megatron, dp-across-dcs, atlas, search)",
				   name);
	struct gp_scenario *s = load_planning(a, NULL, 0);
	if (!s)
		return EXIT_INPUT;
	struct gp_plan plan;
	struct gp_plan_report rep;
	struct gp_result r;
	int rc = plan_with(s, a, k, &plan, &rep, &r, 0);
	if (rc == EXIT_OK) {
		r.solver = solver_info(&rep, s->objective);
		if (a->json) {
			gp_report_json(stdout, s, &plan, &r);
		} else {
			gp_report_text(stdout, s, &plan, &r);
			if (rep.note[0])
				printf("\nnote       %s\n", rep.note);
			printf("\n-- the plan, to paste into the scenario:\n");
			gp_plan_write_lua(stdout, s, &plan, "");
		}
		if (!r.fits)
			rc = EXIT_INFEASIBLE;
		else if (rep.status != GP_MILP_OPTIMAL && strcmp(rep.engine, "search") &&
			 isfinite(rep.bound) && !(rep.gap <= a->gap * (1 + 1e-9)))
			rc = EXIT_GAP;   /* not within --gap (default 0) */
		gp_result_free(&r);
		gp_plan_free(&plan);
	}
	gp_scenario_free(s);
	return rc;
}

static int cmd_compare(const struct args *a)
{
	struct gp_scenario *s = load_planning(a, NULL, 0);
	if (!s)
		return EXIT_INPUT;
	if (a->json)
		printf("[");
	else
		printf("%-14s %12s %12s %12s %12s %10s %8s\n", "engine", "iteration", "tokens/s",
		       "$/iteration", "WAN bytes", "plan time", "gap");
	int n = 0;
	for (int k = 0; k < NENGINES; k++) {
		struct gp_plan plan;
		struct gp_plan_report rep;
		struct gp_result r;
		if (plan_with(s, a, k, &plan, &rep, &r, 0) != EXIT_OK) {
			if (!a->json)
				printf("%-14s %12s\n", engines[k].name, "no plan");
			continue;
		}
		if (a->json) {
			printf("%s\n  {\"engine\": \"%s\", \"iteration_time_s\": %.9g, \"tokens_per_s\": %.9g, "
			       "\"usd_per_iteration\": %.9g, \"wan_bytes_per_iteration\": %.9g, \"fits\": %s, "
			       "\"solver\": ",
			       n++ ? "," : "", engines[k].name, r.iteration_time, r.tokens_per_s,
			       r.usd_per_iteration, r.wan_bytes, r.fits ? "true" : "false");
			struct gp_solver_info si = solver_info(&rep, s->objective);
			gp_report_json_solver(stdout, &si);
			printf("}");
		} else {
			char gap[16] = "-";
			if (isfinite(rep.gap))
				snprintf(gap, sizeof gap, "%.2f%%", 100 * rep.gap);
			printf("%-14s %11.4gs %12.4g %12.4g %12.4g %9.3gs %8s%s\n", engines[k].name,
			       r.iteration_time, r.tokens_per_s, r.usd_per_iteration, r.wan_bytes,
			       rep.seconds, gap, r.fits ? "" : "  (does not fit)");
		}
		gp_result_free(&r);
		gp_plan_free(&plan);
	}
	if (a->json)
		printf("\n]\n");
	gp_scenario_free(s);
	return EXIT_OK;
}

/* The main job until the interactive planner lands: simulate the plan and
 * print the summary. */
static int cmd_run(const struct args *a)
{
	return cmd_sim(a);
}

static const struct cmd cmds[] = {
	{ "check", "check FILE [--set PATH=V]...", "load and validate a scenario", cmd_check },
	{ "sim", "sim FILE [--set PATH=V]... [--schedule K] [--chunks N] [--json | --csv]\n"
	  "      [--time-limit S] [--gap G]",
	  "simulate the scenario's plan for one iteration", cmd_sim },
	{ "gantt", "gantt FILE -o OUT.svg [--schedule K] [--chunks N]",
	  "write the simulated iteration as an SVG Gantt chart", cmd_gantt },
	{ "plan", "plan FILE [--engine E] [--set PATH=V]... [--json] [--time-limit S]",
	  "find a plan (ignoring the file's) and simulate it", cmd_plan },
	{ "compare", "compare FILE [--set PATH=V]... [--json]",
	  "every engine side by side", cmd_compare },
	{ "sweep", "sweep FILE --set PATH=v1,v2,... [-j N] [--jsonl] [--points F|-] [--engine E]",
	  "a row per value (or per combination); JSON lines in and out", cmd_sweep },
	{ "sensitivity", "sensitivity FILE [--engine E]",
	  "which link or pool, 10 % better, shortens the iteration most", cmd_sensitivity },
	{ "run", "run FILE", "the main job (for now: sim with the text summary)", cmd_run },
};

static void help(FILE *f)
{
	fprintf(f, "usage: geoplan COMMAND FILE [options]\n\n"
		   "Plan and simulate LLM training across datacenters.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		fprintf(f, "  %-58s %s\n", cmds[i].usage, cmds[i].help);
	fprintf(f, "\noptions:\n"
		   "  --schedule K   gpipe, 1f1b, interleaved, zb-h1, xdc-greedy or xdc-milp\n"
		   "                 (overrides the plan's)\n"
		   "  --chunks N     virtual stages per device (interleaved; 2: V-shaped xdc-*)\n"
		   "  --time-limit S seconds per pipeline for xdc-milp (default 10)\n"
		   "  --gap G        relative gap at which xdc-milp stops (default 0: prove)\n"
		   "  --set PATH=V   override a scenario field, e.g. 'links[ams-fra].bandwidth=Gbps(50)'\n"
		   "  --engine E     plan: milp (default), megatron, dp-across-dcs, atlas or search\n"
		   "  --no-polish    milp: return the MILP's own plan, without the search's polish\n"
		   "  --warm E       milp: start from engine E's plan, or the file's (plan)\n"
		   "  --seed N       seed of the search engine (default 1)\n"
		   "  --json, --csv  machine-readable output (sim; --json also plan, compare)\n"
		   "  -j N           sweep: points in N parallel processes\n"
		   "  --jsonl        sweep: one JSON object per line\n"
		   "  --points F     sweep: read points as JSON lines {\"set\": [\"PATH=V\", ...]}\n"
		   "  -o FILE        output file (gantt; - for standard output)\n"
		   "  -h, --help     this help\n"
		   "  --version      the version\n\n"
		   "exit status: 0 ok, 1 bad input, 2 usage, 3 not proven optimal, 4 infeasible\n"
		   "See geoplan(1) and geoplan-scenario(5).\n");
}

static int parse_num(const char *flag, const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = v ? strtod(v, &end) : 0;
	if (!v || errno || *end || end == v || !(x >= lo && x <= hi)) {
		fprintf(stderr, "geoplan: %s: expected a number in [%g, %g], got '%s'\n"
			"Try 'geoplan --help'.\n", flag, lo, hi, v ? v : "");
		return -1;
	}
	*out = x;
	return 0;
}

static int parse_int(const char *flag, const char *v, int lo, int hi, int *out)
{
	char *end;
	errno = 0;
	long x = v ? strtol(v, &end, 10) : 0;
	if (!v || errno || *end || end == v || x < lo || x > hi) {
		fprintf(stderr, "geoplan: %s: expected an integer in %d..%d, got '%s'\n"
			"Try 'geoplan --help'.\n", flag, lo, hi, v ? v : "");
		return -1;
	}
	*out = (int)x;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("geoplan %s\n", GP_VERSION);
		return EXIT_OK;
	}
	const struct cmd *c = NULL;
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(argv[1], cmds[i].name))
			c = &cmds[i];
	if (!c)
		return usage_error("unknown command '%s'", argv[1]);
	struct args a = { .jobs = 1 };
	for (int i = 2; i < argc; i++) {
		const char *o = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(o, "--json"))
			a.json = 1;
		else if (!strcmp(o, "--csv"))
			a.csv = 1;
		else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			printf("usage: geoplan %s\n", c->usage);
			return EXIT_OK;
		} else if (!strcmp(o, "-o") || !strcmp(o, "--schedule")) {
			if (!next)
				return usage_error("%s needs a value", o);
			*(o[1] == 'o' ? &a.out : &a.schedule) = next;
			i++;
		} else if (!strcmp(o, "--set")) {
			if (!next)
				return usage_error("%s needs PATH=VALUE", o);
			if (a.nsets == MAX_SETS)
				return usage_error("at most 64 --set options%s", "");
			a.sets[a.nsets++] = next;
			i++;
		} else if (!strncmp(o, "--set=", 6)) {
			if (a.nsets == MAX_SETS)
				return usage_error("at most 64 --set options%s", "");
			a.sets[a.nsets++] = o + 6;
		} else if (!strcmp(o, "-j") || !strcmp(o, "--jobs")) {
			if (parse_int(o, next, 1, 256, &a.jobs))
				return EXIT_USAGE;
			i++;
		} else if (!strcmp(o, "--warm")) {
			if (!next)
				return usage_error("%s needs an engine", o);
			int k = find_engine(next);
			if ((k < 0 && strcmp(next, "plan")) || !strcmp(next, "milp"))
				return usage_error("--warm: expected plan, megatron, dp-across-dcs, atlas or search, got '%s'",
						   next);
			a.warm = next;
			i++;
		} else if (!strcmp(o, "--no-polish")) {
			a.no_polish = 1;
		} else if (!strcmp(o, "--jsonl")) {
			a.jsonl = 1;
		} else if (!strcmp(o, "--points")) {
			if (!next)
				return usage_error("%s needs a file (or - for standard input)", o);
			a.points = next;
			i++;
		} else if (!strcmp(o, "--engine")) {
			if (!next)
				return usage_error("%s needs a value", o);
			a.engine = next;
			i++;
		} else if (!strcmp(o, "--seed")) {
			int seed;
			if (parse_int(o, next, 0, 2147483647, &seed))
				return EXIT_USAGE;
			a.seed = (unsigned)seed;
			i++;
		} else if (!strcmp(o, "--time-limit")) {
			if (parse_num(o, next, 0.001, 86400, &a.time_limit))
				return EXIT_USAGE;
			i++;
		} else if (!strcmp(o, "--gap")) {
			if (parse_num(o, next, 0, 1, &a.gap))
				return EXIT_USAGE;
			i++;
		} else if (!strcmp(o, "--chunks")) {
			if (parse_int(o, next, 1, 64, &a.chunks))
				return EXIT_USAGE;
			i++;
		} else if (o[0] == '-' && o[1])
			return usage_error("unknown option '%s'", o);
		else if (!a.file)
			a.file = o;
		else
			return usage_error("unexpected argument '%s'", o);
	}
	if (!a.file)
		return usage_error("%s needs a scenario FILE", c->name);
	return c->run(&a);
}
