/*
 * theme.c: the built-in themes (theme.h).
 *
 * Task kinds take the Okabe-Ito palette (Okabe and Ito, "Color Universal
 * Design", 2008), chosen to stay apart under the common colour vision
 * deficiencies: forward blue, backward orange, weight gradient sky blue,
 * activations reddish purple, gradients bluish green, DP sync
 * vermillion, optimizer yellow; each also has its own glyph.
 */
#include "theme.h"

#include <stddef.h>
#include <string.h>

#define D GP_CV_DEFAULT
#define S(fg, bg, at) { (fg), (bg), (at) }

static const struct gp_theme themes[] = {
	{ "dark", false, {
		[GP_R_TEXT] = S(0xd0d0d0, D, 0),
		[GP_R_DIM] = S(0x8a8a8a, D, 0),
		[GP_R_TITLE] = S(0xffffff, D, GP_CV_BOLD),
		[GP_R_BORDER] = S(0x5f6f7f, D, 0),
		[GP_R_BORDER_FOCUS] = S(0x5fafff, D, GP_CV_BOLD),
		[GP_R_HEADER] = S(0xafd7ff, D, GP_CV_BOLD),
		[GP_R_SELECT] = S(0xffffff, 0x2f5f8f, GP_CV_BOLD),
		[GP_R_SELECT_DIM] = S(0xd0d0d0, 0x3a3a3a, 0),
		[GP_R_TAB] = S(0xb0b0b0, 0x303030, 0),
		[GP_R_TAB_ON] = S(0x101010, 0x5fafff, GP_CV_BOLD),
		[GP_R_BAR_KEY] = S(0x101010, 0x5fafff, GP_CV_BOLD),
		[GP_R_BAR_LABEL] = S(0xd0d0d0, 0x303030, 0),
		[GP_R_STATUS] = S(0xd0d0d0, D, 0),
		[GP_R_ERROR] = S(0xff6f6f, D, GP_CV_BOLD),
		[GP_R_OK] = S(0x5fd75f, D, 0),
		[GP_R_WARN] = S(0xffd75f, D, 0),
		[GP_R_EDIT] = S(0x101010, 0xffd75f, 0),
		[GP_R_VALUE] = S(0xffffff, D, 0),
		[GP_R_STALE] = S(0xffaf5f, D, GP_CV_ITALIC),
		[GP_R_MEM_OK] = S(0x5faf5f, D, 0),
		[GP_R_MEM_HIGH] = S(0xd7af00, D, 0),
		[GP_R_MEM_OVER] = S(0xd75f5f, D, GP_CV_BOLD),
		[GP_R_MEM_BACK] = S(0x3a3a3a, D, 0),
		[GP_R_AXIS] = S(0x9e9e9e, D, 0),
		[GP_R_CURSOR] = S(0xffffff, D, GP_CV_BOLD),
		[GP_R_CRIT] = S(0xff5fff, D, GP_CV_BOLD),
		[GP_R_OVERVIEW] = S(0x5f5f5f, D, 0),
		[GP_R_VIEWPORT] = S(0x5fafff, D, 0),
		[GP_R_BETTER] = S(0x56b4e9, D, GP_CV_BOLD),
		[GP_R_WORSE] = S(0xe69f00, D, GP_CV_BOLD),
	  },
	  { 0x0072b2, 0xe69f00, 0x56b4e9, 0xcc79a7, 0x009e73, 0xd55e00, 0xf0e442 },
	  0x262626, 0xd0d0d0, 0x1c1c1c },
	{ "light", false, {
		[GP_R_TEXT] = S(0x202020, D, 0),
		[GP_R_DIM] = S(0x6c6c6c, D, 0),
		[GP_R_TITLE] = S(0x000000, D, GP_CV_BOLD),
		[GP_R_BORDER] = S(0x8a9aaa, D, 0),
		[GP_R_BORDER_FOCUS] = S(0x005faf, D, GP_CV_BOLD),
		[GP_R_HEADER] = S(0x005f87, D, GP_CV_BOLD),
		[GP_R_SELECT] = S(0xffffff, 0x005faf, GP_CV_BOLD),
		[GP_R_SELECT_DIM] = S(0x202020, 0xdadada, 0),
		[GP_R_TAB] = S(0x303030, 0xdadada, 0),
		[GP_R_TAB_ON] = S(0xffffff, 0x005faf, GP_CV_BOLD),
		[GP_R_BAR_KEY] = S(0xffffff, 0x005faf, GP_CV_BOLD),
		[GP_R_BAR_LABEL] = S(0x202020, 0xdadada, 0),
		[GP_R_STATUS] = S(0x202020, D, 0),
		[GP_R_ERROR] = S(0xaf0000, D, GP_CV_BOLD),
		[GP_R_OK] = S(0x007f00, D, 0),
		[GP_R_WARN] = S(0x875f00, D, 0),
		[GP_R_EDIT] = S(0x000000, 0xffd75f, 0),
		[GP_R_VALUE] = S(0x000000, D, 0),
		[GP_R_STALE] = S(0xaf5f00, D, GP_CV_ITALIC),
		[GP_R_MEM_OK] = S(0x2e8b57, D, 0),
		[GP_R_MEM_HIGH] = S(0xaf8700, D, 0),
		[GP_R_MEM_OVER] = S(0xaf0000, D, GP_CV_BOLD),
		[GP_R_MEM_BACK] = S(0xd0d0d0, D, 0),
		[GP_R_AXIS] = S(0x585858, D, 0),
		[GP_R_CURSOR] = S(0x000000, D, GP_CV_BOLD),
		[GP_R_CRIT] = S(0xaf00af, D, GP_CV_BOLD),
		[GP_R_OVERVIEW] = S(0xb2b2b2, D, 0),
		[GP_R_VIEWPORT] = S(0x005faf, D, 0),
		[GP_R_BETTER] = S(0x0072b2, D, GP_CV_BOLD),
		[GP_R_WORSE] = S(0xd55e00, D, GP_CV_BOLD),
	  },
	  { 0x0072b2, 0xe69f00, 0x56b4e9, 0xcc79a7, 0x009e73, 0xd55e00, 0xc8b400 },
	  0xe8e8e8, 0x202020, 0xffffff },
	{ "mono", true, {
		[GP_R_TEXT] = S(D, D, 0),
		[GP_R_DIM] = S(D, D, GP_CV_DIM),
		[GP_R_TITLE] = S(D, D, GP_CV_BOLD),
		[GP_R_BORDER] = S(D, D, 0),
		[GP_R_BORDER_FOCUS] = S(D, D, GP_CV_BOLD),
		[GP_R_HEADER] = S(D, D, GP_CV_BOLD | GP_CV_UNDERLINE),
		[GP_R_SELECT] = S(D, D, GP_CV_REVERSE),
		[GP_R_SELECT_DIM] = S(D, D, GP_CV_UNDERLINE),
		[GP_R_TAB] = S(D, D, 0),
		[GP_R_TAB_ON] = S(D, D, GP_CV_REVERSE | GP_CV_BOLD),
		[GP_R_BAR_KEY] = S(D, D, GP_CV_REVERSE),
		[GP_R_BAR_LABEL] = S(D, D, 0),
		[GP_R_STATUS] = S(D, D, 0),
		[GP_R_ERROR] = S(D, D, GP_CV_BOLD | GP_CV_UNDERLINE),
		[GP_R_OK] = S(D, D, GP_CV_BOLD),
		[GP_R_WARN] = S(D, D, GP_CV_BOLD),
		[GP_R_EDIT] = S(D, D, GP_CV_REVERSE | GP_CV_UNDERLINE),
		[GP_R_VALUE] = S(D, D, GP_CV_BOLD),
		[GP_R_STALE] = S(D, D, GP_CV_DIM | GP_CV_ITALIC),
		[GP_R_MEM_OK] = S(D, D, 0),
		[GP_R_MEM_HIGH] = S(D, D, GP_CV_BOLD),
		[GP_R_MEM_OVER] = S(D, D, GP_CV_BOLD | GP_CV_REVERSE),
		[GP_R_MEM_BACK] = S(D, D, GP_CV_DIM),
		[GP_R_AXIS] = S(D, D, 0),
		[GP_R_CURSOR] = S(D, D, GP_CV_BOLD),
		[GP_R_CRIT] = S(D, D, GP_CV_BOLD | GP_CV_UNDERLINE),
		[GP_R_OVERVIEW] = S(D, D, GP_CV_DIM),
		[GP_R_VIEWPORT] = S(D, D, GP_CV_BOLD),
		[GP_R_BETTER] = S(D, D, GP_CV_BOLD),
		[GP_R_WORSE] = S(D, D, GP_CV_BOLD | GP_CV_UNDERLINE),
	  },
	  { D, D, D, D, D, D, D },
	  D, 0x202020, 0xffffff },
};

#define NTHEMES (int)(sizeof themes / sizeof themes[0])

const struct gp_theme *gp_theme_find(const char *name)
{
	for (int i = 0; name && i < NTHEMES; i++)
		if (!strcmp(themes[i].name, name))
			return &themes[i];
	return NULL;
}

const struct gp_theme *gp_theme_default(void)
{
	return &themes[0];
}

const struct gp_theme *gp_theme_mono(void)
{
	return gp_theme_find("mono");
}

const char *gp_theme_names(void)
{
	return "dark, light, mono";
}

wchar_t gp_kind_glyph(int kind, bool ascii)
{
	static const wchar_t uni[GP_SPAN__N] = {
		[GP_SPAN_F] = 0x2588, [GP_SPAN_B] = 0x2593, [GP_SPAN_W] = 0x2591,
		[GP_SPAN_ACT] = 0x2550, [GP_SPAN_GRAD] = 0x2261, [GP_SPAN_SYNC] = 0x2592,
		[GP_SPAN_OPT] = 0x25aa,
	};
	static const wchar_t asc[GP_SPAN__N] = {
		[GP_SPAN_F] = 'F', [GP_SPAN_B] = 'B', [GP_SPAN_W] = 'W', [GP_SPAN_ACT] = '>',
		[GP_SPAN_GRAD] = '<', [GP_SPAN_SYNC] = 's', [GP_SPAN_OPT] = 'o',
	};
	if (kind < 0 || kind >= GP_SPAN__N)
		return ' ';
	return ascii ? asc[kind] : uni[kind];
}

const char *gp_kind_short(int kind)
{
	static const char *const n[GP_SPAN__N] = { "F", "B", "W", "act", "grad", "sync", "opt" };
	return kind >= 0 && kind < GP_SPAN__N ? n[kind] : "idle";
}

const char *gp_kind_long(int kind)
{
	static const char *const n[GP_SPAN__N] = {
		"forward", "backward", "weight gradient", "activation transfer",
		"gradient transfer", "DP gradient sync", "optimizer step",
	};
	return kind >= 0 && kind < GP_SPAN__N ? n[kind] : "idle";
}
