/*
 * test_lua_match.c: core/lua_match.c, the pattern matcher behind the
 * sandbox's string.find, match, gmatch and gsub, against Lua 5.4's own
 * library on random subjects and patterns: the same results, the same
 * captures, the same error messages. A second implementation is the
 * oracle; the fixed cases pin what random ones rarely reach.
 */
#include "testutil.h"

#include <lauxlib.h>
#include <lualib.h>

#include "lua_int.h"

/* Runs in a plain state: M holds our functions (not charged), string
 * the library's. Returns nil when both agree, else a description. */
static const char *compare_lua =
	"local M = ...\n"
	"local function pack(...) return { n = select('#', ...), ... } end\n"
	"local function show(r)\n"
	"  local out = {}\n"
	"  for i = 1, r.n do out[#out + 1] = type(r[i]) == 'string' and ('%q'):format(r[i]) or tostring(r[i]) end\n"
	"  return table.concat(out, ', ')\n"
	"end\n"
	"local function all(f, s, p, init)\n"
	"  local r, k = {}, 0\n"
	"  for a, b, c in f(s, p, init) do\n"
	"    r[#r + 1] = tostring(a) .. '|' .. tostring(b) .. '|' .. tostring(c)\n"
	"    k = k + 1 if k > 50 then break end\n"
	"  end\n"
	"  return table.concat(r, ';')\n"
	"end\n"
	"local repl_t = { a = 'T', b = false, ab = 7 }\n"
	"local function repl_f(a, b) if a == 'b' then return nil end return '<' .. tostring(a) .. tostring(b) .. '>' end\n"
	"return function(s, p, init, repl, max)\n"
	"  local reps = { repl, repl_t, repl_f }\n"
	"  local calls = {\n"
	"    { 'find', function(f) return f(s, p, init) end },\n"
	"    { 'find plain', function(f) return f(s, p, init, true) end },\n"
	"    { 'match', function(f) return f(s, p, init) end },\n"
	"    { 'gmatch', function(f, lib) return all(lib.gmatch, s, p, init) end },\n"
	"  }\n"
	"  for _, r in ipairs(reps) do\n"
	"    calls[#calls + 1] = { 'gsub', function(f, lib) return lib.gsub(s, p, r, max) end }\n"
	"  end\n"
	"  for _, c in ipairs(calls) do\n"
	"    local name = c[1]:match('%a+')\n"
	"    local a = show(pack(pcall(c[2], string[name], string)))\n"
	"    local b = show(pack(pcall(c[2], M[name], M)))\n"
	"    if a ~= b then\n"
	"      return ('%s(%q, %q, %s): library %s, ours %s'):format(c[1], s, p, tostring(init), a, b)\n"
	"    end\n"
	"  end\n"
	"end\n";

struct rng {
	unsigned long long x;
};

static unsigned next_u(struct rng *r, unsigned n)
{
	r->x = r->x * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((r->x >> 33) % n);
}

/* Pieces patterns are made of: items, repetitions, sets, captures,
 * anchors, and malformed bits. */
static const char *const tokens[] = { "a", "b", "c", ".", "%a", "%d", "%s", "%w",
	"%A", "%S", "%p", "%x", "%.", "%%", "[ab]", "[^a]", "[a-c]", "[%a.]", "[]a]",
	"[^]b]", "[%d-]", "*", "+", "-", "?", "(", ")", "()", "%1", "%2", "%bab",
	"%b()", "%f[a]", "%f[%w]", "%f[^a]", "^", "$", "%", "[", "]", "%z", "%b",
	"%f", "1", " ", "(a*)", "(.-)", "%0" };
static const char subject_chars[] = "aabbc ()1.%-z\0";
static const char *const repls[] = { "%0", "%1", "[%1%2]", "%%", "x", "%", "%9", "" };

/* A subject (NULs included: its length is returned) and a pattern. */
static size_t random_case(struct rng *r, char *s, char *p)
{
	int ls = (int)next_u(r, 12), np = 1 + (int)next_u(r, 6);
	for (int i = 0; i < ls; i++)
		s[i] = subject_chars[next_u(r, sizeof subject_chars - 1)];
	s[ls] = '\0';
	p[0] = '\0';
	for (int i = 0; i < np; i++)
		strcat(p, tokens[next_u(r, sizeof tokens / sizeof tokens[0])]);
	return (size_t)ls;
}

/* Compares both libraries on one case; the function is at 1. */
static void compare(lua_State *L, const char *s, size_t ls, const char *p, int init,
		    const char *repl, int max)
{
	lua_pushvalue(L, 1);
	lua_pushlstring(L, s, ls);
	lua_pushstring(L, p);
	lua_pushinteger(L, init);
	lua_pushstring(L, repl);
	if (max >= 0)
		lua_pushinteger(L, max);
	else
		lua_pushnil(L);
	if (lua_pcall(L, 5, 1, 0) != LUA_OK)
		fail_msg("compare: %s", lua_tostring(L, -1));
	if (!lua_isnil(L, -1))
		fail_msg("%s", lua_tostring(L, -1));
	lua_pop(L, 1);
}

static lua_State *plain_state(void)
{
	lua_State *L = luaL_newstate();
	assert_non_null(L);
	luaL_openlibs(L);
	if (luaL_loadstring(L, compare_lua) != LUA_OK)
		fail_msg("%s", lua_tostring(L, -1));
	lua_newtable(L);
	lh_open_match(L, NULL);
	lua_call(L, 1, 1);
	return L;
}

static void test_random_patterns(void **state)
{
	(void)state;
	lua_State *L = plain_state();
	struct rng r = { 2024 };
	char s[64], p[256];
	for (int i = 0; i < 40000; i++) {
		size_t ls = random_case(&r, s, p);
		int init = (int)next_u(&r, 16) - 6;
		const char *repl = repls[next_u(&r, sizeof repls / sizeof repls[0])];
		compare(L, s, ls, p, init, repl, (int)next_u(&r, 5) - 1);
	}
	lua_close(L);
}

/* What random cases rarely reach: embedded NULs, frontiers at the ends,
 * nested balances, position captures in gsub, empty matches after a
 * match, deep recursion and too many captures. */
static void test_fixed_patterns(void **state)
{
	(void)state;
	static const struct {
		const char *s, *p;
		size_t ls;
	} cases[] = {
		{ "a\0b\0c", "%z", 5 }, { "a\0b\0c", "[%z]", 5 }, { "a\0b\0c", "\0b", 5 },
		{ "THE (quick) fox", "%f[%a]%a+", 0 }, { "THE (quick) fox", "%f[%A]", 0 },
		{ "x(a(b)c)y(d)", "%b()", 0 }, { "x(a(b)c", "%b()", 0 },
		{ "hello world", "()ll()", 0 }, { "abc", "%w*", 0 }, { "abc", "", 0 },
		{ "key = value", "^(%w+)%s*=%s*(%w+)$", 0 }, { "aaa", "a-", 0 },
		{ "aaab", "a-b", 0 }, { "  x", "^%s*(.-)%s*$", 0 }, { "abcabc", "(abc)%1", 0 },
		{ "a.b-c", "[%.%-]", 0 }, { "]]", "[]]+", 0 }, { "a^b", "a^b", 0 },
		{ "a$b", "a$b", 0 }, { "ab", "b$", 0 }, { "x", "(()", 0 }, { "x", "x)", 0 },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		  "(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)(a)", 0 },
	};
	lua_State *L = plain_state();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t ls = cases[i].ls ? cases[i].ls : strlen(cases[i].s);
		for (int init = -3; init <= 3; init++)
			compare(L, cases[i].s, ls, cases[i].p, init, "<%0|%1>", -1);
	}
	/* Recursion beyond the matcher's depth: "pattern too complex". */
	char deep[1200] = "", subj[400];
	for (int i = 0; i < 300; i++)
		strcat(deep, "a?");
	memset(subj, 'a', 300);
	compare(L, subj, 300, deep, 1, "x", -1);
	lua_close(L);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_patterns),
		cmocka_unit_test(test_fixed_patterns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
