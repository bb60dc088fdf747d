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
