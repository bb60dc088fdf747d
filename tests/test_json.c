/*
 * test_json.c: the JSON writer's numbers (json.c): byte counts whole
 * (2^32 as 4294967296, every integer below 2^53 as its digits), any
 * finite double read back bit for bit from the fewest digits, and what
 * is not finite as null.
 */
#include "testutil.h"
#include "json.h"

static const char *js(double v, char *b)
{
	return gp_json_format(v, b, 40);
}

static void test_bytes_whole(void **state)
{
	(void)state;
	char b[40];
	assert_string_equal(js(4294967296.0, b), "4294967296");   /* 2^32 */
	assert_string_equal(js(4859953152.0, b), "4859953152");   /* p3's WAN bytes */
	assert_string_equal(js(1214988288.0, b), "1214988288");
	assert_string_equal(js(42949672960.0, b), "42949672960");
	assert_string_equal(js(9007199254740992.0, b), "9007199254740992");   /* 2^53 */
	assert_string_equal(js(0, b), "0");
	/* Every integer up to 2^53 comes out as its own digits. */
	uint64_t x = 88172645463325252u;
	for (int i = 0; i < 10000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t n = x >> (11 + i % 40);   /* below 2^53, of every size */
		char want[32];
		snprintf(want, sizeof want, "%llu", (unsigned long long)n);
		assert_string_equal(js((double)n, b), want);
	}
}

static void test_shortest_round_trip(void **state)
{
	(void)state;
	char b[40];
	assert_string_equal(js(0.1, b), "0.1");
	assert_string_equal(js(2.5, b), "2.5");
	assert_string_equal(js(1.0 / 3, b), "0.3333333333333333");
	assert_string_equal(js(0.7591744194318084, b), "0.7591744194318084");
	assert_string_equal(js(0.1 + 0.2, b), "0.30000000000000004");   /* needs 17 */
	assert_string_equal(js(1e300, b), "1e+300");
	assert_string_equal(js(-2.5e-7, b), "-2.5e-07");
	/* Random bit patterns: read back exactly, in at most 17 digits. */
	uint64_t x = 2463534242u;
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v;
		memcpy(&v, &x, sizeof v);
		if (!isfinite(v))
			continue;
		js(v, b);
		assert_true(strtod(b, NULL) == v);
		const char *p = b + (b[0] == '-');
		while (*p == '0' || *p == '.')
			p++;   /* leading zeros are no significant digits */
		int digits = 0;
		for (; *p && *p != 'e'; p++)
			digits += *p >= '0' && *p <= '9';
		assert_true(digits <= 17);
	}
}

static void test_writer(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	struct gp_json j;
	gp_json_init(&j, f);
	gp_json_obj(&j, false);
	gp_json_knum(&j, "bytes", 4294967296.0);
	gp_json_knum(&j, "inf", INFINITY);
	gp_json_knum(&j, "nan", NAN);
	gp_json_knum(&j, "s", 0.1);
	/* A byte count the model's sums left a hair off its whole bytes. */
	gp_json_kbytes(&j, "wan", 4859953151.999999);
	gp_json_kbytes(&j, "link", 1214988287.9999998);
	gp_json_kbytes(&j, "peak", 7911430456.034335);
	gp_json_kbytes(&j, "none", NAN);
	gp_json_end(&j);
	fclose(f);
	assert_string_equal(text, "{\"bytes\": 4294967296, \"inf\": null, \"nan\": null, \"s\": 0.1, "
			    "\"wan\": 4859953152, \"link\": 1214988288, \"peak\": 7911430456, \"none\": null}");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_whole),
		cmocka_unit_test(test_shortest_round_trip),
		cmocka_unit_test(test_writer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
