/*
 * keys.c: key names and key scripts (keys.h).
 */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	int code;
} names[] = {
	{ "Enter", GP_K_ENTER }, { "CR", GP_K_ENTER }, { "Esc", GP_K_ESC },
	{ "Tab", GP_K_TAB }, { "S-Tab", GP_K_BTAB }, { "BS", GP_K_BS },
	{ "Del", GP_K_DEL }, { "Up", GP_K_UP }, { "Down", GP_K_DOWN },
	{ "Left", GP_K_LEFT }, { "Right", GP_K_RIGHT }, { "PgUp", GP_K_PGUP },
	{ "PgDn", GP_K_PGDN }, { "Home", GP_K_HOME }, { "End", GP_K_END },
	{ "Space", ' ' }, { "lt", '<' },
};

void gp_key_name(int code, char *buf, size_t n)
{
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].code == code && strcmp(names[i].name, "CR") &&
		    strcmp(names[i].name, "Space") && strcmp(names[i].name, "lt")) {
			snprintf(buf, n, "<%s>", names[i].name);
			return;
		}
	if (code >= GP_K_F1 && code <= GP_K_F12)
		snprintf(buf, n, "<F%d>", code - GP_K_F1 + 1);
	else if (code > 0 && code < 32)
		snprintf(buf, n, "<C-%c>", code + 'a' - 1);
	else if (code == ' ')
		snprintf(buf, n, "<Space>");
	else if (code == '<')
		snprintf(buf, n, "<lt>");
	else if (code > 0 && code < 0x80)
		snprintf(buf, n, "%c", code);
	else if (code > 0 && code < GP_K_BASE) {
		/* UTF-8 of the code point. */
		char u[5] = { 0 };
		if (code < 0x800) {
			u[0] = (char)(0xc0 | code >> 6);
			u[1] = (char)(0x80 | (code & 0x3f));
		} else if (code < 0x10000) {
			u[0] = (char)(0xe0 | code >> 12);
			u[1] = (char)(0x80 | (code >> 6 & 0x3f));
			u[2] = (char)(0x80 | (code & 0x3f));
		} else {
			u[0] = (char)(0xf0 | code >> 18);
			u[1] = (char)(0x80 | (code >> 12 & 0x3f));
			u[2] = (char)(0x80 | (code >> 6 & 0x3f));
			u[3] = (char)(0x80 | (code & 0x3f));
		}
		snprintf(buf, n, "%s", u);
	} else {
		snprintf(buf, n, "<?>");
	}
}

/* One UTF-8 character at s; its length in *len (1 on a bad byte). */
static int utf8_next(const char *s, int *len)
{
	unsigned char c = (unsigned char)s[0];
	int n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 :
		(c & 0xf8) == 0xf0 ? 4 : 0;
	if (!n) {
		*len = 1;
		return 0xfffd;
	}
	int cp = n == 1 ? c : c & (0x7f >> n);
	for (int i = 1; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80) {
			*len = 1;
			return 0xfffd;
		}
		cp = cp << 6 | ((unsigned char)s[i] & 0x3f);
	}
	*len = n;
	return cp;
}

/* <Name> at s (after '<', up to '>'), into *k. */
static bool parse_name(const char *s, size_t len, struct gp_key *k)
{
	char nm[32];
	if (len >= sizeof nm)
		return false;
	memcpy(nm, s, len);
	nm[len] = 0;
	*k = (struct gp_key){ 0 };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcasecmp(nm, names[i].name)) {
			k->code = names[i].code;
			return true;
		}
	int a, b;
	char c;
	if ((nm[0] == 'F' || nm[0] == 'f') && sscanf(nm + 1, "%d%c", &a, &c) == 1 && a >= 1 &&
	    a <= 12) {
		k->code = GP_K_F(a);
		return true;
	}
	if ((nm[0] == 'C' || nm[0] == 'c') && nm[1] == '-' && nm[2] && !nm[3]) {
		char x = nm[2] >= 'A' && nm[2] <= 'Z' ? (char)(nm[2] + 32) : nm[2];
		if (x >= 'a' && x <= 'z') {
			k->code = GP_K_CTRL(x);
			return true;
		}
	}
	if (sscanf(nm, "Resize %dx%d%c", &a, &b, &c) == 2 && a > 0 && b > 0 && a <= 1000 &&
	    b <= 1000) {
		*k = (struct gp_key){ .code = GP_K_RESIZE, .x = a, .y = b };
		return true;
	}
	if (!strcmp(nm, "Wait") || (sscanf(nm, "Wait %d%c", &a, &c) == 1 && a > 0)) {
		*k = (struct gp_key){ .code = GP_K_WAIT, .x = strcmp(nm, "Wait") ? a : 0 };
		return true;
	}
	char dir[8];
	bool shift = !strncmp(nm, "S-Wheel ", 8);
	if (sscanf(nm + (shift ? 2 : 0), "Wheel %d,%d %7s%c", &a, &b, dir, &c) == 3 && a >= 0 &&
	    b >= 0 && (!strcmp(dir, "up") || !strcmp(dir, "down"))) {
		*k = (struct gp_key){ .code = GP_K_MOUSE, .x = a, .y = b,
				      .button = dir[0] == 'u' ? 4 : 5, .shift = shift };
		return true;
	}
	if (sscanf(nm, "Click %d,%d%c", &a, &b, &c) == 2 && a >= 0 && b >= 0) {
		*k = (struct gp_key){ .code = GP_K_MOUSE, .x = a, .y = b, .button = 1 };
		return true;
	}
	return false;
}

int gp_keys_parse(const char *script, struct gp_key *keys, int max, int *where)
{
	int n = 0;
	struct gp_key scratch;
	for (const char *p = script; *p && (!keys || n < max);) {
		struct gp_key *k = keys ? &keys[n] : &scratch;
		if (*p == '<') {
			const char *end = strchr(p + 1, '>');
			if (!end || !parse_name(p + 1, (size_t)(end - p - 1), k)) {
				*where = (int)(p - script);
				return -1;
			}
			n++;
			p = end + 1;
			continue;
		}
		if (*p == '\n') {   /* a script file's line ends are not keys */
			p++;
			continue;
		}
		int len;
		*k = (struct gp_key){ .code = utf8_next(p, &len) };
		n++;
		p += len;
	}
	return n;
}
