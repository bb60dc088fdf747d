/*
 * main.c: geoplan's command line. Each subcommand is a table entry
 * (name, usage, function), as tmux does it; all of them are thin faces of
 * the same core calls.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gp.h"
#include "report.h"
#include "scenario.h"
#include "sim.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_GAP = 3, EXIT_INFEASIBLE = 4 };

#define MAX_SETS 64

struct args {
	const char *file;
	const char *sets[MAX_SETS];
	int nsets;
	const char *out;
	const char *schedule;
	int chunks;
	int json, csv;
	double time_limit, gap;
};

struct cmd {
	const char *name;
	const char *usage;
	const char *help;
	int (*run)(const struct args *a);
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "geoplan: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'geoplan --help'.\n");
	return EXIT_USAGE;
}

static struct gp_scenario *load(const struct args *a)
{
	struct gp_err e;
	struct gp_scenario *s = gp_scenario_load_set(a->file, a->sets, a->nsets, &e);
	if (!s)
		fprintf(stderr, "geoplan: %s\n", e.msg);
	return s;
}

/* Applies --schedule / --chunks to the scenario's plan. */
static int override_plan(struct gp_scenario *s, const struct args *a)
{
	if (!s->has_plan) {
		fprintf(stderr, "geoplan: %s: the scenario has no plan = { ... } to simulate\n",
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

static int simulate(struct gp_scenario *s, const struct args *a, int record,
		    struct gp_result *r)
{
	int rc = override_plan(s, a);
	if (rc)
		return rc;
	struct gp_err e;
	struct gp_sim_opts o = { .record = record, .time_limit = a->time_limit,
				 .gap = a->gap };
	if (gp_simulate(s, &s->plan, &o, r, &e)) {
		fprintf(stderr, "geoplan: %s: %s\n", s->path, e.msg);
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
		   "  --json, --csv  machine-readable output (sim)\n"
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
	struct args a = { 0 };
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
