/*
 * cmd_run.c: geoplan run: the main job. Until the terminal planner
 * lands, the simulated plan's text summary.
 */
#include "cli.h"

static int run(const struct args *a)
{
	return cmd_sim.run(a);
}

const struct cmd cmd_run = {
	"run", "the main job (for now: sim with the text summary)", "set", true, run,
};
