/*
 * test_as_written.c: a loader's message naming an entry by its number
 * (links[1].bandwidth) named as the user wrote the path
 * (gp_app_as_written, tui/app_edit.c), and left alone when the message
 * is about another table or another field, or has no path at all.
 */
#include "testutil.h"
#include "app.h"

static void test_named(void **st)
{
	(void)st;
	static const struct { const char *set, *msg, *want; bool did; } cases[] = {
		{ "links[ams-fra].bandwidth=-1",
		  "links[1].bandwidth: expected a positive number, got -1",
		  "links[ams-fra].bandwidth: expected a positive number, got -1", true },
		{ "links[ams>fra].latency=\"x\"", "links[2].latency: expected a number",
		  "links[ams>fra].latency: expected a number", true },
		/* another field of the entry: not this override's */
		{ "links[ams-fra].bandwidth=1", "links[1].latency: expected a number",
		  "links[1].latency: expected a number", false },
		/* another table */
		{ "links[ams-fra].bandwidth=1", "dcs[ams].pools[1].count: expected 1",
		  "dcs[ams].pools[1].count: expected 1", false },
		/* no path in the message */
		{ "job.seq=0", "out of memory", "out of memory", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[256];
		assert_int_equal(gp_app_as_written(cases[i].set, cases[i].msg, buf, sizeof buf),
				 cases[i].did);
		assert_string_equal(buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
