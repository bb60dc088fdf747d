/*
 * test_fmt.c: figures with units (fmt.c): exact strings at the edges of
 * each prefix (where rounding carries into the next), and over twenty
 * decades no exponent and never more significant digits than asked.
 */
#include "testutil.h"
#include "fmt.h"

#include <ctype.h>

static const char *tm(double s, int d, char *b)
{
	return gp_fmt_time(s, d, b, 64);
}

static void test_time(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(tm(2.68123, 3, b), "2.68 s");
	assert_string_equal(tm(0.0278, 3, b), "27.8 ms");
	assert_string_equal(tm(0.140, 3, b), "140 ms");
	assert_string_equal(tm(0.034, 3, b), "34.0 ms");
	assert_string_equal(tm(0.9997, 3, b), "1.00 s");      /* rounding carries */
	assert_string_equal(tm(0.99949, 3, b), "999 ms");
	assert_string_equal(tm(1.2e-5, 3, b), "12.0 us");
	assert_string_equal(tm(3600, 3, b), "3600 s");        /* no ks */
	assert_string_equal(tm(123456, 3, b), "123456 s");
	assert_string_equal(tm(0, 3, b), "0 s");
	assert_string_equal(tm(2.338, 4, b), "2.338 s");
	assert_string_equal(tm(2.73, 4, b), "2.730 s");
	assert_string_equal(tm(-0.00813, 3, b), "-8.13 ms");
	assert_string_equal(tm(1e-16, 3, b), "0 s");          /* below ps */
	assert_string_equal(tm(NAN, 3, b), "nan s");
	assert_string_equal(tm(INFINITY, 3, b), "inf s");
	/* From 1e6 s a short exponent, the unit kept: 3.167e13 s whole
	 * (31670000000000 s) is 16 digits, wider than any column. */
	assert_string_equal(tm(3.167e13, 4, b), "3.167e13 s");
	assert_string_equal(tm(3.167e13, 3, b), "3.17e13 s");
	assert_string_equal(tm(999999, 3, b), "999999 s");      /* whole below 1e6 */
	assert_string_equal(tm(1e6, 3, b), "1.00e6 s");
	assert_string_equal(tm(9.9996e6, 4, b), "1.000e7 s");   /* rounding carries */
	assert_string_equal(tm(-2.5e8, 2, b), "-2.5e8 s");
	/* Bytes past the top prefix alike: 1e6 EB and more. */
	assert_string_equal(gp_fmt_bytes(4.2e24, b, sizeof b), "4.20e6 EB");
	assert_string_equal(gp_fmt_bytes(1234e18, b, sizeof b), "1234 EB");
	assert_string_equal(gp_fmt_exp(3.167e13, 4, 0, b, sizeof b), "3.167e13");
	assert_string_equal(gp_fmt_exp(1e6, 4, 0, b, sizeof b), "1e6");
	assert_string_equal(gp_fmt_exp(1e6, 4, 1, b, sizeof b), "1.000e6");
	assert_string_equal(gp_fmt_exp(1.5e100, 3, 0, b, sizeof b), "1.5e100");
}

static void test_si_bytes_rates(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(gp_fmt_si(97780, 3, "", b, sizeof b), "97.8 k");
	assert_string_equal(gp_fmt_si(1692000, 3, "", b, sizeof b), "1.69 M");
	assert_string_equal(gp_fmt_si(999.6, 3, "", b, sizeof b), "1.00 k");
	assert_string_equal(gp_fmt_si(512, 3, "", b, sizeof b), "512");
	assert_string_equal(gp_fmt_si(96000, 3, "", b, sizeof b), "96.0 k");
	assert_string_equal(gp_fmt_si(4.8e9, 3, "bit/s", b, sizeof b), "4.80 Gbit/s");
	assert_string_equal(gp_fmt_bytes(4.295e9, b, sizeof b), "4.29 GB");   /* as printf rounds */
	assert_string_equal(gp_fmt_bytes(4.2951e9, b, sizeof b), "4.30 GB");
	assert_string_equal(gp_fmt_bytes(0, b, sizeof b), "0 B");
	assert_string_equal(gp_fmt_bytes(0.4, b, sizeof b), "0.400 B");
	assert_string_equal(gp_fmt_bytes(1.36e12, b, sizeof b), "1.36 TB");
	assert_string_equal(gp_fmt_bitrate(2.5e9, b, sizeof b), "20.0 Gbit/s");
	assert_string_equal(gp_fmt_bitrate(12.5e9, b, sizeof b), "100 Gbit/s");
	assert_string_equal(gp_fmt_gib(80e9, b, sizeof b), "74.5 GiB");
	assert_string_equal(gp_fmt_gib(512 * 1048576.0, b, sizeof b), "512.0 MiB");
	assert_string_equal(gp_fmt_gib(1023.99 * 1073741824.0, b, sizeof b), "1.0 TiB");
	assert_string_equal(gp_fmt_pct(0.2644, b, sizeof b), "26.4 %");
	assert_string_equal(gp_fmt_pct(-0.00001, b, sizeof b), "-0.0 %");
	/* A gap that is not zero never reads 0.00 % (beside "feasible") */
	assert_string_equal(gp_fmt_gap(1.07e-5, b, sizeof b), "< 0.01 %");
	assert_string_equal(gp_fmt_gap(0, b, sizeof b), "0.00 %");
	assert_string_equal(gp_fmt_gap(0.0499, b, sizeof b), "4.99 %");
	assert_string_equal(gp_fmt_gap(5e-5, b, sizeof b), "0.01 %");
	assert_string_equal(gp_fmt_grouped(1692000, b, sizeof b), "1,692,000");
	assert_string_equal(gp_fmt_grouped(-67540.4, b, sizeof b), "-67,540");
}

static void test_usd(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(gp_fmt_usd(0, b, sizeof b), "$0");
	assert_string_equal(gp_fmt_usd(0.13481, b, sizeof b), "$0.135");
	assert_string_equal(gp_fmt_usd(0.048851, b, sizeof b), "$0.0489");
	assert_string_equal(gp_fmt_usd(0.99961, b, sizeof b), "$1.00");
	assert_string_equal(gp_fmt_usd(1.6, b, sizeof b), "$1.60");
	assert_string_equal(gp_fmt_usd(123.456, b, sizeof b), "$123.46");
	assert_string_equal(gp_fmt_usd(999.7, b, sizeof b), "$1,000");
	assert_string_equal(gp_fmt_usd(1234567, b, sizeof b), "$1,234,567");
	assert_string_equal(gp_fmt_usd(-0.5, b, sizeof b), "-$0.500");
	assert_string_equal(gp_fmt_usd(1.23e-7, b, sizeof b), "$0.000000123");
}

/* Significant digits in the number that starts s: from the first
 * non-zero digit to the last digit before a blank. */
static int sig_digits(const char *s)
{
	int n = 0;
	bool started = false;
	for (; *s && *s != ' '; s++) {
		if (!isdigit((unsigned char)*s))
			continue;
		started = started || *s != '0';
		n += started;
	}
	return n;
}

/* Twenty-four decades, three mantissas each, both signs: never an 'e',
 * never more than the digits asked (whole seconds above 1000 s aside),
 * and a number that reads back within rounding of the value; a time
 * from 1e6 s has a short exponent and still its unit. */
static void test_no_exponent(void **state)
{
	(void)state;
	static const char *const pfx = "pnum kMGTPE";
	for (int dec = -12; dec <= 12; dec++)
		for (int m = 0; m < 3; m++)
			for (int sign = -1; sign <= 1; sign += 2) {
				double v = sign * (1 + 3.7 * m) * pow(10, dec);
				char b[64];
				gp_fmt_si(v, 3, "X", b, sizeof b);
				if (strchr(b, 'e'))
					fail_msg("%g gave '%s'", v, b);
				if (sig_digits(b) > 3 && fabs(v) < 1e21)
					fail_msg("%g gave '%s': more than 3 digits", v, b);
				double x = strtod(b, NULL);
				const char *sp = strchr(b, ' ');
				assert_non_null(sp);
				const char *p = strchr(pfx, sp[1]);
				double mul = p && sp[1] != 'X' ? pow(1000, (int)(p - pfx) - 4) : 1;
				if (fabs(x * mul - v) > 0.006 * fabs(v))
					fail_msg("%g gave '%s' (%g)", v, b, x * mul);
				gp_fmt_time(fabs(v), 4, b, sizeof b);
				if ((strchr(b, 'e') != NULL) != (fabs(v) >= 1e6))
					fail_msg("time %g gave '%s'", fabs(v), b);
				const char *u = strrchr(b, ' ');
				if (!u || !strstr(" s ms us ns ps", u))
					fail_msg("time %g gave '%s': no unit", fabs(v), b);
				if (fabs(v) >= 1 && fabs(strtod(b, NULL) - fabs(v)) > 5e-4 * fabs(v))
					fail_msg("time %g gave '%s'", fabs(v), b);
			}
}

/* A script's error on one line: blank lines and tabs fold into single
 * spaces, none at the ends; a small buffer cuts it. */
static void test_one_line(void **state)
{
	(void)state;
	char b[64];
	assert_string_equal(gp_fmt_one_line("a.lua:3: bad (local 'x')\n\n\twhile running plan()\n", b,
					    sizeof b),
			    "a.lua:3: bad (local 'x') while running plan()");
	assert_string_equal(gp_fmt_one_line("  \n ", b, sizeof b), "");
	assert_string_equal(gp_fmt_one_line("abc  def", b, 6), "abc d");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_si_bytes_rates),
		cmocka_unit_test(test_usd),
		cmocka_unit_test(test_no_exponent),
		cmocka_unit_test(test_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
