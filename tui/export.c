/*
 * export.c: a canvas as text, ANSI or HTML (SVG is export_svg.c), and
 * what the formats share. Every format reads only the cells, so a file
 * shows what the screen showed; none reads the clock or the locale, so
 * the same canvas always gives the same bytes.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_int.h"

#define ATTRS (GP_CV_BOLD | GP_CV_DIM | GP_CV_UNDERLINE | GP_CV_REVERSE | GP_CV_ITALIC)

wchar_t gp_export_shown(const struct gp_canvas *cv, int x, int y)
{
	const struct gp_cell *row = cv->cells + (size_t)y * (size_t)cv->w;
	wchar_t ch = row[x].ch;
	if (ch == GP_CV_WIDE_TAIL)
		return x > 0 && gp_cv_wcwidth(row[x - 1].ch) == 2 ? 0 : L' ';
	int w = gp_cv_wcwidth(ch);
	if (w == 2)
		return x + 1 < cv->w && row[x + 1].ch == GP_CV_WIDE_TAIL ? ch : L' ';
	return w == 1 ? ch : L'?';
}

static uint32_t rgb(uint32_t c, uint32_t dflt)
{
	return c == GP_CV_DEFAULT ? dflt : c & 0xFFFFFF;
}

struct gp_export_look gp_export_look(const struct gp_cell *c, uint32_t dfg, uint32_t dbg)
{
	struct gp_export_look l = { rgb(c->fg, dfg), rgb(c->bg, dbg), 0 };
	if (c->attr & GP_CV_REVERSE) {
		uint32_t t = l.fg;
		l.fg = l.bg;
		l.bg = t;
	}
	if (c->attr & GP_CV_DIM) {
		uint32_t m = 0;
		for (int s = 0; s < 24; s += 8)
			m |= (((l.fg >> s & 0xFF) + (l.bg >> s & 0xFF)) / 2) << s;
		l.fg = m;
	}
	l.fl = (c->attr & GP_CV_BOLD ? GP_EXPORT_BOLD : 0) |
	       (c->attr & GP_CV_ITALIC ? GP_EXPORT_ITALIC : 0) |
	       (c->attr & GP_CV_UNDERLINE ? GP_EXPORT_UNDERLINE : 0);
	return l;
}

bool gp_export_same(struct gp_export_look a, struct gp_export_look b)
{
	return a.fg == b.fg && a.bg == b.bg && a.fl == b.fl;
}

int gp_export_xml(wchar_t ch, char out[8])
{
	static const char *const esc[] = { "&lt;", "&gt;", "&amp;", "&quot;" };
	const char *e = ch == L'<' ? esc[0] : ch == L'>' ? esc[1] : ch == L'&' ? esc[2] :
			ch == L'"' ? esc[3] : NULL;
	if (!e)
		return gp_cv_encode(ch, out);
	size_t n = strlen(e);
	memcpy(out, e, n);
	return (int)n;
}

static void put_xml(FILE *f, wchar_t ch)
{
	char b[8];
	fwrite(b, 1, (size_t)gp_export_xml(ch, b), f);
}

void gp_export_xml_str(FILE *f, const char *utf8)
{
	while (*utf8) {
		wchar_t ch;
		utf8 += gp_cv_decode(utf8, &ch);
		put_xml(f, gp_cv_wcwidth(ch) < 0 ? L'?' : ch);
	}
}

/* What text and ANSI write for a cell: the shown character, or for an
 * ascii canvas ASCII ('?' for the rest, a space for the tail of a wide
 * character so columns stay); 0: nothing. */
static wchar_t text_char(const struct gp_canvas *cv, int x, int y)
{
	wchar_t ch = gp_export_shown(cv, x, y);
	if (cv->ascii)
		ch = !ch ? L' ' : (uint32_t)ch > 0x7E ? L'?' : ch;
	return ch;
}

static void put_char(FILE *f, wchar_t ch)
{
	char b[4];
	if (ch)
		fwrite(b, 1, (size_t)gp_cv_encode(ch, b), f);
}

static const struct gp_cell *cell(const struct gp_canvas *cv, int x, int y)
{
	return &cv->cells[(size_t)y * (size_t)cv->w + (size_t)x];
}

static int export_text(FILE *f, const struct gp_canvas *cv)
{
	for (int y = 0; y < cv->h; y++) {
		int end = cv->w;
		while (end > 0 && text_char(cv, end - 1, y) == L' ')
			end--;
		for (int x = 0; x < end; x++)
			put_char(f, text_char(cv, x, y));
		fputc('\n', f);
	}
	return 0;
}

static bool same_style(const struct gp_cell *a, const struct gp_cell *b)
{
	return a->fg == b->fg && a->bg == b->bg && (a->attr & ATTRS) == (b->attr & ATTRS);
}

static int colour_param(char *p, int base, uint32_t c)
{
	if (c == GP_CV_DEFAULT)
		return sprintf(p, ";%d", base + 9);
	return sprintf(p, ";%d;2;%u;%u;%u", base + 8, (unsigned)(c >> 16 & 0xFF),
		       (unsigned)(c >> 8 & 0xFF), (unsigned)(c & 0xFF));
}

/* One SGR sequence taking the terminal from style a to style b: only the
 * attributes and colours that change (22 clears bold and dim both). */
static void sgr(FILE *f, const struct gp_cell *a, const struct gp_cell *b)
{
	static const struct { unsigned bit; int on, off; } attr[] = {
		{ GP_CV_BOLD, 1, 22 }, { GP_CV_DIM, 2, 22 }, { GP_CV_ITALIC, 3, 23 },
		{ GP_CV_UNDERLINE, 4, 24 }, { GP_CV_REVERSE, 7, 27 },
	};
	char buf[96], *p = buf;
	unsigned off = a->attr & ATTRS & ~b->attr, on = b->attr & ATTRS & ~a->attr;
	if (off & (GP_CV_BOLD | GP_CV_DIM)) {
		p += sprintf(p, ";22");
		on |= b->attr & (GP_CV_BOLD | GP_CV_DIM);
	}
	for (int i = 2; i < 5; i++)
		if (off & attr[i].bit)
			p += sprintf(p, ";%d", attr[i].off);
	for (int i = 0; i < 5; i++)
		if (on & attr[i].bit)
			p += sprintf(p, ";%d", attr[i].on);
	if (a->fg != b->fg)
		p += colour_param(p, 30, b->fg);
	if (a->bg != b->bg)
		p += colour_param(p, 40, b->bg);
	fprintf(f, "\033[%sm", buf + 1);
}

static int export_ansi(FILE *f, const struct gp_canvas *cv)
{
	const struct gp_cell plain = { L' ', GP_CV_DEFAULT, GP_CV_DEFAULT, 0 };
	for (int y = 0; y < cv->h; y++) {
		int end = cv->w;
		while (end > 0 && text_char(cv, end - 1, y) == L' ' &&
		       same_style(cell(cv, end - 1, y), &plain))
			end--;
		const struct gp_cell *cur = &plain;
		for (int x = 0; x < end; x++) {
			wchar_t ch = text_char(cv, x, y);
			if (!ch)
				continue;
			if (!same_style(cur, cell(cv, x, y))) {
				sgr(f, cur, cell(cv, x, y));
				cur = cell(cv, x, y);
			}
			put_char(f, ch);
		}
		fputs(same_style(cur, &plain) ? "\n" : "\033[0m\n", f);
	}
	return 0;
}

/* The looks HTML gives CSS classes, numbered by first use; a hash of
 * indexes into them (0: empty slot). */
struct looks {
	struct gp_export_look *v;
	int n;
	int *slot;
	size_t nslot;
};

static size_t look_hash(struct gp_export_look l)
{
	uint64_t h = (uint64_t)l.fg * 0x9E3779B97F4A7C15u;
	h ^= ((uint64_t)l.bg << 3 | l.fl) * 0xC2B2AE3D27D4EB4Fu;
	return (size_t)(h ^ h >> 29);
}

static int looks_grow(struct looks *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 64;
	int *slot = calloc(ns, sizeof *slot);
	struct gp_export_look *v = realloc(t->v, sizeof *v * (ns / 2));
	if (!slot || !v) {
		free(slot);
		if (v)
			t->v = v;
		return -1;
	}
	t->v = v;
	for (int i = 0; i < t->n; i++) {
		size_t k = look_hash(v[i]) & (ns - 1);
		while (slot[k])
			k = (k + 1) & (ns - 1);
		slot[k] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = ns;
	return 0;
}

/* The class of l (from 1), added if new; -1 when out of memory. */
static int looks_index(struct looks *t, struct gp_export_look l)
{
	if ((size_t)(t->n + 1) * 2 > t->nslot && looks_grow(t))
		return -1;
	size_t k = look_hash(l) & (t->nslot - 1);
	for (; t->slot[k]; k = (k + 1) & (t->nslot - 1))
		if (gp_export_same(t->v[t->slot[k] - 1], l))
			return t->slot[k];
	t->v[t->n++] = l;
	t->slot[k] = t->n;
	return t->n;
}

static void html_head(FILE *f, const struct looks *t, struct gp_export_look d, const char *title)
{
	fputs("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	gp_export_xml_str(f, title);
	fprintf(f, "</title>\n<style>\n"
		"body { margin: 0; background: #%06x; }\n"
		"pre.gp { margin: 0; padding: 1em; color: #%06x; background: #%06x;"
		" font-family: " GP_EXPORT_FONTS "; font-size: 15px; line-height: 1.2; }\n",
		(unsigned)d.bg, (unsigned)d.fg, (unsigned)d.bg);
	for (int i = 0; i < t->n; i++) {
		const struct gp_export_look *l = &t->v[i];
		fprintf(f, ".s%d {", i + 1);
		if (l->fg != d.fg)
			fprintf(f, " color: #%06x;", (unsigned)l->fg);
		if (l->bg != d.bg)
			fprintf(f, " background: #%06x;", (unsigned)l->bg);
		if (l->fl & GP_EXPORT_BOLD)
			fputs(" font-weight: bold;", f);
		if (l->fl & GP_EXPORT_ITALIC)
			fputs(" font-style: italic;", f);
		if (l->fl & GP_EXPORT_UNDERLINE)
			fputs(" text-decoration: underline;", f);
		fputs(" }\n", f);
	}
	fputs("</style>\n</head>\n<body>\n<pre class=\"gp\">", f);
}

/* One row: a span per run of one look but the page's own. */
static void html_row(FILE *f, const struct gp_canvas *cv, int y, struct looks *t,
		     struct gp_export_look d)
{
	int end = cv->w;
	while (end > 0 && gp_export_shown(cv, end - 1, y) == L' ' &&
	       gp_export_same(gp_export_look(cell(cv, end - 1, y), d.fg, d.bg), d))
		end--;
	int open = 0;
	for (int x = 0; x < end; x++) {
		wchar_t ch = gp_export_shown(cv, x, y);
		if (!ch)
			continue;
		struct gp_export_look l = gp_export_look(cell(cv, x, y), d.fg, d.bg);
		int cls = gp_export_same(l, d) ? 0 : looks_index(t, l);
		if (cls != open) {
			if (open)
				fputs("</span>", f);
			if (cls)
				fprintf(f, "<span class=\"s%d\">", cls);
			open = cls;
		}
		put_xml(f, ch);
	}
	if (open)
		fputs("</span>", f);
	fputc('\n', f);
}

static int export_html(FILE *f, const struct gp_canvas *cv, uint32_t dfg, uint32_t dbg,
		       const char *title)
{
	struct gp_export_look d = { dfg, dbg, 0 };
	struct looks t = { NULL, 0, NULL, 0 };
	int rc = 0;
	/* The classes first, in the order the rows will use them. */
	for (int y = 0; y < cv->h && rc >= 0; y++)
		for (int x = 0; x < cv->w && rc >= 0; x++) {
			struct gp_export_look l = gp_export_look(cell(cv, x, y), dfg, dbg);
			if (gp_export_shown(cv, x, y) && !gp_export_same(l, d))
				rc = looks_index(&t, l);
		}
	if (rc >= 0) {
		html_head(f, &t, d, title);
		for (int y = 0; y < cv->h; y++)
			html_row(f, cv, y, &t, d);
		fputs("</pre>\n</body>\n</html>\n", f);
	}
	free(t.v);
	free(t.slot);
	return rc < 0 ? -1 : 0;
}

int gp_export(FILE *f, const struct gp_canvas *cv, enum gp_export_fmt fmt,
	      uint32_t default_fg, uint32_t default_bg, const char *title)
{
	uint32_t dfg = default_fg == GP_CV_DEFAULT ? 0xE5E5E5 : default_fg & 0xFFFFFF;
	uint32_t dbg = default_bg == GP_CV_DEFAULT ? 0x000000 : default_bg & 0xFFFFFF;
	if (!title)
		title = "geoplan";
	int rc;
	switch (fmt) {
	case GP_EXPORT_TEXT: rc = export_text(f, cv); break;
	case GP_EXPORT_ANSI: rc = export_ansi(f, cv); break;
	case GP_EXPORT_HTML: rc = export_html(f, cv, dfg, dbg, title); break;
	case GP_EXPORT_SVG: rc = gp_export_svg(f, cv, dfg, dbg, title); break;
	default: return -1;
	}
	if (fflush(f) || ferror(f))
		return -1;
	return rc;
}

int gp_export_format_of(const char *path, enum gp_export_fmt *out)
{
	static const struct { const char *ext; enum gp_export_fmt fmt; } ext[] = {
		{ "txt", GP_EXPORT_TEXT }, { "ans", GP_EXPORT_ANSI }, { "html", GP_EXPORT_HTML },
		{ "htm", GP_EXPORT_HTML }, { "svg", GP_EXPORT_SVG },
	};
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return -1;
	for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
		const char *a = dot + 1, *b = ext[i].ext;
		while (*a && *b && tolower((unsigned char)*a) == *b)
			a++, b++;
		if (!*a && !*b) {
			*out = ext[i].fmt;
			return 0;
		}
	}
	return -1;
}
