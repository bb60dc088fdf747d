/*
 * test_log.c: the log's levels and repeats (tui/log.c): Lua's warn and
 * the host's check of a script's figure ("f.lua:1: warning: ") are
 * warnings, a script's print is not; a warning the last lines hold
 * already is kept once (with its traceback lines), an error or a print
 * as often as it comes, and a warning older than the last GP_LOG_RECENT
 * lines again.
 */
#include "testutil.h"

#include "log.h"

static void test_levels(void **state)
{
	(void)state;
	assert_true(gp_log_is_warning("[m.lua:2] warning: careful"));
	assert_true(gp_log_is_warning("warning: careful"));
	assert_true(gp_log_is_warning("/tmp/cm5.lua:1: warning: compute(...) returned 5000"));
	assert_false(gp_log_is_warning("[m.lua:4] count is 1"));
	assert_false(gp_log_is_warning("note: warning: ahead"));   /* no line number */
	assert_false(gp_log_is_warning(":: warning: x"));
	assert_false(gp_log_is_warning("12: warning: x"));         /* no file */
}

static void test_repeats(void **state)
{
	(void)state;
	struct gp_log *l = gp_log_new();
	assert_non_null(l);
	gp_log_script(l, "cm.lua:1: warning: 5000 s?");
	gp_log_post(l, GP_LOG_WARN, "twice\n  with its second line");
	gp_log_script(l, "cm.lua:1: warning: 5000 s?");
	gp_log_post(l, GP_LOG_WARN, "twice\n  with its second line");
	gp_log_post(l, GP_LOG_ERROR, "bad");
	gp_log_post(l, GP_LOG_ERROR, "bad");
	gp_log_script(l, "[h.lua:3] hello");
	gp_log_script(l, "[h.lua:3] hello");
	assert_int_equal(gp_log_drain(l), 7);
	assert_int_equal(gp_log_count(l), 7);
	assert_int_equal(gp_log_at(l, 0)->level, GP_LOG_WARN);
	assert_string_equal(gp_log_at(l, 2)->text, "  with its second line");
	assert_string_equal(gp_log_at(l, 3)->text, "bad");
	assert_string_equal(gp_log_at(l, 4)->text, "bad");
	assert_int_equal(gp_log_at(l, 6)->level, GP_LOG_INFO);
	/* In a later drain too; once scrolled past, again. */
	gp_log_script(l, "cm.lua:1: warning: 5000 s?");
	assert_int_equal(gp_log_drain(l), 0);
	for (int i = 0; i < GP_LOG_RECENT; i++)
		gp_log_post(l, GP_LOG_INFO, "x");
	gp_log_drain(l);
	gp_log_script(l, "cm.lua:1: warning: 5000 s?");
	assert_int_equal(gp_log_drain(l), 1);
	assert_int_equal(gp_log_count(l), 7 + GP_LOG_RECENT + 1);
	gp_log_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_repeats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
