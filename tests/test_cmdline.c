/*
 * test_cmdline.c: the command line's history and completion
 * (tui/cmdline.c) and how a command line is cut into words
 * (gp_cmd_split): a history written, read back by a second planner,
 * walked by prefix, cut back when it grows; the common prefix of
 * candidates worked out by hand; file names from a directory made here.
 */
#include "testutil.h"
#include "app.h"
#include "cmdline.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/gpcl.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static int lines_of(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static void test_history_file(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof path, "%s/state/geoplan/history", dir);
	struct gp_cmdline c;
	gp_cl_init(&c, path);
	assert_int_equal(c.nhist, 0);
	assert_int_equal(gp_cl_add(&c, "set a=1"), 0);
	assert_int_equal(gp_cl_add(&c, "set a=1"), 0);   /* the same again: once */
	assert_int_equal(gp_cl_add(&c, ""), 0);
	assert_int_equal(gp_cl_add(&c, "plan milp"), 0);
	assert_int_equal(gp_cl_add(&c, "set b=2"), 0);
	assert_int_equal(c.nhist, 3);
	gp_cl_free(&c);
	assert_int_equal(lines_of(path), 3);   /* its directories were made */
	/* A second planner reads them, oldest first. */
	gp_cl_init(&c, path);
	assert_int_equal(c.nhist, 3);
	assert_string_equal(c.hist[0], "set a=1");
	assert_string_equal(c.hist[2], "set b=2");
	/* Up from "set": the newest starting with it, then the older one,
	 * then none; Down comes back to what was typed. */
	assert_string_equal(gp_cl_browse(&c, -1, "set"), "set b=2");
	assert_string_equal(gp_cl_browse(&c, -1, "set b=2"), "set a=1");
	assert_null(gp_cl_browse(&c, -1, "set a=1"));
	assert_string_equal(gp_cl_browse(&c, 1, "set a=1"), "set b=2");
	assert_string_equal(gp_cl_browse(&c, 1, "set b=2"), "set");
	assert_null(gp_cl_browse(&c, 1, "set"));
	gp_cl_free(&c);
}

/* 2 * GP_CL_KEEP lines in the file: it is rewritten as the last
 * GP_CL_KEEP, and memory never holds more. */
static void test_history_cut(void **state)
{
	(void)state;
	char path[128], line[32];
	snprintf(path, sizeof path, "%s/h2", dir);
	struct gp_cmdline c;
	gp_cl_init(&c, path);
	for (int i = 0; i < 2 * GP_CL_KEEP - 1; i++) {
		snprintf(line, sizeof line, "sim %d", i);
		assert_int_equal(gp_cl_add(&c, line), 0);
	}
	assert_int_equal(lines_of(path), 2 * GP_CL_KEEP - 1);
	assert_int_equal(c.nhist, GP_CL_KEEP);
	assert_int_equal(gp_cl_add(&c, "last"), 0);
	assert_int_equal(lines_of(path), GP_CL_KEEP);
	gp_cl_free(&c);
	gp_cl_init(&c, path);
	assert_int_equal(c.nhist, GP_CL_KEEP);
	snprintf(line, sizeof line, "sim %d", GP_CL_KEEP);   /* the oldest kept */
	assert_string_equal(c.hist[0], line);
	assert_string_equal(c.hist[GP_CL_KEEP - 1], "last");
	gp_cl_free(&c);
}

static void test_complete(void **state)
{
	(void)state;
	struct gp_words ws = { 0 };
	const char *w[] = { "set", "sensitivity", "sim", "sweep", "save", "set" };
	for (int i = 0; i < 6; i++)
		assert_int_equal(gp_words_add(&ws, w[i]), 0);
	char out[64];
	assert_int_equal(gp_cl_complete(&ws, "se", out, sizeof out), 2);   /* set twice is one */
	assert_string_equal(out, "se");
	assert_int_equal(gp_cl_complete(&ws, "sen", out, sizeof out), 1);
	assert_string_equal(out, "sensitivity");
	assert_int_equal(gp_cl_complete(&ws, "s", out, sizeof out), 5);
	assert_string_equal(out, "s");
	assert_int_equal(gp_cl_complete(&ws, "x", out, sizeof out), 0);
	assert_string_equal(out, "x");
	gp_words_free(&ws);
	const char *p[] = { "links[ams>fra].bandwidth=", "links[ams>fra].latency=",
			    "links[ams-fra].bandwidth=" };
	for (int i = 0; i < 3; i++)
		gp_words_add(&ws, p[i]);
	assert_int_equal(gp_cl_complete(&ws, "links[ams>", out, sizeof out), 2);
	assert_string_equal(out, "links[ams>fra].");
	assert_int_equal(gp_cl_complete(&ws, "", out, sizeof out), 3);
	assert_string_equal(out, "links[ams");
	gp_words_free(&ws);
}

static int has(const struct gp_words *ws, const char *w)
{
	for (int i = 0; i < ws->n; i++)
		if (!strcmp(ws->w[i], w))
			return 1;
	return 0;
}

static void test_files(void **state)
{
	(void)state;
	char p[160];
	snprintf(p, sizeof p, "%s/run1.lua", dir);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/run2.lua", dir);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/.hidden", dir);
	fclose(fopen(p, "w"));
	snprintf(p, sizeof p, "%s/runs", dir);
	mkdir(p, 0700);
	struct gp_words ws = { 0 };
	snprintf(p, sizeof p, "%s/ru", dir);
	gp_cl_files(p, &ws);
	assert_int_equal(ws.n, 3);
	char want[160];
	snprintf(want, sizeof want, "%s/runs/", dir);   /* a directory ends in / */
	assert_true(has(&ws, want));
	snprintf(want, sizeof want, "%s/run2.lua", dir);
	assert_true(has(&ws, want));
	gp_words_free(&ws);
	snprintf(p, sizeof p, "%s/", dir);
	gp_cl_files(p, &ws);
	snprintf(want, sizeof want, "%s/.hidden", dir);
	assert_false(has(&ws, want));
	gp_words_free(&ws);
	snprintf(p, sizeof p, "%s/.", dir);
	gp_cl_files(p, &ws);
	assert_true(has(&ws, want));
	gp_words_free(&ws);
}

static void test_split(void **state)
{
	(void)state;
	char line[] = "  set plan={ schedule = \"1f1b\", x = 1 }  gpus[\"H 100\"].tflops=900 ";
	char *argv[8];
	assert_int_equal(gp_cmd_split(line, argv, 8), 3);
	assert_string_equal(argv[0], "set");
	assert_string_equal(argv[1], "plan={ schedule = \"1f1b\", x = 1 }");
	assert_string_equal(argv[2], "gpus[\"H 100\"].tflops=900");
	char two[] = "a b c";
	assert_int_equal(gp_cmd_split(two, argv, 2), -1);
	char none[] = "   ";
	assert_int_equal(gp_cmd_split(none, argv, 2), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_file), cmocka_unit_test(test_history_cut),
		cmocka_unit_test(test_complete), cmocka_unit_test(test_files),
		cmocka_unit_test(test_split),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
