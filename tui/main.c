/*
 * main.c: geoplan's entry: finds the command (commands.c), parses its
 * options (options.c) and runs it.
 */
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_help(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		cli_help(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("geoplan %s\n", GP_VERSION);
		return EXIT_OK;
	}
	const struct cmd *c = cli_find_cmd(argv[1]);
	if (!c)
		return cli_usage_error("unknown command '%s'", argv[1]);
	struct args a;
	int rc = cli_parse(c, argc, argv, 2, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	return c->run(&a);
}
