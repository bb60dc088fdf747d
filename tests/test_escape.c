/*
 * test_escape.c: names into XML, JSON, CSV and Lua (escape.c): UTF-8
 * decoding against RFC 3629's cases, and each writer's exact output for
 * a name holding what breaks each format.
 */
#include "testutil.h"
#include "escape.h"

/* What writer fn makes of s. */
static char *render(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	fn(f, s);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void expect(void (*fn)(FILE *, const char *), const char *s, const char *want)
{
	char *got = render(fn, s);
	assert_string_equal(got, want);
	free(got);
}

static void test_utf8(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		uint32_t cp;
		int n;
	} cases[] = {
		{ "A", 'A', 1 },
		{ "", 0, 0 },
		{ "\xc3\xa9", 0xE9, 2 },             /* e acute */
		{ "\xe2\x82\xac", 0x20AC, 3 },       /* euro */
		{ "\xf0\x9f\x98\x80", 0x1F600, 4 },
		{ "\xef\xbf\xbf", 0xFFFF, 3 },       /* a noncharacter, still UTF-8 */
		{ "\x80", 0xFFFD, 1 },               /* stray continuation */
		{ "\xc0\x80", 0xFFFD, 1 },           /* overlong NUL */
		{ "\xe0\x80\xaf", 0xFFFD, 1 },       /* overlong '/' */
		{ "\xed\xa0\x80", 0xFFFD, 1 },       /* a surrogate */
		{ "\xf4\x90\x80\x80", 0xFFFD, 1 },   /* past U+10FFFF */
		{ "\xe2\x82" "a", 0xFFFD, 1 },       /* cut short */
		{ "\xe2\x82", 0xFFFD, 1 },           /* cut by the end */
		{ "\xff", 0xFFFD, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		uint32_t cp;
		int n = gp_utf8_decode(cases[i].s, &cp);
		if (n != cases[i].n || cp != cases[i].cp)
			fail_msg("case %zu: %d bytes, U+%04X (wanted %d, U+%04X)", i, n,
				 (unsigned)cp, cases[i].n, (unsigned)cases[i].cp);
	}
}

/* A DC name with a control byte, markup, quotes, a comma, a newline and
 * bytes that are not UTF-8 (three U+FFFD: 0xff, then 0xe2 cut short by
 * '!' after its continuation 0x82, which then stands alone). */
#define NASTY "a\x01<b>&\"c\",'d'\n\xff\xe2\x82!\xc3\xa9"

static void test_writers(void **state)
{
	(void)state;
	expect(gp_esc_xml, NASTY,
	       "a\xef\xbf\xbd&lt;b&gt;&amp;&quot;c&quot;,&apos;d&apos;&#10;\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!\xc3\xa9");
	expect(gp_esc_xml, "\xef\xbf\xbe\t", "\xef\xbf\xbd&#9;");   /* U+FFFE, tab */
	expect(gp_esc_json, NASTY,
	       "\"a\\u0001<b>&\\\"c\\\",'d'\\n\\ufffd\\ufffd\\ufffd!\xc3\xa9\"");
	expect(gp_esc_json, "back\\slash\x7f", "\"back\\\\slash\x7f\"");
	expect(gp_esc_csv, "plain name", "plain name");
	expect(gp_esc_csv, NASTY,
	       "\"a\x01<b>&\"\"c\"\",'d'\n\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd!\xc3\xa9\"");
	expect(gp_esc_csv, "x\ry", "\"x\ry\"");
	expect(gp_esc_lua, NASTY, "\"a\\001<b>&\\\"c\\\",'d'\\010\xff\xe2\x82!\xc3\xa9\"");
	expect(gp_esc_lua, "1\\2", "\"1\\\\2\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
