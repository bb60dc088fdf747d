/*
 * export.h: a canvas written as a file, so a screenshot is exactly the
 * screen: plain text (what tests compare), ANSI (what `cat` shows in a
 * terminal), HTML and SVG (what a page or a report embeds).
 *
 * Text: one line per row, trailing blanks trimmed; UTF-8, or ASCII with
 * '?' for anything else when the canvas is ascii (so is ANSI). ANSI: SGR
 * only where the style changes, 24-bit colour, reset before a row ends in
 * a style. HTML and SVG carry their own colours: default_fg and
 * default_bg are what GP_CV_DEFAULT stands for (the theme's), never the
 * viewer's palette, and title is the page's title (NULL: "geoplan").
 * Output is deterministic (no dates, no random ids): a golden file.
 */
#ifndef GP_EXPORT_H
#define GP_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "canvas.h"

enum gp_export_fmt { GP_EXPORT_TEXT, GP_EXPORT_ANSI, GP_EXPORT_HTML, GP_EXPORT_SVG };

/* SVG geometry: a cell is GP_EXPORT_CW x GP_EXPORT_CH px, text 15 px. */
#define GP_EXPORT_CW 9
#define GP_EXPORT_CH 18

/* 0, or -1 on a write error (ferror or a failed fflush) or when out of
 * memory. */
int gp_export(FILE *f, const struct gp_canvas *cv, enum gp_export_fmt fmt,
	      uint32_t default_fg, uint32_t default_bg, const char *title);
/* The format a file name asks for by its extension (.txt .ans .html .htm
 * .svg, any case): 0, or -1 if none. */
int gp_export_format_of(const char *path, enum gp_export_fmt *out);

#endif
