/*
 * test_canvas.c: the cell grid (clipping, wide characters, UTF-8,
 * widths, boxes, bars) and its exports (text, ANSI, HTML, SVG), against
 * cells and bytes worked out by hand, glibc's UTF-8 decoder and brute
 * force over random drawing.
 */
#include <locale.h>
#include <time.h>
#include <wchar.h>

#include "testutil.h"
#include "canvas.h"
#include "export.h"

static const struct gp_style plain = { GP_CV_DEFAULT, GP_CV_DEFAULT, 0 };

static struct gp_style fg(uint32_t c)
{
	return (struct gp_style){ c, GP_CV_DEFAULT, 0 };
}

static wchar_t ch_at(const struct gp_canvas *cv, int x, int y)
{
	const struct gp_cell *c = gp_cv_cell(cv, x, y);
	assert_non_null(c);
	return c->ch;
}

/* Row y as a string, one byte per cell: the ASCII, '~' for a wide tail,
 * '*' for any other character. */
static const char *row_str(const struct gp_canvas *cv, int y)
{
	static char buf[512];
	int x;
	for (x = 0; x < cv->w && x < (int)sizeof buf - 1; x++) {
		wchar_t c = ch_at(cv, x, y);
		buf[x] = c == GP_CV_WIDE_TAIL ? '~' : c >= 0x20 && c < 0x7F ? (char)c : '*';
	}
	buf[x] = 0;
	return buf;
}

static char *export_str(const struct gp_canvas *cv, enum gp_export_fmt fmt, uint32_t dfg,
			uint32_t dbg, const char *title)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp_export(f, cv, fmt, dfg, dbg, title), 0);
	fclose(f);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_utf8_decode(void **state)
{
	(void)state;
	static const struct { const char *s; int n; uint32_t ch; } ok[] = {
		{ "A", 1, 0x41 }, { "\xC3\xA9", 2, 0xE9 }, { "\xE2\x82\xAC", 3, 0x20AC },
		{ "\xF0\x9F\x98\x80", 4, 0x1F600 }, { "\xF4\x8F\xBF\xBF", 4, 0x10FFFF },
		{ "\xDF\xBF", 2, 0x7FF }, { "\xEF\xBF\xBD", 3, 0xFFFD },
	};
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		wchar_t c;
		assert_int_equal(gp_cv_decode(ok[i].s, &c), ok[i].n);
		assert_int_equal((uint32_t)c, ok[i].ch);
	}
	/* Stray continuation, overlong, surrogate, past U+10FFFF, truncated,
	 * 0xFF: one byte each, U+FFFD. */
	static const char *const bad[] = {
		"\x80", "\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80",
		"\xF5\x80\x80\x80", "\xE2\x82", "\xE2\x82\x41", "\xF0\x9F\x98", "\xFF",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		wchar_t c;
		assert_int_equal(gp_cv_decode(bad[i], &c), 1);
		assert_int_equal((uint32_t)c, 0xFFFD);
	}
	/* Every scalar value survives encode then decode, in the closed-form
	 * number of bytes. */
	for (uint32_t c = 1; c <= 0x10FFFF; c++) {
		if (c >= 0xD800 && c <= 0xDFFF)
			continue;
		char b[5] = { 0 };
		int n = gp_cv_encode((wchar_t)c, b);
		assert_int_equal(n, c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4);
		wchar_t back;
		assert_int_equal(gp_cv_decode(b, &back), n);
		assert_int_equal((uint32_t)back, c);
	}
}

/* Our decoder accepts exactly the 2- and 3-byte sequences glibc's UTF-8
 * decoder accepts (skipped when C.UTF-8 is missing). */
static void test_utf8_matches_glibc(void **state)
{
	(void)state;
	char *old = strdup(setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		free(old);
		skip();
	}
	/* All 2- and 3-byte sequences; 4-byte ones with three last bytes. */
	for (uint32_t v = 0xC000; v <= 0xF7FFFF; v++) {
		unsigned char b[5] = { 0 };
		int n = v <= 0xDFFF ? 2 : 3;
		if (v > 0xDFFF && v < 0xE00000)
			continue;
		for (int i = 0; i < n; i++)
			b[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
		if (b[0] >= 0xF0) {   /* a 4-byte lead: add a last byte */
			n = 4;
			b[3] = (unsigned char)(v % 3 == 0 ? 0x80 : v % 3 == 1 ? 0xBF : 0x41);
		}
		mbstate_t ms;
		memset(&ms, 0, sizeof ms);
		wchar_t a = 0, c = 0;
		size_t r = mbrtowc(&a, (const char *)b, (size_t)n, &ms);
		int m = gp_cv_decode((const char *)b, &c);
		if (r == (size_t)n && (uint32_t)a > 0x10FFFF)
			r = (size_t)-1;   /* glibc takes up to 0x7FFFFFFF; RFC 3629 ends at U+10FFFF */
		if ((r == (size_t)n) != (m == n))
			fail_msg("%02x %02x %02x %02x: glibc %zd, ours %d", b[0], b[1], b[2], b[3],
				 (ssize_t)r, m);
		if (m == n)
			assert_int_equal(a, c);
	}
	setlocale(LC_CTYPE, old);
	free(old);
}

static void test_widths(void **state)
{
	(void)state;
	static const struct { uint32_t c; int w; } t[] = {
		{ 'A', 1 }, { 0xE9, 1 }, { 0x2500, 1 }, { 0x2588, 1 }, { 0x0300, 0 }, { 0x036F, 0 },
		{ 0x0370, 1 }, { 0x200B, 0 }, { 0x10FF, 1 }, { 0x1100, 2 }, { 0x115F, 2 },
		{ 0x1160, 1 }, { 0x4E2D, 2 }, { 0xAC00, 2 }, { 0xD7A3, 2 }, { 0xD7A4, 1 },
		{ 0xFF21, 2 }, { 0xFF61, 1 }, { 0x1F600, 2 }, { 0x1F650, 1 }, { 0x1F900, 2 },
		{ 0x20000, 2 }, { 0x3FFFD, 2 }, { 0x3FFFE, 1 }, { 0x07, -1 }, { 0x7F, -1 },
		{ 0x9B, -1 }, { 0xA0, 1 }, { 0xD800, -1 }, { 0xFFFF, -1 }, { 0x110000, -1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (gp_cv_wcwidth((wchar_t)t[i].c) != t[i].w)
			fail_msg("wcwidth(U+%04X) = %d, expected %d", (unsigned)t[i].c,
				 gp_cv_wcwidth((wchar_t)t[i].c), t[i].w);
	assert_int_equal(gp_cv_wcwidth(GP_CV_WIDE_TAIL), -1);
	assert_int_equal(gp_cv_width("a\xE4\xB8\xAD" "b"), 4);          /* a中b */
	assert_int_equal(gp_cv_width("e\xCC\x81"), 1);                  /* e + acute */
	assert_int_equal(gp_cv_width("\xFF\xFE" "x\t"), 4);
	assert_int_equal(gp_cv_width(""), 0);
	assert_int_equal(gp_cv_width(NULL), 0);
}

static void test_clipping(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 10, 3), 0);
	assert_int_equal(gp_cv_text(&cv, -2, 0, -1, plain, "abcdef"), 6);
	assert_string_equal(row_str(&cv, 0), "cdef      ");
	assert_int_equal(gp_cv_text(&cv, 7, 1, -1, plain, "abcdef"), 3);
	assert_string_equal(row_str(&cv, 1), "       abc");
	assert_int_equal(gp_cv_text(&cv, 0, 2, 4, plain, "abcdef"), 4);
	assert_string_equal(row_str(&cv, 2), "abcd      ");
	assert_int_equal(gp_cv_text(&cv, 0, 3, -1, plain, "abc"), 3);   /* below: not drawn */
	assert_null(gp_cv_at(&cv, 10, 0));
	assert_null(gp_cv_at(&cv, 0, -1));

	gp_cv_clear(&cv, plain);
	gp_cv_clip(&cv, (struct gp_rect){ 2, 0, 3, 2 });
	assert_int_equal(gp_cv_text(&cv, 0, 0, -1, plain, "abcdefgh"), 5);
	assert_string_equal(row_str(&cv, 0), "  cde     ");
	gp_cv_text(&cv, 0, 2, -1, plain, "abcdefgh");
	gp_cv_put(&cv, 5, 1, 'z', plain);
	gp_cv_put(&cv, 1, 1, 'z', plain);
	gp_cv_fill(&cv, (struct gp_rect){ 0, 0, 10, 3 }, 'x', plain);
	int xs = 0;
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 10; x++)
			xs += ch_at(&cv, x, y) == 'x';
	assert_int_equal(xs, 6);
	assert_string_equal(row_str(&cv, 2), "          ");

	gp_cv_clip(&cv, (struct gp_rect){ -5, -5, 8, 100 });
	assert_int_equal(cv.clip.x, 0);
	assert_int_equal(cv.clip.y, 0);
	assert_int_equal(cv.clip.w, 3);
	assert_int_equal(cv.clip.h, 3);
	gp_cv_clip(&cv, (struct gp_rect){ 20, 0, 5, 5 });
	assert_int_equal(cv.clip.w * cv.clip.h, 0);
	gp_cv_put(&cv, 2, 0, 'q', plain);
	assert_int_equal(ch_at(&cv, 2, 0), 'x');
	gp_cv_unclip(&cv);
	assert_int_equal(cv.clip.w, 10);
	gp_cv_free(&cv);
}

static void test_text_characters(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 12, 2), 0);
	assert_int_equal(gp_cv_text(&cv, 0, 0, -1, plain, "a\tb\xFF" "c" "e\xCC\x81" "x"), 7);
	assert_string_equal(row_str(&cv, 0), "a?b*cex     ");
	assert_int_equal(ch_at(&cv, 3, 0), 0xFFFD);
	assert_int_equal(gp_cv_printf(&cv, 0, 1, -1, plain, "%d-%s", 42, "z"), 4);
	assert_string_equal(row_str(&cv, 1), "42-z        ");
	/* Longer than printf's stack buffer. */
	struct gp_canvas big;
	assert_int_equal(gp_cv_init(&big, 300, 1), 0);
	char s[281];
	for (int i = 0; i < 280; i++)
		s[i] = (char)('a' + i % 26);
	s[280] = 0;
	assert_int_equal(gp_cv_printf(&big, 0, 0, -1, plain, "%s", s), 280);
	assert_int_equal(ch_at(&big, 279, 0), 'a' + 279 % 26);
	assert_int_equal(ch_at(&big, 280, 0), ' ');
	gp_cv_free(&big);
	/* The same cells whatever the locale. */
	struct gp_canvas other;
	assert_int_equal(gp_cv_init(&other, 12, 2), 0);
	char *old = strdup(setlocale(LC_ALL, NULL));
	const char *t = "\xE4\xB8\xAD\xC3\xA9\xE2\x96\x80!";
	setlocale(LC_ALL, "C");
	gp_cv_text(&cv, 0, 1, -1, plain, t);
	bool utf8 = setlocale(LC_ALL, "C.UTF-8") != NULL;
	gp_cv_text(&other, 0, 1, -1, plain, t);
	setlocale(LC_ALL, old);
	free(old);
	for (int x = 0; x < 12; x++)
		assert_int_equal(ch_at(&cv, x, 1), ch_at(&other, x, 1));
	assert_int_equal(ch_at(&cv, 0, 1), 0x4E2D);
	assert_int_equal(ch_at(&cv, 3, 1), 0x2580);
	if (!utf8)
		print_message("# no C.UTF-8 locale: compared C with C\n");
	gp_cv_free(&other);
	gp_cv_free(&cv);
}

static void test_wide(void **state)
{
	(void)state;
	struct gp_canvas cv;
	const char *zh = "\xE4\xB8\xAD";   /* 中 */
	assert_int_equal(gp_cv_init(&cv, 10, 4), 0);
	gp_cv_fill(&cv, (struct gp_rect){ 0, 0, 10, 4 }, '.', plain);
	assert_int_equal(gp_cv_text(&cv, 0, 0, -1, plain, zh), 2);
	assert_int_equal(ch_at(&cv, 0, 0), 0x4E2D);
	assert_int_equal(ch_at(&cv, 1, 0), GP_CV_WIDE_TAIL);
	assert_int_equal(gp_cv_text(&cv, 9, 0, -1, plain, zh), 1);   /* the right edge */
	assert_string_equal(row_str(&cv, 0), "*~....... ");
	assert_int_equal(gp_cv_text(&cv, -1, 1, -1, plain, "\xE4\xB8\xAD" "a"), 3);
	assert_string_equal(row_str(&cv, 1), " a........");
	assert_int_equal(gp_cv_text(&cv, 0, 2, 3, plain, "\xE4\xB8\xAD\xE4\xB8\xAD"), 3);
	assert_string_equal(row_str(&cv, 2), "*~ .......");
	gp_cv_clip(&cv, (struct gp_rect){ 0, 0, 5, 4 });
	gp_cv_text(&cv, 4, 3, 10, plain, zh);   /* cut by the clip, not by maxw */
	gp_cv_unclip(&cv);
	assert_string_equal(row_str(&cv, 3), ".... .....");

	/* Overwriting either half blanks the other. */
	gp_cv_clear(&cv, plain);
	gp_cv_put(&cv, 2, 0, 0x4E2D, plain);
	gp_cv_put(&cv, 3, 0, 'x', plain);
	gp_cv_put(&cv, 5, 0, 0x4E2D, plain);
	gp_cv_put(&cv, 5, 0, 'y', plain);
	assert_string_equal(row_str(&cv, 0), "   x y    ");
	gp_cv_put(&cv, 0, 1, 0x4E2D, plain);
	gp_cv_put(&cv, 1, 1, 0x4E2D, plain);
	assert_string_equal(row_str(&cv, 1), " *~       ");
	gp_cv_fill(&cv, (struct gp_rect){ 0, 2, 5, 1 }, 0x4E2D, plain);
	assert_string_equal(row_str(&cv, 2), "*~*~      ");
	gp_cv_free(&cv);
}

/* Random drawing on a small canvas never leaves a tail without its wide
 * character nor a wide character without its tail. */
static void test_wide_invariant(void **state)
{
	(void)state;
	static const char *const texts[] = { "\xE4\xB8\xAD", "ab", "\xE4\xB8\xADx\xEF\xBC\xA1", "q" };
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 7, 3), 0);
	uint32_t seed = 12345;
	for (int it = 0; it < 20000; it++) {
		seed = seed * 1103515245u + 12345u;
		uint32_t r = seed >> 8;
		int x = (int)(r % 11) - 2, y = (int)(r / 11 % 3);
		switch (r / 33 % 4) {
		case 0: gp_cv_put(&cv, x, y, r & 64 ? 0x4E2D : 'n', plain); break;
		case 1: gp_cv_text(&cv, x, y, (int)(r / 200 % 6) - 1, plain, texts[r / 132 % 4]); break;
		case 2: gp_cv_clip(&cv, (struct gp_rect){ x, 0, (int)(r / 132 % 6), 3 }); break;
		default: gp_cv_fill(&cv, (struct gp_rect){ x, y, (int)(r / 132 % 5), 1 },
				    r & 64 ? 0x4E2D : 'f', plain);
		}
		for (int yy = 0; yy < 3; yy++)
			for (int xx = 0; xx < 7; xx++) {
				wchar_t c = ch_at(&cv, xx, yy);
				if (c == GP_CV_WIDE_TAIL)
					assert_true(xx > 0 && gp_cv_wcwidth(ch_at(&cv, xx - 1, yy)) == 2);
				if (gp_cv_wcwidth(c) == 2)
					assert_true(xx < 6 && ch_at(&cv, xx + 1, yy) == GP_CV_WIDE_TAIL);
			}
	}
	gp_cv_free(&cv);
}

static void test_box(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 8, 5), 0);
	gp_cv_box(&cv, (struct gp_rect){ 0, 0, 6, 4 }, plain, "ab");
	static const wchar_t top[] = { 0x250C, ' ', 'a', 'b', ' ', 0x2510, ' ' };
	for (int x = 0; x < 7; x++)
		assert_int_equal(ch_at(&cv, x, 0), top[x]);
	for (int y = 1; y < 3; y++) {
		assert_int_equal(ch_at(&cv, 0, y), 0x2502);
		assert_int_equal(ch_at(&cv, 5, y), 0x2502);
		for (int x = 1; x < 5; x++)
			assert_int_equal(ch_at(&cv, x, y), ' ');
	}
	assert_int_equal(ch_at(&cv, 0, 3), 0x2514);
	assert_int_equal(ch_at(&cv, 5, 3), 0x2518);
	for (int x = 1; x < 5; x++)
		assert_int_equal(ch_at(&cv, x, 3), 0x2500);
	assert_int_equal(ch_at(&cv, 0, 4), ' ');
	/* A long title stops before the corner, without its last space. */
	gp_cv_box(&cv, (struct gp_rect){ 0, 0, 6, 4 }, plain, "abcdef");
	assert_string_equal(row_str(&cv, 0), "* abc*  ");
	assert_int_equal(ch_at(&cv, 5, 0), 0x2510);

	gp_cv_clear(&cv, plain);
	cv.ascii = true;
	gp_cv_box(&cv, (struct gp_rect){ 1, 1, 4, 3 }, plain, NULL);
	assert_string_equal(row_str(&cv, 0), "        ");
	assert_string_equal(row_str(&cv, 1), " +--+   ");
	assert_string_equal(row_str(&cv, 2), " |  |   ");
	assert_string_equal(row_str(&cv, 3), " +--+   ");
	/* Clipped by the canvas: the corner that shows is the right one. */
	gp_cv_clear(&cv, plain);
	gp_cv_box(&cv, (struct gp_rect){ -1, -1, 4, 4 }, plain, NULL);
	assert_string_equal(row_str(&cv, 0), "  |     ");
	assert_string_equal(row_str(&cv, 2), "--+     ");
	gp_cv_free(&cv);
}

static void test_bar(void **state)
{
	(void)state;
	assert_int_equal(gp_cv_eighth(1), 0x258F);
	assert_int_equal(gp_cv_eighth(4), 0x258C);
	assert_int_equal(gp_cv_eighth(8), 0x2588);
	assert_int_equal(gp_cv_eighth(0), ' ');
	assert_int_equal(gp_cv_eighth(9), 0x2588);
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 12, 2), 0);
	gp_cv_bar(&cv, 1, 0, 10, 0.55, 0x00FF00, 0x202020);
	for (int i = 0; i < 10; i++) {
		const struct gp_cell *c = gp_cv_cell(&cv, 1 + i, 0);
		assert_int_equal(c->ch, i < 5 ? 0x2588 : i == 5 ? 0x258C : ' ');
		assert_int_equal(c->fg, 0x00FF00);
		assert_int_equal(c->bg, 0x202020);
	}
	assert_int_equal(ch_at(&cv, 0, 0), ' ');
	assert_int_equal(gp_cv_cell(&cv, 11, 0)->bg, GP_CV_DEFAULT);
	/* Every k/(8w) draws exactly k eighths. */
	for (int w = 1; w <= 12; w++)
		for (int k = 0; k <= 8 * w; k++) {
			gp_cv_bar(&cv, 0, 1, w, k / (8.0 * w), 1, 2);
			int e = 0;
			for (int x = 0; x < w; x++) {
				wchar_t c = ch_at(&cv, x, 1);
				e += c == ' ' ? 0 : 0x2590 - c;
			}
			assert_int_equal(e, k);
		}
	gp_cv_bar(&cv, 0, 1, 4, NAN, 1, 2);
	assert_string_equal(row_str(&cv, 1), "    ********");
	cv.ascii = true;
	gp_cv_bar(&cv, 0, 1, 10, 0.5, 1, 2);
	assert_string_equal(row_str(&cv, 1), "#####     **");
	gp_cv_bar(&cv, 0, 1, 10, 7, 1, 2);
	assert_string_equal(row_str(&cv, 1), "##########**");
	gp_cv_free(&cv);
}

static void test_export_text(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 8, 3), 0);
	gp_cv_text(&cv, 0, 0, -1, fg(0xFF0000), "ab");
	gp_cv_text(&cv, 2, 2, -1, plain, "c\xE4\xB8\xAD");
	gp_cv_fill(&cv, (struct gp_rect){ 5, 2, 3, 1 }, ' ', (struct gp_style){ 1, 2, 0 });
	char *s = export_str(&cv, GP_EXPORT_TEXT, 0, 0, NULL);
	assert_string_equal(s, "ab\n\n  c\xE4\xB8\xAD\n");
	free(s);
	cv.ascii = true;
	gp_cv_text(&cv, 0, 1, -1, plain, "\xC3\xA9\xE4\xB8\xAD" "d");
	s = export_str(&cv, GP_EXPORT_TEXT, 0, 0, NULL);
	assert_string_equal(s, "ab\n?? d\n  c?\n");
	free(s);
	gp_cv_free(&cv);
}

static void test_export_ansi(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 10, 4), 0);
	gp_cv_text(&cv, 0, 0, -1, fg(0xFF0000), "ab");
	gp_cv_text(&cv, 2, 0, -1, fg(0xFF0000), "cd");
	gp_cv_text(&cv, 4, 0, -1, (struct gp_style){ GP_CV_DEFAULT, GP_CV_DEFAULT, GP_CV_BOLD }, "e");
	gp_cv_text(&cv, 0, 1, -1, fg(0x0000FF), "x");
	gp_cv_text(&cv, 1, 1, -1, plain, "y");
	gp_cv_text(&cv, 0, 2, -1, (struct gp_style){ 0x010203, GP_CV_DEFAULT, GP_CV_BOLD }, "b");
	gp_cv_text(&cv, 1, 2, -1, (struct gp_style){ 0x010203, 0x0A0B0C, GP_CV_DIM }, "d  ");
	char *s = export_str(&cv, GP_EXPORT_ANSI, 0, 0, NULL);
	assert_string_equal(s, "\033[38;2;255;0;0mabcd\033[1;39me\033[0m\n"
			       "\033[38;2;0;0;255mx\033[39my\n"
			       "\033[1;38;2;1;2;3mb\033[22;2;48;2;10;11;12md  \033[0m\n"
			       "\n");
	/* One sequence per change and one reset per row that ends styled. */
	assert_int_equal(count(s, "\033["), 8);
	assert_int_equal(count(s, "\033[0m"), 2);
	free(s);
	gp_cv_free(&cv);
}

static void test_export_html(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 8, 2), 0);
	gp_cv_text(&cv, 0, 0, -1, plain, "<a&b>");
	gp_cv_text(&cv, 0, 1, -1, fg(0x0000FF), "x");
	gp_cv_text(&cv, 1, 1, -1, fg(0xFF0000), "y");
	gp_cv_text(&cv, 2, 1, -1, fg(0x0000FF), "z");
	gp_cv_text(&cv, 3, 1, -1, (struct gp_style){ GP_CV_DEFAULT, 0xFF0000, GP_CV_REVERSE }, "r");
	char *s = export_str(&cv, GP_EXPORT_HTML, 0x112233, 0x445566, "<t>");
	assert_non_null(strstr(s, "<title>&lt;t&gt;</title>"));
	assert_non_null(strstr(s, "color: #112233; background: #445566;"));
	assert_non_null(strstr(s, "<pre class=\"gp\">&lt;a&amp;b&gt;\n"));
	assert_null(strstr(s, "<a&b>"));
	assert_non_null(strstr(s, ".s1 { color: #0000ff; }\n.s2 { color: #ff0000; }\n"
				  ".s3 { color: #ff0000; background: #112233; }\n"));
	assert_non_null(strstr(s, "<span class=\"s1\">x</span><span class=\"s2\">y</span>"
				  "<span class=\"s1\">z</span><span class=\"s3\">r</span>\n"));
	assert_int_equal(count(s, "<span"), 4);
	assert_null(strstr(s, "http"));   /* self-contained: nothing fetched */
	free(s);
	gp_cv_free(&cv);
}

static void test_export_svg(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 6, 3), 0);
	gp_cv_fill(&cv, (struct gp_rect){ 1, 0, 3, 1 }, ' ', (struct gp_style){ 1, 0x336699, 0 });
	gp_cv_put(&cv, 2, 1, 0x2580, fg(0xFF0000));       /* ▀ */
	gp_cv_put(&cv, 3, 1, 0x2581, fg(0x00FF00));       /* ▁ */
	gp_cv_put(&cv, 4, 1, 0x2592, fg(0x0000FF));       /* ▒ */
	gp_cv_put(&cv, 5, 1, 0x2801, fg(0x00FFFF));       /* ⠁ */
	gp_cv_put(&cv, 0, 2, 0x250C, fg(0xABCDEF));       /* ┌ */
	gp_cv_put(&cv, 1, 2, 0x2500, fg(0xABCDEF));       /* ─ */
	gp_cv_text(&cv, 2, 2, -1, fg(0x123456), "a<\xE4\xB8\xAD");
	char *s = export_str(&cv, GP_EXPORT_SVG, 0xEEEEEE, 0x000000, "t&");
	assert_int_equal(count(s, "fill=\"#336699\""), 1);
	assert_non_null(strstr(s, "<rect x=\"9\" y=\"0\" width=\"27\" height=\"18\" fill=\"#336699\"/>"));
	assert_non_null(strstr(s, "<path fill=\"#ff0000\" d=\"M18 18h9v9h-9z\"/>"));
	assert_non_null(strstr(s, "<path fill=\"#00ff00\" d=\"M27 33.75h9v2.25h-9z\"/>"));
	assert_non_null(strstr(s, "<rect x=\"36\" y=\"18\" width=\"9\" height=\"18\" fill=\"#0000ff\""
				  " fill-opacity=\"0.5\"/>"));
	assert_non_null(strstr(s, "<path fill=\"#00ffff\" d=\"M46.25 19.25h2v2h-2z\"/>"));
	/* ┌ and ─ in one path: the corner's arms meet, the line spans its cell. */
	assert_non_null(strstr(s, "<path fill=\"#abcdef\" d=\"M4 44h5v1h-5zM4 44h1v10h-1z"
				  "M9 44h5v1h-5zM13 44h5v1h-5z\"/>"));
	assert_non_null(strstr(s, "<text x=\"18\" y=\"50\" textLength=\"36\" lengthAdjust="
				  "\"spacingAndGlyphs\" fill=\"#123456\">a&lt;\xE4\xB8\xAD</text>"));
	assert_int_equal(count(s, "<text"), 1);   /* the blocks are not text */
	assert_non_null(strstr(s, "<title>t&amp;</title>"));
	assert_non_null(strstr(s, "shape-rendering=\"crispEdges\""));
	assert_non_null(strstr(s, "xml:space=\"preserve\""));
	char *again = export_str(&cv, GP_EXPORT_SVG, 0xEEEEEE, 0x000000, "t&");
	assert_string_equal(s, again);
	free(again);
	free(s);
	gp_cv_free(&cv);
}

/* Text runs break where the colour does, not where the background or a
 * plain space does; a dim run takes the colour halfway to its background. */
static void test_svg_runs(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 12, 1), 0);
	gp_cv_text(&cv, 0, 0, -1, (struct gp_style){ 0xFF0000, 0x111111, 0 }, "ab");
	gp_cv_text(&cv, 2, 0, -1, (struct gp_style){ 0xFF0000, 0x222222, 0 }, "c ");
	gp_cv_text(&cv, 4, 0, -1, fg(0xFF0000), "d");
	gp_cv_text(&cv, 6, 0, -1, (struct gp_style){ 0xFFFFFF, 0x000000, GP_CV_DIM | GP_CV_BOLD }, "e");
	char *s = export_str(&cv, GP_EXPORT_SVG, 0xEEEEEE, 0x000000, NULL);
	assert_int_equal(count(s, "<text"), 2);
	assert_non_null(strstr(s, "textLength=\"45\" lengthAdjust=\"spacingAndGlyphs\" fill=\"#ff0000\">abc d</text>"));
	assert_non_null(strstr(s, "x=\"54\" y=\"14\" textLength=\"9\" lengthAdjust=\"spacingAndGlyphs\""
				  " fill=\"#7f7f7f\" font-weight=\"bold\">e</text>"));
	free(s);
	gp_cv_free(&cv);
}

static void test_format_and_errors(void **state)
{
	(void)state;
	static const struct { const char *path; int rc; enum gp_export_fmt fmt; } t[] = {
		{ "a.svg", 0, GP_EXPORT_SVG }, { "x/y.HTML", 0, GP_EXPORT_HTML },
		{ "s.htm", 0, GP_EXPORT_HTML }, { "f.txt", 0, GP_EXPORT_TEXT },
		{ "f.ans", 0, GP_EXPORT_ANSI }, { "f.png", -1, 0 }, { "noext", -1, 0 },
		{ "dir.svg/file", -1, 0 }, { "f.svgz", -1, 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
		enum gp_export_fmt fmt = GP_EXPORT_TEXT;
		assert_int_equal(gp_export_format_of(t[i].path, &fmt), t[i].rc);
		if (!t[i].rc)
			assert_int_equal(fmt, t[i].fmt);
	}
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 4, 2), 0);
	gp_cv_text(&cv, 0, 0, -1, plain, "full");
	for (int fmt = GP_EXPORT_TEXT; fmt <= GP_EXPORT_SVG; fmt++) {
		assert_int_equal(gp_export(f, &cv, (enum gp_export_fmt)fmt, 0, 0, NULL), -1);
		clearerr(f);
	}
	fclose(f);
	gp_cv_free(&cv);
}

/* A 200 x 60 screen of varied styles: prints the time an SVG takes. */
static void test_svg_speed(void **state)
{
	(void)state;
	static const wchar_t chars[] = { 'a', 'Z', ' ', 0x2580, 0x2584, 0x258C, 0x2592, 0x2500,
					 0x250C, 0x2502, 0x28FF, 0x4E2D, '<', 0x2588 };
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 200, 60), 0);
	uint32_t seed = 7;
	for (int y = 0; y < 60; y++)
		for (int x = 0; x < 200; x++) {
			seed = seed * 1103515245u + 12345u;
			uint32_t r = seed >> 8;
			struct gp_style st = { r % 5 ? 0x204080 * (r % 7) : GP_CV_DEFAULT,
					       r % 3 ? 0x102030 * (r / 7 % 5) : GP_CV_DEFAULT,
					       (uint16_t)(r / 35 % 32) };
			gp_cv_put(&cv, x, y, chars[r / 1120 % (sizeof chars / sizeof *chars)], st);
		}
	FILE *f = fopen("/dev/null", "w");
	assert_non_null(f);
	struct timespec t0, t1;
	const int n = 20;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++)
		assert_int_equal(gp_export(f, &cv, GP_EXPORT_SVG, 0xEEEEEE, 0, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fclose(f);
	double ms = ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / n;
	char *s = export_str(&cv, GP_EXPORT_SVG, 0xEEEEEE, 0, NULL);
	print_message("# svg of 200x60 varied cells: %.2f ms, %zu bytes\n", ms, strlen(s));
	free(s);
	assert_true(ms < 200);   /* a loose bound: sanitizer builds are slow */
	gp_cv_free(&cv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_decode),
		cmocka_unit_test(test_utf8_matches_glibc),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_clipping),
		cmocka_unit_test(test_text_characters),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_wide_invariant),
		cmocka_unit_test(test_box),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_export_text),
		cmocka_unit_test(test_export_ansi),
		cmocka_unit_test(test_export_html),
		cmocka_unit_test(test_export_svg),
		cmocka_unit_test(test_svg_runs),
		cmocka_unit_test(test_format_and_errors),
		cmocka_unit_test(test_svg_speed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
