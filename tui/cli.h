/*
 * cli.h: what the command-line faces share: the parsed arguments, exit
 * codes, the command and option tables, and the steps every command
 * takes through the run object (core/run.h).
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <stdio.h>
#include "run.h"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2, EXIT_GAP = 3, EXIT_INFEASIBLE = 4 };

#define MAX_SETS 64
#define MAX_FILES 256

struct args {
	const char *file;
	const char *files[MAX_FILES];   /* a command that takes FILE...: all of them */
	int nfiles;
	const char *sets[MAX_SETS];
	int nsets;
	const char *out;
	const char *schedule;
	int chunks;
	int json, csv;
	double time_limit, gap;
	double work_limit;           /* --work-limit: seconds of counted work (0: none) */
	const char *engine;
	unsigned seed;
	int jobs, jsonl;
	int no_polish;
	const char *warm;
	const char *points;
	const char *theme, *color, *view, *keys;
	int ascii;
	int no_cursor;              /* shot --no-cursor */
	int width, height;          /* --size */
	const char *cost_model;     /* --cost-model */
	const char *heuristic;      /* --heuristic */
	char default_file[600];     /* FILE when none is given: where it was found */
};

/* A command: one file each (cmd_*.c), as tmux has them. `opts` names
 * the options it takes (options.c), space separated; `file` says
 * whether it takes a scenario FILE. */
struct cmd {
	const char *name;
	const char *help;      /* one line */
	const char *opts;
	bool file;
	bool many;             /* FILE... (args.files), not one FILE */
	int (*run)(const struct args *a);
	const char *default_file;   /* when FILE is not given (else an error) */
};

extern const struct cmd cmd_check, cmd_sim, cmd_gantt, cmd_plan, cmd_compare,
	cmd_sweep, cmd_sensitivity, cmd_run, cmd_tui, cmd_shot, cmd_calibrate;

/* The commands in the order --help lists them, NULL-terminated. */
extern const struct cmd *const cli_cmds[];
const struct cmd *cli_find_cmd(const char *name);

/* options.c: parses argv[from..argc) for command c into a (exit code
 * on a usage error, after saying why); --help prints c's usage. */
int cli_parse(const struct cmd *c, int argc, char **argv, int from, struct args *a);
/* "sim FILE [--set PATH=V]... [--schedule K] ..." */
void cli_usage_line(const struct cmd *c, char *buf, size_t n);
void cli_help(FILE *f);
void cli_cmd_help(FILE *f, const struct cmd *c);

/* Errors: "geoplan: ..." on standard error; returns code. A usage
 * error under --json (a->json, which cli_parse sets before it reads
 * anything else) is also said as cli_json_error; a may be NULL. */
int cli_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_usage_error(const struct args *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* steps.c: a step's failure, said on standard error and, under --json,
 * also as {"error": "...", "exit_code": code} on standard output, so a
 * reader of the JSON learns why there is none; returns code. */
int cli_fail(const struct args *a, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* {"error": msg, "exit_code": code} and a newline on standard output. */
void cli_json_error(const char *msg, int code);
/* Loads a->file with a->sets into r (an error said, EXIT_INPUT);
 * planning leaves out a file's plan that no longer validates. */
int cli_load(struct gp_run *r, const struct args *a, bool planning);
/* What a run takes from the flags before loading (--cost-model) and the
 * log the scripts write to (standard error). */
void cli_run_setup(struct gp_run *r, const struct args *a);
/* The planning request of a (engine, time, gap, seed, polish, warm). */
int cli_plan_req(const struct args *a, const struct gp_run *r, struct gp_plan_req *rq);
/* Plans (an error said, with the exit code it deserves). */
int cli_plan(struct gp_run *r, const struct args *a);
/* Simulates the run's plan with a's limits and, when `override`, its
 * --schedule and --chunks over the plan's own. */
int cli_simulate(struct gp_run *r, const struct args *a, bool override, bool record);
/* The exit code of a simulated plan: infeasible when it does not fit;
 * a gap when an optimiser did not reach --gap. */
int cli_result_code(const struct gp_run *r, const struct args *a);
/* Writes file out ("-": standard output) whole or not at all (ofile.h)
 * with write(f, ud), nonzero on failure; the exit code, a failure said. */
int cli_write_file(const char *out, int (*write)(FILE *f, const void *ud), const void *ud);

/* looks.c: what the planner and its screenshots take from the command
 * line. */
struct gp_theme;
struct gp_app;
const char *cli_theme_name(const struct args *a, int colors);
bool cli_utf8(void);
/* The screen called name; -1 if none (a usage error said). */
int cli_view_id(const char *name);

#endif
