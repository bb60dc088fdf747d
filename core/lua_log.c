/*
 * lua_log.c: where a script's print and warn go. Never stdout, which
 * carries geoplan's results (JSON, CSV): a sink the caller sets, stderr
 * by default (the one place in core that writes to the terminal).
 *
 * Each line starts with the calling line, "[file.lua:12] "; a run (one
 * armed budget) writes at most LOG_LINES lines, then one "N more lines
 * suppressed" when it ends, so a print in a loop cannot flood a log.
 * warn's pieces are joined until the last (tocont == 0), as Lua's own
 * warning function does, "@on" and "@off" included.
 */
#include "lua_int.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define LOG_LINES 20
#define LOG_WIDTH 1000 /* bytes of one line's text; longer ones are cut */

static void to_stderr(void *ud, const char *line)
{
	(void)ud;
	fprintf(stderr, "%s\n", line);
}

void gp_lua_set_log(struct gp_lua *h, void (*fn)(void *ud, const char *line),
		    void *ud)
{
	h->log.fn = fn ? fn : to_stderr;
	h->log.ud = fn ? ud : NULL;
}

static int log_full(struct gp_lua *h)
{
	return h->log.lines >= LOG_LINES;
}

/* Writes text, line by line, each after prefix. */
static void emit(struct gp_lua *h, const char *prefix, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	do {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		char line[LOG_WIDTH + 400];
		snprintf(line, sizeof line, "%s%.*s%s", prefix,
			 (int)(n > LOG_WIDTH ? LOG_WIDTH : n), p, n > LOG_WIDTH ? "..." : "");
		if (log_full(h))
			h->log.dropped++;
		else {
			h->log.lines++;
			h->log.fn(h->log.ud, line);
		}
		p = nl ? nl + 1 : end;
	} while (p < end);
}

static void prefix_of(lua_State *L, char *buf, size_t n, const char *kind)
{
	char where[300];
	lh_where(L, where, sizeof where);
	snprintf(buf, n, "%s%s%s%s", *where ? "[" : "", where, *where ? "] " : "", kind);
}

/* print(...): tostring of each argument (a __tostring runs under the
 * budget like any Lua code), tabs between. */
int lh_print(lua_State *L)
{
	struct gp_lua *h = lh_host(L);
	if (log_full(h)) {
		h->log.dropped++;
		return 0;
	}
	int n = lua_gettop(L);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	size_t len;
	const char *s = lua_tolstring(L, -1, &len);
	char prefix[320];
	prefix_of(L, prefix, sizeof prefix, "");
	emit(h, prefix, s, len);
	return 0;
}

static void warnf(void *ud, const char *msg, int tocont)
{
	struct gp_lua *h = ud;
	struct lh_log *g = &h->log;
	if (g->wlen == 0 && !tocont && msg[0] == '@') {
		if (!strcmp(msg, "@on"))
			g->warn_off = 0;
		else if (!strcmp(msg, "@off"))
			g->warn_off = 1;
		return;
	}
	size_t n = strlen(msg), room = sizeof g->wbuf - 1 - g->wlen;
	if (n > room)
		n = room;
	memcpy(g->wbuf + g->wlen, msg, n);
	g->wlen += n;
	g->wbuf[g->wlen] = '\0';
	if (tocont)
		return;
	if (!g->warn_off) {
		char prefix[320];
		prefix_of(h->L, prefix, sizeof prefix, "warning: ");
		emit(h, prefix, g->wbuf, g->wlen);
	}
	g->wlen = 0;
}

void lh_open_log(struct gp_lua *h)
{
	gp_lua_set_log(h, NULL, NULL);
	lua_setwarnf(h->L, warnf, h);
}

void lh_log_flush(struct gp_lua *h)
{
	if (h->log.dropped > 0) {
		char line[64];
		snprintf(line, sizeof line, "%ld more lines suppressed", h->log.dropped);
		h->log.fn(h->log.ud, line);
	}
	h->log.dropped = 0;
	h->log.lines = 0;
}
