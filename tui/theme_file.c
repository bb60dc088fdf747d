/*
 * theme_file.c: themes as Lua files (theme.h's gp_themes): where they
 * are found, and how a file's table becomes a theme.
 *
 * A theme file returns { name, base, mono, roles, kinds, idle, paper }:
 * roles by their names in theme.h (each { fg = "#rrggbb", bg = ...,
 * bold = true, dim, underline, reverse, italic }, "default" the
 * terminal's own colour; a role given is as written), Gantt kinds by
 * name; what it leaves out is its base's (a built-in, dark unless it says). Files are looked for in
 * $XDG_CONFIG_HOME/geoplan/themes (the user's, first), then
 * PREFIX/share/geoplan/themes and the source tree's themes/ beside the
 * binary (bin/../share/..., build/../themes, build/san/../../themes); a
 * name found twice is the first one's.
 */
#include "theme.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "lua_config.h"

static const char *const role_names[GP_R__N] = {
#define GP_ROLE_NAME(id, name) name,
	GP_ROLES(GP_ROLE_NAME)
#undef GP_ROLE_NAME
};

static const char *const kind_names[GP_SPAN__N] = {
	"forward", "backward", "weight_gradient", "activation", "gradient", "sync", "optimizer",
};

int gp_theme_dirs(char dirs[][512], int max)
{
	int n = 0;
	if (n < max)
		gp_xdg_path("XDG_CONFIG_HOME", ".config", "themes", dirs[n], 512);
	if (n < max && dirs[n][0])
		n++;
	char exe[512];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (l <= 0)
		return n;
	exe[l] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return n;
	*slash = 0;   /* the binary's directory */
	if (n < max)
		snprintf(dirs[n++], 512, "%.400s/../share/geoplan/themes", exe);
	/* The source tree's: build/geoplan and build/san/geoplan. */
	if (n < max)
		snprintf(dirs[n++], 512, "%.400s/../themes", exe);
	if (n < max)
		snprintf(dirs[n++], 512, "%.400s/../../themes", exe);
	return n;
}

/* "#rrggbb" or "default". */
static int parse_color(const char *s, uint32_t *out)
{
	if (!strcmp(s, "default"))
		return *out = GP_CV_DEFAULT, 0;
	char *end;
	if (s[0] != '#' || strlen(s) != 7)
		return -1;
	unsigned long v = strtoul(s + 1, &end, 16);
	if (*end)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int color_at(struct gp_conf *c, const char *key, uint32_t *out, struct gp_err *e)
{
	const struct gp_conf_item *it = gp_conf_get(c, key);
	if (!it)
		return 0;
	if (it->type != GP_CONF_STRING || parse_color(it->str, out))
		return gp_conf_errf(c, e, key, "%s: a colour \"#rrggbb\" or \"default\"", key);
	return 0;
}

/* Every one of the role's values checked: -1 if any is wrong. */
static int role_of(struct gp_conf *c, const char *name, struct gp_style *st, struct gp_err *e)
{
	static const char *const attrs[] = { "bold", "dim", "underline", "reverse", "italic" };
	char key[GP_CONF_KEY];
	/* A role given is as written (colours left out the terminal's, no
	 * attribute unless said); one left out is the base's. */
	snprintf(key, sizeof key, "roles.%s.", name);
	bool given = false;
	for (int i = 0; i < c->n && !given; i++)
		given = !strncmp(c->items[i].key, key, strlen(key));
	if (!given)
		return 0;
	*st = (struct gp_style){ GP_CV_DEFAULT, GP_CV_DEFAULT, 0 };
	int rc = 0;
	snprintf(key, sizeof key, "roles.%s.fg", name);
	rc |= color_at(c, key, &st->fg, e);
	snprintf(key, sizeof key, "roles.%s.bg", name);
	rc |= color_at(c, key, &st->bg, e);
	for (int i = 0; i < 5; i++) {
		snprintf(key, sizeof key, "roles.%s.%s", name, attrs[i]);
		const struct gp_conf_item *it = gp_conf_get(c, key);
		if (it && it->type != GP_CONF_BOOL)
			rc = gp_conf_errf(c, e, key, "%s: true or false", key);
		else if (it)
			st->attr = it->b ? st->attr | (1u << i) : st->attr & ~(1u << i);
	}
	return rc;
}

/* Every key the file has must mean something: each typo is said. */
static int known(struct gp_conf *c, struct gp_err *e)
{
	int rc = 0;
	for (int i = 0; i < c->n; i++) {
		const char *k = c->items[i].key;
		bool ok = !strcmp(k, "name") || !strcmp(k, "base") || !strcmp(k, "mono") ||
			  !strcmp(k, "idle") || !strcmp(k, "paper.fg") || !strcmp(k, "paper.bg");
		for (int r = 0; !ok && r < GP_R__N; r++) {
			size_t l = strlen(role_names[r]);
			ok = !strncmp(k, "roles.", 6) && !strncmp(k + 6, role_names[r], l) &&
			     k[6 + l] == '.';
		}
		for (int q = 0; !ok && q < GP_SPAN__N; q++)
			ok = !strncmp(k, "kinds.", 6) && !strcmp(k + 6, kind_names[q]);
		if (!ok)
			rc = gp_conf_errf(c, e, k, "%s means nothing in a theme", k);
	}
	return rc;
}

/* The file's colours over the base's: every one checked. */
static int colours(struct gp_conf *c, struct gp_theme *t, struct gp_err *e)
{
	int rc = 0;
	for (int r = 0; r < GP_R__N; r++)
		rc |= role_of(c, role_names[r], &t->role[r], e);
	for (int q = 0; q < GP_SPAN__N; q++) {
		char key[64];
		snprintf(key, sizeof key, "kinds.%s", kind_names[q]);
		rc |= color_at(c, key, &t->kind[q], e);
	}
	rc |= color_at(c, "idle", &t->idle, e);
	rc |= color_at(c, "paper.fg", &t->paper_fg, e);
	rc |= color_at(c, "paper.bg", &t->paper_bg, e);
	return rc;
}

int gp_theme_load(const char *path, struct gp_theme *t, char *name, size_t n, struct gp_err *e)
{
	struct gp_conf c;
	if (gp_conf_load(path, &c, e))
		return -1;
	const struct gp_conf_item *nm = gp_conf_get(&c, "name"), *base = gp_conf_get(&c, "base"),
				   *mono = gp_conf_get(&c, "mono");
	const struct gp_theme *b = gp_theme_find(base ? base->str : "dark");
	int rc = known(&c, e);
	if (!nm || nm->type != GP_CONF_STRING || !nm->str[0])
		rc = gp_conf_errf(&c, e, "name", "name = \"...\" is missing");
	if (!b)
		rc = gp_conf_errf(&c, e, "base", "base: a built-in theme (dark, light, mono)");
	struct gp_theme th = b ? *b : *gp_theme_find("dark");
	rc |= colours(&c, &th, e);
	if (!rc) {
		*t = th;
		snprintf(name, n, "%s", nm->str);
		t->name = name;
		t->mono = mono ? mono->b : b->mono;
	}
	gp_conf_free(&c);
	return rc ? -1 : 0;
}

static bool have(const struct gp_themes *ts, const char *name)
{
	for (int i = 0; i < ts->n; i++)
		if (!strcmp(ts->names[i], name))
			return true;
	return false;
}

static void load_dir(struct gp_themes *ts, const char *dir, void (*warn)(void *, const char *),
		     void *ud)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) && ts->n < GP_THEMES_MAX) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".lua") || de->d_name[0] == '.')
			continue;
		char path[1100];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		struct gp_err e = { "" };
		int i = ts->n;
		if (gp_theme_load(path, &ts->t[i], ts->names[i], sizeof ts->names[i], &e)) {
			/* Each error on a line of its own, as the log shows them. */
			for (char *ln = e.msg, *nl; warn && ln; ln = nl ? nl + 1 : NULL) {
				nl = strchr(ln, '\n');
				if (nl)
					*nl = 0;
				warn(ud, ln);
			}
		} else if (!have(ts, ts->names[i])) {
			ts->n++;
		}
	}
	if (d)
		closedir(d);
}

void gp_themes_load(struct gp_themes *ts, void (*warn)(void *, const char *), void *ud)
{
	memset(ts, 0, sizeof *ts);
	char dirs[5][512];
	int n = gp_theme_dirs(dirs, 5);
	for (int i = 0; i < n; i++)
		load_dir(ts, dirs[i], warn, ud);
	/* Sorted, so :theme lists them the same every run. */
	for (int i = 1; i < ts->n; i++)
		for (int j = i; j > 0 && strcmp(ts->names[j - 1], ts->names[j]) > 0; j--) {
			struct gp_theme t = ts->t[j];
			char nm[sizeof ts->names[0]];
			memcpy(nm, ts->names[j], sizeof nm);
			ts->t[j] = ts->t[j - 1];
			memcpy(ts->names[j], ts->names[j - 1], sizeof nm);
			ts->t[j - 1] = t;
			memcpy(ts->names[j - 1], nm, sizeof nm);
		}
	for (int i = 0; i < ts->n; i++)
		ts->t[i].name = ts->names[i];
}

const struct gp_theme *gp_themes_find(const struct gp_themes *ts, const char *name)
{
	for (int i = 0; ts && i < ts->n; i++)
		if (!strcmp(ts->names[i], name))
			return &ts->t[i];
	return gp_theme_find(name);
}

void gp_themes_names(const struct gp_themes *ts, char *buf, size_t n)
{
	snprintf(buf, n, "%s", ts && ts->n ? "" : gp_theme_names());
	for (int i = 0; ts && i < ts->n; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, n - l, "%s%s", i ? ", " : "", ts->names[i]);
	}
	static const char *const builtin[] = { "dark", "light", "mono" };
	for (size_t i = 0; ts && ts->n && i < sizeof builtin / sizeof builtin[0]; i++)
		if (!have(ts, builtin[i])) {   /* a built-in no file shadows */
			size_t l = strlen(buf);
			snprintf(buf + l, n - l, ", %s", builtin[i]);
		}
}

void gp_theme_list(char *buf, size_t n)
{
	struct gp_themes *ts = malloc(sizeof *ts);
	if (ts)
		gp_themes_load(ts, NULL, NULL);
	gp_themes_names(ts, buf, n);
	free(ts);
}

bool gp_theme_known(const char *name)
{
	if (gp_theme_find(name))
		return true;
	struct gp_themes *ts = malloc(sizeof *ts);
	if (!ts)
		return false;
	gp_themes_load(ts, NULL, NULL);
	bool ok = gp_themes_find(ts, name) != NULL;
	free(ts);
	return ok;
}
