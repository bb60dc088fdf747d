/*
 * test_override.c: overrides as people type them (tui/override.c): a
 * loader's message naming an entry by its number (links[1].bandwidth)
 * named as the user wrote the path, and left alone when the message is
 * about another table or another field, or has no path at all; the
 * editor's unit words read into the loader's numbers, strictly for the
 * editor and :set, leniently for the batch's --set.
 */
#include "testutil.h"
#include "override.h"

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
		/* a numbered entry owns only its own number: the loader names
		 * the second of two DCs called fra */
		{ "dcs[1].name=fra", "dcs[2].name: \"fra\" is also the name of dcs[1]",
		  "dcs[2].name: \"fra\" is also the name of dcs[1]", false },
		/* a rename by name: the entry is no longer called that */
		{ "dcs[ams].name=fra", "dcs[2].name: \"fra\" is also the name of dcs[1]",
		  "dcs[2].name: \"fra\" is also the name of dcs[1]", false },
		{ "dcs[2].pools[1].count=-1", "dcs[2].pools[1].count: expected a whole number",
		  "dcs[2].pools[1].count: expected a whole number", true },
		/* no path in the message */
		{ "job.seq=0", "out of memory", "out of memory", false },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[256];
		assert_int_equal(gp_ov_as_written(cases[i].set, cases[i].msg, buf, sizeof buf),
				 cases[i].did);
		assert_string_equal(buf, cases[i].want);
	}
}

/* Over several overrides, a message with the file's name in front: the
 * last that names the entry wins, the file name stays. */
static void test_name_over_sets(void **st)
{
	(void)st;
	const char *sets[] = { "links[ams-fra].bandwidth=1", "links[fra-par].bandwidth=-1",
			       "job.seq=4096" };
	char buf[256];
	assert_true(gp_ov_name(sets, 3, "x.lua", "x.lua: links[2].bandwidth: expected a positive number",
			       buf, sizeof buf));
	assert_string_equal(buf, "x.lua: links[fra-par].bandwidth: expected a positive number");
	assert_false(gp_ov_name(sets, 3, "x.lua", "x.lua: job.seq: too long", buf, sizeof buf));
	assert_string_equal(buf, "x.lua: job.seq: too long");
	assert_false(gp_ov_name(sets, 0, NULL, "links[1].latency: bad", buf, sizeof buf));
	assert_string_equal(buf, "links[1].latency: bad");
}

/* Unit words into SI numbers; strict refuses a bare number where a unit
 * belongs, lenient passes it on; other values pass as typed. */
static void test_units(void **st)
{
	(void)st;
	char out[256], why[200];
	assert_int_equal(gp_ov_units("links[a-b].bandwidth=10G", false, out, sizeof out, why,
				     sizeof why), 0);
	const char *v = strchr(out, '=') + 1;
	assert_true(strtod(v, NULL) == 1.25e9);   /* 10 Gbit/s in bytes/s */
	assert_int_equal(gp_ov_units("links[a-b].latency=35ms", true, out, sizeof out, why,
				     sizeof why), 0);
	assert_true(fabs(strtod(strchr(out, '=') + 1, NULL) - 0.035) < 1e-15);
	assert_int_equal(gp_ov_units("links[a-b].latency=35", true, out, sizeof out, why,
				     sizeof why), -1);
	assert_non_null(strstr(why, "35ms"));
	assert_int_equal(gp_ov_units("links[a-b].latency=35", false, out, sizeof out, why,
				     sizeof why), 0);
	assert_string_equal(out, "links[a-b].latency=35");
	assert_int_equal(gp_ov_units("links[a-b].bandwidth=Gbps(10)", true, out, sizeof out, why,
				     sizeof why), 0);
	assert_string_equal(out, "links[a-b].bandwidth=Gbps(10)");
	assert_int_equal(gp_ov_units("job.seq=4k", false, out, sizeof out, why, sizeof why), 0);
	assert_string_equal(out, "job.seq=4k");   /* no unit there: the loader says why */
	gp_ov_xlate("no equals sign", out, sizeof out);
	assert_string_equal(out, "no equals sign");
	/* A unit word the unit refuses, strict or not: never the loader's
	 * guess (40GB is no rate; -1G no bandwidth); an expression is still
	 * the loader's. */
	for (int strict = 0; strict < 2; strict++) {
		assert_int_equal(gp_ov_units("links[a-b].bandwidth=40GB", strict, out, sizeof out, why,
					     sizeof why), -1);
		assert_string_equal(why, "\"40GB\" is a size, not a rate: did you mean 40Gbit/s or 40GB/s?");
	}
	assert_int_equal(gp_ov_units("links[a-b].bandwidth=-1G", true, out, sizeof out, why,
				     sizeof why), -1);
	assert_non_null(strstr(why, "\"-1G\" is negative"));
	assert_int_equal(gp_ov_units("links[a-b].bandwidth=2*Gbps(5)", true, out, sizeof out, why,
				     sizeof why), 0);
	assert_string_equal(out, "links[a-b].bandwidth=2*Gbps(5)");
	/* gp_ov_check: each of a sweep's values, the first refused named. */
	assert_int_equal(gp_ov_check("links[a-b].bandwidth=10G,100G", why, sizeof why), 0);
	assert_int_equal(gp_ov_check("links[a-b].bandwidth=10G,40GB", why, sizeof why), -1);
	assert_non_null(strstr(why, "\"40GB\" is a size"));
	assert_int_equal(gp_ov_check("gpus[\"H100\"].memory=80GB/s", why, sizeof why), -1);
	assert_string_equal(why, "\"80GB/s\" is a rate, not a size: did you mean 80GB?");
	assert_int_equal(gp_ov_check("plan.stages={1, 16}", why, sizeof why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named),
		cmocka_unit_test(test_name_over_sets),
		cmocka_unit_test(test_units),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
