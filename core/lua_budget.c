/*
 * lua_budget.c: the instruction budget every Lua run stays under.
 *
 * A count hook subtracts VM instructions; work the hook cannot see,
 * inside one C call, is charged too: the pattern matcher's steps
 * (lua_match.c), every byte the allocator grows by while armed
 * (string.rep, table.concat, string.format, .., tables), and the loops
 * of table.sort, insert, remove, move, concat, unpack, string.byte and
 * utf8 (wrappers below). A budget is armed once per batch (lh_arm) and
 * shared by every call in it; once exhausted the hook fires on every
 * instruction, so pcall cannot swallow the stop. A wall-clock backstop,
 * far above what the budget allows, catches what nothing charges (a
 * long string compared in one instruction).
 */
#include "lua_int.h"

#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <string.h>
#include <time.h>

#define HOOK_STEP 1000
/* The backstop: at least this, or this much per instruction of the
 * budget (a hooked VM runs 5-20 ns per instruction). */
#define MIN_SECONDS 5.0
#define NS_PER_INSTRUCTION 200.0

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void lh_where(lua_State *L, char *buf, size_t n)
{
	lua_Debug ar;
	buf[0] = '\0';
	for (int level = 0; level < 100 && lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Sl", &ar);
		if (*ar.what != 'C' && strcmp(ar.source, LH_PRELUDE) && ar.currentline > 0) {
			snprintf(buf, n, "%s:%d", ar.short_src, ar.currentline);
			return;
		}
	}
}

/* Pushes the budget's message, at the user's innermost line if any. */
static void push_budget_message(lua_State *L, struct gp_lua *h)
{
	char where[300], msg[500];
	const struct lh_run *r = &h->run;
	lh_where(L, where, sizeof where);
	if (r->timed_out)
		snprintf(msg, sizeof msg, "%s%stime limit of %g s exceeded (work the instruction budget cannot count, such as comparing long strings)",
			 where, *where ? ": " : "", r->seconds);
	else
		snprintf(msg, sizeof msg, "%s%sinstruction budget of %ld exceeded (%s)",
			 where, *where ? ": " : "", r->armed, r->why ? r->why : "endless loop?");
	lua_pushstring(L, msg);
}

static int raise_budget(lua_State *L, struct gp_lua *h)
{
	push_budget_message(L, h);
	return lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar);

/* From now on every instruction raises. lua_sethook may be called from
 * anywhere, even from the allocator (lua.c calls it from a signal
 * handler). */
static void exhaust(struct gp_lua *h, const char *why)
{
	h->run.exhausted = 1;
	if (!h->run.why)
		h->run.why = why;
	lua_sethook(h->L, count_hook, LUA_MASKCOUNT, 1);
}

static void count_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	struct gp_lua *h = lh_host(L);
	struct lh_run *r = &h->run;
	if (!r->exhausted) {
		r->left -= HOOK_STEP;
		if (r->left > 0 && now() < r->deadline)
			return;
		r->timed_out = r->left > 0;
		exhaust(h, "endless loop?");
	}
	raise_budget(L, h);
}

void lh_arm(struct gp_lua *h, long instructions)
{
	struct lh_run *r = &h->run;
	r->armed = instructions > 0 ? instructions : h->budget;
	r->left = r->armed;
	r->exhausted = r->timed_out = 0;
	r->why = NULL;
	r->seconds = (double)r->armed * NS_PER_INSTRUCTION * 1e-9;
	if (r->seconds < MIN_SECONDS)
		r->seconds = MIN_SECONDS;
	if (h->seconds > 0)
		r->seconds = h->seconds;
	r->deadline = now() + r->seconds;
	h->log.lines = 0;
	h->log.dropped = 0;
	lua_sethook(h->L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
}

void lh_disarm(struct gp_lua *h)
{
	lua_sethook(h->L, NULL, 0, 0);
	h->run.armed = 0;
	lh_log_flush(h);
}

void lh_exhaust(struct gp_lua *h, const char *why)
{
	h->run.armed = h->budget;
	h->run.left = 0;
	h->run.why = NULL;
	exhaust(h, why);
}

/* A call that ends in a tail call of pcall (return pcall(loop)) runs
 * no instruction after the stop: it returns, but fails all the same. */
int lh_pcall_armed(struct gp_lua *h, int nargs, int nres, int msgh)
{
	lua_State *L = h->L;
	int base = lua_gettop(L) - nargs - 1;
	int rc = lua_pcall(L, nargs, nres, msgh);
	if (rc == LUA_OK && h->run.exhausted) {
		lua_settop(L, base);
		push_budget_message(L, h);
		rc = LUA_ERRRUN;
	}
	return rc;
}

void lh_charge(struct gp_lua *h, lua_State *L, long n, const char *what)
{
	if (!h || !h->run.armed)
		return;
	if (!h->run.exhausted) {
		h->run.left -= n;
		if (h->run.left > 0)
			return;
		exhaust(h, what);
	}
	raise_budget(L, h);
}

void lh_charge_alloc(struct gp_lua *h, size_t bytes)
{
	struct lh_run *r = &h->run;
	if (!r->armed || r->exhausted)
		return;
	r->left -= (long)(bytes / LH_BYTES_PER_STEP);
	if (r->left <= 0)
		exhaust(h, "building large strings or tables?");
}

/* --- string.rep, built by doubling -------------------------------- */

/* Its loop is memcpy over the result, charged by the allocator as the
 * result grows; string.rep("", 2^62) is "" at once, not 2^62 copies. */
static int str_rep(lua_State *L)
{
	size_t l, ls;
	const char *s = luaL_checklstring(L, 1, &l);
	lua_Integer n = luaL_checkinteger(L, 2);
	const char *sep = luaL_optlstring(L, 3, "", &ls);
	size_t unit = l + ls;
	if (n <= 0 || unit == 0) {
		lua_pushliteral(L, "");
		return 1;
	}
	/* 5.4 keeps a string's length within an int. */
	if (unit < l || (lua_Unsigned)n > ((size_t)INT_MAX + ls) / unit)
		return luaL_error(L, "resulting string too large");
	size_t all = (size_t)n * unit, done = unit;
	luaL_Buffer b;
	char *p = luaL_buffinitsize(L, &b, all);
	memcpy(p, s, l);
	memcpy(p + l, sep, ls);
	while (done < all) {
		size_t k = done < all - done ? done : all - done;
		memcpy(p + done, p, k);
		done += k;
	}
	luaL_pushresultsize(&b, all - ls);
	return 1;
}

/* --- library loops the hook cannot see ------------------------------ */

/* Each checks the arguments it reads as the function would (so misuse
 * names the function and line) and returns the loop's length. */
static lua_Integer table_len(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	return (lua_Integer)lua_rawlen(L, 1);
}

static lua_Integer cost_sort(lua_State *L)
{
	lua_Integer n = table_len(L), c = n;
	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TFUNCTION);
	for (lua_Integer k = n; k > 1; k >>= 1)
		c += n;
	return c; /* n log2 n comparisons */
}

static lua_Integer span(lua_Integer i, lua_Integer j)
{
	return j >= i ? (lua_Integer)((lua_Unsigned)j - (lua_Unsigned)i + 1u) : 0;
}

static lua_Integer cost_move(lua_State *L)
{
	table_len(L);
	lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
	luaL_checkinteger(L, 4);
	return span(f, e);
}

static lua_Integer cost_concat(lua_State *L)
{
	lua_Integer n = table_len(L);
	luaL_optlstring(L, 2, "", NULL);
	return span(luaL_optinteger(L, 3, 1), luaL_optinteger(L, 4, n));
}

static lua_Integer cost_unpack(lua_State *L)
{
	lua_Integer n = lua_type(L, 1) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, 1) : 0;
	return span(luaL_optinteger(L, 2, 1), luaL_optinteger(L, 3, n));
}

/* Shifts: insert(t, pos, v) and remove(t, pos); at the end they are
 * one step. */
static lua_Integer cost_insert(lua_State *L)
{
	lua_Integer n = table_len(L);
	return lua_gettop(L) == 3 ? span(luaL_checkinteger(L, 2), n) : 1;
}

static lua_Integer cost_remove(lua_State *L)
{
	lua_Integer n = table_len(L);
	return span(luaL_optinteger(L, 2, n), n) + 1;
}

/* A string position as the string functions read it (1..len). */
static lua_Integer position(lua_Integer p, lua_Integer len)
{
	if (p < 0)
		p = p < -len ? 1 : len + p + 1;
	return p > len ? len : p;
}

/* Values pushed: string.byte(s, i, j), utf8.codepoint(s, i, j). */
static lua_Integer cost_values(lua_State *L)
{
	size_t l;
	luaL_checklstring(L, 1, &l);
	lua_Integer i = luaL_optinteger(L, 2, 1);
	lua_Integer j = luaL_optinteger(L, 3, i);
	return span(position(i ? i : 1, (lua_Integer)l), position(j, (lua_Integer)l));
}

/* Bytes scanned: utf8.len, utf8.offset. */
static lua_Integer cost_scan(lua_State *L)
{
	size_t l;
	luaL_checklstring(L, 1, &l);
	return (lua_Integer)(l / LH_BYTES_PER_STEP);
}

struct charged {
	const char *lib, *name, *what;
	lua_Integer (*cost)(lua_State *L);
};

static const struct charged charged[] = {
	{ LUA_TABLIBNAME, "sort", "in table.sort", cost_sort },
	{ LUA_TABLIBNAME, "insert", "in table.insert", cost_insert },
	{ LUA_TABLIBNAME, "remove", "in table.remove", cost_remove },
	{ LUA_TABLIBNAME, "move", "in table.move", cost_move },
	{ LUA_TABLIBNAME, "concat", "in table.concat", cost_concat },
	{ LUA_TABLIBNAME, "unpack", "in table.unpack", cost_unpack },
	{ LUA_STRLIBNAME, "byte", "in string.byte", cost_values },
	{ LUA_UTF8LIBNAME, "len", "in utf8.len", cost_scan },
	{ LUA_UTF8LIBNAME, "codepoint", "in utf8.codepoint", cost_values },
	{ LUA_UTF8LIBNAME, "offset", "in utf8.offset", cost_scan },
};

/* upvalues: the library's function, the host, the charged[] entry */
static int call_charged(lua_State *L)
{
	struct gp_lua *h = lua_touserdata(L, lua_upvalueindex(2));
	const struct charged *c = &charged[lua_tointeger(L, lua_upvalueindex(3))];
	lua_Integer n = c->cost(L);
	lh_charge(h, L, n > LONG_MAX ? LONG_MAX : (long)n, c->what);
	int nargs = lua_gettop(L);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, nargs, LUA_MULTRET);
	return lua_gettop(L);
}

/* The originals stay in a private loaded table, where luaL_argerror
 * finds their names ("bad argument #2 to 'table.insert'"). */
void lh_open_charged(lua_State *L, struct gp_lua *h)
{
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushlightuserdata(L, h);
	lua_pushcclosure(L, str_rep, 1);
	lua_setfield(L, -2, "rep");
	lua_pop(L, 1);
	lua_newtable(L); /* loaded */
	for (size_t i = 0; i < sizeof charged / sizeof charged[0]; i++) {
		const struct charged *c = &charged[i];
		if (lua_getfield(L, -1, c->lib) != LUA_TTABLE) {
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, c->lib);
		}
		lua_getglobal(L, c->lib);
		lua_getfield(L, -1, c->name);
		lua_pushvalue(L, -1);
		lua_setfield(L, -4, c->name);
		lua_pushlightuserdata(L, h);
		lua_pushinteger(L, (lua_Integer)i);
		lua_pushcclosure(L, call_charged, 3);
		lua_setfield(L, -2, c->name);
		lua_pop(L, 2);
	}
	lua_setfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
}
