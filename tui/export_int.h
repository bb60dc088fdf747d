/*
 * export_int.h: what export.c and export_svg.c share (not for screens):
 * the character a cell shows and the colours HTML and SVG paint it in.
 */
#ifndef GP_EXPORT_INT_H
#define GP_EXPORT_INT_H

#include <stdbool.h>
#include <stdio.h>

#include "canvas.h"

/* A cell's style resolved to RGB: defaults filled in, reverse swapped,
 * dim blended halfway to the background. */
enum { GP_EXPORT_BOLD = 1, GP_EXPORT_ITALIC = 2, GP_EXPORT_UNDERLINE = 4 };
struct gp_export_look {
	uint32_t fg, bg;
	unsigned fl;    /* GP_EXPORT_BOLD ... */
};

#define GP_EXPORT_FONTS "'DejaVu Sans Mono', 'Liberation Mono', Menlo, Consolas, monospace"

/* The character cell (x, y) shows: 0 for the tail of the wide character
 * before it, ' ' for a stray tail or a wide character with no tail, '?'
 * for what a cell cannot show. */
wchar_t gp_export_shown(const struct gp_canvas *cv, int x, int y);
struct gp_export_look gp_export_look(const struct gp_cell *c, uint32_t dfg, uint32_t dbg);
bool gp_export_same(struct gp_export_look a, struct gp_export_look b);
/* ch escaped for XML text into out; returns the bytes (1-6). */
int gp_export_xml(wchar_t ch, char out[8]);
/* A UTF-8 string escaped for XML text ('?' for controls). */
void gp_export_xml_str(FILE *f, const char *utf8);
/* The SVG writer (export_svg.c); dfg and dbg are RGB. */
int gp_export_svg(FILE *f, const struct gp_canvas *cv, uint32_t dfg, uint32_t dbg,
		  const char *title);

#endif
