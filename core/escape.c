/*
 * escape.c: names written into XML, JSON, CSV and Lua so that each stays
 * well formed (escape.h). UTF-8 as RFC 3629 defines it; XML's characters
 * as XML 1.0 section 2.2 allows them; CSV quoting as RFC 4180 section 2.
 */
#include "escape.h"

#include <stdbool.h>
#include <string.h>

int gp_utf8_decode(const char *s, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c = u[0], min;
	int n;
	*cp = 0xFFFD;
	if (c < 0x80) {
		*cp = c;
		return c ? 1 : 0;
	}
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, c &= 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, c &= 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, c &= 0x07, min = 0x10000;
	else
		return 1;
	for (int i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80)   /* a NUL ends the loop here too */
			return 1;
		c = c << 6 | (u[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 1;
	*cp = c;
	return n;
}

/* Code point c as UTF-8. */
static void put_utf8(FILE *f, uint32_t c)
{
	if (c < 0x80) {
		fputc((int)c, f);
	} else if (c < 0x800) {
		fputc((int)(0xC0 | c >> 6), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	} else if (c < 0x10000) {
		fputc((int)(0xE0 | c >> 12), f);
		fputc((int)(0x80 | (c >> 6 & 0x3F)), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	} else {
		fputc((int)(0xF0 | c >> 18), f);
		fputc((int)(0x80 | (c >> 12 & 0x3F)), f);
		fputc((int)(0x80 | (c >> 6 & 0x3F)), f);
		fputc((int)(0x80 | (c & 0x3F)), f);
	}
}

void gp_esc_xml(FILE *f, const char *s)
{
	uint32_t c;
	for (int n; s && (n = gp_utf8_decode(s, &c)) > 0; s += n) {
		switch (c) {
		case '&': fputs("&amp;", f); continue;
		case '<': fputs("&lt;", f); continue;
		case '>': fputs("&gt;", f); continue;
		case '"': fputs("&quot;", f); continue;
		case '\'': fputs("&apos;", f); continue;
		case '\t': case '\n': case '\r': fprintf(f, "&#%u;", (unsigned)c); continue;
		default: break;
		}
		put_utf8(f, c < 0x20 || c == 0xFFFE || c == 0xFFFF ? 0xFFFD : c);
	}
}

void gp_esc_json(FILE *f, const char *s)
{
	uint32_t c;
	fputc('"', f);
	for (int n; s && (n = gp_utf8_decode(s, &c)) > 0; s += n) {
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", (int)c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c < 0x20 || (c == 0xFFFD && n == 1))
			fprintf(f, "\\u%04x", (unsigned)c);
		else
			put_utf8(f, c);
	}
	fputc('"', f);
}

void gp_esc_csv(FILE *f, const char *s)
{
	bool q = s && strpbrk(s, ",\"\r\n");
	uint32_t c;
	if (q)
		fputc('"', f);
	for (int n; s && (n = gp_utf8_decode(s, &c)) > 0; s += n) {
		if (c == '"')
			fputc('"', f);
		put_utf8(f, c);
	}
	if (q)
		fputc('"', f);
}

void gp_esc_lua(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)s; c && *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20 || *c == 0x7f)
			fprintf(f, "\\%03u", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}
