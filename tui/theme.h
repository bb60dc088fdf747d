/*
 * theme.h: what the screens draw with: semantic roles (a title, a
 * selected row, a forward pass, an error) mapped to styles, and the
 * glyphs of the Gantt's task kinds, so every kind is told apart by a
 * glyph as well as by colour (readable without colour, and for colour
 * vision deficiencies).
 *
 * Themes are tables of roles. Built in: dark (the default), light, and
 * mono (attributes only: NO_COLOR, --color=never, terminals without
 * colour).
 */
#ifndef GP_THEME_H
#define GP_THEME_H

#include <stdbool.h>
#include "canvas.h"
#include "sim.h"

#define GP_ROLES(X) \
	X(TEXT, "text") X(DIM, "dim") X(TITLE, "title") X(BORDER, "border") \
	X(BORDER_FOCUS, "border-focus") X(HEADER, "header") X(SELECT, "select") \
	X(SELECT_DIM, "select-dim") X(TAB, "tab") X(TAB_ON, "tab-on") \
	X(BAR_KEY, "bar-key") X(BAR_LABEL, "bar-label") X(STATUS, "status") \
	X(ERROR, "error") X(OK, "ok") X(WARN, "warn") X(EDIT, "edit") \
	X(VALUE, "value") X(STALE, "stale") X(MEM_OK, "mem-ok") X(MEM_HIGH, "mem-high") \
	X(MEM_OVER, "mem-over") X(MEM_BACK, "mem-back") X(AXIS, "axis") \
	X(CURSOR, "cursor") X(CRIT, "critical") X(OVERVIEW, "overview") \
	X(VIEWPORT, "viewport") X(BETTER, "better") X(WORSE, "worse")

enum gp_role {
#define GP_ROLE_ENUM(id, name) GP_R_##id,
	GP_ROLES(GP_ROLE_ENUM)
#undef GP_ROLE_ENUM
	GP_R__N
};

struct gp_theme {
	const char *name;
	bool mono;                         /* no colours: glyphs and attributes */
	struct gp_style role[GP_R__N];
	uint32_t kind[GP_SPAN__N];         /* Gantt fill colour per span kind */
	uint32_t idle;                     /* a row's background where idle */
	uint32_t paper_fg, paper_bg;       /* what the terminal's default colours
					    * are in a screenshot */
};

const struct gp_theme *gp_theme_find(const char *name);   /* NULL: none */
const struct gp_theme *gp_theme_default(void);
const struct gp_theme *gp_theme_mono(void);
/* "dark, light, mono" */
const char *gp_theme_names(void);

/* Themes as files (theme_file.c): themes/NAME.lua. */
#define GP_THEMES_MAX 24
struct gp_themes {
	struct gp_theme t[GP_THEMES_MAX];
	char names[GP_THEMES_MAX][32];
	int n;
};
/* Where theme files are looked for, the first first: the user's
 * ($XDG_CONFIG_HOME/geoplan/themes), the installed ones (the binary's
 * ../share/geoplan/themes) and the source tree's (the binary's
 * ../themes or ../../themes); how many of dirs[0..max) it filled. */
int gp_theme_dirs(char dirs[][512], int max);
/* One file into *t (its name kept in name[0..n)); -1 with e saying what
 * is wrong and where. */
int gp_theme_load(const char *path, struct gp_theme *t, char *name, size_t n, struct gp_err *e);
/* Every file of the directories (warn gets what does not load). */
void gp_themes_load(struct gp_themes *ts, void (*warn)(void *, const char *), void *ud);
/* A theme by name: the files' (ts may be NULL), else a built-in. */
const struct gp_theme *gp_themes_find(const struct gp_themes *ts, const char *name);
/* "colorblind, dark, ..." (the built-ins' names when no file loaded,
 * and a built-in no file shadows). */
void gp_themes_names(const struct gp_themes *ts, char *buf, size_t n);
/* The same for the files found now (--help, --theme's error). */
void gp_theme_list(char *buf, size_t n);
/* A built-in's name or a theme file's (for --theme). */
bool gp_theme_known(const char *name);

static inline struct gp_style gp_role(const struct gp_theme *t, enum gp_role r)
{
	return t->role[r];
}

/* A kind's glyph when the fill colour is not enough (mono, or a legend):
 * F full block, B dark shade, W light shade, transfers double lines. */
wchar_t gp_kind_glyph(int kind, bool ascii);
/* "F", "B", "W", "act", "grad", "sync", "opt" */
const char *gp_kind_short(int kind);
/* "forward", "backward", ... */
const char *gp_kind_long(int kind);

#endif
