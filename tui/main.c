/*
 * main.c: geoplan's entry: finds the command (commands.c), parses its
 * options (options.c) and runs it. A first word that is a file, or none
 * at all, opens the terminal planner (cmd_tui.c).
 */
#include <locale.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "display.h"

/* A fatal signal puts the terminal back before the program dies. */
static void on_fatal(int sig)
{
	gp_display_emergency();
	signal(sig, SIG_DFL);
	raise(sig);
}

static bool is_file(const char *w)
{
	struct stat st;
	size_t n = strlen(w);
	return (n > 4 && !strcmp(w + n - 4, ".lua")) || (stat(w, &st) == 0 && S_ISREG(st.st_mode));
}

int main(int argc, char **argv)
{
	/* Characters for the screen; numbers stay in the C locale, so the
	 * reports read the same everywhere. */
	setlocale(LC_CTYPE, "");
	static const int fatal[] = { SIGTERM, SIGHUP, SIGSEGV, SIGABRT, SIGBUS, SIGFPE };
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		signal(fatal[i], on_fatal);
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "help"))) {
		cli_help(stdout);
		return EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("geoplan %s\n", GP_VERSION);
		return EXIT_OK;
	}
	const struct cmd *c = argc >= 2 ? cli_find_cmd(argv[1]) : NULL;
	int from = 2;
	if (!c && (argc < 2 || argv[1][0] == '-' || is_file(argv[1]))) {
		c = &cmd_tui;   /* geoplan [FILE] [options]: the planner */
		from = 1;
	}
	if (!c)
		return cli_usage_error(NULL, "unknown command '%s'", argv[1]);
	struct args a;
	int rc = cli_parse(c, argc, argv, from, &a);
	if (rc)
		return rc < 0 ? EXIT_OK : rc;
	return c->run(&a);
}
