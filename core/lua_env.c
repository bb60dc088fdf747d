/*
 * lua_env.c: one environment per chunk, so that no script can change
 * what another sees.
 *
 * A private base table (registry only) holds the allowed base functions
 * and the library tables; the prelude runs once in its own environment
 * over it. Each chunk then gets a fresh table: the base functions, its
 * own shallow copies of string, math, table and utf8, the prelude's unit
 * helpers, a deep copy of its catalog, _G (the table itself) and a
 * geoplan table for the caller's fields. The string metatable, which
 * all share, is protected at state creation (lua_host.c). setmetatable
 * refuses a metatable with __gc: Lua 5.4 marks an object for
 * finalization only if __gc is there at that moment (manual 2.5.3), and
 * a finalizer could run where no budget is armed.
 */
#include "lua_int.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>

#define REG_BASE "geoplan.base"
#define REG_PRELUDE "geoplan.prelude"

/* The base library a chunk may call: nothing that reaches files,
 * compiles code or collects garbage on demand. */
static const char *const base_names[] = { "assert", "error", "getmetatable",
	"ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen",
	"rawset", "select", "tonumber", "tostring", "type", "xpcall", "warn",
	"_VERSION", NULL };
static const char *const lib_names[] = { LUA_STRLIBNAME, LUA_MATHLIBNAME,
	LUA_TABLIBNAME, LUA_UTF8LIBNAME, NULL };
/* What stock Lua has and the sandbox leaves out: reading one is an error
 * that says so, not a nil to index. */
static const char *const left_out[] = { "io", "os", "debug", "package", "require",
	"load", "loadfile", "dofile", "collectgarbage", "loadstring", NULL };

/* Raises the sandbox's error if the key at 2 is a name left out. */
static void check_left_out(lua_State *L)
{
	if (lua_type(L, 2) != LUA_TSTRING)
		return;
	const char *k = lua_tostring(L, 2);
	for (int i = 0; left_out[i]; i++)
		if (!strcmp(k, left_out[i]))
			luaL_error(L, "'%s' is not available in geoplan's sandbox "
				   "(geoplan-lua(7) says what is)", k);
}

/* __index of an environment before it is frozen: nil, or the error. */
static int open_index(lua_State *L)
{
	check_left_out(L);
	lua_pushnil(L);
	return 1;
}

static int safe_setmetatable(lua_State *L)
{
	int t = lua_type(L, 2);
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
	if (t == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		if (lua_rawget(L, 2) != LUA_TNIL)
			return luaL_error(L, "setmetatable: a metatable with __gc is not allowed "
					  "(a finalizer would run outside the instruction budget)");
		lua_pop(L, 1);
	}
	if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL)
		return luaL_error(L, "cannot change a protected metatable");
	lua_settop(L, 2);
	lua_setmetatable(L, 1);
	return 1;
}

/* Copies the raw fields of table src into dst; tables depth levels
 * down are copied too (0: shared). */
static void copy_into(lua_State *L, int dst, int src, int depth)
{
	lua_pushnil(L);
	while (lua_next(L, src)) {
		if (depth > 0 && lua_type(L, -1) == LUA_TTABLE) {
			lua_newtable(L);
			copy_into(L, lua_gettop(L), lua_gettop(L) - 1, depth - 1);
			lua_remove(L, -2);
		}
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, dst);
	}
}

static void push_base(lua_State *L)
{
	lua_createtable(L, 0, 24);
	int base = lua_gettop(L);
	lua_pushglobaltable(L);
	for (int i = 0; base_names[i]; i++) {
		lua_getfield(L, -1, base_names[i]);
		lua_setfield(L, base, base_names[i]);
	}
	for (int i = 0; lib_names[i]; i++) {
		lua_getfield(L, -1, lib_names[i]);
		lua_setfield(L, base, lib_names[i]);
	}
	lua_pop(L, 1);
	lua_pushcfunction(L, safe_setmetatable);
	lua_setfield(L, base, "setmetatable");
	lua_pushcfunction(L, lh_print);
	lua_setfield(L, base, "print");
}

void lh_push_prelude(lua_State *L)
{
	lua_getfield(L, LUA_REGISTRYINDEX, REG_PRELUDE);
}

int lh_open_env(struct gp_lua *h, const char *prelude, size_t len,
		struct gp_err *e)
{
	lua_State *L = h->L;
	push_base(L);
	int base = lua_gettop(L);
	lua_pushvalue(L, base);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_BASE);
	/* The prelude's globals land in its own table; it reads the base
	 * through __index, so its raw contents are what it defines. */
	lua_newtable(L);
	int env = lua_gettop(L);
	lua_createtable(L, 0, 1);
	lua_pushvalue(L, base);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, env);
	lua_pushvalue(L, env);
	lua_setfield(L, LUA_REGISTRYINDEX, REG_PRELUDE);
	lua_pushcfunction(L, lh_msgh);
	int rc = luaL_loadbufferx(L, prelude, len, LH_PRELUDE, "t");
	if (rc == LUA_OK) {
		lua_pushvalue(L, env);
		lua_setupvalue(L, -2, 1);
		rc = lh_pcall(h, 0, 0, env + 1);
	}
	if (rc != LUA_OK) {
		lh_pcall_error(h, rc, "prelude", e);
		lua_settop(L, base - 1);
		return -1;
	}
	lua_settop(L, base - 1);
	return 0;
}

/* Pushes a fresh environment; the fields of the table at extra (0:
 * none) go into its geoplan table. */
static void push_env(lua_State *L, int extra)
{
	lua_createtable(L, 0, 40);
	int env = lua_gettop(L);
	lua_getfield(L, LUA_REGISTRYINDEX, REG_BASE);
	copy_into(L, env, env + 1, 1);
	lua_pop(L, 1);
	lh_push_prelude(L);
	copy_into(L, env, env + 1, 8);
	lua_pop(L, 1);
	lua_pushvalue(L, env);
	lua_setfield(L, env, "_G");
	lua_newtable(L);
	if (extra)
		copy_into(L, env + 1, extra, 0);
	lua_setfield(L, env, "geoplan");
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, open_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, env);
}

struct load {
	const char *name, *text;
	size_t len;
	int status; /* luaL_loadbufferx's */
};

/* In protected mode: args (struct load, extra table or nil); returns
 * the environment and the compiled chunk with it as _ENV. */
static int load_in_env(lua_State *L)
{
	struct load *a = lua_touserdata(L, 1);
	push_env(L, lua_istable(L, 2) ? 2 : 0);
	char chunk[600];
	snprintf(chunk, sizeof chunk, "%s%s",
		 a->name[0] == '=' || a->name[0] == '@' ? "" : "@", a->name);
	a->status = luaL_loadbufferx(L, a->text, a->len, chunk, "t");
	if (a->status != LUA_OK) {
		/* The parser's "C stack overflow" has no position. */
		const char *msg = lua_tostring(L, -1);
		if (msg && !lh_has_position(msg))
			lua_pushfstring(L, "%s: %s%s", a->name, msg,
					strcmp(msg, "C stack overflow") ? "" : " (nested too deeply)");
		return lua_error(L);
	}
	lua_pushvalue(L, -2);
	lua_setupvalue(L, -2, 1);
	return 2;
}

int lh_script(struct gp_lua *h, const char *name, const char *text,
	      size_t len, int nres, int extra, struct gp_err *e)
{
	lua_State *L = h->L;
	int top = lua_gettop(L);
	if (extra)
		extra = lua_absindex(L, extra);
	if (!lua_checkstack(L, 8))
		return gp_errf(e, "%s: memory limit of %zu MiB exceeded", name, h->cap >> 20);
	struct load a = { name, text, len, LUA_OK };
	lua_pushcfunction(L, lh_msgh);
	lua_pushcfunction(L, load_in_env);
	lua_pushlightuserdata(L, &a);
	if (extra)
		lua_pushvalue(L, extra);
	else
		lua_pushnil(L);
	int rc = lua_pcall(L, 2, 2, 0);
	if (rc == LUA_OK)
		rc = lh_pcall(h, 0, nres, top + 1);
	else if (a.status == LUA_ERRMEM)
		rc = LUA_ERRMEM;
	if (rc != LUA_OK) {
		lh_pcall_error(h, rc, name, e);
		lua_settop(L, top);
		return a.status == LUA_ERRSYNTAX ? -2 : -1;
	}
	lua_remove(L, top + 1);
	lua_rotate(L, top + 1, -1);
	return 0;
}

int lh_load_script(struct gp_lua *h, const char *name, const char *text,
		   size_t len, int nres, int extra, struct gp_err *e)
{
	return lh_script(h, name, text, len, nres, extra, e) ? -1 : 0;
}

static const char *key_name(lua_State *L)
{
	return lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : luaL_typename(L, 2);
}

static int frozen_index(lua_State *L)
{
	check_left_out(L);
	return luaL_error(L, "undefined global '%s'", key_name(L));
}

static int frozen_newindex(lua_State *L)
{
	return luaL_error(L, "assignment to global '%s' (%s)", key_name(L),
			  lua_tostring(L, lua_upvalueindex(1)));
}

/* The globals move into a store behind the environment, which is left
 * empty: every assignment, to a new name or one the top level set, meets
 * __newindex and is refused; a read goes on to the store (a table, so
 * the VM's fast path), and a name the store lacks is an error. */
void lh_freeze_env(lua_State *L, int env, const char *why)
{
	env = lua_absindex(L, env);
	lua_newtable(L);
	int store = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, env)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, store);
	}
	lua_pushnil(L);
	while (lua_next(L, env)) {   /* clearing a field as we go is allowed */
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_pushnil(L);
		lua_rawset(L, env);
	}
	lua_createtable(L, 0, 2);
	lua_pushcfunction(L, frozen_index);
	lua_setfield(L, -2, "__index");
	lua_pushliteral(L, "frozen");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, store);
	lua_createtable(L, 0, 3);
	lua_insert(L, store);        /* the environment's metatable, below the store */
	lua_setfield(L, -2, "__index");
	lua_pushstring(L, why && *why ? why : "the environment is frozen");
	lua_pushcclosure(L, frozen_newindex, 1);
	lua_setfield(L, -2, "__newindex");
	lua_pushliteral(L, "frozen");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, env);
}
