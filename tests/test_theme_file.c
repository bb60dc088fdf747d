/*
 * test_theme_file.c: themes as Lua files (tui/theme_file.c) and the
 * settings reader under them (core/lua_config.c): the shipped
 * themes/dark, light and mono.lua are the built-ins value for value; a
 * theme from a base changes only what it says; high-contrast's text is
 * 7:1 or more (WCAG's AAA, worked from its colours); colorblind.lua
 * uses only Okabe-Ito colours (and greys); typos and bad colours are
 * refused naming the key, every one at its line (up to 10), in a
 * theme and in config.lua; config.lua binds keys by action name.
 */
#include "testutil.h"
#include "actions.h"
#include "app.h"
#include "lua_config.h"
#include "theme.h"

#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/gpth.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static const char *write_tmp(const char *name, const char *text)
{
	static char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static void same_theme(const struct gp_theme *x, const struct gp_theme *y)
{
	assert_string_equal(x->name, y->name);
	assert_int_equal(x->mono, y->mono);
	for (int r = 0; r < GP_R__N; r++) {
		assert_int_equal(x->role[r].fg, y->role[r].fg);
		assert_int_equal(x->role[r].bg, y->role[r].bg);
		assert_int_equal(x->role[r].attr, y->role[r].attr);
	}
	for (int k = 0; k < GP_SPAN__N; k++)
		assert_int_equal(x->kind[k], y->kind[k]);
	assert_int_equal(x->idle, y->idle);
	assert_int_equal(x->paper_fg, y->paper_fg);
	assert_int_equal(x->paper_bg, y->paper_bg);
}

static void test_shipped_are_builtins(void **state)
{
	(void)state;
	const char *names[] = { "dark", "light", "mono" };
	for (int i = 0; i < 3; i++) {
		char path[64], nm[32];
		snprintf(path, sizeof path, "themes/%s.lua", names[i]);
		struct gp_theme t;
		struct gp_err e = { "" };
		if (gp_theme_load(path, &t, nm, sizeof nm, &e))
			fail_msg("%s", e.msg);
		same_theme(&t, gp_theme_find(names[i]));
	}
}

static void test_base(void **state)
{
	(void)state;
	const char *p = write_tmp("t.lua", "return { name = 'mine', base = 'light', "
				  "roles = { text = { fg = '#102030', bold = true } }, "
				  "kinds = { sync = '#' .. string.rep('a', 6) } }");
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), 0);
	const struct gp_theme *l = gp_theme_find("light");
	assert_string_equal(t.name, "mine");
	assert_int_equal(t.role[GP_R_TEXT].fg, 0x102030);
	assert_int_equal(t.role[GP_R_TEXT].bg, GP_CV_DEFAULT);   /* given: as written */
	assert_int_equal(t.role[GP_R_TEXT].attr, GP_CV_BOLD);
	assert_int_equal(t.kind[GP_SPAN_SYNC], 0xaaaaaa);         /* computed in Lua */
	assert_int_equal(t.role[GP_R_ERROR].fg, l->role[GP_R_ERROR].fg);   /* the base's */
	assert_int_equal(t.kind[GP_SPAN_F], l->kind[GP_SPAN_F]);
}

/* WCAG 2 relative luminance and contrast. */
static double lin(unsigned c)
{
	double s = c / 255.0;
	return s <= 0.03928 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

static double lum(uint32_t rgb)
{
	return 0.2126 * lin(rgb >> 16 & 255) + 0.7152 * lin(rgb >> 8 & 255) + 0.0722 * lin(rgb & 255);
}

static void test_high_contrast(void **state)
{
	(void)state;
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	assert_int_equal(gp_theme_load("themes/high-contrast.lua", &t, nm, sizeof nm, &e), 0);
	const enum gp_role roles[] = { GP_R_TEXT, GP_R_TITLE, GP_R_SELECT, GP_R_ERROR, GP_R_OK,
				       GP_R_WARN, GP_R_STATUS, GP_R_BAR_KEY, GP_R_BETTER, GP_R_WORSE };
	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
		struct gp_style s = t.role[roles[i]];
		double a = lum(s.fg), b = lum(s.bg);
		double ratio = (fmax(a, b) + 0.05) / (fmin(a, b) + 0.05);
		if (ratio < 7)
			fail_msg("role %zu: contrast %.2f", i, ratio);
	}
	/* White on black is 21:1 exactly. */
	assert_true(fabs((lum(0xffffff) + 0.05) / (lum(0) + 0.05) - 21) < 1e-9);
}

static bool okabe_ito_or_grey(uint32_t c)
{
	const uint32_t oi[] = { 0xe69f00, 0x56b4e9, 0x009e73, 0xf0e442, 0x0072b2, 0xd55e00,
				0xcc79a7 };
	if (c == GP_CV_DEFAULT)
		return true;
	for (size_t i = 0; i < sizeof oi / sizeof oi[0]; i++)
		if (c == oi[i])
			return true;
	unsigned r = c >> 16 & 255, g = c >> 8 & 255, b = c & 255;
	return r == g && g == b;
}

static void test_colorblind(void **state)
{
	(void)state;
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	assert_int_equal(gp_theme_load("themes/colorblind.lua", &t, nm, sizeof nm, &e), 0);
	const enum gp_role hue[] = { GP_R_ERROR, GP_R_OK, GP_R_WARN, GP_R_MEM_OK, GP_R_MEM_HIGH,
				     GP_R_MEM_OVER, GP_R_BETTER, GP_R_WORSE, GP_R_CRIT, GP_R_STALE };
	for (size_t i = 0; i < sizeof hue / sizeof hue[0]; i++)
		assert_true(okabe_ito_or_grey(t.role[hue[i]].fg));
	for (int k = 0; k < GP_SPAN__N; k++)
		assert_true(okabe_ito_or_grey(t.kind[k]));
	/* Good and bad differ by more than colour. */
	assert_int_not_equal(t.role[GP_R_OK].attr, t.role[GP_R_ERROR].attr);
}

static void refused(const char *text, const char *want)
{
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	const char *p = write_tmp("bad.lua", text);
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), -1);
	if (!strstr(e.msg, want))
		fail_msg("'%s' does not say '%s'", e.msg, want);
}

static void test_refused(void **state)
{
	(void)state;
	refused("return { name = 'x', roles = { txet = { fg = '#ffffff' } } }", "roles.txet.fg");
	refused("return { name = 'x', roles = { text = { fg = 'white' } } }", "roles.text.fg");
	refused("return { name = 'x', roles = { text = { bold = 1 } } }", "roles.text.bold");
	refused("return { roles = {} }", "name");
	refused("return { name = 'x', base = 'nope' }", "base");
	refused("return { name = 'x', f = function() end }", "function");
	refused("return 'x'", "must return a table");
	refused("return { name = 'x',", "bad.lua:1");
}

/* Every error of a file is said, each at its line (up to 10, then one
 * line says there are more), not the first only. */
static void test_every_error_at_its_line(void **state)
{
	(void)state;
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	const char *p = write_tmp("typos.lua",
				  "-- a theme with typos\n"                                 /* 1 */
				  "local c = \"#ffffff\"\n"                                 /* 2 */
				  "return {\n"                                               /* 3 */
				  "  name = \"x\",\n"                                        /* 4 */
				  "  roles = {\n"                                            /* 5 */
				  "    txet = { fg = c },   -- a typo\n"                      /* 6 */
				  "    text = { fg = \"white\",\n"                            /* 7 */
				  "             bold = 1 },\n"                               /* 8 */
				  "  },\n"                                                   /* 9 */
				  "  kinds = { [\"forward\"] = \"#12345\" },\n"              /* 10 */
				  "  paper = { fg = (\"#00\" .. \"0000\"), bg = \"#zzzzzz\" },\n" /* 11 */
				  "  base = \"nope\",\n"                                     /* 12 */
				  "}\n");
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), -1);
	char want[1024];
	snprintf(want, sizeof want,
		 "%s:6: roles.txet.fg means nothing in a theme\n"
		 "%s:12: base: a built-in theme (dark, light, mono)\n"
		 "%s:7: roles.text.fg: a colour \"#rrggbb\" or \"default\"\n"
		 "%s:8: roles.text.bold: true or false\n"
		 "%s:10: kinds.forward: a colour \"#rrggbb\" or \"default\"\n"
		 "%s:11: paper.bg: a colour \"#rrggbb\" or \"default\"",
		 p, p, p, p, p, p);
	assert_string_equal(e.msg, want);
	/* Twelve typos: ten said, then that there are more. */
	char text[1024] = "return { name = 'x',\n";
	for (int i = 0; i < 12; i++) {
		size_t l = strlen(text);
		snprintf(text + l, sizeof text - l, "  typo%02d = 1,\n", i);
	}
	strcat(text, "}\n");
	p = write_tmp("many.lua", text);
	e.msg[0] = 0;
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), -1);
	int lines = 1;
	for (const char *c = e.msg; *c; c++)
		lines += *c == '\n';
	assert_int_equal(lines, 11);
	snprintf(want, sizeof want, "%s:2: typo00 means nothing in a theme\n", p);
	assert_true(!strncmp(e.msg, want, strlen(want)));
	snprintf(want, sizeof want, "%s:11: typo09 means nothing in a theme\n%s: more errors (the first 10 said)", p, p);
	assert_non_null(strstr(e.msg, want));
	/* A function value and a bad one beside it: both, at their lines. */
	p = write_tmp("fn.lua", "return {\n  name = 'x',\n  f = function() end,\n  g = { h = print },\n}\n");
	e.msg[0] = 0;
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), -1);
	assert_non_null(strstr(e.msg, ":3: f: a function, not a string, number or boolean"));
	assert_non_null(strstr(e.msg, ":4: g.h: a function, not a string, number or boolean"));
}

/* The shipped dark.lua (comments, ["quoted"] keys) with two mistakes:
 * each at the line it is on. */
static void test_lines_of_a_shipped_theme(void **state)
{
	(void)state;
	FILE *f = fopen("themes/dark.lua", "r");
	assert_non_null(f);
	static char text[16384];
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = 0;
	char *dim = strstr(text, "\"#8a8a8a\""), *warn = strstr(text, "[\"warn\"]");
	assert_non_null(dim);
	assert_non_null(warn);
	memcpy(dim, "\"grey!!!\"", 9);   /* line 10 */
	memcpy(warn, "[\"wran\"]", 8);   /* line 24 */
	const char *p = write_tmp("dark2.lua", text);
	struct gp_theme t;
	char nm[32];
	struct gp_err e = { "" };
	assert_int_equal(gp_theme_load(p, &t, nm, sizeof nm, &e), -1);
	char want[256];
	snprintf(want, sizeof want, "%s:24: roles.wran.bg means nothing in a theme", p);
	if (!strstr(e.msg, want))
		fail_msg("%s", e.msg);
	snprintf(want, sizeof want, "%s:10: roles.dim.fg: a colour", p);
	assert_non_null(strstr(e.msg, want));
}

/* config.lua alike: each wrong key at its line. */
static void test_config_every_error(void **state)
{
	(void)state;
	const char *p = write_tmp("config.lua", "return {\n"
				  "  mouse = 'no',\n"
				  "  keys = {\n"
				  "    qiut = 'Q',\n"
				  "    quit = { 'q', 'QQ' },\n"
				  "  },\n"
				  "  colour = 'red',\n"
				  "}\n");
	struct gp_config c;
	struct gp_err e = { "" };
	assert_int_equal(gp_config_load(p, &c, &e), -1);
	char want[1024];
	snprintf(want, sizeof want,
		 "%s:7: colour means nothing here (theme, mouse, live, keys)\n"
		 "%s:4: keys.qiut: no action 'qiut' (the help screen lists them)\n"
		 "%s:5: keys.quit[2]: one key, as \"q\", \"<F10>\", \"<C-z>\"\n"
		 "%s:2: mouse: true or false",
		 p, p, p, p);
	assert_string_equal(e.msg, want);
}

static void test_conf(void **state)
{
	(void)state;
	const char *p = write_tmp("c.lua", "return { a = { b = { 'x', 'y' }, n = 2.5 }, t = true }");
	struct gp_conf c;
	struct gp_err e = { "" };
	assert_int_equal(gp_conf_load(p, &c, &e), 0);
	assert_int_equal(c.n, 4);
	assert_string_equal(gp_conf_get(&c, "a.b[1]")->str, "x");
	assert_string_equal(gp_conf_get(&c, "a.b[2]")->str, "y");
	assert_true(gp_conf_get(&c, "a.n")->num == 2.5);
	assert_true(gp_conf_get(&c, "t")->b);
	assert_null(gp_conf_get(&c, "a"));
	gp_conf_free(&c);
}

static void test_config_keys(void **state)
{
	(void)state;
	const char *p = write_tmp("config.lua", "return { theme = 'light', mouse = false, "
				  "keys = { quit = { 'Q', '<F12>' }, ['view-plan'] = '<C-p>' } }");
	struct gp_config c;
	struct gp_err e = { "" };
	assert_int_equal(gp_config_load(p, &c, &e), 0);
	assert_string_equal(c.theme, "light");
	assert_int_equal(c.mouse, 0);
	assert_int_equal(c.live, -1);
	assert_int_equal(c.nkeys, 3);
	assert_int_equal(gp_config_action(&c, 'Q'), GP_A_QUIT);
	assert_int_equal(gp_config_action(&c, GP_K_F(12)), GP_A_QUIT);
	assert_int_equal(gp_config_action(&c, GP_K_CTRL('p')), GP_A_VIEW_PLAN);
	assert_int_equal(gp_config_action(&c, 'q'), GP_A_NONE);
	p = write_tmp("config.lua", "return { keys = { qiut = 'Q' } }");
	assert_int_equal(gp_config_load(p, &c, &e), -1);
	assert_non_null(strstr(e.msg, "qiut"));
	p = write_tmp("config.lua", "return { keys = { quit = 'QQ' } }");
	assert_int_equal(gp_config_load(p, &c, &e), -1);
	assert_int_equal(gp_config_load("/nonexistent/config.lua", &c, &e), 0);   /* none */
	assert_int_equal(c.nkeys, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_are_builtins), cmocka_unit_test(test_base),
		cmocka_unit_test(test_high_contrast), cmocka_unit_test(test_colorblind),
		cmocka_unit_test(test_refused), cmocka_unit_test(test_conf),
		cmocka_unit_test(test_config_keys),
		cmocka_unit_test(test_every_error_at_its_line),
		cmocka_unit_test(test_lines_of_a_shipped_theme),
		cmocka_unit_test(test_config_every_error),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
