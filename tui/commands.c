/*
 * commands.c: the table of commands, in the order --help lists them.
 * Each command is a file of its own (cmd_*.c), as tmux has them.
 */
#include <string.h>

#include "cli.h"

const struct cmd *const cli_cmds[] = {
	&cmd_tui, &cmd_check, &cmd_sim, &cmd_gantt, &cmd_plan, &cmd_compare, &cmd_sweep,
	&cmd_sensitivity, &cmd_calibrate, &cmd_shot, &cmd_run, NULL,
};

const struct cmd *cli_find_cmd(const char *name)
{
	for (int i = 0; cli_cmds[i]; i++)
		if (!strcmp(cli_cmds[i]->name, name))
			return cli_cmds[i];
	return NULL;
}
