/*
 * looks.c: what the terminal planner and geoplan shot take from the
 * command line: the theme (with NO_COLOR and --color), ASCII drawing,
 * the first screen.
 */
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cli.h"

/* Mono when the terminal has no colours; else --theme; else mono when
 * --color=never or NO_COLOR (set, not empty) unless --color=always;
 * else NULL: config.lua's, or dark. */
const char *cli_theme_name(const struct args *a, int colors)
{
	bool always = a->color && !strcmp(a->color, "always");
	bool never = a->color && !strcmp(a->color, "never");
	const char *nc = getenv("NO_COLOR");
	if (colors == 0)
		return "mono";
	if (a->theme)
		return a->theme;
	return never || (!always && nc && nc[0]) ? "mono" : NULL;
}

bool cli_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

int cli_view_id(const char *name)
{
	for (int v = 0; v < GP_V__N; v++)
		if (!strcmp(gp_app_view(v)->name, name))
			return v;
	return -1;
}
