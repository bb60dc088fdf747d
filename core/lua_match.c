/*
 * lua_match.c: string.find, string.match, string.gmatch and string.gsub
 * on a matcher of our own, written from the Lua 5.4 reference manual
 * (section 6.4.1, "Patterns"), that charges every step to the
 * instruction budget. The library's matcher backtracks inside one C
 * call, where the count hook never fires: string.find(("a"):rep(30),
 * ("a*"):rep(30) .. "b") ran for minutes. Here it ends in the budget's
 * message, at the caller's line.
 *
 * Semantics follow the manual and the 5.4 library (tests/test_lua.c
 * compares both on random patterns): the classes %a %c %d %g %l %p %s
 * %u %w %x and their complements, sets with ranges, the items * + - ?,
 * captures and position captures, %1-%9, %bxy, %f[set], ^ and $
 * anchors; gsub and gmatch skip an empty match right after a match.
 */
#include "lua_int.h"

#include <ctype.h>
#include <lauxlib.h>
#include <string.h>

#define MAXCAP 32     /* LUA_MAXCAPTURES */
#define MAXDEPTH 200  /* recursion of the matcher ("pattern too complex") */
#define CHARGE_EVERY 1024
#define SPECIALS "^$*+?.([%-"

enum { CAP_OPEN = -1, CAP_POS = -2 };

struct cap {
	const char *at;
	ptrdiff_t len; /* >= 0, CAP_OPEN or CAP_POS */
};

struct mstate {
	const char *s0, *send; /* the subject */
	const char *pend;      /* the pattern's end */
	lua_State *L;
	struct gp_lua *h;      /* whose budget; NULL: free */
	const char *what;      /* "in string.find", for the budget message */
	long steps;            /* not charged yet */
	int depth, ncap;
	struct cap cap[MAXCAP];
};

static void tick(struct mstate *m, long n)
{
	m->steps += n;
	if (m->steps >= CHARGE_EVERY) {
		long s = m->steps;
		m->steps = 0;
		lh_charge(m->h, m->L, s, m->what);
	}
}

static void settle(struct mstate *m)
{
	long s = m->steps;
	m->steps = 0;
	lh_charge(m->h, m->L, s, m->what);
}

/* --- single characters --------------------------------------------- */

/* %z: '\0', left out of the 5.4 manual but still in its library. */
static int is_nul(int c)
{
	return c == 0;
}

static const struct {
	char letter;
	int (*is)(int);
} classes[] = {
	{ 'a', isalpha }, { 'c', iscntrl }, { 'd', isdigit }, { 'g', isgraph },
	{ 'l', islower }, { 'p', ispunct }, { 's', isspace }, { 'u', isupper },
	{ 'w', isalnum }, { 'x', isxdigit }, { 'z', is_nul },
};

/* Does c belong to %cl? An upper-case class letter is the complement;
 * %x for any other x is x itself. */
static int in_class(int c, int cl)
{
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (tolower(cl) == classes[i].letter) {
			int r = classes[i].is(c) != 0;
			return isupper(cl) ? !r : r;
		}
	return cl == c;
}

/* Where the single-character class at p ends. */
static const char *class_end(struct mstate *m, const char *p)
{
	if (*p == '%') {
		if (p + 1 >= m->pend)
			luaL_error(m->L, "malformed pattern (ends with '%%')");
		return p + 2;
	}
	if (*p != '[')
		return p + 1;
	const char *q = p + 1;
	if (q < m->pend && *q == '^')
		q++;
	/* The set's first character is itself, even ']'. */
	do {
		if (q >= m->pend)
			luaL_error(m->L, "malformed pattern (missing ']')");
		if (*q++ == '%' && q < m->pend)
			q++;
	} while (q >= m->pend || *q != ']');
	return q + 1;
}

/* Is c in the set [...] from p (at '[') to close (at its ']')? */
static int in_set(int c, const char *p, const char *close)
{
	int want = 1;
	if (*++p == '^') {
		want = 0;
		p++;
	}
	for (; p < close; p++) {
		if (*p == '%' && p + 1 < close) {
			if (in_class(c, (unsigned char)*++p))
				return want;
		} else if (p[1] == '-' && p + 2 < close) {
			if ((unsigned char)p[0] <= c && c <= (unsigned char)p[2])
				return want;
			p += 2;
		} else if ((unsigned char)*p == c) {
			return want;
		}
	}
	return !want;
}

/* Does the character at s (s < send) match the class from p to ep? */
static int single(const char *s, const char *p, const char *ep)
{
	int c = (unsigned char)*s;
	switch (*p) {
	case '.':
		return 1;
	case '%':
		return in_class(c, (unsigned char)p[1]);
	case '[':
		return in_set(c, p, ep - 1);
	default:
		return (unsigned char)*p == c;
	}
}

/* --- the matcher ----------------------------------------------------- */

static const char *match(struct mstate *m, const char *s, const char *p);

/* The longest run of the class first, then shorter ones. */
static const char *greedy(struct mstate *m, const char *s, const char *p, const char *ep)
{
	ptrdiff_t n = 0;
	while (s + n < m->send && single(s + n, p, ep))
		n++;
	tick(m, 1 + n / LH_BYTES_PER_STEP);
	for (; n >= 0; n--) {
		tick(m, 1);
		const char *r = match(m, s + n, ep + 1);
		if (r)
			return r;
	}
	return NULL;
}

/* The shortest run first, then one more. */
static const char *lazy(struct mstate *m, const char *s, const char *p, const char *ep)
{
	for (;;) {
		tick(m, 1);
		const char *r = match(m, s, ep + 1);
		if (r)
			return r;
		if (s < m->send && single(s, p, ep))
			s++;
		else
			return NULL;
	}
}

static const char *open_capture(struct mstate *m, const char *s, const char *p,
				ptrdiff_t what)
{
	if (m->ncap >= MAXCAP)
		luaL_error(m->L, "too many captures");
	m->cap[m->ncap].at = s;
	m->cap[m->ncap].len = what;
	m->ncap++;
	const char *r = match(m, s, p);
	if (!r)
		m->ncap--;
	return r;
}

static const char *close_capture(struct mstate *m, const char *s, const char *p)
{
	int l = m->ncap - 1;
	while (l >= 0 && m->cap[l].len != CAP_OPEN)
		l--;
	if (l < 0)
		luaL_error(m->L, "invalid pattern capture");
	m->cap[l].len = s - m->cap[l].at;
	const char *r = match(m, s, p);
	if (!r)
		m->cap[l].len = CAP_OPEN;
	return r;
}

/* %1-%9: the text of a closed capture again. */
static const char *backref(struct mstate *m, const char *s, int d)
{
	int l = d - '1';
	if (l < 0 || l >= m->ncap || m->cap[l].len == CAP_OPEN)
		luaL_error(m->L, "invalid capture index %%%d", l + 1);
	ptrdiff_t len = m->cap[l].len;
	tick(m, 1 + len / LH_BYTES_PER_STEP);
	if (len >= 0 && m->send - s >= len && !memcmp(m->cap[l].at, s, (size_t)len))
		return s + len;
	return NULL;
}

/* %bxy: x, then text up to the y that balances it. */
static const char *balance(struct mstate *m, const char *s, const char *p)
{
	if (p + 1 >= m->pend)
		luaL_error(m->L, "malformed pattern (missing arguments to '%%b')");
	if (s >= m->send || *s != p[0])
		return NULL;
	int open = 1;
	for (const char *q = s + 1; q < m->send; q++) {
		tick(m, 1);
		if (*q == p[1]) {
			if (--open == 0)
				return q + 1;
		} else if (*q == p[0]) {
			open++;
		}
	}
	return NULL;
}

/* %f[set] at p (after "%f"): the empty string between a character not
 * in the set and one in it; the subject's ends count as '\0'. Returns
 * the pattern after it, or NULL. */
static const char *frontier(struct mstate *m, const char *s, const char *p)
{
	if (p >= m->pend || *p != '[')
		luaL_error(m->L, "missing '[' after '%%f' in pattern");
	const char *ep = class_end(m, p);
	int before = s == m->s0 ? 0 : (unsigned char)s[-1];
	int at = s < m->send ? (unsigned char)*s : 0;
	return !in_set(before, p, ep - 1) && in_set(at, p, ep - 1) ? ep : NULL;
}

/* One pattern item at p that is not a capture or an anchor: %b, %f, a
 * back-reference, or a class with its repetition. Sets *s and *p and
 * returns 1 to go on, or returns 0 with *s the result (NULL: no
 * match) when the rest was matched by recursion. */
static int item(struct mstate *m, const char **s, const char **p)
{
	const char *q = *p;
	if (*q == '%' && q + 1 < m->pend) {
		if (q[1] == 'b') {
			*s = balance(m, *s, q + 2);
			*p = q + 4;
			return *s != NULL;
		}
		if (q[1] == 'f') {
			const char *next = frontier(m, *s, q + 2);
			*p = next;
			if (!next)
				*s = NULL;
			return next != NULL;
		}
		if (isdigit((unsigned char)q[1])) {
			*s = backref(m, *s, q[1]);
			*p = q + 2;
			return *s != NULL;
		}
	}
	const char *ep = class_end(m, q);
	int ok = *s < m->send && single(*s, q, ep);
	switch (ep < m->pend ? *ep : '\0') {
	case '?':
		if (ok) {
			const char *r = match(m, *s + 1, ep + 1);
			if (r) {
				*s = r;
				return 0;
			}
		}
		*p = ep + 1;
		return 1;
	case '+':
		*s = ok ? greedy(m, *s + 1, q, ep) : NULL;
		return 0;
	case '*':
		*s = greedy(m, *s, q, ep);
		return 0;
	case '-':
		*s = lazy(m, *s, q, ep);
		return 0;
	default:
		*s = ok ? *s + 1 : NULL;
		*p = ep;
		return ok;
	}
}

/* Matches the pattern from p at s: the end of the match, or NULL. */
static const char *match(struct mstate *m, const char *s, const char *p)
{
	if (++m->depth > MAXDEPTH)
		luaL_error(m->L, "pattern too complex");
	const char *r = s;
	for (;;) {
		tick(m, 1);
		if (p == m->pend)
			break;
		if (*p == '(') {
			r = p + 1 < m->pend && p[1] == ')' ? open_capture(m, r, p + 2, CAP_POS)
							   : open_capture(m, r, p + 1, CAP_OPEN);
			break;
		}
		if (*p == ')') {
			r = close_capture(m, r, p + 1);
			break;
		}
		if (*p == '$' && p + 1 == m->pend) {
			r = r == m->send ? r : NULL;
			break;
		}
		if (!item(m, &r, &p))
			break;
	}
	m->depth--;
	return r;
}

/* --- captures -------------------------------------------------------- */

/* Pushes capture i; with no captures, i 0 is the whole match s..e. */
static void push_capture(struct mstate *m, int i, const char *s, const char *e)
{
	if (i >= m->ncap) {
		if (i != 0)
			luaL_error(m->L, "invalid capture index %%%d", i + 1);
		lua_pushlstring(m->L, s, (size_t)(e - s));
		return;
	}
	const struct cap *c = &m->cap[i];
	if (c->len == CAP_OPEN)
		luaL_error(m->L, "unfinished capture");
	if (c->len == CAP_POS)
		lua_pushinteger(m->L, c->at - m->s0 + 1);
	else
		lua_pushlstring(m->L, c->at, (size_t)c->len);
}

/* Pushes every capture (the whole match if none and s is given). */
static int push_captures(struct mstate *m, const char *s, const char *e)
{
	int n = m->ncap == 0 && s ? 1 : m->ncap;
	luaL_checkstack(m->L, n, "too many captures");
	for (int i = 0; i < n; i++)
		push_capture(m, i, s, e);
	return n;
}

static void init(struct mstate *m, lua_State *L, struct gp_lua *h, const char *s,
		 size_t ls, const char *p, size_t lp, const char *what)
{
	m->s0 = s;
	m->send = s + ls;
	m->pend = p + lp;
	m->L = L;
	m->h = h;
	m->what = what;
	m->steps = 0;
	m->depth = m->ncap = 0;
}

/* A start position, 0-based: init 0 is 1, negative counts from the end. */
static size_t start_at(lua_Integer init, size_t len)
{
	if (init > 0)
		return (size_t)init - 1;
	if (init == 0 || (init < 0 && (lua_Unsigned)-init > len))
		return 0;
	return len - (size_t)-init;
}

/* --- find, match, gmatch, gsub ---------------------------------------- */

/* The host is the functions' upvalue (lh_open_match). */
#define HOST(L) ((struct gp_lua *)lua_touserdata(L, lua_upvalueindex(1)))

static int no_specials(const char *p, size_t lp)
{
	for (size_t i = 0; i < lp; i++)
		if (p[i] && strchr(SPECIALS, p[i]))
			return 0;
	return 1;
}

/* A plain search, charged per candidate position. */
static const char *plain_find(struct mstate *m, const char *s, size_t ls,
			      const char *p, size_t lp)
{
	if (lp == 0)
		return s;
	if (lp > ls)
		return NULL;
	const char *last = s + (ls - lp);
	while (s <= last) {
		const char *c = memchr(s, p[0], (size_t)(last - s) + 1);
		tick(m, 1 + ((c ? c : last) - s + (ptrdiff_t)lp) / LH_BYTES_PER_STEP);
		if (!c)
			return NULL;
		if (!memcmp(c + 1, p + 1, lp - 1))
			return c;
		s = c + 1;
	}
	return NULL;
}

static int find_aux(lua_State *L, int find)
{
	size_t ls, lp;
	const char *s = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	size_t at = start_at(luaL_optinteger(L, 3, 1), ls);
	struct mstate m;
	init(&m, L, HOST(L), s, ls, p, lp, find ? "in string.find" : "in string.match");
	if (at > ls) {
		luaL_pushfail(L);
		return 1;
	}
	if (find && (lua_toboolean(L, 4) || no_specials(p, lp))) {
		const char *hit = plain_find(&m, s + at, ls - at, p, lp);
		settle(&m);
		if (hit) {
			lua_pushinteger(L, hit - s + 1);
			lua_pushinteger(L, (lua_Integer)(hit - s) + (lua_Integer)lp);
			return 2;
		}
		luaL_pushfail(L);
		return 1;
	}
	int anchor = lp > 0 && *p == '^';
	const char *from = s + at;
	do {
		m.ncap = m.depth = 0;
		const char *e = match(&m, from, p + anchor);
		if (e) {
			settle(&m);
			if (!find)
				return push_captures(&m, from, e);
			lua_pushinteger(L, from - s + 1);
			lua_pushinteger(L, e - s);
			return push_captures(&m, NULL, NULL) + 2;
		}
	} while (from++ < m.send && !anchor);
	settle(&m);
	luaL_pushfail(L);
	return 1;
}

static int str_find(lua_State *L)
{
	return find_aux(L, 1);
}

static int str_match(lua_State *L)
{
	return find_aux(L, 0);
}

/* upvalues: subject, pattern, host, next start, end of the last match
 * (-1: none yet), as offsets. */
static int gmatch_step(lua_State *L)
{
	size_t ls, lp;
	const char *s = lua_tolstring(L, lua_upvalueindex(1), &ls);
	const char *p = lua_tolstring(L, lua_upvalueindex(2), &lp);
	lua_Integer from = lua_tointeger(L, lua_upvalueindex(4));
	lua_Integer last = lua_tointeger(L, lua_upvalueindex(5));
	struct mstate m;
	init(&m, L, lua_touserdata(L, lua_upvalueindex(3)), s, ls, p, lp, "in string.gmatch");
	for (const char *src = s + from; src <= m.send; src++) {
		m.ncap = m.depth = 0;
		const char *e = match(&m, src, p);
		if (e && e - s != last) {
			settle(&m);
			lua_pushinteger(L, e - s);
			lua_copy(L, -1, lua_upvalueindex(4));
			lua_replace(L, lua_upvalueindex(5));
			return push_captures(&m, src, e);
		}
	}
	settle(&m);
	lua_pushinteger(L, (lua_Integer)ls + 1);
	lua_replace(L, lua_upvalueindex(4));
	return 0;
}

static int str_gmatch(lua_State *L)
{
	size_t ls;
	luaL_checklstring(L, 1, &ls);
	luaL_checkstring(L, 2);
	size_t at = start_at(luaL_optinteger(L, 3, 1), ls);
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushinteger(L, at > ls ? (lua_Integer)ls + 1 : (lua_Integer)at);
	lua_pushinteger(L, -1);
	lua_pushcclosure(L, gmatch_step, 5);
	return 1;
}

/* Appends the string replacement at 3 for the match s..e: %0 the match,
 * %1-%9 captures, %% a percent sign. */
static void add_string(struct mstate *m, luaL_Buffer *b, const char *s, const char *e)
{
	size_t l;
	const char *r = lua_tolstring(m->L, 3, &l), *end = r + l;
	while (r < end) {
		const char *pc = memchr(r, '%', (size_t)(end - r));
		if (!pc) {
			luaL_addlstring(b, r, (size_t)(end - r));
			return;
		}
		luaL_addlstring(b, r, (size_t)(pc - r));
		int d = pc + 1 < end ? (unsigned char)pc[1] : 0;
		if (d == '%')
			luaL_addchar(b, '%');
		else if (d == '0')
			luaL_addlstring(b, s, (size_t)(e - s));
		else if (isdigit(d)) {
			push_capture(m, d - '1', s, e);
			luaL_tolstring(m->L, -1, NULL);
			lua_remove(m->L, -2);
			luaL_addvalue(b);
		} else
			luaL_error(m->L, "invalid use of '%%' in replacement string");
		r = pc + 2;
	}
}

/* Appends the replacement of the match s..e: a string, or what a table
 * or function gives for its first capture (false or nil: the match). */
static void add_value(struct mstate *m, luaL_Buffer *b, const char *s, const char *e,
		      int tr)
{
	lua_State *L = m->L;
	if (tr == LUA_TSTRING || tr == LUA_TNUMBER) {
		add_string(m, b, s, e);
		return;
	}
	if (tr == LUA_TFUNCTION) {
		lua_pushvalue(L, 3);
		lua_call(L, push_captures(m, s, e), 1);
	} else {
		push_capture(m, 0, s, e);
		lua_gettable(L, 3);
	}
	if (!lua_toboolean(L, -1)) {
		lua_pop(L, 1);
		luaL_addlstring(b, s, (size_t)(e - s));
	} else if (!lua_isstring(L, -1)) {
		luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
	} else {
		luaL_addvalue(b);
	}
}

static int str_gsub(lua_State *L)
{
	size_t ls, lp;
	const char *src = luaL_checklstring(L, 1, &ls);
	const char *p = luaL_checklstring(L, 2, &lp);
	int tr = lua_type(L, 3);
	lua_Integer max = luaL_optinteger(L, 4, (lua_Integer)ls + 1), n = 0;
	luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION ||
			 tr == LUA_TTABLE, 3, "string/function/table");
	struct mstate m;
	init(&m, L, HOST(L), src, ls, p, lp, "in string.gsub");
	int anchor = lp > 0 && *p == '^';
	const char *last = NULL;
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	while (n < max) {
		m.ncap = m.depth = 0;
		const char *e = match(&m, src, p + anchor);
		if (e && e != last) {
			n++;
			add_value(&m, &b, src, e, tr);
			src = last = e;
		} else if (src < m.send) {
			luaL_addchar(&b, *src++);
		} else {
			break;
		}
		if (anchor)
			break;
	}
	settle(&m);
	luaL_addlstring(&b, src, (size_t)(m.send - src));
	luaL_pushresult(&b);
	lua_pushinteger(L, n);
	return 2;
}

void lh_open_match(lua_State *L, struct gp_lua *h)
{
	static const luaL_Reg fns[] = {
		{ "find", str_find }, { "match", str_match },
		{ "gmatch", str_gmatch }, { "gsub", str_gsub }, { NULL, NULL },
	};
	lua_pushlightuserdata(L, h);
	luaL_setfuncs(L, fns, 1);
}
