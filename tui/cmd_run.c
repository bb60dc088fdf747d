/*
 * cmd_run.c: geoplan run FILE: the main job, the terminal planner (the
 * same as geoplan FILE; without a terminal, the summary).
 */
#include "cli.h"

static int run(const struct args *a)
{
	return cmd_tui.run(a);
}

const struct cmd cmd_run = {
	.name = "run",
	.help = "the main job: the terminal planner (as geoplan FILE)",
	.opts = "set theme color ascii view cost-model heuristic",
	.file = true,
	.run = run,
	.default_file = "samples/default.lua",
};
