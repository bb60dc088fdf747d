/*
 * cli.h: what the command-line faces share: parsed arguments, exit codes,
 * and the steps every command takes (load with overrides, simulate a
 * plan, run a planner).
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include "planner.h"
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
	const char *engine;
	unsigned seed;
	int jobs, jsonl;
	int no_polish;
	const char *warm;
	const char *points;
};

int usage_error(const char *fmt, const char *arg);
/* Errors of command steps go to standard error, or with cli_quiet set
 * only into cli_last_error (sweep collects them per point). */
extern int cli_quiet;
extern char cli_last_error[1200];
void cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Loads a->file with a->sets plus `extra` more overrides. */
struct gp_scenario *load_with(const struct args *a, const char *const *extra, int nextra);
struct gp_scenario *load(const struct args *a);
/* The override planning commands add: they ignore the file's plan, so it
 * is dropped before validation. */
extern const char *const cli_no_plan[1];
/* The scenario for a planning command with `extra` more overrides, the
 * file's plan dropped before validation; with --warm plan it is kept as
 * the warm start unless it no longer validates (then dropped, with a
 * note on stderr). */
struct gp_scenario *load_planning(const struct args *a, const char *const *extra, int nextra);
/* Simulates the scenario's plan (after --schedule/--chunks). */
int simulate(struct gp_scenario *s, const struct args *a, int record, struct gp_result *r);
/* Runs planner --engine (or the default) and simulates its plan. */
int find_engine(const char *name);
int plan_with(struct gp_scenario *s, const struct args *a, int k, struct gp_plan *plan,
	      struct gp_plan_report *rep, struct gp_result *r, int record);

int cmd_sweep(const struct args *a);
int cmd_sensitivity(const struct args *a);

#endif
