/*
 * canvas.h: the cell grid every screen draws into. Pure data: no
 * ncurses. display.c copies it to the terminal; export.c writes it as
 * text, ANSI, HTML or SVG, so a screenshot is exactly the screen.
 *
 * A cell holds one character (a wide character takes two cells: the
 * second holds GP_CV_WIDE_TAIL), its foreground and background colour
 * as 24-bit RGB (or GP_CV_DEFAULT, the terminal's own) and attributes.
 * Drawing clips to the canvas and to an optional clip rectangle; text is
 * measured with wcwidth, and a wide character that would straddle the
 * clip edge is replaced by a space.
 *
 * UTF-8 is decoded here and widths come from gp_cv_wcwidth, a fixed
 * table rather than the locale's wcwidth, so a canvas (and its exports)
 * come out the same in every locale, the C locale included. Writing over
 * either half of a wide character blanks its other half (even outside
 * the clip), so a tail cell always follows its wide character.
 */
#ifndef GP_CANVAS_H
#define GP_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define GP_CV_DEFAULT 0xFF000000u   /* the terminal's default colour */
#define GP_CV_WIDE_TAIL ((wchar_t)-1)

enum gp_cv_attr {
	GP_CV_BOLD = 1 << 0,
	GP_CV_DIM = 1 << 1,
	GP_CV_UNDERLINE = 1 << 2,
	GP_CV_REVERSE = 1 << 3,
	GP_CV_ITALIC = 1 << 4,
};

struct gp_style {
	uint32_t fg, bg;    /* 0xRRGGBB or GP_CV_DEFAULT */
	uint16_t attr;      /* enum gp_cv_attr */
};

struct gp_cell {
	wchar_t ch;
	uint32_t fg, bg;
	uint16_t attr;
};

struct gp_rect {
	int x, y, w, h;
};

struct gp_canvas {
	int w, h;
	struct gp_cell *cells;      /* [h][w] */
	struct gp_rect clip;        /* drawing is clipped to it */
	bool ascii;                 /* draw boxes and blocks in ASCII */
};

/* A canvas of w x h cells (at least 1 x 1), blank in the default style.
 * -1 if out of memory. */
int gp_cv_init(struct gp_canvas *cv, int w, int h);
void gp_cv_free(struct gp_canvas *cv);
/* New size; the content is cleared. */
int gp_cv_resize(struct gp_canvas *cv, int w, int h);
void gp_cv_clear(struct gp_canvas *cv, struct gp_style st);

/* The clip rectangle (intersected with the canvas); gp_cv_unclip resets. */
void gp_cv_clip(struct gp_canvas *cv, struct gp_rect r);
void gp_cv_unclip(struct gp_canvas *cv);

struct gp_cell *gp_cv_at(struct gp_canvas *cv, int x, int y);   /* NULL outside */
const struct gp_cell *gp_cv_cell(const struct gp_canvas *cv, int x, int y);

/* One cell (two for a wide character); outside the clip it is dropped.
 * Zero-width characters are dropped, controls show as '?'. */
void gp_cv_put(struct gp_canvas *cv, int x, int y, wchar_t ch, struct gp_style st);
/* Fills a rectangle with ch. */
void gp_cv_fill(struct gp_canvas *cv, struct gp_rect r, wchar_t ch, struct gp_style st);
/* UTF-8 text at (x, y), at most maxw cells (< 0: to the clip edge);
 * returns the cells written, counted from x (cells the clip hid
 * included), so x + n is where more text would go. Control characters
 * show as '?', invalid bytes as U+FFFD, combining marks are dropped. */
int gp_cv_text(struct gp_canvas *cv, int x, int y, int maxw, struct gp_style st,
	       const char *utf8);
/* printf into the canvas (the text above). */
int gp_cv_printf(struct gp_canvas *cv, int x, int y, int maxw, struct gp_style st,
		 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Bytes of the first line of text when wrapped to w cells (at a space
 * where there is one); *next: where the following line starts. */
int gp_cv_wrap(const char *text, int w, int *next);
/* Cells a UTF-8 string takes (wcwidth; invalid bytes count one). */
int gp_cv_width(const char *utf8);

/* A box around r (single lines; ASCII +-| when cv->ascii), with an
 * optional title in its top edge. */
void gp_cv_box(struct gp_canvas *cv, struct gp_rect r, struct gp_style st, const char *title);
void gp_cv_hline(struct gp_canvas *cv, int x, int y, int w, struct gp_style st);
void gp_cv_vline(struct gp_canvas *cv, int x, int y, int h, struct gp_style st);

/* A horizontal bar w cells wide filled to fraction f (0..1) with
 * eighth blocks (ASCII: '#'), in fill over the rest in back. */
void gp_cv_bar(struct gp_canvas *cv, int x, int y, int w, double f, uint32_t fill,
	       uint32_t back);

/* The left-eighths block of n eighths (1..8): U+258F ... U+2588
 * (n < 1: a space, n > 8: the full block). */
wchar_t gp_cv_eighth(int n);

/* Cells a character takes: 1, 2 (East Asian wide and fullwidth, most
 * emoji), 0 (combining marks, zero-width format characters) or -1
 * (controls, surrogates, noncharacters U+FFFE/U+FFFF, beyond U+10FFFF,
 * GP_CV_WIDE_TAIL). */
int gp_cv_wcwidth(wchar_t ch);
/* The character the UTF-8 at s starts with (s not at its end): returns
 * the bytes it takes (1-4); an invalid, overlong or truncated sequence
 * takes one byte and gives U+FFFD. */
int gp_cv_decode(const char *s, wchar_t *ch);
/* ch as UTF-8 into out (no NUL); returns the bytes (1-4). What is not a
 * Unicode scalar value is written as U+FFFD. */
int gp_cv_encode(wchar_t ch, char out[4]);

#endif
