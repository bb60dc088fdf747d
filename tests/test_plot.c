/*
 * test_plot.c: the solver pane's graph (tui/plot.c), dot by dot: a
 * falling line over 4 x 2 cells worked out by hand (the dots of each
 * braille cell from Unicode's bit order), the same in ASCII with a
 * second series crossing it, gaps where a value is not finite, and the
 * range of two series.
 */
#include "testutil.h"
#include "plot.h"

static const struct gp_style ink = { 0xffffff, GP_CV_DEFAULT, 0 };
static const struct gp_style dim = { 0x808080, GP_CV_DEFAULT, 0 };

static wchar_t at(const struct gp_canvas *cv, int x, int y)
{
	return gp_cv_cell(cv, x, y)->ch;
}

static void test_dot_bits(void **state)
{
	(void)state;
	/* U+28FF is all eight dots; each bit once. */
	int all = 0;
	for (int dx = 0; dx < 2; dx++)
		for (int dy = 0; dy < 4; dy++) {
			assert_int_equal(all & gp_plot_dot(dx, dy), 0);
			all |= gp_plot_dot(dx, dy);
		}
	assert_int_equal(all, 0xff);
	assert_int_equal(gp_plot_dot(0, 3), 0x40);
	assert_int_equal(gp_plot_dot(1, 3), 0x80);
	assert_int_equal(gp_plot_dot(2, 0), 0);
}

/* Two points, high then low, over 8 x 8 dots: dot columns 0-3 take the
 * first (round(c / 7) = 0), 4-7 the second; column 4 joins row 0 to
 * row 7. */
static void test_braille_step(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 4, 2), 0);
	double y[2] = { 10, 2 };
	struct gp_plot_series s = { y, ink };
	gp_plot(&cv, (struct gp_rect){ 0, 0, 4, 2 }, &s, 1, 2, 2, 10);
	assert_int_equal(at(&cv, 0, 0), 0x2809);   /* row 0, both columns */
	assert_int_equal(at(&cv, 1, 0), 0x2809);
	assert_int_equal(at(&cv, 2, 0), 0x2847);   /* column 4: rows 0-3 */
	assert_int_equal(at(&cv, 2, 1), 0x28c7);   /* rows 4-7, and column 5's row 7 */
	assert_int_equal(at(&cv, 3, 1), 0x28c0);   /* row 7 of columns 6, 7 */
	assert_int_equal(at(&cv, 0, 1), ' ');
	assert_int_equal(at(&cv, 1, 1), ' ');
	assert_int_equal(at(&cv, 3, 0), ' ');
	assert_int_equal(gp_cv_cell(&cv, 0, 0)->fg, ink.fg);
	gp_cv_free(&cv);
}

/* ASCII: a cell a dot; the second series along the bottom meets the
 * first in cells 2 and 3 ('#'), alone in 0 and 1 ('.'). */
static void test_ascii_two_series(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 4, 2), 0);
	cv.ascii = true;
	double y[2] = { 10, 2 }, b[2] = { 2, 2 };
	struct gp_plot_series s[2] = { { y, ink }, { b, dim } };
	gp_plot(&cv, (struct gp_rect){ 0, 0, 4, 2 }, s, 2, 2, 2, 10);
	assert_int_equal(at(&cv, 0, 0), '*');
	assert_int_equal(at(&cv, 1, 0), '*');
	assert_int_equal(at(&cv, 2, 0), '*');
	assert_int_equal(at(&cv, 3, 0), ' ');
	assert_int_equal(at(&cv, 0, 1), '.');
	assert_int_equal(at(&cv, 1, 1), '.');
	assert_int_equal(at(&cv, 2, 1), '#');
	assert_int_equal(at(&cv, 3, 1), '#');
	assert_int_equal(gp_cv_cell(&cv, 0, 1)->fg, dim.fg);
	assert_int_equal(gp_cv_cell(&cv, 2, 1)->fg, ink.fg);   /* the first's style wins */
	gp_cv_free(&cv);
}

/* A value that is not finite leaves its columns empty and breaks the
 * line; the range skips it. */
static void test_gaps_and_range(void **state)
{
	(void)state;
	struct gp_canvas cv;
	assert_int_equal(gp_cv_init(&cv, 3, 1), 0);
	cv.ascii = true;
	double y[3] = { 5, NAN, 5 }, b[3] = { -HUGE_VAL, 1, 7 };
	struct gp_plot_series s[2] = { { y, ink }, { b, dim } };
	double lo, hi;
	assert_true(gp_plot_range(s, 2, 3, &lo, &hi));
	assert_true(lo == 1 && hi == 7);
	gp_plot(&cv, (struct gp_rect){ 0, 0, 3, 1 }, s, 1, 3, 5, 5);
	assert_int_equal(at(&cv, 0, 0), '*');
	assert_int_equal(at(&cv, 1, 0), ' ');
	assert_int_equal(at(&cv, 2, 0), '*');
	double none[2] = { NAN, HUGE_VAL };
	struct gp_plot_series z = { none, ink };
	assert_false(gp_plot_range(&z, 1, 2, &lo, &hi));
	gp_cv_free(&cv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot_bits),
		cmocka_unit_test(test_braille_step),
		cmocka_unit_test(test_ascii_two_series),
		cmocka_unit_test(test_gaps_and_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
