/*
 * test_table.c: tables sized to their content (table.c): the exact text
 * of a small table with a long UTF-8 name, right- and left-aligned
 * columns, an empty cell, a hidden column and notes, wrapped and not;
 * and, for names of every length, that each column starts (left) or
 * ends (right) at the same place on every line.
 */
#include "testutil.h"
#include "table.h"

static char *render(const struct gp_table *t)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	assert_int_equal(gp_table_print(t, f, ""), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_exact(void **state)
{
	(void)state;
	static const char *const heads[] = { "dc", "busy", "hidden", "note here" };
	struct gp_table t;
	gp_table_init(&t, "lrrl", heads);
	assert_false(gp_table_used(&t, 0));
	gp_table_row(&t);
	gp_table_set(&t, 0, "ams");
	gp_table_set(&t, 1, "%.1f %%", 93.34);
	gp_table_set(&t, 2, "x");
	gp_table_row(&t);
	gp_table_set(&t, 0, "l\xc3\xb6ndon-docklands");   /* 16 characters, 17 bytes */
	gp_table_set(&t, 1, "5 %%");
	gp_table_set(&t, 3, "end");
	gp_table_row(&t);
	gp_table_set(&t, 0, "fra");
	gp_table_note(&t, 1, "failed: a message longer than the columns it covers");
	t.hide[2] = true;
	char *got = render(&t);
	assert_string_equal(got,
		"dc                  busy  note here\n"
		"ams               93.3 %\n"
		"l\xc3\xb6ndon-docklands     5 %  end\n"
		"fra               failed: a message longer than the columns it covers\n");
	free(got);
	t.wrap = 40;
	got = render(&t);
	assert_string_equal(got,
		"dc                  busy  note here\n"
		"ams               93.3 %\n"
		"l\xc3\xb6ndon-docklands     5 %  end\n"
		"fra               failed: a message\n"
		"                  longer than the\n"
		"                  columns it covers\n");
	free(got);
	assert_true(gp_table_used(&t, 2));
	gp_table_set(&t, 2, "%s", "");   /* the last row's: an empty cell is no use */
	assert_true(gp_table_used(&t, 2));
	assert_true(gp_table_used(&t, 1));
	gp_table_free(&t);
}

/* Where column c of a line starts or ends, given the header's layout. */
static void test_columns_line_up(void **state)
{
	(void)state;
	static const char *const heads[] = { "DC", "GPU", "F", "busy" };
	for (int len = 1; len <= 40; len++) {
		struct gp_table t;
		gp_table_init(&t, "llrr", heads);
		char name[64];
		for (int r = 0; r < 3; r++) {
			memset(name, 'a' + r, (size_t)(len + r));
			name[len + r] = 0;
			gp_table_row(&t);
			gp_table_set(&t, 0, "%s", name);
			gp_table_set(&t, 1, "%s", r ? "H100" : "A100-80");
			gp_table_set(&t, 2, "%d ms", 7 * (r + 1) * (r + 1) * (r + 1));
			gp_table_set(&t, 3, "%.1f %%", 10.0 * r);
		}
		char *got = render(&t);
		/* Column GPU starts at the widest name + 2; "busy" ends at the
		 * line's end on every line. */
		int want_gpu = len + 2 + 2, ends = -1;
		for (char *line = got, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
			int w = (int)(nl - line);
			if (line[want_gpu - 1] != ' ' || line[want_gpu] == ' ')
				fail_msg("len %d: GPU column not at %d: %.*s", len, want_gpu, w, line);
			if (ends >= 0 && w != ends)
				fail_msg("len %d: lines end at %d and %d", len, ends, w);
			ends = w;
		}
		free(got);
		gp_table_free(&t);
	}
}

static void test_width(void **state)
{
	(void)state;
	assert_int_equal(gp_text_width(""), 0);
	assert_int_equal(gp_text_width("ams"), 3);
	assert_int_equal(gp_text_width("\xe2\x82\xac" "5"), 2);
	assert_int_equal(gp_text_width("\xff" "a"), 2);   /* an invalid byte is one */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_columns_line_up),
		cmocka_unit_test(test_width),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
