/*
 * test_units.c: typed field values. Good inputs against SI values worked
 * out by hand (100 Gbit/s = 100e9 / 8 B/s), bad inputs against the
 * reason they are refused, the short forms, a seeded round trip
 * format -> parse for every unit, and the lua text through the real
 * loader (it must give the double the prelude's helper gives).
 */
#include "testutil.h"
#include "units.h"

struct good {
	enum gp_unit unit;
	const char *text;
	double si;
};

#define GIB 1073741824.0
#define MIB 1048576.0

static const struct good goods[] = {
	{ GP_U_BANDWIDTH, "100G", 12.5e9 },
	{ GP_U_BANDWIDTH, "100Gb/s", 12.5e9 },
	{ GP_U_BANDWIDTH, "100Gbps", 12.5e9 },
	{ GP_U_BANDWIDTH, "100 Gbit/s", 12.5e9 },
	{ GP_U_BANDWIDTH, "  100 gbit/s ", 12.5e9 },
	{ GP_U_BANDWIDTH, "100 Gbit", 12.5e9 },
	{ GP_U_BANDWIDTH, "12.5GB/s", 12.5e9 },
	{ GP_U_BANDWIDTH, "12.5GBps", 12.5e9 },
	{ GP_U_BANDWIDTH, "12.5 GBPS", 12.5e9 },
	{ GP_U_BANDWIDTH, "400M", 50e6 },
	{ GP_U_BANDWIDTH, "10Mbps", 1.25e6 },
	{ GP_U_BANDWIDTH, "3.6T", 450e9 },
	{ GP_U_BANDWIDTH, "8k", 1000 },
	{ GP_U_BANDWIDTH, "100 kb/s", 12500 },
	{ GP_U_BANDWIDTH, "1e4 B/s", 1e4 },
	{ GP_U_BANDWIDTH, "80000 b/s", 1e4 },
	{ GP_U_BANDWIDTH, "1.25e9", 1.25e9 },
	{ GP_U_BANDWIDTH, "Gbps(100)", 12.5e9 },
	{ GP_U_BANDWIDTH, "GBps (2.5)", 2.5e9 },
	{ GP_U_TIME, "35ms", 0.035 },
	{ GP_U_TIME, "35 ms", 0.035 },
	{ GP_U_TIME, "35 MS", 0.035 },
	{ GP_U_TIME, "20us", 20e-6 },
	{ GP_U_TIME, "20\xc2\xb5s", 20e-6 },
	{ GP_U_TIME, "20 \xce\xbcs", 20e-6 },
	{ GP_U_TIME, "250ns", 250e-9 },
	{ GP_U_TIME, "1.5s", 1.5 },
	{ GP_U_TIME, "0.004", 0.004 },
	{ GP_U_TIME, "0", 0 },
	{ GP_U_TIME, "86400 s", 86400 },
	{ GP_U_TIME, "ms(4)", 0.004 },
	{ GP_U_BYTES, "80GiB", 80 * GIB },
	{ GP_U_BYTES, "80GB", 80e9 },
	{ GP_U_BYTES, "80G", 80 * GIB },
	{ GP_U_BYTES, "1.5 Gi", 1.5 * GIB },
	{ GP_U_BYTES, "512MiB", 512 * MIB },
	{ GP_U_BYTES, "64KiB", 65536 },
	{ GP_U_BYTES, "64k", 65536 },
	{ GP_U_BYTES, "1TiB", 1099511627776.0 },
	{ GP_U_BYTES, "512B", 512 },
	{ GP_U_BYTES, "4096", 4096 },
	{ GP_U_BYTES, "GiB(80)", 80 * GIB },
	{ GP_U_FLOPS, "989T", 989e12 },
	{ GP_U_FLOPS, "989TFLOPS", 989e12 },
	{ GP_U_FLOPS, "989 tflop/s", 989e12 },
	{ GP_U_FLOPS, "1.3P", 1.3e15 },
	{ GP_U_FLOPS, "0.5E", 0.5e18 },
	{ GP_U_FLOPS, "500G", 500e9 },
	{ GP_U_FLOPS, "1e15", 1e15 },
	{ GP_U_FLOPS, "TFLOPS(312)", 312e12 },
	{ GP_U_RATIO, "0.45", 0.45 },
	{ GP_U_RATIO, "45%", 0.45 },
	{ GP_U_RATIO, "100 %", 1 },
	{ GP_U_RATIO, "0", 0 },
	{ GP_U_COUNT, "8", 8 },
	{ GP_U_COUNT, " 16 ", 16 },
	{ GP_U_COUNT, "1e3", 1000 },
	{ GP_U_COUNT, "2147483647", 2147483647.0 },
	{ GP_U_USD, "2.5", 2.5 },
	{ GP_U_USD, "$2.50", 2.5 },
	{ GP_U_USD, "$ 2.5", 2.5 },
	{ GP_U_USD, "2.5 USD", 2.5 },
	{ GP_U_USD, "0.02$", 0.02 },
	{ GP_U_USD, "0", 0 },
	{ GP_U_NUMBER, "-1.5", -1.5 },
	{ GP_U_NUMBER, "2e-3", 2e-3 },
	{ GP_U_NUMBER, "+42", 42 },
};

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
		const struct good *g = &goods[i];
		double v = -1;
		char lua[64], why[256] = "";
		if (gp_unit_parse(g->text, g->unit, &v, lua, sizeof lua, why, sizeof why))
			fail_msg("\"%s\": refused: %s", g->text, why);
		if (!(fabs(v - g->si) <= 1e-15 * fabs(g->si)))
			fail_msg("\"%s\" = %.17g, expected %.17g", g->text, v, g->si);
		/* The loader's text is the value itself, or the call as typed. */
		if (strchr(g->text, '('))
			assert_non_null(strstr(g->text, lua));
		else
			assert_true(strtod(lua, NULL) == v);
	}
}

/* The same double as the prelude's helper, not just close. */
static void test_same_bits_as_helpers(void **state)
{
	(void)state;
	static const struct {
		enum gp_unit unit;
		const char *text;
		double helper;
	} t[] = {
		{ GP_U_BANDWIDTH, "100G", 100 * 1e9 / 8 }, { GP_U_BANDWIDTH, "2.5GB/s", 2.5 * 1e9 },
		{ GP_U_TIME, "35ms", 35 * 1e-3 }, { GP_U_TIME, "8.2us", 8.2 * 1e-6 },
		{ GP_U_BYTES, "80GiB", 80 * GIB }, { GP_U_FLOPS, "989T", 989 * 1e12 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double v;
		char lua[64], why[256];
		assert_int_equal(gp_unit_parse(t[i].text, t[i].unit, &v, lua, sizeof lua, why,
					       sizeof why), 0);
		if (v != t[i].helper)
			fail_msg("\"%s\" = %.17g, helper %.17g", t[i].text, v, t[i].helper);
	}
}

struct bad {
	enum gp_unit unit;
	const char *text;
	const char *msg;
};

static const struct bad bads[] = {
	{ GP_U_BANDWIDTH, "", "empty" },
	{ GP_U_BANDWIDTH, "   ", "empty" },
	{ GP_U_BANDWIDTH, "abc", "\"abc\" is not a number" },
	{ GP_U_BANDWIDTH, "nan", "is not a number" },
	{ GP_U_BANDWIDTH, "inf", "is not a number" },
	{ GP_U_BANDWIDTH, "1e999", "too large" },
	{ GP_U_BANDWIDTH, "100Gz", "unknown unit \"Gz\"" },
	{ GP_U_BANDWIDTH, "35ms", "\"35ms\" is a time, not a rate" },
	{ GP_U_BANDWIDTH, "-5G", "negative" },
	{ GP_U_BANDWIDTH, "0", "less than 1 kB/s" },
	{ GP_U_BANDWIDTH, "9P", "faster than any real link" },
	{ GP_U_BANDWIDTH, "gbps(100)", "unknown helper \"gbps\" (helpers of this unit: Gbps(), GBps())" },
	{ GP_U_BANDWIDTH, "ms(4)", "ms() gives a time" },
	{ GP_U_BANDWIDTH, "Gbps(100", "unbalanced parentheses" },
	{ GP_U_BANDWIDTH, "Gbps(100))", "\")\" after the closing parenthesis" },
	{ GP_U_BANDWIDTH, "Gbps(1) + 1", "after the closing parenthesis" },
	{ GP_U_BANDWIDTH, "Gbps(1;2)", "';' cannot be in a helper's argument" },
	{ GP_U_BANDWIDTH, "Gbps(\"1\")", "'\"' cannot be" },
	{ GP_U_BANDWIDTH, "Gbps(1 --)", "Lua comment" },
	{ GP_U_BANDWIDTH, "Gbps( )", "Gbps() needs an argument" },
	{ GP_U_BANDWIDTH, "Gbps(1e16)", "faster than any real link" },
	{ GP_U_TIME, "2min", "unknown unit \"min\"" },
	{ GP_U_TIME, "90000s", "more than a day" },
	{ GP_U_TIME, "-1ms", "negative" },
	{ GP_U_TIME, "1 G", "unknown unit \"G\"" },
	{ GP_U_TIME, "1 Gbps", "\"1 Gbps\" is a rate, not a time" },
	{ GP_U_TIME, "Gbps(1)", "Gbps() gives a bandwidth" },
	{ GP_U_BYTES, "80Gb", "\"Gb\" is bits (b is bits, B bytes: \"GB\")" },
	{ GP_U_BYTES, "512 mib", "B bytes: \"miB\")" },
	{ GP_U_BYTES, "0", "less than a byte" },
	{ GP_U_BYTES, "2PiB", "more than 1 PiB" },
	{ GP_U_FLOPS, "1M", "unknown unit \"M\"" },
	{ GP_U_FLOPS, "5e8", "less than 1 GFLOP/s" },
	{ GP_U_FLOPS, "2000P", "more than 1 EFLOP/s" },
	{ GP_U_RATIO, "1.5", "more than 1 (100%)" },
	{ GP_U_RATIO, "150%", "more than 1 (100%)" },
	{ GP_U_RATIO, "-0.1", "negative" },
	{ GP_U_COUNT, "3.5", "\"3.5\" is not a whole number" },
	{ GP_U_COUNT, "-4", "\"-4\" is negative" },
	{ GP_U_COUNT, "1e30", "more than 2147483647" },
	{ GP_U_COUNT, "0", "less than 1" },
	{ GP_U_COUNT, "8 GPUs", "unknown unit \"GPUs\"" },
	{ GP_U_COUNT, "Gbps(8)", "Gbps() gives a bandwidth" },
	{ GP_U_COUNT, "max(8)", "unknown helper \"max\" (no helper gives a whole number" },
	{ GP_U_USD, "-2", "negative" },
	{ GP_U_USD, "$", "not a number" },
	{ GP_U_USD, "$2.5 USD", "\"USD\" after the number" },
	{ GP_U_USD, "\xe2\x82\xac" "2", "not a number" },
	{ GP_U_NUMBER, "nan", "not a number" },
	{ GP_U_NUMBER, "-1e999", "too large" },
	{ GP_U_NUMBER, "5G", "unknown unit \"G\"" },
	{ GP_U_NUMBER, "5GiB", "\"5GiB\" is a size, not a number" },
};

static const char *const examples[] = {
	[GP_U_NUMBER] = "expected a number such as 42, -1.5 or 2e-3",
	[GP_U_COUNT] = "expected a whole number of at least 1 such as 8",
	[GP_U_RATIO] = "expected a ratio such as 0.45 or 45%",
	[GP_U_BANDWIDTH] = "expected a bandwidth such as 100G (Gbit/s), 12.5GB/s or Gbps(100)",
	[GP_U_TIME] = "expected a time such as 35ms, 20us, 1.5s or ms(35)",
	[GP_U_BYTES] = "expected a size such as 80GiB, 80GB, 512MiB or GiB(80)",
	[GP_U_FLOPS] = "expected a FLOP rate such as 989T (TFLOP/s), 1.3P or TFLOPS(989)",
	[GP_U_USD] = "expected an amount in US dollars such as 2.5 or $2.50",
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		const struct bad *b = &bads[i];
		double v = 123;
		char lua[64] = "untouched", why[320] = "";
		int rc = gp_unit_parse(b->text, b->unit, &v, lua, sizeof lua, why, sizeof why);
		if (rc != -1)
			fail_msg("\"%s\" accepted as %.17g", b->text, v);
		if (!strstr(why, b->msg))
			fail_msg("\"%s\": got \"%s\", wanted \"%s\"", b->text, why, b->msg);
		if (!strstr(why, examples[b->unit]) && !strstr(why, "did you mean"))
			fail_msg("\"%s\": \"%s\" gives no example", b->text, why);
		assert_true(v == 123);   /* untouched on failure */
	}
}

/* A size where a rate is wanted (and the other way round, a count of
 * FLOPs for a peak) is refused with what was likely meant, whole:
 * never "40GB" read as 40 GB/s. */
static void test_kind(void **state)
{
	(void)state;
	static const struct { enum gp_unit unit; const char *text, *why; } t[] = {
		{ GP_U_BANDWIDTH, "40GB",
		  "\"40GB\" is a size, not a rate: did you mean 40Gbit/s or 40GB/s?" },
		{ GP_U_BANDWIDTH, "2 GB",
		  "\"2 GB\" is a size, not a rate: did you mean 2Gbit/s or 2GB/s?" },
		{ GP_U_BANDWIDTH, "40GiB",
		  "\"40GiB\" is a size, not a rate: did you mean 40Gbit/s or 40GB/s?" },
		{ GP_U_BYTERATE, "450GB", "\"450GB\" is a size, not a rate: did you mean 450GB/s?" },
		{ GP_U_BYTERATE, "3.35TB", "\"3.35TB\" is a size, not a rate: did you mean 3.35TB/s?" },
		{ GP_U_BYTES, "80GB/s", "\"80GB/s\" is a rate, not a size: did you mean 80GB?" },
		{ GP_U_FLOPS, "989TFLOP",
		  "\"989TFLOP\" is an amount of work, not a FLOP rate: did you mean 989TFLOP/s?" },
		{ GP_U_FLOPS, "989TB", "\"989TB\" is a size, not a FLOP rate: expected a FLOP rate such as" },
		{ GP_U_TIME, "35GB", "\"35GB\" is a size, not a time: expected a time such as 35ms" },
		{ GP_U_TIME, "35MB/s", "\"35MB/s\" is a rate, not a time: expected a time" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		double v = 123;
		char lua[64], why[320] = "";
		if (gp_unit_parse(t[i].text, t[i].unit, &v, lua, sizeof lua, why, sizeof why) != -1)
			fail_msg("\"%s\" accepted as %.17g", t[i].text, v);
		if (strncmp(why, t[i].why, strlen(t[i].why)))
			fail_msg("\"%s\": \"%s\", wanted \"%s\"", t[i].text, why, t[i].why);
	}
	/* What a rate field still takes: a bare prefix (bits), B/s, Gb. */
	double v;
	char lua[64], why[320];
	assert_int_equal(gp_unit_parse("40G", GP_U_BANDWIDTH, &v, lua, sizeof lua, why, sizeof why), 0);
	assert_true(v == 5e9);
	assert_int_equal(gp_unit_parse("40GB/s", GP_U_BANDWIDTH, &v, lua, sizeof lua, why, sizeof why), 0);
	assert_true(v == 40e9);
	assert_int_equal(gp_unit_parse("450GB/s", GP_U_BYTERATE, &v, lua, sizeof lua, why, sizeof why), 0);
	assert_true(v == 450e9);
}

/* An expression is passed through; its value is unknown to us. */
static void test_expression_passes_through(void **state)
{
	(void)state;
	double v = 0;
	char lua[64], why[256];
	assert_int_equal(gp_unit_parse(" Gbps(2 * (25 + 25)) ", GP_U_BANDWIDTH, &v, lua,
				       sizeof lua, why, sizeof why), 0);
	assert_string_equal(lua, "Gbps(2 * (25 + 25))");
	assert_true(isnan(v));
	/* No room for it: refused, not cut. */
	char small[8];
	assert_int_equal(gp_unit_parse("Gbps(100)", GP_U_BANDWIDTH, &v, small, sizeof small, why,
				       sizeof why), -1);
	assert_non_null(strstr(why, "too long"));
}

static void test_short_forms(void **state)
{
	(void)state;
	static const struct {
		enum gp_unit unit;
		double v;
		const char *want;
	} t[] = {
		/* Bits a second, spelt so beside NVLink's 450GB/s (bytes) */
		{ GP_U_BANDWIDTH, 12.5e9, "100Gb/s" }, { GP_U_BANDWIDTH, 450e9, "3.6Tb/s" },
		{ GP_U_BANDWIDTH, 50e6, "400Mb/s" }, { GP_U_BANDWIDTH, 1e3, "8kb/s" },
		{ GP_U_BANDWIDTH, 1e15, "8000Tb/s" }, { GP_U_BANDWIDTH, 0, "0" },
		{ GP_U_BANDWIDTH, 100, "800b/s" },
		{ GP_U_TIME, 0.035, "35ms" }, { GP_U_TIME, 10e-6, "10us" },
		{ GP_U_TIME, 1.5, "1.5s" }, { GP_U_TIME, 250e-9, "250ns" },
		{ GP_U_TIME, 86400, "86400s" }, { GP_U_TIME, 0, "0s" },
		{ GP_U_BYTES, 80 * GIB, "80GiB" }, { GP_U_BYTES, 80e9, "74.51GiB" },
		{ GP_U_BYTES, 512 * MIB, "512MiB" }, { GP_U_BYTES, 100, "100B" },
		{ GP_U_FLOPS, 989e12, "989T" }, { GP_U_FLOPS, 1.3e15, "1.3P" },
		{ GP_U_RATIO, 0.45, "0.45" }, { GP_U_USD, 2.5, "$2.50" },
		{ GP_U_USD, 0.001, "$0.001" }, { GP_U_COUNT, 16, "16" },
		/* Below 1e-4: decimals, never an exponent ("$9.54e-05"). */
		{ GP_U_USD, 9.54e-5, "$0.0000954" }, { GP_U_USD, -9.54e-5, "$-0.0000954" },
		{ GP_U_RATIO, 1.5e-6, "0.0000015" }, { GP_U_USD, 1.23456e-7, "$0.0000001235" },
		{ GP_U_NUMBER, -1.25, "-1.25" },
		/* From 1e6 of the largest unit a short exponent, the unit kept. */
		{ GP_U_TIME, 3.167e13, "3.167e13s" }, { GP_U_TIME, 999999, "999999s" },
		{ GP_U_TIME, 1e6, "1e6s" }, { GP_U_BANDWIDTH, 5e20, "4e9Tb/s" },
		{ GP_U_BYTES, 2e21, "1.819e9TiB" }, { GP_U_FLOPS, 3e21, "3e6P" },
		{ GP_U_USD, 2.5e12, "$2.5e12" },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char buf[32];
		gp_unit_format(t[i].v, t[i].unit, buf, sizeof buf);
		if (strcmp(buf, t[i].want))
			fail_msg("%.17g: \"%s\", expected \"%s\"", t[i].v, buf, t[i].want);
	}
	char b[32];
	gp_unit_time4(1.43, b, sizeof b);
	assert_string_equal(b, "1.430s");
	gp_unit_time4(123456, b, sizeof b);
	assert_string_equal(b, "123456s");
	gp_unit_time4(3.167e13, b, sizeof b);
	assert_string_equal(b, "3.167e13s");
	gp_unit_time4(3e13, b, sizeof b);
	assert_string_equal(b, "3.000e13s");   /* zeros kept, as beside another */
}

/* xorshift64: the test's own generator, seeded, so runs repeat. */
static double uniform(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (double)(*x >> 11) / 9007199254740992.0;
}

static void round_trip(enum gp_unit unit, double v, double rel)
{
	char buf[64], lua[64], why[256];
	double back;
	gp_unit_format(v, unit, buf, sizeof buf);
	if (gp_unit_parse(buf, unit, &back, lua, sizeof lua, why, sizeof why))
		fail_msg("unit %d: %.17g shows as \"%s\", refused: %s", unit, v, buf, why);
	if (!(fabs(back - v) <= rel * fabs(v)))
		fail_msg("unit %d: %.17g -> \"%s\" -> %.17g", unit, v, buf, back);
}

static void test_round_trip(void **state)
{
	(void)state;
	/* Log-uniform over each unit's range (from a small positive value
	 * where the range starts at 0), and the ends themselves. */
	static const struct {
		enum gp_unit unit;
		double lo, hi, rel;
	} r[] = {
		{ GP_U_BANDWIDTH, 1e3, 1e15, 1e-3 }, { GP_U_TIME, 1e-9, 86400, 1e-3 },
		{ GP_U_BYTES, 1, 1125899906842624.0, 1e-3 }, { GP_U_FLOPS, 1e9, 1e18, 1e-3 },
		{ GP_U_RATIO, 1e-4, 1, 1e-3 }, { GP_U_USD, 1e-4, 1e9, 1e-3 },
		{ GP_U_NUMBER, 1e-6, 1e6, 1e-5 }, { GP_U_COUNT, 1, 2147483647.0, 0 },
	};
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (size_t k = 0; k < sizeof r / sizeof r[0]; k++) {
		round_trip(r[k].unit, r[k].lo, r[k].rel);
		round_trip(r[k].unit, r[k].hi, r[k].rel);
		for (int i = 0; i < 2000; i++) {
			double v = r[k].lo * pow(r[k].hi / r[k].lo, uniform(&seed));
			if (r[k].unit == GP_U_COUNT)
				v = floor(v);
			if (r[k].unit == GP_U_NUMBER && uniform(&seed) < 0.5)
				v = -v;
			round_trip(r[k].unit, v, r[k].rel);
		}
	}
	round_trip(GP_U_TIME, 0, 0);
	round_trip(GP_U_RATIO, 0, 0);
	round_trip(GP_U_USD, 0, 0);
}

/* What parse hands the loader loads as the value it reported: plain
 * numbers and helper calls alike, through the real sandbox. */
static void test_lua_through_loader(void **state)
{
	(void)state;
	static const char *const texts[] = { "100G", "12.5 GB/s", "Gbps(100)",
					     "Gbps(2 * 50)", "3.6T" };
	static const double want[] = { 12.5e9, 12.5e9, 12.5e9, 12.5e9, 450e9 };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		double v;
		char lua[64], why[256];
		assert_int_equal(gp_unit_parse(texts[i], GP_U_BANDWIDTH, &v, lua, sizeof lua,
					       why, sizeof why), 0);
		struct gp_scenario *s = scen(
			"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } },"
			" { name = 'b', pools = { { gpu = 'H100', count = 8 } } } },"
			" links = { { 'a', 'b', bandwidth = %s, latency = %s } },"
			" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 } }", lua, "ms(4)");
		assert_true(s->links[0].bandwidth == want[i]);
		if (!isnan(v))
			assert_true(s->links[0].bandwidth == v);
		gp_scenario_free(s);
	}
}

/* Rates: SI prefixes from 1000 up, plain decimals below (never "m"). */
static void test_rates(void **st)
{
	(void)st;
	static const struct { double v; const char *want; } cases[] = {
		{ 119498, "119 k" }, { 2649961, "2.65 M" }, { 1000, "1.00 k" },
		{ 576, "576" }, { 0.576, "0.576" }, { 57.84, "57.8" }, { 0, "0" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[32];
		gp_unit_rate(cases[i].v, buf, sizeof buf);
		assert_string_equal(buf, cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_same_bits_as_helpers),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_kind),
		cmocka_unit_test(test_expression_passes_through),
		cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_lua_through_loader),
		cmocka_unit_test(test_rates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
