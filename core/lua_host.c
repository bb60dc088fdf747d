/*
 * lua_host.c: owns every lua_State of geoplan and its sandbox: the
 * libraries a chunk sees, the allocator's memory cap, the instruction
 * budget, running a chunk and turning its error into a message.
 *
 * The sandbox follows the discipline of lua.c: every chunk runs under
 * lua_pcall with a message handler, untrusted code is text only, a count
 * hook stops runaway loops and the allocator refuses to grow past a cap.
 * Turning the returned table into a scenario is lua_scenario.c's job;
 * --set overrides are lua_set.c's.
 */
#include "lua_int.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char gp_prelude_lua[];

struct gp_lua {
	lua_State *L;
	size_t used, cap;
	long budget;    /* instructions per run */
	long left;      /* instructions left in this run */
	int exhausted;
};

#define HOOK_STEP 1000

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
	if (nsize > osize && h->used + (nsize - osize) > h->cap)
		return NULL; /* Lua raises "not enough memory" */
	void *p = realloc(ptr, nsize);
	if (p)
		h->used += nsize - osize;
	return p;
}

static struct gp_lua *host_of(lua_State *L)
{
	void *ud;
	lua_getallocf(L, &ud);
	return ud;
}

/* Stops a chunk that outruns its budget. Once exhausted, the hook fires
 * on every instruction, so a script that catches the error with pcall
 * cannot keep running. */
static void count_hook(lua_State *L, lua_Debug *ar)
{
	struct gp_lua *h = host_of(L);
	h->left -= HOOK_STEP;
	if (h->left <= 0) {
		if (!h->exhausted) {
			h->exhausted = 1;
			lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
		}
		char msg[400];
		if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
			snprintf(msg, sizeof msg,
				 "%s:%d: instruction budget of %ld exceeded (endless loop?)",
				 ar->short_src, ar->currentline, h->budget);
		else
			snprintf(msg, sizeof msg,
				 "instruction budget of %ld exceeded (endless loop?)", h->budget);
		luaL_error(L, "%s", msg);
	}
}

static int msg_handler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (!msg)
		msg = "(error object is not a string)";
	/* A traceback helps a script author; a data file's error needs none. */
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static void arm_budget(struct gp_lua *h)
{
	h->left = h->budget;
	h->exhausted = 0;
	lua_sethook(h->L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
}

lua_State *lh_state(struct gp_lua *h)
{
	return h->L;
}

int lh_pcall(struct gp_lua *h, int nargs, int nres, int msgh)
{
	arm_budget(h);
	int rc = lua_pcall(h->L, nargs, nres, msgh);
	lua_sethook(h->L, NULL, 0, 0);
	return rc;
}

/* Keeps the first line of a traceback-bearing message for users, the
 * whole of it only where there is more than one frame of interest. */
static void set_lua_error(struct gp_err *e, const char *msg)
{
	char buf[sizeof e->msg];
	snprintf(buf, sizeof buf, "%s", msg ? msg : "unknown Lua error");
	char *tb = strstr(buf, "\nstack traceback:");
	if (tb) {
		/* Drop frames from [C] and the host: they name nothing the
		 * user wrote. Keep it short: first line only unless the
		 * trace has user frames. */
		char *user = strstr(tb, ".lua:");
		if (!user)
			*tb = '\0';
	}
	gp_errf(e, "%s", buf);
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
	h->L = lua_newstate(sandbox_alloc, h);
	if (!h->L) {
		free(h);
		gp_errf(e, "cannot create a Lua state");
		return NULL;
	}
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
	/* What can reach files, compile binary chunks or escape budgets. */
	static const char *const banned[] = { "dofile", "loadfile", "load",
		"require", "collectgarbage", "print", "loadstring" };
	for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, banned[i]);
	}
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	lua_pushnil(L);
	lua_setfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);

	if (gp_lua_run(h, "=prelude", gp_prelude_lua, strlen(gp_prelude_lua), e)) {
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
	if (h->L)
		lua_close(h->L);
	free(h);
}

int lh_run_chunk(struct gp_lua *h, const char *name, const char *text,
		 size_t len, int nres, struct gp_err *e)
{
	lua_State *L = h->L;
	char chunk[600];
	if (name[0] == '=' || name[0] == '@')
		snprintf(chunk, sizeof chunk, "%s", name);
	else
		snprintf(chunk, sizeof chunk, "@%s", name);
	lua_pushcfunction(L, msg_handler);
	int base = lua_gettop(L);
	int rc = luaL_loadbufferx(L, text, len, chunk, "t");
	if (rc == LUA_OK)
		rc = lh_pcall(h, 0, nres, base);
	if (rc != LUA_OK) {
		if (rc == LUA_ERRMEM)
			gp_errf(e, "%s: memory limit of %zu MiB exceeded", name,
				h->cap >> 20);
		else
			set_lua_error(e, lua_tostring(L, -1));
		lua_settop(L, base - 1);
		return -1;
	}
	lua_remove(L, base);
	return 0;
}

int gp_lua_run(struct gp_lua *h, const char *name, const char *text,
	       size_t len, struct gp_err *e)
{
	if (lh_run_chunk(h, name, text, len, 0, e))
		return -1;
	return 0;
}
