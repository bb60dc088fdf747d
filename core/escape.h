/*
 * escape.h: names (DCs, GPU types, scenarios: any bytes a scenario file
 * gives) written into the formats geoplan outputs, so that each stays
 * well formed whatever the name holds: XML (the SVG), JSON, CSV (RFC
 * 4180) and Lua string literals (the plan to paste back, saves). Bytes
 * that are not UTF-8 become U+FFFD in XML, JSON and CSV, as do the
 * characters XML 1.0 cannot hold at all.
 */
#ifndef GP_ESCAPE_H
#define GP_ESCAPE_H

#include <stdint.h>
#include <stdio.h>

/* The code point at s and the bytes it takes (0 at the terminating
 * NUL); an invalid sequence (a stray or missing continuation byte, an
 * overlong form, a surrogate, beyond U+10FFFF) gives U+FFFD for its
 * first byte alone, so decoding resumes at the next. */
int gp_utf8_decode(const char *s, uint32_t *cp);

/* XML character data or an attribute value: & < > " ' as entities, tab,
 * newline and carriage return as character references, other controls
 * (which XML 1.0 cannot hold), U+FFFE, U+FFFF and invalid bytes as
 * U+FFFD. */
void gp_esc_xml(FILE *f, const char *s);
/* A JSON string with its quotes: " \ and controls escaped, invalid
 * bytes as \ufffd. */
void gp_esc_json(FILE *f, const char *s);
/* One CSV field (RFC 4180): in quotes, quotes doubled, when it holds a
 * comma, a quote, a carriage return or a newline; invalid bytes as
 * U+FFFD. */
void gp_esc_csv(FILE *f, const char *s);
/* A Lua string literal with its quotes: quotes, backslashes and control
 * bytes escaped (\ddd, three digits, so a digit after one stays itself);
 * other bytes as they are (Lua strings are bytes). */
void gp_esc_lua(FILE *f, const char *s);

#endif
