/*
 * lua_read.c: reads the fields of a Lua table for the scenario
 * conversion. Access is raw only, so a scenario's metatables cannot run
 * code behind our back; every complaint names the field path
 * (dcs[2].pools[1].count: expected a positive integer, got -4) and says
 * what was expected; an unknown key suggests the nearest known one.
 */
#include "lua_int.h"

#include <ctype.h>
#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int lh_err(struct lh_cv *c, const char *path, const char *fmt, ...)
{
	char msg[800];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (path && *path)
		gp_errf(c->e, "%s: %s: %s", c->file, path, msg);
	else
		gp_errf(c->e, "%s: %s", c->file, msg);
	c->failed = 1;
	return -1;
}

/* A short description of the value at idx, for "got ..." */
void lh_describe(lua_State *L, int idx, char *buf, size_t n)
{
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
		else if (isnan(lua_tonumber(L, idx)))   /* 0/0: C would say -nan */
			snprintf(buf, n, "not a number (0/0)");
		else if (isinf(lua_tonumber(L, idx)))
			snprintf(buf, n, "%s", lua_tonumber(L, idx) > 0 ? "infinity (1/0)" : "-infinity (-1/0)");
		else if (lua_tonumber(L, idx) == floor(lua_tonumber(L, idx)) &&
			 fabs(lua_tonumber(L, idx)) < 1e18)   /* 1e12: its digits */
			snprintf(buf, n, "%.0f", lua_tonumber(L, idx));
		else
			snprintf(buf, n, "%.6g", lua_tonumber(L, idx));
		break;
	case LUA_TSTRING: {
		size_t len;
		const char *str = lua_tolstring(L, idx, &len);
		snprintf(buf, n, "\"%.40s%s\"", str, len > 40 ? "..." : "");
		break;
	}
	case LUA_TBOOLEAN:
		snprintf(buf, n, "%s", lua_toboolean(L, idx) ? "true" : "false");
		break;
	case LUA_TNIL:
		snprintf(buf, n, "nil");
		break;
	default:
		snprintf(buf, n, "a %s", luaL_typename(L, idx));
	}
}

void lh_join(char *out, size_t n, const char *path, const char *key)
{
	if (path && *path)
		snprintf(out, n, "%s.%s", path, key);
	else
		snprintf(out, n, "%s", key);
}

void lh_joini(char *out, size_t n, const char *path, long i)
{
	snprintf(out, n, "%s[%ld]", path, i);
}

/* Levenshtein distance, case folded when fold (names of things: DCs,
 * GPUs, models, where "llama-2-7b" means "Llama-2-7B"). */
static unsigned edit_distance_f(const char *a, const char *b, bool fold)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 47 || lb > 47)
		return 99;
	unsigned d[48][48];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			char x = a[i - 1], y = b[j - 1];
			if (fold) {
				x = (char)tolower((unsigned char)x);
				y = (char)tolower((unsigned char)y);
			}
			unsigned sub = d[i - 1][j - 1] + (x != y);
			unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins)
					    : (del < ins ? del : ins);
		}
	return d[la][lb];
}

static unsigned edit_distance(const char *a, const char *b)
{
	return edit_distance_f(a, b, false);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lh_nearest(const char *name, const char *const *cands, int n)
{
	int best = -1;
	unsigned bestd = 99, len = (unsigned)strlen(name);
	for (int i = 0; i < n; i++) {
		unsigned d = edit_distance_f(name, cands[i], true);
		if (d < bestd) {
			bestd = d;
			best = i;
		}
	}
	/* Close enough to be a typo: two edits, or a quarter of the name. */
	return best >= 0 && bestd <= (len / 4 > 2 ? len / 4 : 2) ? best : -1;
}

void lh_suggest(const char *name, const char *const *cands, int n, const char *what,
		char *buf, size_t len)
{
	const char **sorted = n > 0 ? malloc(sizeof *sorted * (size_t)n) : NULL;
	int k = lh_nearest(name, cands, n);
	size_t o = 0;
	buf[0] = 0;
	if (sorted) {
		memcpy(sorted, cands, sizeof *sorted * (size_t)n);
		qsort(sorted, (size_t)n, sizeof *sorted, cmp_str);
	}
	/* "A100" means one of the names it starts (A100-40, A100-80) rather
	 * than the one it is an edit away from (H100); a name written in
	 * another case is its own match. */
	int pre = 0;
	size_t ln = strlen(name);
	for (int i = 0; sorted && ln >= 2 && i < n; i++)
		pre += !strncasecmp(sorted[i], name, ln) && sorted[i][ln];
	if (pre > 0 && pre <= 4 && (k < 0 || strcasecmp(cands[k], name))) {
		o += (size_t)snprintf(buf, len, "did you mean");
		for (int i = 0, m = 0; i < n && o < len; i++)
			if (!strncasecmp(sorted[i], name, ln) && sorted[i][ln])
				o += (size_t)snprintf(buf + o, len - o, "%s\"%s\"",
						      m++ ? (m == pre ? " or " : ", ") : " ", sorted[i]);
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "? ");
	} else if (k >= 0) {
		o += (size_t)snprintf(buf, len, "did you mean \"%s\"? ", cands[k]);
	}
	if (o >= len) {
		free(sorted);
		return;
	}
	o += (size_t)snprintf(buf + o, len - o, "%s:", what);
	for (int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s %s", i ? "," : "", sorted ? sorted[i] : cands[i]);
	if (n == 0 && o < len)
		snprintf(buf + o, len - o, " none");
	free(sorted);
}

/* Every key of the table at t must be a listed name, or an integer in
 * 1..npos. Catches typos such as `cout = 8` that would otherwise be
 * silently ignored. */
int lh_check_keys(struct lh_cv *c, int t, const char *path,
		  const char *const *allowed, int npos)
{
	lua_State *L = c->L;
	t = lua_absindex(L, t);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) == LUA_TSTRING) {
			const char *k = lua_tostring(L, -1);
			const char *best = NULL;
			unsigned bestd = 3;
			int ok = 0;
			for (int i = 0; allowed[i]; i++) {
				if (!strcmp(k, allowed[i])) {
					ok = 1;
					break;
				}
				unsigned d = edit_distance(k, allowed[i]);
				if (d < bestd) {
					bestd = d;
					best = allowed[i];
				}
			}
			if (!ok) {
				char p[300];
				lh_join(p, sizeof p, path, k);
				lua_pop(L, 1);
				if (best)
					return lh_err(c, p, "unknown field (did you mean '%s'?)", best);
				return lh_err(c, p, "unknown field");
			}
		} else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 &&
			   lua_tointeger(L, -1) <= npos) {
			/* positional */
		} else {
			char d[64];
			lh_describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return lh_err(c, path, "unexpected key %s", d);
		}
	}
	return 0;
}

/* The table at t must be a list: keys exactly 1..n. Returns n or -1. */
long lh_check_array(struct lh_cv *c, int t, const char *path, long max)
{
	lua_State *L = c->L;
	t = lua_absindex(L, t);
	long n = (long)lua_rawlen(L, t), count = 0;
	lua_pushnil(L);
	while (lua_next(L, t)) {
		lua_pop(L, 1);
		count++;
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
		    lua_tointeger(L, -1) > n) {
			char d[64];
			lh_describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return lh_err(c, path, "expected a list, found key %s", d);
		}
	}
	if (count != n)
		return lh_err(c, path, "expected a list without holes");
	if (n > max)
		return lh_err(c, path, "too many entries (%ld, at most %ld)", n, max);
	return n;
}

/* Pushes t[key] (raw) and returns its type. */
int lh_rawfield(lua_State *L, int t, const char *key)
{
	t = lua_absindex(L, t);
	lua_pushstring(L, key);
	return lua_rawget(L, t);
}

static const char *expected_phrase(int flags)
{
	if (flags & LH_UNIT)
		return "a number in (0, 1]";
	if (flags & LH_INT)
		return flags & LH_POS ? "a positive integer" :
		       flags & LH_NONNEG ? "a non-negative integer" : "an integer";
	return flags & LH_POS ? "a positive number" :
	       flags & LH_NONNEG ? "a non-negative number" : "a number";
}

/* Validates the number at the top of the stack (pops it). */
int lh_take_number(struct lh_cv *c, const char *path, int flags, double *out)
{
	lua_State *L = c->L;
	char got[64];
	int ok = lua_type(L, -1) == LUA_TNUMBER;
	double v = ok ? lua_tonumber(L, -1) : 0;
	if (ok && !isfinite(v))
		ok = 0;
	if (ok && (flags & LH_POS) && !(v > 0))
		ok = 0;
	if (ok && (flags & LH_NONNEG) && !(v >= 0))
		ok = 0;
	if (ok && (flags & LH_UNIT) && !(v > 0 && v <= 1))
		ok = 0;
	bool huge = ok && (flags & LH_INT) && v == floor(v) && fabs(v) > 1e9;
	if (ok && (flags & LH_INT) && (v != floor(v) || fabs(v) > 1e9))
		ok = 0;
	if (!ok) {
		lh_describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		/* Integers are read up to 1e9 (a field may allow less). */
		return lh_err(c, path, "expected %s%s, got %s", expected_phrase(flags),
			      huge ? " of at most 1e9" : "", got);
	}
	lua_pop(L, 1);
	*out = v;
	return 0;
}

int lh_get_num(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, double def, double *out)
{
	char p[300];
	lh_join(p, sizeof p, path, key);
	if (lh_rawfield(c->L, t, key) == LUA_TNIL) {
		lua_pop(c->L, 1);
		if (flags & LH_REQ)
			return lh_err(c, p, "required field is missing (expected %s)",
				      expected_phrase(flags));
		*out = def;
		return 0;
	}
	return lh_take_number(c, p, flags, out);
}

int lh_get_int(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, int def, int *out)
{
	double v;
	if (lh_get_num(c, t, path, key, flags | LH_INT, def, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* Copies a string field; absent gives def (NULL def and LH_REQ: error). */
int lh_get_str(struct lh_cv *c, int t, const char *path, const char *key,
	       int flags, const char *def, char *buf, size_t n)
{
	lua_State *L = c->L;
	char p[300];
	lh_join(p, sizeof p, path, key);
	int ty = lh_rawfield(L, t, key);
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		if (flags & LH_REQ)
			return lh_err(c, p, "required field is missing (expected a string)");
		snprintf(buf, n, "%s", def ? def : "");
		return 0;
	}
	if (ty != LUA_TSTRING) {
		char got[64];
		lh_describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		return lh_err(c, p, "expected a string, got %s", got);
	}
	size_t len;
	const char *str = lua_tolstring(L, -1, &len);
	if (len == 0 || len >= n || strlen(str) != len) {
		lua_pop(L, 1);
		return lh_err(c, p, len == 0 ? "expected a non-empty string" :
			      len >= n ? "string too long (at most %zu bytes)" :
			      "string contains a NUL byte", n - 1);
	}
	memcpy(buf, str, len + 1);
	lua_pop(L, 1);
	return 0;
}

int lh_get_bool(struct lh_cv *c, int t, const char *path, const char *key,
		bool def, bool *out)
{
	lua_State *L = c->L;
	char p[300];
	lh_join(p, sizeof p, path, key);
	int ty = lh_rawfield(L, t, key);
	if (ty == LUA_TNIL)
		*out = def;
	else if (ty == LUA_TBOOLEAN)
		*out = lua_toboolean(L, -1);
	else {
		char got[64];
		lh_describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		return lh_err(c, p, "expected true or false, got %s", got);
	}
	lua_pop(L, 1);
	return 0;
}

/* A string that must be one of names[] (NULL-terminated); index out. */
int lh_get_enum(struct lh_cv *c, int t, const char *path, const char *key,
		const char *const *names, int def, int *out)
{
	char buf[GP_NAME_MAX], p[300];
	if (lh_get_str(c, t, path, key, 0, "", buf, sizeof buf))
		return -1;
	if (!buf[0]) {
		*out = def;
		return 0;
	}
	char list[256] = "";
	for (int i = 0; names[i]; i++) {
		if (!strcmp(buf, names[i])) {
			*out = i;
			return 0;
		}
		size_t l = strlen(list);
		snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", names[i]);
	}
	lh_join(p, sizeof p, path, key);
	return lh_err(c, p, "expected one of %s, got \"%s\"", list, buf);
}

/* Pushes t[key] which must be a table (or absent if !req: pushes nothing
 * and returns 0). Returns 1 when a table was pushed. */
int lh_get_table(struct lh_cv *c, int t, const char *path, const char *key,
		 int req)
{
	lua_State *L = c->L;
	char p[300];
	lh_join(p, sizeof p, path, key);
	int ty = lh_rawfield(L, t, key);
	if (ty == LUA_TTABLE)
		return 1;
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		if (req)
			return lh_err(c, p, "required field is missing (expected a table)");
		return 0;
	}
	char got[64];
	lh_describe(L, -1, got, sizeof got);
	lua_pop(L, 1);
	return lh_err(c, p, "expected a table, got %s", got);
}

/* Pushes t[i]; must be a table. */
int lh_get_elem_table(struct lh_cv *c, int t, const char *elpath, long i)
{
	lua_State *L = c->L;
	if (lua_rawgeti(L, t, i) == LUA_TTABLE)
		return 0;
	char got[64];
	lh_describe(L, -1, got, sizeof got);
	lua_pop(L, 1);
	return lh_err(c, elpath, "expected a table, got %s", got);
}

