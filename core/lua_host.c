/*
 * lua_host.c: owns every lua_State of geoplan, the sandbox, and the
 * conversion of a scenario table into C data (scenario.h).
 *
 * The sandbox follows the discipline of lua.c: every chunk runs under
 * lua_pcall with a message handler, untrusted code is text only, a count
 * hook stops runaway loops and the allocator refuses to grow past a cap.
 * The conversion reads tables with raw access only, so a scenario's
 * metatables cannot run code behind our back, and every complaint names
 * the field path.
 */
#include "lua_host.h"
#include "scenario.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <math.h>
#include <stdarg.h>
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

/* Loads and calls a chunk with nres results left on the stack. */
static int run_chunk(struct gp_lua *h, const char *name, const char *text,
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
	if (rc == LUA_OK) {
		arm_budget(h);
		rc = lua_pcall(L, 0, nres, base);
		lua_sethook(L, NULL, 0, 0);
	}
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
	if (run_chunk(h, name, text, len, 0, e))
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Conversion of the scenario table                                    */

struct cv {
	lua_State *L;
	struct gp_err *e;
	const char *file;
	struct gp_scenario *s;
	int failed;
};

__attribute__((format(printf, 3, 4)))
static int cv_err(struct cv *c, const char *path, const char *fmt, ...)
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
static void describe(lua_State *L, int idx, char *buf, size_t n)
{
	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			snprintf(buf, n, "%lld", (long long)lua_tointeger(L, idx));
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

static void join(char *out, size_t n, const char *path, const char *key)
{
	if (path && *path)
		snprintf(out, n, "%s.%s", path, key);
	else
		snprintf(out, n, "%s", key);
}

static void joini(char *out, size_t n, const char *path, long i)
{
	snprintf(out, n, "%s[%ld]", path, i);
}

static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 31 || lb > 31)
		return 99;
	unsigned d[32][32];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins)
					    : (del < ins ? del : ins);
		}
	return d[la][lb];
}

/* Every key of the table at t must be a listed name, or an integer in
 * 1..npos. Catches typos such as `cout = 8` that would otherwise be
 * silently ignored. */
static int check_keys(struct cv *c, int t, const char *path,
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
				join(p, sizeof p, path, k);
				lua_pop(L, 1);
				if (best)
					return cv_err(c, p, "unknown field (did you mean '%s'?)", best);
				return cv_err(c, p, "unknown field");
			}
		} else if (lua_isinteger(L, -1) && lua_tointeger(L, -1) >= 1 &&
			   lua_tointeger(L, -1) <= npos) {
			/* positional */
		} else {
			char d[64];
			describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return cv_err(c, path, "unexpected key %s", d);
		}
	}
	return 0;
}

/* The table at t must be a list: keys exactly 1..n. Returns n or -1. */
static long check_array(struct cv *c, int t, const char *path, long max)
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
			describe(L, -1, d, sizeof d);
			lua_pop(L, 1);
			return cv_err(c, path, "expected a list, found key %s", d);
		}
	}
	if (count != n)
		return cv_err(c, path, "expected a list without holes");
	if (n > max)
		return cv_err(c, path, "too many entries (%ld, at most %ld)", n, max);
	return n;
}

/* Pushes t[key] (raw) and returns its type. */
static int rawfield(lua_State *L, int t, const char *key)
{
	t = lua_absindex(L, t);
	lua_pushstring(L, key);
	return lua_rawget(L, t);
}

enum {
	F_REQ = 1,     /* required */
	F_POS = 2,     /* > 0 */
	F_NONNEG = 4,  /* >= 0 */
	F_INT = 8,     /* integral */
	F_UNIT = 16,   /* in (0, 1] */
};

static const char *expected_phrase(int flags)
{
	if (flags & F_UNIT)
		return "a number in (0, 1]";
	if (flags & F_INT)
		return flags & F_POS ? "a positive integer" :
		       flags & F_NONNEG ? "a non-negative integer" : "an integer";
	return flags & F_POS ? "a positive number" :
	       flags & F_NONNEG ? "a non-negative number" : "a number";
}

/* Validates the number at the top of the stack (pops it). */
static int take_number(struct cv *c, const char *path, int flags, double *out)
{
	lua_State *L = c->L;
	char got[64];
	int ok = lua_type(L, -1) == LUA_TNUMBER;
	double v = ok ? lua_tonumber(L, -1) : 0;
	if (ok && !isfinite(v))
		ok = 0;
	if (ok && (flags & F_POS) && !(v > 0))
		ok = 0;
	if (ok && (flags & F_NONNEG) && !(v >= 0))
		ok = 0;
	if (ok && (flags & F_UNIT) && !(v > 0 && v <= 1))
		ok = 0;
	if (ok && (flags & F_INT) && (v != floor(v) || fabs(v) > 1e9))
		ok = 0;
	if (!ok) {
		describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		return cv_err(c, path, "expected %s, got %s", expected_phrase(flags), got);
	}
	lua_pop(L, 1);
	*out = v;
	return 0;
}

static int get_num(struct cv *c, int t, const char *path, const char *key,
		   int flags, double def, double *out)
{
	char p[300];
	join(p, sizeof p, path, key);
	if (rawfield(c->L, t, key) == LUA_TNIL) {
		lua_pop(c->L, 1);
		if (flags & F_REQ)
			return cv_err(c, p, "required field is missing (expected %s)",
				      expected_phrase(flags));
		*out = def;
		return 0;
	}
	return take_number(c, p, flags, out);
}

static int get_int(struct cv *c, int t, const char *path, const char *key,
		   int flags, int def, int *out)
{
	double v;
	if (get_num(c, t, path, key, flags | F_INT, def, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* Copies a string field; absent gives def (NULL def and F_REQ: error). */
static int get_str(struct cv *c, int t, const char *path, const char *key,
		   int flags, const char *def, char *buf, size_t n)
{
	lua_State *L = c->L;
	char p[300];
	join(p, sizeof p, path, key);
	int ty = rawfield(L, t, key);
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		if (flags & F_REQ)
			return cv_err(c, p, "required field is missing (expected a string)");
		snprintf(buf, n, "%s", def ? def : "");
		return 0;
	}
	if (ty != LUA_TSTRING) {
		char got[64];
		describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		return cv_err(c, p, "expected a string, got %s", got);
	}
	size_t len;
	const char *str = lua_tolstring(L, -1, &len);
	if (len == 0 || len >= n || strlen(str) != len) {
		lua_pop(L, 1);
		return cv_err(c, p, len == 0 ? "expected a non-empty string" :
			      len >= n ? "string too long (at most %zu bytes)" :
			      "string contains a NUL byte", n - 1);
	}
	memcpy(buf, str, len + 1);
	lua_pop(L, 1);
	return 0;
}

static int get_bool(struct cv *c, int t, const char *path, const char *key,
		    bool def, bool *out)
{
	lua_State *L = c->L;
	char p[300];
	join(p, sizeof p, path, key);
	int ty = rawfield(L, t, key);
	if (ty == LUA_TNIL)
		*out = def;
	else if (ty == LUA_TBOOLEAN)
		*out = lua_toboolean(L, -1);
	else {
		char got[64];
		describe(L, -1, got, sizeof got);
		lua_pop(L, 1);
		return cv_err(c, p, "expected true or false, got %s", got);
	}
	lua_pop(L, 1);
	return 0;
}

/* A string that must be one of names[] (NULL-terminated); index out. */
static int get_enum(struct cv *c, int t, const char *path, const char *key,
		    const char *const *names, int def, int *out)
{
	char buf[GP_NAME_MAX], p[300];
	if (get_str(c, t, path, key, 0, "", buf, sizeof buf))
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
	join(p, sizeof p, path, key);
	return cv_err(c, p, "expected one of %s, got \"%s\"", list, buf);
}

/* Pushes t[key] which must be a table (or absent if !req: pushes nothing
 * and returns 0). Returns 1 when a table was pushed. */
static int get_table(struct cv *c, int t, const char *path, const char *key,
		     int req)
{
	lua_State *L = c->L;
	char p[300];
	join(p, sizeof p, path, key);
	int ty = rawfield(L, t, key);
	if (ty == LUA_TTABLE)
		return 1;
	if (ty == LUA_TNIL) {
		lua_pop(L, 1);
		if (req)
			return cv_err(c, p, "required field is missing (expected a table)");
		return 0;
	}
	char got[64];
	describe(L, -1, got, sizeof got);
	lua_pop(L, 1);
	return cv_err(c, p, "expected a table, got %s", got);
}

/* Pushes t[i]; must be a table. */
static int get_elem_table(struct cv *c, int t, const char *elpath, long i)
{
	lua_State *L = c->L;
	if (lua_rawgeti(L, t, i) == LUA_TTABLE)
		return 0;
	char got[64];
	describe(L, -1, got, sizeof got);
	lua_pop(L, 1);
	return cv_err(c, elpath, "expected a table, got %s", got);
}

/* --- GPUs ---------------------------------------------------------- */

static const char *const gpu_keys[] = { "tflops", "memory", "hbm_bandwidth",
	"nvlink", "efficiency", "price_per_hour", NULL };

static int find_gpu(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, name))
			return i;
	return -1;
}

/* Reads the gpu table at t into g; fields are required only for a GPU
 * the catalog does not know. */
static int conv_gpu(struct cv *c, int t, const char *path, struct gp_gpu *g,
		    int known)
{
	int req = known ? 0 : F_REQ;
	if (check_keys(c, t, path, gpu_keys, 0) ||
	    get_num(c, t, path, "tflops", req | F_POS, g->flops, &g->flops) ||
	    get_num(c, t, path, "memory", req | F_POS, g->memory, &g->memory) ||
	    get_num(c, t, path, "hbm_bandwidth", req | F_POS, g->hbm_bw, &g->hbm_bw) ||
	    get_num(c, t, path, "nvlink", F_POS, known ? g->nvlink : 32e9, &g->nvlink) ||
	    get_num(c, t, path, "efficiency", F_UNIT, known ? g->efficiency : GP_DEFAULT_EFFICIENCY,
		    &g->efficiency) ||
	    get_num(c, t, path, "price_per_hour", F_NONNEG, g->price_per_hour,
		    &g->price_per_hour))
		return -1;
	return 0;
}

/* Adds every entry of table t (name -> gpu table) to s->gpus. */
static int conv_gpu_table(struct cv *c, int t, const char *path)
{
	lua_State *L = c->L;
	t = lua_absindex(L, t);
	lua_pushnil(L);
	while (lua_next(L, t)) {
		char p[300];
		if (lua_type(L, -2) != LUA_TSTRING) {
			char d[64];
			describe(L, -2, d, sizeof d);
			lua_pop(L, 2);
			return cv_err(c, path, "GPU names must be strings, got %s", d);
		}
		const char *name = lua_tostring(L, -2);
		snprintf(p, sizeof p, "%s[\"%s\"]", path, name);
		if (strlen(name) >= GP_NAME_MAX) {
			lua_pop(L, 2);
			return cv_err(c, p, "GPU name too long");
		}
		if (!lua_istable(L, -1)) {
			char d[64];
			describe(L, -1, d, sizeof d);
			lua_pop(L, 2);
			return cv_err(c, p, "expected a table, got %s", d);
		}
		int i = find_gpu(c->s, name);
		if (i < 0) {
			if (c->s->ngpus >= 256) {
				lua_pop(L, 2);
				return cv_err(c, path, "too many GPU types (at most 256)");
			}
			i = c->s->ngpus++;
			memset(&c->s->gpus[i], 0, sizeof c->s->gpus[i]);
			snprintf(c->s->gpus[i].name, GP_NAME_MAX, "%s", name);
			if (conv_gpu(c, -1, p, &c->s->gpus[i], 0)) {
				lua_pop(L, 2);
				return -1;
			}
		} else if (conv_gpu(c, -1, p, &c->s->gpus[i], 1)) {
			lua_pop(L, 2);
			return -1;
		}
		lua_pop(L, 1);
	}
	return 0;
}

/* --- model --------------------------------------------------------- */

static const char *const model_keys[] = { "name", "layers", "hidden", "heads",
	"kv_heads", "ffn", "vocab", "gated", NULL };

static int conv_model_table(struct cv *c, int t, const char *path,
			    struct gp_model *m, const char *name)
{
	double layers;
	if (check_keys(c, t, path, model_keys, 0) ||
	    get_str(c, t, path, "name", 0, name, m->name, sizeof m->name) ||
	    get_num(c, t, path, "layers", F_REQ | F_POS | F_INT, 0, &layers) ||
	    get_num(c, t, path, "hidden", F_REQ | F_POS | F_INT, 0, &m->hidden) ||
	    get_num(c, t, path, "heads", F_REQ | F_POS | F_INT, 0, &m->heads) ||
	    get_num(c, t, path, "kv_heads", F_POS | F_INT, m->heads, &m->kv_heads) ||
	    get_num(c, t, path, "ffn", F_POS | F_INT, 4 * m->hidden, &m->ffn) ||
	    get_num(c, t, path, "vocab", F_POS | F_INT, 50257, &m->vocab) ||
	    get_bool(c, t, path, "gated", false, &m->gated))
		return -1;
	if (layers > 100000)
		return cv_err(c, path, "layers: at most 100000, got %.0f", layers);
	m->layers = (int)layers;
	if (fmod(m->hidden, m->heads) != 0) {
		char p[300];
		join(p, sizeof p, path, "heads");
		return cv_err(c, p, "hidden (%.0f) must be a multiple of heads (%.0f)",
			      m->hidden, m->heads);
	}
	if (m->kv_heads > m->heads || fmod(m->heads, m->kv_heads) != 0) {
		char p[300];
		join(p, sizeof p, path, "kv_heads");
		return cv_err(c, p, "must divide heads (%.0f), got %.0f", m->heads,
			      m->kv_heads);
	}
	return 0;
}

static int conv_model(struct cv *c, int top)
{
	lua_State *L = c->L;
	int ty = rawfield(L, top, "model");
	if (ty == LUA_TTABLE) {
		int rc = conv_model_table(c, -1, "model", &c->s->model, "custom");
		lua_pop(L, 1);
		return rc;
	}
	if (ty != LUA_TSTRING) {
		char d[64];
		describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		if (ty == LUA_TNIL)
			return cv_err(c, "model", "required field is missing (a catalog name or a table)");
		return cv_err(c, "model", "expected a catalog name or a table, got %s", d);
	}
	char name[GP_NAME_MAX];
	snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
	lua_pop(L, 1);
	lua_getglobal(L, "catalog");
	rawfield(L, -1, "models");
	int found = rawfield(L, -1, name) == LUA_TTABLE;
	if (!found) {
		char list[512] = "";
		lua_pop(L, 1);
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			lua_pop(L, 1);
			if (lua_type(L, -1) == LUA_TSTRING) {
				size_t l = strlen(list);
				snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "",
					 lua_tostring(L, -1));
			}
		}
		lua_pop(L, 2);
		return cv_err(c, "model", "unknown model \"%s\" (catalog: %s)", name, list);
	}
	int rc = conv_model_table(c, -1, "catalog.models", &c->s->model, name);
	lua_pop(L, 3);
	return rc;
}

/* --- DCs and links --------------------------------------------------- */

static const char *const dc_keys[] = { "name", "pools", NULL };
static const char *const pool_keys[] = { "gpu", "count", "per_node", "nvlink",
	"network", "latency", NULL };

static int conv_pool(struct cv *c, int t, const char *path, struct gp_pool *p)
{
	char gpu[GP_NAME_MAX], pp[300];
	if (check_keys(c, t, path, pool_keys, 0) ||
	    get_str(c, t, path, "gpu", F_REQ, NULL, gpu, sizeof gpu))
		return -1;
	p->gpu = find_gpu(c->s, gpu);
	if (p->gpu < 0) {
		join(pp, sizeof pp, path, "gpu");
		return cv_err(c, pp, "unknown GPU \"%s\" (add it to gpus = { ... })", gpu);
	}
	const struct gp_gpu *g = &c->s->gpus[p->gpu];
	if (get_int(c, t, path, "count", F_REQ | F_POS, 0, &p->count) ||
	    get_int(c, t, path, "per_node", F_POS, 8, &p->per_node) ||
	    get_num(c, t, path, "nvlink", F_POS, g->nvlink, &p->nvlink) ||
	    get_num(c, t, path, "network", F_POS, 100e9 / 8, &p->network) ||
	    get_num(c, t, path, "latency", F_NONNEG, 8.2e-6, &p->latency))
		return -1;
	if (p->count % p->per_node != 0 && p->count > p->per_node) {
		join(pp, sizeof pp, path, "count");
		return cv_err(c, pp, "%d GPUs do not fill whole nodes of %d (per_node)",
			      p->count, p->per_node);
	}
	return 0;
}

static int conv_dcs(struct cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	if (get_table(c, top, "", "dcs", 1) != 1)
		return -1;
	long n = check_array(c, -1, "dcs", 4096);
	if (n < 0)
		goto fail;
	if (n == 0) {
		cv_err(c, "dcs", "expected at least one DC");
		goto fail;
	}
	s->dcs = gp_xcalloc(n, sizeof *s->dcs);
	if (!s->dcs) {
		cv_err(c, "dcs", "out of memory");
		goto fail;
	}
	for (long i = 1; i <= n; i++) {
		char p[300], pp[300];
		joini(p, sizeof p, "dcs", i);
		if (get_elem_table(c, -1, p, i))
			goto fail;
		struct gp_dc *dc = &s->dcs[s->ndcs++];
		if (check_keys(c, -1, p, dc_keys, 0) ||
		    get_str(c, -1, p, "name", F_REQ, NULL, dc->name, sizeof dc->name))
			goto fail1;
		for (int j = 0; j < s->ndcs - 1; j++)
			if (!strcmp(s->dcs[j].name, dc->name)) {
				join(pp, sizeof pp, p, "name");
				cv_err(c, pp, "\"%s\" is also the name of dcs[%d]", dc->name, j + 1);
				goto fail1;
			}
		join(pp, sizeof pp, p, "pools");
		if (get_table(c, -1, p, "pools", 1) != 1)
			goto fail1;
		long np = check_array(c, -1, pp, 64);
		if (np < 0)
			goto fail2;
		if (np == 0) {
			cv_err(c, pp, "expected at least one pool");
			goto fail2;
		}
		dc->pools = gp_xcalloc(np, sizeof *dc->pools);
		if (!dc->pools) {
			cv_err(c, pp, "out of memory");
			goto fail2;
		}
		for (long j = 1; j <= np; j++) {
			char q[300];
			joini(q, sizeof q, pp, j);
			if (get_elem_table(c, -1, q, j))
				goto fail2;
			if (conv_pool(c, -1, q, &dc->pools[dc->npools++]))
				goto fail3;
			lua_pop(L, 1);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 1);
	return 0;
fail3:
	lua_pop(L, 1);
fail2:
	lua_pop(L, 1);
fail1:
	lua_pop(L, 1);
fail:
	lua_pop(L, 1);
	return -1;
}

static const char *const link_keys[] = { "bandwidth", "latency",
	"price_per_gb", "streams", NULL };

static int dc_ref(struct cv *c, int t, long idx, const char *path, int *out)
{
	lua_State *L = c->L;
	char p[300];
	snprintf(p, sizeof p, "%s[%ld]", path, idx);
	if (lua_rawgeti(L, t, idx) != LUA_TSTRING) {
		char d[64];
		describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		return cv_err(c, p, "expected a DC name, got %s", d);
	}
	*out = gp_find_dc(c->s, lua_tostring(L, -1));
	if (*out < 0) {
		char list[300] = "";
		for (int i = 0; i < c->s->ndcs; i++) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "",
				 c->s->dcs[i].name);
		}
		cv_err(c, p, "unknown DC \"%s\" (DCs: %s)", lua_tostring(L, -1), list);
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	return 0;
}

static int conv_links(struct cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	int got = get_table(c, top, "", "links", 0);
	if (got < 0)
		return -1;
	if (got == 0)
		return 0;
	long n = check_array(c, -1, "links", 100000);
	if (n < 0)
		goto fail;
	s->links = gp_xcalloc(2 * n, sizeof *s->links);
	if (!s->links) {
		cv_err(c, "links", "out of memory");
		goto fail;
	}
	/* given[k]: entry k was written by the user (not mirrored). */
	char *given = gp_xcalloc(2 * n, 1);
	if (!given) {
		cv_err(c, "links", "out of memory");
		goto fail;
	}
	for (long i = 1; i <= n; i++) {
		char p[300];
		joini(p, sizeof p, "links", i);
		if (get_elem_table(c, -1, p, i))
			goto failg;
		struct gp_link l = { 0 };
		if (check_keys(c, -1, p, link_keys, 2) ||
		    dc_ref(c, lua_gettop(L), 1, p, &l.from) ||
		    dc_ref(c, lua_gettop(L), 2, p, &l.to) ||
		    get_num(c, -1, p, "bandwidth", F_REQ | F_POS, 0, &l.bandwidth) ||
		    get_num(c, -1, p, "latency", F_REQ | F_NONNEG, 0, &l.latency) ||
		    get_num(c, -1, p, "price_per_gb", F_NONNEG, 0, &l.price_per_gb) ||
		    get_int(c, -1, p, "streams", F_POS, 1, &l.streams))
			goto failg1;
		lua_pop(L, 1);
		if (l.from == l.to) {
			cv_err(c, p, "a link joins two different DCs, both are \"%s\"",
			       s->dcs[l.from].name);
			goto failg;
		}
		int k;
		for (k = 0; k < s->nlinks; k++)
			if (s->links[k].from == l.from && s->links[k].to == l.to)
				break;
		if (k < s->nlinks && given[k]) {
			cv_err(c, p, "link %s -> %s is given twice", s->dcs[l.from].name,
			       s->dcs[l.to].name);
			goto failg;
		}
		if (k == s->nlinks)
			s->nlinks++;
		s->links[k] = l;
		given[k] = 1;
		/* Symmetric unless the reverse is given too. */
		struct gp_link r = l;
		r.from = l.to;
		r.to = l.from;
		int j;
		for (j = 0; j < s->nlinks; j++)
			if (s->links[j].from == r.from && s->links[j].to == r.to)
				break;
		if (j == s->nlinks)
			s->links[s->nlinks++] = r;
	}
	free(given);
	lua_pop(L, 1);
	return 0;
failg1:
	lua_pop(L, 1);
failg:
	free(given);
fail:
	lua_pop(L, 1);
	return -1;
}

/* --- job ------------------------------------------------------------- */

static const char *const job_keys[] = { "seq", "global_batch", "micro_batch",
	"precision", "optimizer", "zero", "recompute", "sync", NULL };
static const char *const sync_keys[] = { "mode", "every", "overlap", NULL };
static const char *const precisions[] = { "bf16", "fp16", NULL };
static const char *const optimizers[] = { "adam", NULL };
static const char *const recomputes[] = { "none", "selective", "full", "auto", NULL };
static const char *const sync_modes[] = { "flat", "hierarchical", "auto", NULL };

static int conv_job(struct cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_job *j = &c->s->job;
	if (get_table(c, top, "", "job", 1) != 1)
		return -1;
	int prec, opt, rc, mode;
	if (check_keys(c, -1, "job", job_keys, 0) ||
	    get_num(c, -1, "job", "seq", F_REQ | F_POS | F_INT, 0, &j->seq) ||
	    get_num(c, -1, "job", "global_batch", F_REQ | F_POS | F_INT, 0,
		    &j->global_batch) ||
	    get_num(c, -1, "job", "micro_batch", F_POS | F_INT, 1, &j->micro_batch) ||
	    get_enum(c, -1, "job", "precision", precisions, 0, &prec) ||
	    get_enum(c, -1, "job", "optimizer", optimizers, 0, &opt) ||
	    get_int(c, -1, "job", "zero", F_NONNEG, 1, &j->zero) ||
	    get_enum(c, -1, "job", "recompute", recomputes, GP_RC_NONE, &rc))
		goto fail;
	j->precision_bytes = 2;
	j->recompute = rc;
	if (j->zero > 1) {
		cv_err(c, "job.zero", "expected 0 or 1, got %d", j->zero);
		goto fail;
	}
	j->sync_mode = GP_SYNC_AUTO;
	j->sync_every = 1;
	j->sync_overlap = true;
	int got = get_table(c, -1, "job", "sync", 0);
	if (got < 0)
		goto fail;
	if (got) {
		if (check_keys(c, -1, "job.sync", sync_keys, 0) ||
		    get_enum(c, -1, "job.sync", "mode", sync_modes, GP_SYNC_AUTO, &mode) ||
		    get_int(c, -1, "job.sync", "every", F_POS, 1, &j->sync_every) ||
		    get_bool(c, -1, "job.sync", "overlap", true, &j->sync_overlap)) {
			lua_pop(L, 1);
			goto fail;
		}
		j->sync_mode = mode;
		lua_pop(L, 1);
	}
	if (j->micro_batch > j->global_batch) {
		cv_err(c, "job.micro_batch", "%.0f is larger than global_batch (%.0f)",
		       j->micro_batch, j->global_batch);
		goto fail;
	}
	lua_pop(L, 1);
	return 0;
fail:
	lua_pop(L, 1);
	return -1;
}

/* --- plan ------------------------------------------------------------ */

static const char *const plan_keys[] = { "schedule", "chunks", "sync", "pipelines", NULL };
static const char *const pipe_keys[] = { "micro_batches", "replicas", "stages", NULL };
static const char *const stage_keys[] = { "dc", "gpu", "tp", "layers",
	"recompute", NULL };

static int conv_stage(struct cv *c, int t, const char *path, struct gp_stage *st)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	char dc[GP_NAME_MAX], gpu[GP_NAME_MAX], p[300];
	int rc;
	if (check_keys(c, t, path, stage_keys, 0) ||
	    get_str(c, t, path, "dc", F_REQ, NULL, dc, sizeof dc) ||
	    get_str(c, t, path, "gpu", 0, "", gpu, sizeof gpu) ||
	    get_int(c, t, path, "tp", F_POS, 1, &st->tp) ||
	    get_enum(c, t, path, "recompute", recomputes, -1, &rc))
		return -1;
	st->recompute_set = rc >= 0;
	st->recompute = rc >= 0 ? (enum gp_recompute)rc : s->job.recompute;
	st->dc = gp_find_dc(s, dc);
	if (st->dc < 0) {
		join(p, sizeof p, path, "dc");
		return cv_err(c, p, "unknown DC \"%s\"", dc);
	}
	const struct gp_dc *d = &s->dcs[st->dc];
	st->pool = -1;
	if (!gpu[0]) {
		if (d->npools != 1) {
			join(p, sizeof p, path, "gpu");
			return cv_err(c, p, "DC \"%s\" has %d pools: say which GPU", dc,
				      d->npools);
		}
		st->pool = 0;
	}
	for (int i = 0; gpu[0] && i < d->npools; i++)
		if (!strcmp(s->gpus[d->pools[i].gpu].name, gpu))
			st->pool = i;
	if (st->pool < 0) {
		join(p, sizeof p, path, "gpu");
		return cv_err(c, p, "DC \"%s\" has no pool of \"%s\"", dc, gpu);
	}
	join(p, sizeof p, path, "layers");
	if (get_table(c, t, path, "layers", 1) != 1)
		return -1;
	double first, last;
	if (check_array(c, -1, p, 2) != 2) {
		if (!c->failed)
			cv_err(c, p, "expected { first, last }");
		lua_pop(L, 1);
		return -1;
	}
	char q[310];
	lua_rawgeti(L, -1, 1);
	snprintf(q, sizeof q, "%s[1]", p);
	if (take_number(c, q, F_POS | F_INT, &first)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_rawgeti(L, -1, 2);
	snprintf(q, sizeof q, "%s[2]", p);
	if (take_number(c, q, F_POS | F_INT, &last)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	st->first = (int)first;
	st->last = (int)last;
	return 0;
}

static int conv_plan(struct cv *c, int top)
{
	lua_State *L = c->L;
	struct gp_scenario *s = c->s;
	struct gp_plan *pl = &s->plan;
	int got = get_table(c, top, "", "plan", 0);
	if (got <= 0)
		return got;
	s->has_plan = true;
	static const char *sched_names[GP_SCHED__N + 1];
	for (int k = 0; k < GP_SCHED__N; k++)
		sched_names[k] = gp_sched_name(k);
	static const char *const plan_syncs[] = { "flat", "hierarchical", NULL };
	int sched, sync;
	if (check_keys(c, -1, "plan", plan_keys, 0) ||
	    get_enum(c, -1, "plan", "schedule", sched_names, GP_SCHED_1F1B, &sched) ||
	    get_int(c, -1, "plan", "chunks", F_POS, 1, &pl->chunks) ||
	    get_enum(c, -1, "plan", "sync", plan_syncs, -1, &sync))
		goto fail;
	pl->schedule = sched;
	pl->sync_set = sync >= 0;
	pl->sync_mode = sync >= 0 ? sync : GP_SYNC_HIER;
	if (get_table(c, -1, "plan", "pipelines", 1) != 1)
		goto fail;
	long n = check_array(c, -1, "plan.pipelines", 100000);
	if (n < 0)
		goto fail1;
	if (n == 0) {
		cv_err(c, "plan.pipelines", "expected at least one pipeline");
		goto fail1;
	}
	pl->pipes = gp_xcalloc(n, sizeof *pl->pipes);
	if (!pl->pipes) {
		cv_err(c, "plan.pipelines", "out of memory");
		goto fail1;
	}
	for (long i = 1; i <= n; i++) {
		char p[300], sp[300];
		joini(p, sizeof p, "plan.pipelines", i);
		if (get_elem_table(c, -1, p, i))
			goto fail1;
		struct gp_pipeline *pp = &pl->pipes[pl->npipes++];
		if (check_keys(c, -1, p, pipe_keys, 0) ||
		    get_int(c, -1, p, "micro_batches", F_REQ | F_POS, 0, &pp->micro_batches) ||
		    get_int(c, -1, p, "replicas", F_POS, 1, &pp->replicas))
			goto fail2;
		join(sp, sizeof sp, p, "stages");
		if (get_table(c, -1, p, "stages", 1) != 1)
			goto fail2;
		long ns = check_array(c, -1, sp, 100000);
		if (ns < 0)
			goto fail3;
		if (ns == 0) {
			cv_err(c, sp, "expected at least one stage");
			goto fail3;
		}
		pp->stages = gp_xcalloc(ns, sizeof *pp->stages);
		if (!pp->stages) {
			cv_err(c, sp, "out of memory");
			goto fail3;
		}
		for (long j = 1; j <= ns; j++) {
			char q[310];
			joini(q, sizeof q, sp, j);
			if (get_elem_table(c, -1, q, j))
				goto fail3;
			if (conv_stage(c, -1, q, &pp->stages[pp->nstages++])) {
				lua_pop(L, 1);
				goto fail3;
			}
			lua_pop(L, 1);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 2);
	return 0;
fail3:
	lua_pop(L, 1);
fail2:
	lua_pop(L, 1);
fail1:
	lua_pop(L, 1);
fail:
	lua_pop(L, 1);
	return -1;
}

/* --- top level ------------------------------------------------------- */

static const char *const top_keys[] = { "name", "gpus", "dcs", "links", "model",
	"job", "objective", "budget", "cost_model", "heuristic", "plan", NULL };
static const char *const objectives[] = { "time", "cost", "wan_bytes", NULL };
static const char *const budget_keys[] = { "usd_per_hour", NULL };

static int conv_catalog_gpus(struct cv *c)
{
	lua_State *L = c->L;
	lua_getglobal(L, "catalog");
	if (!lua_istable(L, -1) || rawfield(L, -1, "gpus") != LUA_TTABLE) {
		lua_settop(L, 0);
		return cv_err(c, "catalog.gpus", "the prelude's GPU catalog is missing or broken");
	}
	int rc = conv_gpu_table(c, -1, "catalog.gpus");
	lua_pop(L, 2);
	return rc;
}

static int conv_top(lua_State *L)
{
	struct cv *c = lua_touserdata(L, 1);
	struct gp_scenario *s = c->s;
	int top = 2;
	char defname[GP_NAME_MAX];
	const char *base = strrchr(c->file, '/');
	snprintf(defname, sizeof defname, "%s", base ? base + 1 : c->file);
	char *dot = strrchr(defname, '.');
	if (dot && dot != defname)
		*dot = '\0';

	s->gpus = gp_xcalloc(256, sizeof *s->gpus);
	if (!s->gpus)
		return cv_err(c, NULL, "out of memory"), 0;
	int obj;
	if (check_keys(c, top, "", top_keys, 0) ||
	    get_str(c, top, "", "name", 0, defname, s->name, sizeof s->name) ||
	    conv_catalog_gpus(c))
		return 0;
	int got = get_table(c, top, "", "gpus", 0);
	if (got < 0)
		return 0;
	if (got) {
		int rc = conv_gpu_table(c, -1, "gpus");
		lua_pop(L, 1);
		if (rc)
			return 0;
	}
	if (conv_dcs(c, top) || conv_links(c, top) || conv_model(c, top) ||
	    conv_job(c, top) ||
	    get_enum(c, top, "", "objective", objectives, GP_OBJ_TIME, &obj))
		return 0;
	s->objective = obj;
	got = get_table(c, top, "", "budget", 0);
	if (got < 0)
		return 0;
	if (got) {
		int rc = check_keys(c, -1, "budget", budget_keys, 0) ||
			 get_num(c, -1, "budget", "usd_per_hour", F_REQ | F_POS, 0,
				 &s->budget_usd_per_hour);
		lua_pop(L, 1);
		if (rc)
			return 0;
	}
	char path[GP_NAME_MAX * 4];
	/* Named in the contract, not built yet: refusing them beats a
	 * scenario whose cost model is silently not the one it names. */
	static const char *const later[] = { "cost_model", "heuristic" };
	for (int i = 0; i < 2; i++) {
		if (get_str(c, top, "", later[i], 0, "", path, sizeof path))
			return 0;
		if (path[0]) {
			cv_err(c, later[i], "Lua %s scripts are not supported yet (\"%s\"); remove the field to use the built-in %s",
			       i ? "heuristic" : "cost-model", path, i ? "planners" : "cost model");
			return 0;
		}
	}
	conv_plan(c, top);
	return 0;
}

/* --- overrides: --set PATH=VALUE ------------------------------------ */

/* Finds the element of list t that `key` names: a table whose name is
 * key, or a link { "a", "b" } for "a-b" (either order). Pushes it or
 * returns 0. */
static int find_named(lua_State *L, int t, const char *key)
{
	t = lua_absindex(L, t);
	lua_Integer n = (lua_Integer)lua_rawlen(L, t);
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, t, i) != LUA_TTABLE) {
			lua_pop(L, 1);
			continue;
		}
		int el = lua_gettop(L);
		int hit = 0;
		if (rawfield(L, el, "name") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), key))
			hit = 1;
		lua_pop(L, 1);
		if (!hit && lua_rawgeti(L, el, 1) == LUA_TSTRING &&
		    lua_rawgeti(L, el, 2) == LUA_TSTRING) {
			char ab[2 * GP_NAME_MAX + 2], ba[2 * GP_NAME_MAX + 2];
			snprintf(ab, sizeof ab, "%s-%s", lua_tostring(L, -2), lua_tostring(L, -1));
			snprintf(ba, sizeof ba, "%s-%s", lua_tostring(L, -1), lua_tostring(L, -2));
			hit = !strcmp(ab, key) || !strcmp(ba, key);
		}
		lua_settop(L, el);
		if (hit)
			return 1;
		lua_pop(L, 1);
	}
	return 0;
}

/* In protected mode: upvalue-free args (table, path, value). Walks PATH
 * (a.b[2].c, dcs[ams], links[ams-fra], gpus[H100]), creating missing
 * tables on the way, and sets the last key. Errors are Lua errors with a
 * message that names the path. */
static int apply_set(lua_State *L)
{
	const char *path = lua_tostring(L, 2);
	const char *p = path;
	lua_pushvalue(L, 1); /* current table at top */
	char key[128];
	int is_index = 0;
	for (;;) {
		/* read one segment into key */
		size_t n = 0;
		if (*p == '[') {
			const char *end = strchr(p, ']');
			if (!end)
				return luaL_error(L, "'%s': missing ]", path);
			p++;
			if (*p == '"' || *p == '\'')
				p++;
			n = (size_t)(end - p);
			if (n && (p[n - 1] == '"' || p[n - 1] == '\''))
				n--;
			if (n == 0 || n >= sizeof key)
				return luaL_error(L, "'%s': bad index", path);
			memcpy(key, p, n);
			key[n] = 0;
			p = end + 1;
			is_index = 1;
		} else {
			while (p[n] && p[n] != '.' && p[n] != '[')
				n++;
			if (n == 0 || n >= sizeof key)
				return luaL_error(L, "'%s': empty or too long field name", path);
			memcpy(key, p, n);
			key[n] = 0;
			p += n;
			is_index = 0;
		}
		if (*p == '.')
			p++;
		int last = *p == 0;
		int t = lua_gettop(L);
		char *endp;
		long idx = strtol(key, &endp, 10);
		int numeric = *endp == 0 && is_index;
		if (last) {
			lua_pushvalue(L, 3);
			if (numeric) {
				lua_rawseti(L, t, idx);
			} else {
				lua_pushstring(L, key);
				lua_insert(L, -2);
				lua_rawset(L, t);
			}
			return 0;
		}
		if (numeric)
			lua_rawgeti(L, t, idx);
		else if (is_index && find_named(L, t, key))
			;
		else
			rawfield(L, t, key);
		if (lua_isnil(L, -1)) {
			/* A list (dcs, links) must name an existing element; a
			 * map (gpus) gets a new entry. */
			if (numeric || (is_index && lua_rawlen(L, t) > 0))
				return luaL_error(L, "'%s': nothing called [%s] here", path, key);
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushstring(L, key);
			lua_pushvalue(L, -2);
			lua_rawset(L, t);
		} else if (!lua_istable(L, -1)) {
			return luaL_error(L, "'%s': %s is not a table", path, key);
		}
		lua_remove(L, t);
	}
}

/* Evaluates one "PATH=VALUE" against the table at the top of the stack.
 * VALUE is a Lua expression in the sandbox (42, Gbps(50), {1, 16},
 * true); text that is not a valid expression is taken as a string. */
static int set_one(struct gp_lua *h, const char *item, struct gp_err *e)
{
	lua_State *L = h->L;
	const char *eq = strchr(item, '=');
	if (!eq || eq == item)
		return gp_errf(e, "--set '%s': expected PATH=VALUE", item);
	char path[256];
	size_t pl = (size_t)(eq - item);
	if (pl >= sizeof path)
		return gp_errf(e, "--set '%s': path too long", item);
	memcpy(path, item, pl);
	path[pl] = 0;
	const char *val = eq + 1;
	int tab = lua_gettop(L);
	lua_pushfstring(L, "return %s", val);
	int ok = luaL_loadbufferx(L, lua_tostring(L, -1), strlen(lua_tostring(L, -1)),
				  "=--set", "t") == LUA_OK;
	lua_remove(L, -2);
	if (ok) {
		arm_budget(h);
		ok = lua_pcall(L, 0, 1, 0) == LUA_OK;
		lua_sethook(L, NULL, 0, 0);
	}
	/* nil removes the field; any other nil result means the text was
	 * not an expression, so it is taken as a string. */
	if (!ok || (lua_isnil(L, -1) && strcmp(val, "nil"))) {
		lua_settop(L, tab);
		lua_pushstring(L, val);
	}
	lua_pushcfunction(L, apply_set);
	lua_pushvalue(L, tab);
	lua_pushstring(L, path);
	lua_pushvalue(L, -4);
	int rc = lua_pcall(L, 3, 0, 0);
	if (rc != LUA_OK)
		gp_errf(e, "--set %s", lua_tostring(L, -1));
	lua_settop(L, tab);
	return rc == LUA_OK ? 0 : -1;
}

struct gp_scenario *gp_lua_scenario(struct gp_lua *h, const char *name,
				    const char *text, size_t len,
				    struct gp_err *e)
{
	return gp_lua_scenario_set(h, name, text, len, NULL, 0, e);
}

struct gp_scenario *gp_lua_scenario_set(struct gp_lua *h, const char *name,
					const char *text, size_t len,
					const char *const *sets, int nsets,
					struct gp_err *e)
{
	lua_State *L = h->L;
	if (run_chunk(h, name, text, len, 1, e))
		return NULL;
	if (!lua_istable(L, -1)) {
		char d[64];
		describe(L, -1, d, sizeof d);
		lua_pop(L, 1);
		gp_errf(e, "%s: a scenario file must return a table ({ ... }), it returned %s",
			name, d);
		return NULL;
	}
	for (int i = 0; i < nsets; i++)
		if (set_one(h, sets[i], e)) {
			lua_pop(L, 1);
			return NULL;
		}
	struct gp_scenario *s = gp_xcalloc(1, sizeof *s);
	if (!s) {
		lua_pop(L, 1);
		gp_errf(e, "out of memory");
		return NULL;
	}
	snprintf(s->path, sizeof s->path, "%s", name);
	struct cv c = { .L = L, .e = e, .file = name, .s = s };
	/* Protected, so a memory error inside the conversion is a value. */
	lua_pushcfunction(L, conv_top);
	lua_pushlightuserdata(L, &c);
	lua_pushvalue(L, -3);
	int rc = lua_pcall(L, 2, 0, 0);
	if (rc != LUA_OK) {
		gp_errf(e, "%s: %s", name, rc == LUA_ERRMEM ? "memory limit exceeded"
			: lua_tostring(L, -1));
		c.failed = 1;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (c.failed) {
		gp_scenario_free(s);
		return NULL;
	}
	return s;
}
