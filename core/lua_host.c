/*
 * lua_host.c: owns every lua_State of geoplan: creating one (the
 * libraries a chunk may see, the allocator's memory cap), closing it,
 * and turning a failed call into a message a user can act on.
 *
 * The sandbox follows the discipline of lua.c: every chunk runs under
 * lua_pcall with a message handler, untrusted code is text only, a count
 * hook stops runaway loops (lua_budget.c) and the allocator refuses to
 * grow past a cap. Environments are lua_env.c's, print and warn
 * lua_log.c's; turning the returned table into a scenario is
 * lua_scenario.c's, --set overrides lua_set.c's.
 */
#include "lua_int.h"

#include <ctype.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char gp_prelude_lua[];

/* Lua code gets the cap; the host's own work between runs a little more
 * (LH_HOST_SLACK), so it can still build a message when a chunk has
 * filled the heap. Growth while armed is charged to the budget. */
static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct gp_lua *h = ud;
	if (!ptr)
		osize = 0;
	if (nsize == 0) {
		free(ptr);
		h->used -= osize;
		return NULL;
	}
	if (nsize > osize) {
		size_t cap = h->run.armed ? h->cap : h->cap + LH_HOST_SLACK;
		if (h->used + (nsize - osize) > cap)
			return NULL; /* Lua raises "not enough memory" */
		lh_charge_alloc(h, nsize - osize);
	}
	void *p = realloc(ptr, nsize);
	if (p)
		h->used += nsize - osize;
	return p;
}

struct gp_lua *lh_host(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

lua_State *lh_state(struct gp_lua *h)
{
	return h->L;
}

size_t lh_memory_cap(const struct gp_lua *h)
{
	return h->cap;
}

int lh_has_position(const char *msg)
{
	const char *colon = strchr(msg, ':');
	if (!colon || colon == msg || memchr(msg, '\n', (size_t)(colon - msg)))
		return 0;
	const char *d = colon + 1;
	while (isdigit((unsigned char)*d))
		d++;
	return d > colon + 1 && *d == ':';
}

/* luaL_tolstring in protected mode: a __tostring that fails (or meets
 * an exhausted budget) must not make the handler fail. */
static int tostring_meta(lua_State *L)
{
	luaL_tolstring(L, 1, NULL);
	return 1;
}

/* Pushes the error object at 1 as a string. */
static const char *error_text(lua_State *L)
{
	if (lua_type(L, 1) == LUA_TSTRING || lua_type(L, 1) == LUA_TNUMBER)
		return lua_pushstring(L, lua_tostring(L, 1));
	if (luaL_getmetafield(L, 1, "__tostring") != LUA_TNIL) {
		lua_pop(L, 1);
		lua_pushcfunction(L, tostring_meta);
		lua_pushvalue(L, 1);
		if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
			return lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	return lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
}

/* Appends frame ar to the traceback in b. */
static void add_frame(luaL_Buffer *b, lua_Debug *ar)
{
	lua_State *L = b->L;
	lua_pushfstring(L, "\n\t%s:%d: in ", ar->short_src, ar->currentline);
	luaL_addvalue(b);
	if (ar->name)
		lua_pushfstring(L, "function '%s'", ar->name);
	else if (*ar->what == 'm')
		lua_pushliteral(L, "main chunk");
	else
		lua_pushfstring(L, "function <%s:%d>", ar->short_src, ar->linedefined);
	luaL_addvalue(b);
	if (ar->istailcall)
		luaL_addstring(b, "\n\t(...tail calls...)");
}

#define TRACE_FRAMES 10

int lh_msgh(lua_State *L)
{
	const char *msg = error_text(L);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	if (!lh_has_position(msg)) {
		char where[300];
		lh_where(L, where, sizeof where);
		if (*where) {
			luaL_addstring(&b, where);
			luaL_addstring(&b, ": ");
		}
	}
	luaL_addstring(&b, msg);
	/* The user's frames only: [C] and the prelude name nothing they
	 * wrote. One frame at the line the message names says nothing. */
	lua_Debug ar;
	int shown = 0, level = 1, more = 0;
	char first[300] = "";
	for (; lua_getstack(L, level, &ar); level++) {
		lua_getinfo(L, "Slnt", &ar);
		if (*ar.what == 'C' || !strcmp(ar.source, LH_PRELUDE))
			continue;
		if (shown == TRACE_FRAMES) {
			more = 1;
			break;
		}
		if (!shown++) {
			snprintf(first, sizeof first, "%s:%d:", ar.short_src, ar.currentline);
			luaL_addstring(&b, "\nstack traceback:");
		}
		add_frame(&b, &ar);
	}
	if (more)
		luaL_addstring(&b, "\n\t...");
	luaL_pushresult(&b);
	if (shown == 1 && !strncmp(lua_tostring(L, -1), first, strlen(first))) {
		const char *all = lua_tostring(L, -1);
		lua_pushlstring(L, all, (size_t)(strstr(all, "\nstack traceback:") - all));
	}
	return 1;
}

void lh_error(struct gp_err *e, const char *msg)
{
	char buf[sizeof e->msg];
	snprintf(buf, sizeof buf, "%s", msg ? msg : "unknown Lua error");
	/* A traceback without a frame the user wrote names nothing. */
	char *tb = strstr(buf, "\nstack traceback:");
	if (tb && !strstr(tb, ".lua:"))
		*tb = '\0';
	gp_errf(e, "%s", buf);
}

int lh_pcall_error(struct gp_lua *h, int rc, const char *name,
		   struct gp_err *e)
{
	const char *msg = lua_tostring(h->L, -1);
	if (rc == LUA_ERRMEM)
		gp_errf(e, "%s: memory limit of %zu MiB exceeded", name, h->cap >> 20);
	else if (rc == LUA_ERRERR)
		gp_errf(e, "%s: error while reporting an error (%s)", name,
			msg ? msg : "no message");
	else
		lh_error(e, msg);
	lua_pop(h->L, 1);
	return -1;
}

int lh_pcall(struct gp_lua *h, int nargs, int nres, int msgh)
{
	int arm = !h->run.armed;
	if (arm)
		lh_arm(h, 0);
	int rc = lh_pcall_armed(h, nargs, nres, msgh);
	if (arm)
		lh_disarm(h);
	return rc;
}

static int string_mt_readonly(lua_State *L)
{
	return luaL_error(L, "the string metatable is read-only");
}

/* getmetatable("") gives an empty table that refuses assignments: the
 * real one (whose __index serves ("x"):upper() everywhere) stays out of
 * reach. */
static void protect_string_metatable(lua_State *L)
{
	lua_pushliteral(L, "");
	lua_getmetatable(L, -1);
	lua_newtable(L);
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, string_mt_readonly);
	lua_setfield(L, -2, "__newindex");
	lua_pushboolean(L, 0);
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 2);
}

/* The libraries, with string's pattern functions, rep and the costly
 * table functions replaced by charged ones. What a chunk may call of
 * them is lua_env.c's allow-list. */
static void open_libs(struct gp_lua *h)
{
	lua_State *L = h->L;
	static const luaL_Reg libs[] = {
		{ LUA_GNAME, luaopen_base },
		{ LUA_TABLIBNAME, luaopen_table },
		{ LUA_STRLIBNAME, luaopen_string },
		{ LUA_MATHLIBNAME, luaopen_math },
		{ LUA_UTF8LIBNAME, luaopen_utf8 },
	};
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		luaL_requiref(L, libs[i].name, libs[i].func, 1);
		lua_pop(L, 1);
	}
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lh_open_match(L, h);
	lua_pop(L, 1);
	lh_open_charged(L, h);
	protect_string_metatable(L);
}

struct gp_lua *gp_lua_new(const struct gp_lua_limits *lim, struct gp_err *e)
{
	struct gp_lua *h = gp_xcalloc(1, sizeof *h);
	if (!h) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	h->cap = lim && lim->memory ? lim->memory : GP_LUA_DEFAULT_MEMORY;
	h->budget = lim && lim->instructions > 0 ? lim->instructions
						 : GP_LUA_DEFAULT_INSTRUCTIONS;
	h->seconds = lim ? lim->seconds : 0;
	h->L = lua_newstate(sandbox_alloc, h);
	if (!h->L) {
		free(h);
		gp_errf(e, "cannot create a Lua state");
		return NULL;
	}
	lh_open_log(h);
	open_libs(h);
	if (lh_open_env(h, gp_prelude_lua, strlen(gp_prelude_lua), e)) {
		gp_err_prefix(e, "internal error in scripts/prelude.lua");
		gp_lua_free(h);
		return NULL;
	}
	return h;
}

void gp_lua_free(struct gp_lua *h)
{
	if (!h)
		return;
	if (h->L) {
		/* setmetatable refuses __gc, so no finalizer should exist;
		 * one that did would meet an exhausted budget. */
		lh_exhaust(h, "a finalizer at close");
		lua_close(h->L);
	}
	free(h);
}

int lh_run_chunk(struct gp_lua *h, const char *name, const char *text,
		 size_t len, int nres, struct gp_err *e)
{
	if (lh_load_script(h, name, text, len, nres, 0, e))
		return -1;
	lua_pop(h->L, 1);
	return 0;
}

int gp_lua_run(struct gp_lua *h, const char *name, const char *text,
	       size_t len, struct gp_err *e)
{
	return lh_run_chunk(h, name, text, len, 0, e);
}
