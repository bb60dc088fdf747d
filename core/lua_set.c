/*
 * lua_set.c: geoplan --set PATH=VALUE, applied to the table a scenario
 * file returns before it is converted, and the entry points that load a
 * scenario (gp_lua_scenario, gp_lua_scenario_set in lua_host.h).
 *
 * PATH walks fields and indices; a list element can be named (dcs[ams],
 * links[ams-fra], or one direction of a link, links[ams>fra]); VALUE is
 * a Lua expression evaluated in a fresh environment of the sandbox, or a
 * plain string when it is not one. Every Lua allocation runs in
 * protected mode: a scenario may have left the heap full.
 */
#include "lua_int.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does element el (a table) name key: its name, or a link { "a", "b" }
 * for "a-b" (either order) or "a>b" (that direction: 1 as written, 2 the
 * entry's reverse)? 0: no. */
static int names_it(lua_State *L, int el, const char *key)
{
	int hit = 0;
	if (lh_rawfield(L, el, "name") == LUA_TSTRING && !strcmp(lua_tostring(L, -1), key))
		hit = 1;
	lua_pop(L, 1);
	if (!hit && lua_rawgeti(L, el, 1) == LUA_TSTRING && lua_rawgeti(L, el, 2) == LUA_TSTRING) {
		const char *a = lua_tostring(L, -2), *b = lua_tostring(L, -1);
		char ab[2 * GP_NAME_MAX + 2], ba[2 * GP_NAME_MAX + 2];
		bool dir = strchr(key, '>') != NULL;
		snprintf(ab, sizeof ab, dir ? "%s>%s" : "%s-%s", a, b);
		snprintf(ba, sizeof ba, dir ? "%s>%s" : "%s-%s", b, a);
		hit = !strcmp(ab, key) ? 1 : !strcmp(ba, key) ? (dir ? 2 : 1) : 0;
	}
	lua_settop(L, el);
	return hit;
}

/* Finds the element of list t that `key` names (names_it) and pushes
 * it; for one direction of a link, the entry written that way first,
 * else the entry of the other direction, whose `reverse` table it then
 * pushes instead (created if missing). 0: none. */
static int find_named(lua_State *L, int t, const char *key)
{
	t = lua_absindex(L, t);
	lua_Integer n = (lua_Integer)lua_rawlen(L, t), rev = 0;
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, t, i) != LUA_TTABLE) {
			lua_pop(L, 1);
			continue;
		}
		int hit = names_it(L, lua_gettop(L), key);
		if (hit == 1)
			return 1;
		if (hit == 2 && !rev)
			rev = i;
		lua_pop(L, 1);
	}
	if (!rev)
		return 0;
	lua_rawgeti(L, t, rev);
	if (lh_rawfield(L, -1, "reverse") != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_pushliteral(L, "reverse");
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_insert(L, -3);
		lua_rawset(L, -4);
	}
	lua_remove(L, -2);
	return 1;
}

static void raw_setfield(lua_State *L, int t, const char *k)
{
	lua_pushstring(L, k);
	lua_insert(L, -2);
	lua_rawset(L, t);
}

/* One direction of a link whose entry is written that way ({ "a", "b" }
 * for a>b): before its field `rest` changes, the other direction keeps
 * the old figure in the entry's reverse table. */
static void keep_reverse(lua_State *L, const char *key, const char *rest)
{
	int e = lua_gettop(L);
	if (!strchr(key, '>') || !*rest || strpbrk(rest, ".[") ||
	    lua_rawgeti(L, e, 1) != LUA_TSTRING) {
		lua_settop(L, e);
		return;
	}
	lua_pop(L, 1);
	if (lh_rawfield(L, e, "reverse") != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		raw_setfield(L, e, "reverse");
	}
	int rv = lua_gettop(L);
	if (lh_rawfield(L, rv, rest) == LUA_TNIL) {
		lua_pop(L, 1);
		lh_rawfield(L, e, rest);
		raw_setfield(L, rv, rest);
	}
	lua_settop(L, e);
}

/* A link named both ways (links[a-b]) whose field `rest` is set: the
 * element at the top is the first entry naming it; the value is at
 * index 3. Both directions take the value: the entry's reverse table
 * forgets its own figure for the field, and an entry for the other
 * direction, when the file gives one, is set as well. */
static void both_ways(lua_State *L, int t, const char *key, const char *rest)
{
	int e = lua_gettop(L);
	if (strchr(key, '>') || !*rest || strpbrk(rest, ".[") ||
	    lua_rawgeti(L, e, 1) != LUA_TSTRING) {
		lua_settop(L, e);
		return;
	}
	lua_settop(L, e);
	if (lh_rawfield(L, e, "reverse") == LUA_TTABLE) {
		lua_pushnil(L);
		raw_setfield(L, lua_gettop(L) - 1, rest);
	}
	lua_settop(L, e);
	lua_Integer n = (lua_Integer)lua_rawlen(L, t);
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_rawgeti(L, t, i) != LUA_TTABLE || lua_rawequal(L, -1, e) ||
		    !names_it(L, lua_gettop(L), key)) {
			lua_settop(L, e);
			continue;
		}
		int o = lua_gettop(L);
		lua_pushvalue(L, 3);
		raw_setfield(L, o, rest);
		if (lh_rawfield(L, o, "reverse") == LUA_TTABLE) {
			lua_pushnil(L);
			raw_setfield(L, lua_gettop(L) - 1, rest);
		}
		lua_settop(L, e);
	}
}

/* What the elements of list t are called, the way `key` names one (a
 * DC's name; a link's "a-b", or "a>b" when key has a '>'), with the one
 * key most likely means: "did you mean \"ams\"? names: ams, fra". */
static void list_hint(lua_State *L, int t, const char *key, char *buf, size_t n)
{
	enum { MAXN = 64 };
	char names[MAXN][2 * GP_NAME_MAX + 2];
	const char *ptr[MAXN];
	int k = 0;
	bool dir = strchr(key, '>') != NULL;
	lua_Integer len = (lua_Integer)lua_rawlen(L, t);
	int top = lua_gettop(L);
	for (lua_Integer i = 1; i <= len && k < MAXN; i++) {
		if (lua_rawgeti(L, t, i) == LUA_TTABLE) {
			int el = lua_gettop(L);
			if (lh_rawfield(L, el, "name") == LUA_TSTRING)
				snprintf(names[k], sizeof names[k], "%s", lua_tostring(L, -1));
			else if (lua_rawgeti(L, el, 1) == LUA_TSTRING &&
				 lua_rawgeti(L, el, 2) == LUA_TSTRING) {
				snprintf(names[k], sizeof names[k], dir ? "%s>%s" : "%s-%s",
					 lua_tostring(L, -2), lua_tostring(L, -1));
				if (dir && k + 1 < MAXN) {   /* a direction either way */
					ptr[k] = names[k];
					k++;
					snprintf(names[k], sizeof names[k], "%s>%s",
						 lua_tostring(L, -1), lua_tostring(L, -2));
				}
			} else {
				names[k][0] = 0;
			}
			if (names[k][0]) {
				ptr[k] = names[k];
				k++;
			}
		}
		lua_settop(L, top);
	}
	if (k)
		lh_suggest(key, ptr, k, "names", buf, n);
}

/* Is `name` the name of a DC of the scenario (root: its index)? */
static bool is_dc(lua_State *L, int root, const char *name)
{
	int top = lua_gettop(L);
	bool hit = false;
	if (lh_rawfield(L, root, "dcs") == LUA_TTABLE) {
		int ds = lua_gettop(L);
		for (lua_Integer i = 1; !hit && i <= (lua_Integer)lua_rawlen(L, ds); i++) {
			if (lua_rawgeti(L, ds, i) == LUA_TTABLE &&
			    lh_rawfield(L, -1, "name") == LUA_TSTRING)
				hit = !strcmp(lua_tostring(L, -1), name);
			lua_settop(L, ds);
		}
	}
	lua_settop(L, top);
	return hit;
}

/* links[a-b] (or a>b) naming no link of list t, the scenario's own
 * links (first: the index right after "links"), between two DCs it
 * has: a new entry { "a", "b" } at the end of the list, pushed. 0
 * (nothing pushed) when key is not such a pair. A new link gets what
 * --set gives it; the loader asks for the rest (bandwidth, latency). */
/* Splits key at a '>' (one direction) or else at the '-' where both
 * halves name DCs of the scenario (names may hold '-': us-east-eu-west). */
static bool split_pair(lua_State *L, const char *key, char *a, char *b)
{
	const char *sep = strchr(key, '>') ? ">" : "-";
	for (const char *cut = strpbrk(key, sep); cut; cut = strpbrk(cut + 1, sep)) {
		size_t na = (size_t)(cut - key), nb = strlen(cut + 1);
		if (na == 0 || na > GP_NAME_MAX || nb == 0 || nb > GP_NAME_MAX)
			continue;
		memcpy(a, key, na);
		a[na] = 0;
		memcpy(b, cut + 1, nb + 1);
		if (strcmp(a, b) && is_dc(L, 1, a) && is_dc(L, 1, b))
			return true;
	}
	return false;
}

static int new_link(lua_State *L, int t, bool first, const char *path, const char *key)
{
	char a[GP_NAME_MAX + 1], b[GP_NAME_MAX + 1];
	if (strncmp(path, "links[", 6) || !first || !split_pair(L, key, a, b))
		return 0;
	lua_createtable(L, 2, 2);
	lua_pushstring(L, a);
	lua_rawseti(L, -2, 1);
	lua_pushstring(L, b);
	lua_rawseti(L, -2, 2);
	lua_pushvalue(L, -1);
	lua_rawseti(L, t, (lua_Integer)lua_rawlen(L, t) + 1);
	return 1;
}

/* Whether path renames a DC: dcs[X].name. */
static bool renames_dc(const char *path)
{
	const char *end = strchr(path, ']');
	return !strncmp(path, "dcs[", 4) && end && !strcmp(end, "].name");
}

/* Replaces string `old` by `now` at key k of table t when it is there. */
static void swap_name(lua_State *L, int t, lua_Integer i, const char *k, const char *old,
		      const char *now)
{
	int got = k ? lh_rawfield(L, t, k) : lua_rawgeti(L, t, i);
	bool hit = got == LUA_TSTRING && !strcmp(lua_tostring(L, -1), old);
	lua_pop(L, 1);
	if (!hit)
		return;
	lua_pushstring(L, now);
	if (k)
		raw_setfield(L, t, k);
	else
		lua_rawseti(L, t, i);
}

/* A DC renamed from old to now: the links and the plan's stages that
 * name it follow (root: the scenario table's index). */
static void rename_refs(lua_State *L, int root, const char *old, const char *now)
{
	int top = lua_gettop(L);
	if (lh_rawfield(L, root, "links") == LUA_TTABLE) {
		int ls = lua_gettop(L);
		for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, ls); i++, lua_settop(L, ls))
			if (lua_rawgeti(L, ls, i) == LUA_TTABLE) {
				swap_name(L, lua_gettop(L), 1, NULL, old, now);
				swap_name(L, lua_gettop(L), 2, NULL, old, now);
			}
	}
	lua_settop(L, top);
	if (lh_rawfield(L, root, "plan") == LUA_TTABLE &&
	    lh_rawfield(L, -1, "pipelines") == LUA_TTABLE) {
		int ps = lua_gettop(L);
		for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, ps); i++, lua_settop(L, ps)) {
			if (lua_rawgeti(L, ps, i) != LUA_TTABLE || lh_rawfield(L, -1, "stages") != LUA_TTABLE)
				continue;
			int ss = lua_gettop(L);
			for (lua_Integer j = 1; j <= (lua_Integer)lua_rawlen(L, ss); j++, lua_settop(L, ss))
				if (lua_rawgeti(L, ss, j) == LUA_TTABLE)
					swap_name(L, lua_gettop(L), 0, "dc", old, now);
		}
	}
	lua_settop(L, top);
}

/* PATH's last segment names an element of list t (dcs[ams]=..., or
 * links[a-b]=... of a new link too): the value, a table, is merged into
 * it field by field, so links[a-b] = { bandwidth = Gbps(50), latency =
 * ms(3) } adds or changes a link. */
static int set_element(lua_State *L, int t, bool first, const char *path, const char *key)
{
	if (!lua_istable(L, 3))
		return luaL_error(L, "'%s': expected a table of its fields ({ bandwidth = ..., "
				  "latency = ... } for a link), or a field: %s.FIELD=VALUE", path, path);
	if (!find_named(L, t, key) && !new_link(L, t, first, path, key)) {
		char hint[1024] = "";
		list_hint(L, t, key, hint, sizeof hint);
		return luaL_error(L, "'%s': nothing called [%s] here%s%s%s", path, key,
				  hint[0] ? " (" : "", hint, hint[0] ? ")" : "");
	}
	int el = lua_gettop(L);
	char old[GP_NAME_MAX + 1] = "";   /* dcs[X] = { name = ... }: a rename */
	if (lh_rawfield(L, el, "name") == LUA_TSTRING)
		snprintf(old, sizeof old, "%s", lua_tostring(L, -1));
	if (old[0] && lh_rawfield(L, 3, "name") == LUA_TSTRING && strcmp(old, lua_tostring(L, -1)))
		rename_refs(L, 1, old, lua_tostring(L, -1));
	lua_settop(L, el);
	lua_pushnil(L);
	while (lua_next(L, 3)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, el);
	}
	return 0;
}

/* One --set: the path, and the value as a string (NULL: the value is
 * the third argument of apply_set). */
struct set_item {
	const char *path, *str;
};

/* In protected mode (every allocation here may meet a full heap): args
 * (table, struct set_item, value). Walks PATH (a.b[2].c, dcs[ams],
 * links[ams-fra], gpus[H100]), creating missing tables on the way, and
 * sets the last key. Errors are Lua errors with a message that names
 * the path. */
static int apply_set(lua_State *L)
{
	const struct set_item *it = lua_touserdata(L, 2);
	const char *path = it->path;
	const char *p = path;
	if (it->str) {
		lua_pushstring(L, it->str);
		lua_replace(L, 3);
	}
	lua_pushvalue(L, 1); /* current table at top */
	char key[128];
	int is_index = 0;
	for (int seg = 0;; seg++) {
		bool first = seg == 1;   /* t is a field of the scenario's own */
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
			char old[GP_NAME_MAX + 1] = "";
			if (renames_dc(path) && !strcmp(key, "name") && lua_type(L, 3) == LUA_TSTRING &&
			    lh_rawfield(L, t, "name") == LUA_TSTRING)
				snprintf(old, sizeof old, "%s", lua_tostring(L, -1));
			lua_settop(L, t);
			if (old[0])   /* what names the DC follows it */
				rename_refs(L, 1, old, lua_tostring(L, 3));
			/* A named element of a list (links, even while it has
			 * none yet), not a key of a map (gpus[H100]). */
			if (is_index && !numeric &&
			    (lua_rawlen(L, t) > 0 || (first && !strncmp(path, "links[", 6))))
				return set_element(L, t, first, path, key);
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
		else if (is_index && find_named(L, t, key)) {
			keep_reverse(L, key, p);
			both_ways(L, t, key, p);
		} else if (!(is_index && new_link(L, t, first, path, key)))
			lh_rawfield(L, t, key);
		if (lua_isnil(L, -1)) {
			/* A list (dcs, links) must name an existing element; a
			 * map (gpus) gets a new entry. */
			if (numeric || (is_index && lua_rawlen(L, t) > 0)) {
				char hint[1024] = "";
				if (!numeric)
					list_hint(L, t, key, hint, sizeof hint);
				return luaL_error(L, "'%s': nothing called [%s] here%s%s%s", path, key,
						  hint[0] ? " (" : "", hint, hint[0] ? ")" : "");
			}
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

/* Words and operators only (xdc-greedy, GPT-3-XL, a/b): no call, table,
 * index or string literal, so not meant as code. */
static int is_words(const char *val)
{
	return !strpbrk(val, "(){}[]\"'");
}

/* Evaluates VALUE of "PATH=VALUE" in a fresh environment and leaves it
 * on the stack, or nothing when it is to be taken as a string. */
static int eval_value(struct gp_lua *h, const char *item, const char *val,
		      struct gp_err *e)
{
	lua_State *L = lh_state(h);
	size_t n = strlen(val);
	char *code = malloc(n + 8);
	if (!code)
		return gp_errf(e, "out of memory");
	memcpy(code, "return ", 7);
	memcpy(code + 7, val, n + 1);
	struct gp_err ve = { "" };
	int rc = lh_script(h, "=--set", code, n + 7, 1, 0, &ve);
	free(code);
	if (rc == 0) {
		lua_pop(L, 1); /* the environment */
		/* nil removes the field; a nil from anything else is an
		 * undefined name: a word. */
		if (lua_isnil(L, -1) && strcmp(val, "nil"))
			lua_pop(L, 1);
		return 0;
	}
	if (rc == -2 || is_words(val))
		return 0;
	const char *msg = ve.msg;
	if (!strncmp(msg, "--set:1: ", 9))   /* the chunk's name is the item's */
		msg += 9;
	else if (!strncmp(msg, "=--set: ", 8))
		msg += 8;
	return gp_errf(e, "--set %s: %s", item, msg);
}

/* apply_set in protected mode: the scenario table at tab, the value at
 * val. 0, or -1 with e set. */
static int apply_one(struct gp_lua *h, int tab, const struct set_item *it, int val,
		     struct gp_err *e)
{
	lua_State *L = lh_state(h);
	int top = lua_gettop(L);
	lua_pushcfunction(L, apply_set);
	lua_pushvalue(L, tab);
	lua_pushlightuserdata(L, (void *)it);
	lua_pushvalue(L, val);
	int rc = lua_pcall(L, 3, 0, 0);
	if (rc == LUA_ERRMEM)
		lh_pcall_error(h, rc, "--set", e);
	else if (rc != LUA_OK)
		gp_errf(e, "--set %s", lua_tostring(L, -1));
	lua_settop(L, top);
	return rc == LUA_OK ? 0 : -1;
}

/* links[a-b] or links[a>b], a link as a whole. */
static bool is_link(const char *path)
{
	const char *end = strchr(path, ']');
	return !strncmp(path, "links[", 6) && end && end[1] == 0;
}

/* links[a-b] = { bandwidth = ..., latency = ... }: each field set as
 * links[a-b].FIELD would be (both directions, or one with its reverse
 * kept; a link not there yet added by the first), the table at the top
 * of the stack. No Lua allocation outside apply_one's protected call. */
static int set_fields(struct gp_lua *h, int tab, const char *path, struct gp_err *e)
{
	lua_State *L = lh_state(h);
	int val = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, val)) {
		if (lua_type(L, -2) != LUA_TSTRING) {
			lua_settop(L, val);
			return gp_errf(e, "--set '%s': a link's fields are named (bandwidth = ...)", path);
		}
		char sub[320];
		snprintf(sub, sizeof sub, "%s.%s", path, lua_tostring(L, -2));
		struct set_item it = { sub, NULL };
		if (apply_one(h, tab, &it, lua_gettop(L), e)) {
			lua_settop(L, val);
			return -1;
		}
		lua_pop(L, 1);
	}
	return 0;
}

/* Applies one "PATH=VALUE" to the table at the top of the stack. VALUE
 * is a Lua expression in the sandbox (42, Gbps(50), {1, 16}, true), or
 * a string when it is not one (see lua_host.h). */
static int set_one(struct gp_lua *h, const char *item, struct gp_err *e)
{
	lua_State *L = lh_state(h);
	const char *eq = strchr(item, '=');
	if (!eq || eq == item)
		return gp_errf(e, "--set '%s': expected PATH=VALUE", item);
	char path[256];
	size_t pl = (size_t)(eq - item);
	if (pl >= sizeof path)
		return gp_errf(e, "--set '%s': path too long", item);
	memcpy(path, item, pl);
	path[pl] = 0;
	int tab = lua_gettop(L);
	if (eval_value(h, item, eq + 1, e))
		return -1;
	struct set_item it = { path, lua_gettop(L) == tab ? eq + 1 : NULL };
	if (it.str)
		lua_pushnil(L);
	int rc = is_link(path) && lua_istable(L, tab + 1) ? set_fields(h, tab, path, e)
							   : apply_one(h, tab, &it, tab + 1, e);
	lua_settop(L, tab);
	return rc;
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
	lua_State *L = lh_state(h);
	if (lh_load_script(h, name, text, len, 1, 0, e))
		return NULL;
	lua_insert(L, -2); /* the environment, then the table */
	if (!lua_istable(L, -1)) {
		char d[64];
		lh_describe(L, -1, d, sizeof d);
		lua_pop(L, 2);
		gp_errf(e, "%s: a scenario file must return a table ({ ... }), it returned %s",
			name, d);
		return NULL;
	}
	for (int i = 0; i < nsets; i++)
		if (set_one(h, sets[i], e)) {
			lua_pop(L, 2);
			return NULL;
		}
	/* The catalog is the chunk's copy; its other globals end here. */
	struct gp_scenario *s = lh_scenario_in(L, -2, name, e);
	lua_pop(L, 1);
	return s;
}
