/*
 * units.c: what people type into a field, read as an SI value, and the
 * short form a field shows. A table per unit says which suffixes it
 * takes (a prefix such as G, then a rest such as b/s, B/s, iB or ms) and
 * the range a real system lies in. The arithmetic is the prelude
 * helpers' (Gbps(x) is x * 1e9 / 8), so "100G" gives the same double as
 * Gbps(100); a helper call is passed through for the loader, which
 * evaluates it in its sandbox.
 */
#include "units.h"
#include "fmt.h"
#include "scenario.h"

#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct prefix {
	const char *name;  /* one letter, matched in either case */
	double dec, bin;   /* 1e9 and 2^30 for G */
};

enum {
	R_BIN = 1,     /* the prefix's binary multiplier */
	R_PFX = 2,     /* only after a prefix ("G" alone, not "") */
	R_B = 4,       /* b (bits) and B (bytes) must be as written */
};

struct rest {
	const char *name;
	double mul, div;   /* value = x * prefix * mul / div */
	unsigned flags;
};

struct unit_desc {
	const char *noun;      /* "a bandwidth" */
	const char *kind;      /* what it is among the others: "a rate" */
	const char *example;   /* "100G (Gbit/s), 12.5GB/s or Gbps(100)" */
	const struct prefix *prefixes;  /* NULL or ended by a NULL name */
	const struct rest *rests;       /* NULL or ended by a NULL name */
	double lo, hi;
	const char *lo_why, *hi_why;    /* "is less than ...", "is more than ..." */
	bool integral;
};

static const struct prefix si_prefixes[] = {
	{ "k", 1e3, 1024.0 }, { "M", 1e6, 1048576.0 }, { "G", 1e9, 1073741824.0 },
	{ "T", 1e12, 1099511627776.0 }, { "P", 1e15, 1125899906842624.0 }, { NULL, 0, 0 },
};

static const struct prefix flops_prefixes[] = {
	{ "G", 1e9, 0 }, { "T", 1e12, 0 }, { "P", 1e15, 0 }, { "E", 1e18, 0 }, { NULL, 0, 0 },
};

/* A bare prefix is bits: link speeds are quoted in bits. "GB" is a size,
 * not a rate: refused (bad_suffix), never read as GB/s. */
static const struct rest bw_rests[] = {
	{ "", 1, 8, R_PFX }, { "b/s", 1, 8, R_B }, { "bps", 1, 8, R_B }, { "b", 1, 8, R_B },
	{ "bit/s", 1, 8, 0 }, { "bits/s", 1, 8, 0 }, { "bit", 1, 8, 0 }, { "bits", 1, 8, 0 },
	{ "B/s", 1, 1, R_B }, { "Bps", 1, 1, R_B },
	{ "byte/s", 1, 1, 0 }, { "bytes/s", 1, 1, 0 }, { NULL, 0, 0, 0 },
};

/* A bare prefix is bytes: memory and NVLink speeds are quoted in bytes. */
static const struct rest byterate_rests[] = {
	{ "", 1, 1, R_PFX }, { "B/s", 1, 1, R_B }, { "Bps", 1, 1, R_B },
	{ "byte/s", 1, 1, 0 }, { "bytes/s", 1, 1, 0 }, { "b/s", 1, 8, R_B }, { "bps", 1, 8, R_B },
	{ "bit/s", 1, 8, 0 }, { "bits/s", 1, 8, 0 }, { NULL, 0, 0, 0 },
};

static const struct rest time_rests[] = {
	{ "s", 1, 1, 0 }, { "ms", 1e-3, 1, 0 }, { "us", 1e-6, 1, 0 },
	{ "\xc2\xb5s", 1e-6, 1, 0 }, { "\xce\xbcs", 1e-6, 1, 0 }, /* micro sign, Greek mu */
	{ "ns", 1e-9, 1, 0 }, { NULL, 0, 0, 0 },
};

/* A bare prefix is binary: memory is sized in GiB. */
static const struct rest bytes_rests[] = {
	{ "", 1, 1, R_PFX | R_BIN }, { "i", 1, 1, R_PFX | R_BIN }, { "iB", 1, 1, R_PFX | R_BIN | R_B },
	{ "B", 1, 1, R_B }, { NULL, 0, 0, 0 },
};

static const struct rest flops_rests[] = {
	{ "", 1, 1, R_PFX }, { "FLOPS", 1, 1, 0 }, { "FLOP/s", 1, 1, 0 }, { NULL, 0, 0, 0 },
};

static const struct rest ratio_rests[] = { { "%", 1, 100, 0 }, { NULL, 0, 0, 0 } };
static const struct rest usd_rests[] = { { "USD", 1, 1, 0 }, { "$", 1, 1, 0 }, { NULL, 0, 0, 0 } };

static const struct unit_desc units[] = {
	[GP_U_NUMBER] = { "a number", "a number", "42, -1.5 or 2e-3", NULL, NULL, -HUGE_VAL, HUGE_VAL,
			  "", "", false },
	[GP_U_COUNT] = { "a whole number of at least 1", "a count", "8", NULL, NULL, 1, INT_MAX,
			 "less than 1", "more than 2147483647", true },
	[GP_U_RATIO] = { "a ratio", "a ratio", "0.45 or 45%", NULL, ratio_rests, 0, 1, "negative",
			 "more than 1 (100%)", false },
	[GP_U_BANDWIDTH] = { "a bandwidth", "a rate", "100G (Gbit/s), 12.5GB/s or Gbps(100)", si_prefixes,
			     bw_rests, 1e3, 1e15, "less than 1 kB/s (8 kbit/s)",
			     "more than 1e15 B/s (8 Pbit/s), faster than any real link", false },
	[GP_U_BYTERATE] = { "a bandwidth in bytes", "a rate", "450GB/s, 3.35T (TB/s) or GBps(450)",
			     si_prefixes, byterate_rests, 1e3, 1e15, "less than 1 kB/s",
			     "more than 1e15 B/s, faster than any real memory", false },
	[GP_U_TIME] = { "a time", "a time", "35ms, 20us, 1.5s or ms(35)", NULL, time_rests, 0, 86400,
			"negative", "more than a day (86400 s)", false },
	[GP_U_BYTES] = { "a size", "a size", "80GiB, 80GB, 512MiB or GiB(80)", si_prefixes, bytes_rests, 1,
			 1125899906842624.0, "less than a byte", "more than 1 PiB", false },
	[GP_U_FLOPS] = { "a FLOP rate", "a FLOP rate", "989T (TFLOP/s), 1.3P or TFLOPS(989)", flops_prefixes,
			 flops_rests, 1e9, 1e18, "less than 1 GFLOP/s", "more than 1 EFLOP/s",
			 false },
	[GP_U_USD] = { "an amount in US dollars", "an amount", "2.5 or $2.50", NULL, usd_rests, 0, 1e9,
		       "negative", "more than $1e9", false },
};

#define NUNITS ((int)(sizeof units / sizeof units[0]))

/* The prelude's helpers (scripts/prelude.lua), with their arithmetic. */
static const struct helper {
	const char *name;
	enum gp_unit unit;
	double mul, div;
} helpers[] = {
	{ "Gbps", GP_U_BANDWIDTH, 1e9, 8 }, { "GBps", GP_U_BANDWIDTH, 1e9, 1 },
	{ "Gbps", GP_U_BYTERATE, 1e9, 8 }, { "GBps", GP_U_BYTERATE, 1e9, 1 },
	{ "ms", GP_U_TIME, 1e-3, 1 }, { "us", GP_U_TIME, 1e-6, 1 },
	{ "GiB", GP_U_BYTES, 1073741824.0, 1 }, { "GB", GP_U_BYTES, 1e9, 1 },
	{ "MiB", GP_U_BYTES, 1048576.0, 1 }, { "TFLOPS", GP_U_FLOPS, 1e12, 1 },
};

#define NHELPERS ((int)(sizeof helpers / sizeof helpers[0]))

__attribute__((format(printf, 4, 5)))
static int refuse(const struct unit_desc *d, char *why, size_t n, const char *fmt, ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (n)
		snprintf(why, n, "%s: expected %s such as %s", what, d->noun, d->example);
	return -1;
}

/* The length of the number at s (sign, digits, point, exponent); 0 if
 * there is none. An 'e' not followed by digits is left to the suffix
 * (1.3E is 1.3 EFLOP/s). */
static size_t number_len(const char *s)
{
	size_t i = 0, digits = 0;
	if (s[i] == '+' || s[i] == '-')
		i++;
	for (; isdigit((unsigned char)s[i]); i++)
		digits++;
	if (s[i] == '.')
		for (i++; isdigit((unsigned char)s[i]); i++)
			digits++;
	if (!digits)
		return 0;
	if (s[i] == 'e' || s[i] == 'E') {
		size_t j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (isdigit((unsigned char)s[j])) {
			while (isdigit((unsigned char)s[j]))
				j++;
			i = j;
		}
	}
	return i;
}

/* strtod of the len bytes at s, whatever LC_NUMERIC says: a field is
 * typed with a point, as Lua files are written. */
static double to_double(const char *s, size_t len)
{
	const char *dp = localeconv()->decimal_point;
	char buf[512];
	size_t o = 0, k = strlen(dp);
	for (size_t i = 0; i < len && o + k + 1 < sizeof buf; i++) {
		if (s[i] == '.' && k) {
			memcpy(buf + o, dp, k);
			o += k;
		} else {
			buf[o++] = s[i];
		}
	}
	buf[o] = '\0';
	return strtod(buf, NULL);
}

/* Typed a against table b: case folded, except b/B where R_B says so. */
static bool rest_eq(const char *a, const struct rest *r)
{
	const char *b = r->name;
	for (; *a && *b; a++, b++) {
		if ((r->flags & R_B) && (*b == 'b' || *b == 'B')) {
			if (*a != *b)
				return false;
		} else if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) {
			return false;
		}
	}
	return *a == *b;
}

/* Finds suffix in unit d's table; *mul, *div: value = x * mul / div.
 * bare: a prefix alone counts ("G" is 1e9 of the unit's own base). */
static bool find_suffix(const struct unit_desc *d, const char *suffix, bool bare,
			double *mul, double *div)
{
	static const struct prefix none = { "", 1, 1 };
	for (int p = -1; d->rests && (p < 0 || (d->prefixes && d->prefixes[p].name)); p++) {
		const struct prefix *px = p < 0 ? &none : &d->prefixes[p];
		size_t k = strlen(px->name);
		if (k && tolower((unsigned char)suffix[0]) != tolower((unsigned char)px->name[0]))
			continue;
		for (const struct rest *r = d->rests; r->name; r++) {
			if (((r->flags & R_PFX) && !k) || (!bare && !r->name[0]))
				continue;
			if (rest_eq(suffix + k, r)) {
				*mul = (r->flags & R_BIN ? px->bin : px->dec) * r->mul;
				*div = r->div;
				return true;
			}
		}
	}
	return false;
}

/* What one would have meant by num and suffix, a unit of other, in a
 * field of d: "40Gbit/s or 40GB/s" for a size in a link's bandwidth;
 * "" when nothing is likely. */
static void meant(const struct unit_desc *d, const struct unit_desc *other, const char *num,
		  const char *suffix, char *buf, size_t n)
{
	char p[2] = { 0, 0 };
	if (strchr("kKmMgGtTpP", suffix[0]) && suffix[0])
		p[0] = suffix[0];
	buf[0] = 0;
	if (d == &units[GP_U_BANDWIDTH] && other == &units[GP_U_BYTES])
		snprintf(buf, n, "%s%sbit/s or %s%sB/s", num, p, num, p);
	else if (d == &units[GP_U_BYTERATE] && other == &units[GP_U_BYTES])
		snprintf(buf, n, "%s%sB/s", num, p);
	else if (d == &units[GP_U_BYTES] && !strcmp(other->kind, "a rate"))
		snprintf(buf, n, "%s%sB", num, p);
}

/* A count of FLOPs ("989TFLOP"): work, not a rate. */
static bool flop_count(const char *suffix)
{
	size_t l = strlen(suffix);
	return l >= 4 && !strcasecmp(suffix + l - 4, "flop") && l <= 5;
}

/* Why suffix (after num, typed as t) does not fit d: it belongs to
 * another unit ("40GB" is a size, not a rate: did you mean 40Gbit/s or
 * 40GB/s?), is a count of FLOPs where a rate is wanted, or has its b
 * and B mixed up ("80Gb" of memory). */
static int bad_suffix(const struct unit_desc *d, const char *t, const char *num,
		      const char *suffix, char *why, size_t n)
{
	double mul, div;
	char swapped[64], like[160];
	snprintf(swapped, sizeof swapped, "%s", suffix);
	for (char *c = swapped; *c; c++)
		if (*c == 'b' || *c == 'B')
			*c ^= 'b' ^ 'B';
	if (strchr(suffix, 'b') && find_suffix(d, swapped, true, &mul, &div))   /* bits typed */
		return refuse(d, why, n, "\"%s\" is bits (b is bits, B bytes: \"%s\")", suffix,
			      swapped);
	if (d == &units[GP_U_FLOPS] && flop_count(suffix)) {
		if (n)
			snprintf(why, n, "\"%s\" is an amount of work, not a FLOP rate: did you mean %s%.*sFLOP/s?",
				 t, num, (int)strlen(suffix) - 4, suffix);
		return -1;
	}
	for (int u = 0; u < NUNITS; u++) {
		const struct unit_desc *o = &units[u];
		if (o == d || !find_suffix(o, suffix, false, &mul, &div))
			continue;
		if (!strcmp(o->kind, d->kind))   /* the same kind: the unit's own noun */
			return refuse(d, why, n, "\"%s\" is a unit of %s", suffix, o->noun);
		meant(d, o, num, suffix, like, sizeof like);
		if (!like[0])
			return refuse(d, why, n, "\"%s\" is %s, not %s", t, o->kind, d->kind);
		if (n)
			snprintf(why, n, "\"%s\" is %s, not %s: did you mean %s?", t, o->kind,
				 d->kind, like);
		return -1;
	}
	return refuse(d, why, n, "unknown unit \"%s\"", suffix);
}

static int check_range(const struct unit_desc *d, const char *t, double v, char *why,
		       size_t n)
{
	if (!isfinite(v))
		return refuse(d, why, n, "\"%s\" is too large", t);
	if (v < 0 && d->lo >= 0)
		return refuse(d, why, n, "\"%s\" is negative", t);
	if (d->integral && v != floor(v))
		return refuse(d, why, n, "\"%s\" is not a whole number", t);
	if (v < d->lo)
		return refuse(d, why, n, "\"%s\" is %s", t, d->lo_why);
	if (v > d->hi)
		return refuse(d, why, n, "\"%s\" is %s", t, d->hi_why);
	return 0;
}

/* A number and a suffix, into SI. */
static int parse_value(const struct unit_desc *d, const char *t, double *v, char *why,
		       size_t n)
{
	const char *s = t;
	if (d == &units[GP_U_USD] && *s == '$')
		for (s++; *s == ' ' || *s == '\t'; s++)
			;
	size_t len = number_len(s);
	if (!len)
		return refuse(d, why, n, "\"%s\" is not a number", t);
	double x = to_double(s, len), mul = 1, div = 1;
	const char *suffix = s + len;
	while (*suffix == ' ' || *suffix == '\t')
		suffix++;
	if (*suffix && (s != t || !find_suffix(d, suffix, true, &mul, &div))) {
		char num[64];
		snprintf(num, sizeof num, "%.*s", (int)(len < 63 ? len : 63), s);
		return s != t ? refuse(d, why, n, "\"%s\" after the number", suffix)
			      : bad_suffix(d, t, num, suffix, why, n);
	}
	*v = x * mul / div + 0.0;   /* + 0.0: no "-0" */
	return check_range(d, t, *v, why, n);
}

/* The identifier's length when t starts "name(" (spaces allowed before
 * the parenthesis), else 0. */
static size_t call_name_len(const char *t)
{
	size_t i = 0;
	if (!isalpha((unsigned char)t[0]) && t[0] != '_')
		return 0;
	while (isalnum((unsigned char)t[i]) || t[i] == '_')
		i++;
	size_t j = i;
	while (t[j] == ' ' || t[j] == '\t')
		j++;
	return t[j] == '(' ? i : 0;
}

/* Checks the call's argument: arithmetic only, balanced parentheses
 * that close at the end, no "--" (a comment would swallow the rest of
 * the line the loader puts it in). *open: where the argument starts. */
static int check_call(const struct unit_desc *d, const char *t, size_t *open, char *why,
		      size_t n)
{
	const char *p = strchr(t, '(');
	int depth = 0;
	*open = (size_t)(p - t) + 1;
	for (; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("_. \t+-*/^%(),", *p))
			return refuse(d, why, n, "'%c' cannot be in a helper's argument", *p);
		if (p[0] == '-' && p[1] == '-')
			return refuse(d, why, n, "\"--\" would start a Lua comment");
		depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (depth == 0 && p[1])
			return refuse(d, why, n, "\"%s\" after the closing parenthesis", p + 1);
	}
	if (depth)
		return refuse(d, why, n, "unbalanced parentheses in \"%s\"", t);
	return 0;
}

/* A helper call: checked, passed through; its value when the argument
 * is a plain number, else NaN (only the loader can evaluate it). */
static int parse_call(const struct unit_desc *d, enum gp_unit unit, const char *t,
		      size_t namelen, double *value, char *why, size_t n)
{
	const struct helper *h = NULL;
	char names[128] = "";
	for (int i = 0; i < NHELPERS; i++) {
		if (strlen(helpers[i].name) == namelen && !strncmp(helpers[i].name, t, namelen) &&
		    (!h || helpers[i].unit == unit))
			h = &helpers[i];   /* of this unit when the name has several */
		if (helpers[i].unit == unit) {
			size_t l = strlen(names);
			snprintf(names + l, sizeof names - l, "%s%s()", l ? ", " : "",
				 helpers[i].name);
		}
	}
	if (!h)
		return refuse(d, why, n, "unknown helper \"%.*s\" (%s%s)", (int)namelen, t,
			      names[0] ? "helpers of this unit: " : "no helper gives ",
			      names[0] ? names : d->noun);
	if (h->unit != unit)
		return refuse(d, why, n, "%s() gives %s", h->name, units[h->unit].noun);
	size_t open;
	if (check_call(d, t, &open, why, n))
		return -1;
	const char *arg = t + open;
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (*arg == ')')
		return refuse(d, why, n, "%s() needs an argument", h->name);
	size_t len = number_len(arg), end = len;
	while (arg[end] == ' ' || arg[end] == '\t')
		end++;
	*value = NAN;
	if (len && arg[end] == ')' && !arg[end + 1]) {
		*value = to_double(arg, len) * h->mul / h->div + 0.0;
		return check_range(d, t, *value, why, n);
	}
	return 0;
}

int gp_unit_parse(const char *text, enum gp_unit unit, double *value, char *lua, size_t n,
		  char *why, size_t nwhy)
{
	const struct unit_desc *d = &units[(unsigned)unit < NUNITS ? unit : GP_U_NUMBER];
	char t[256];
	while (*text == ' ' || *text == '\t')
		text++;
	size_t len = strlen(text);
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	if (len >= sizeof t)
		return refuse(d, why, nwhy, "too long (%zu characters)", len);
	memcpy(t, text, len);
	t[len] = '\0';
	if (!len)
		return refuse(d, why, nwhy, "empty");
	double v = 0;
	size_t namelen = call_name_len(t);
	if (namelen) {
		if (parse_call(d, unit, t, namelen, &v, why, nwhy))
			return -1;
		if ((size_t)snprintf(lua, n, "%s", t) >= n)
			return refuse(d, why, nwhy, "too long for the scenario (%zu characters)", len);
	} else {
		if (parse_value(d, t, &v, why, nwhy))
			return -1;
		if ((size_t)snprintf(lua, n, "%.17g", v) >= n)
			return refuse(d, why, nwhy, "no room for the value");
		gp_c_point(lua);
	}
	*value = v;
	return 0;
}

int gp_unit_bare(const char *text, enum gp_unit unit, char *why, size_t nwhy)
{
	static const struct {
		enum gp_unit unit;
		const char *base, *likely;
	} bases[] = {
		{ GP_U_TIME, "s", "ms" }, { GP_U_BANDWIDTH, "B/s", "G" },
		{ GP_U_BYTERATE, "B/s", "GB/s" }, { GP_U_BYTES, "B", "GB" },
		{ GP_U_FLOPS, "FLOPS", "T" },
	};
	while (*text == ' ' || *text == '\t')
		text++;
	size_t len = number_len(text), end = len;
	while (text[end] == ' ' || text[end] == '\t')
		end++;
	if (!len || text[end] || to_double(text, len) == 0)
		return 0;
	for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++)
		if (bases[i].unit == unit) {
			if (nwhy)
				snprintf(why, nwhy, "%.*s %s? write %.*s%s or %.*s%s", (int)len, text,
					 bases[i].base, (int)len, text, bases[i].likely, (int)len, text,
					 bases[i].base);
			return -1;
		}
	return 0;
}

/* x with 4 significant digits and suffix; whole numbers from 9999.5 on
 * (so no "1e+04"), from 1e6 a short exponent ("3.167e13s": a figure
 * that no field is wide enough for whole keeps its unit), below 1e-4 as many decimals as 4 digits take,
 * trailing zeros dropped ("$0.0000954", not "$9.54e-05"). */
static void put4(char *buf, size_t n, const char *pre, double x, const char *suffix)
{
	char num[64];
	if (fabs(x) >= 1e6) {
		gp_fmt_exp(x, 4, 0, num, sizeof num);
	} else if (fabs(x) >= 9999.5) {
		snprintf(num, sizeof num, "%.0f", x);
	} else if (x != 0 && fabs(x) < 1e-4) {
		int dec = 3 - (int)floor(log10(fabs(x)));
		snprintf(num, sizeof num, "%.*f", dec > 30 ? 30 : dec, x);
		gp_c_point(num);
		size_t l = strlen(num);
		while (l && num[l - 1] == '0')
			num[--l] = 0;
	} else {
		snprintf(num, sizeof num, "%.4g", x);
	}
	snprintf(buf, n, "%s%s%s", pre, num, suffix);
	gp_c_point(buf);
}

/* The largest step of scales (descending) that |v| reaches, else the last. */
static int scale_of(double v, const double *scales, int n)
{
	int i = 0;
	while (i < n - 1 && fabs(v) < scales[i])
		i++;
	return i;
}

static void format_usd(double v, char *buf, size_t n)
{
	char t[64];
	snprintf(t, sizeof t, "%.2f", v);
	gp_c_point(t);
	double back = to_double(t, strlen(t));
	if (fabs(v) < 1e6 && fabs(back - v) <= 1e-3 * fabs(v))
		snprintf(buf, n, "$%s", t);
	else
		put4(buf, n, "$", v, "");
}

void gp_unit_format(double v, enum gp_unit unit, char *buf, size_t n)
{
	static const double bits[] = { 1e12, 1e9, 1e6, 1e3, 0 };
	static const char *const bit_names[] = { "Tb/s", "Gb/s", "Mb/s", "kb/s", "b/s" };
	static const char *const byte_names[] = { "TB/s", "GB/s", "MB/s", "kB/s", "B/s" };
	static const double secs[] = { 1, 1e-3, 1e-6, 0 };
	static const char *const sec_names[] = { "s", "ms", "us", "ns" };
	static const double bin[] = { 1099511627776.0, 1073741824.0, 1048576.0, 1024, 0 };
	static const char *const bin_names[] = { "TiB", "GiB", "MiB", "KiB", "B" };
	static const double fl[] = { 1e15, 1e12, 1e9, 0 };
	static const char *const fl_names[] = { "P", "T", "G", "" };
	int i;
	if (!isfinite(v)) {
		snprintf(buf, n, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	switch (unit) {
	case GP_U_BANDWIDTH:
		i = scale_of(v * 8, bits, 5);
		put4(buf, n, "", v * 8 / (bits[i] ? bits[i] : 1), v ? bit_names[i] : "");
		break;
	case GP_U_BYTERATE:
		i = scale_of(v, bits, 5);
		put4(buf, n, "", v / (bits[i] ? bits[i] : 1), v ? byte_names[i] : "B/s");
		break;
	case GP_U_TIME:
		i = scale_of(v, secs, 4);
		put4(buf, n, "", v / (i < 3 ? secs[i] : 1e-9), v ? sec_names[i] : "s");
		break;
	case GP_U_BYTES:
		i = scale_of(v, bin, 5);
		put4(buf, n, "", v / (bin[i] ? bin[i] : 1), bin_names[i]);
		break;
	case GP_U_FLOPS:
		i = scale_of(v, fl, 4);
		put4(buf, n, "", v / (fl[i] ? fl[i] : 1), fl_names[i]);
		break;
	case GP_U_USD:
		format_usd(v, buf, n);
		break;
	case GP_U_COUNT:
		snprintf(buf, n, "%.0f", v);
		break;
	case GP_U_RATIO:
		put4(buf, n, "", v, "");
		break;
	default:
		snprintf(buf, n, "%.6g", v);
		gp_c_point(buf);
		break;
	}
}

void gp_unit_time4(double v, char *buf, size_t n)
{
	static const double secs[] = { 1, 1e-3, 1e-6, 1e-9 };
	static const char *const names[] = { "s", "ms", "us", "ns" };
	if (!isfinite(v) || v == 0) {
		gp_unit_format(v, GP_U_TIME, buf, n);
		return;
	}
	int i = scale_of(v, secs, 4);
	double x = v / secs[i];
	char num[64];
	if (fabs(x) >= 1e6)
		gp_fmt_exp(x, 4, 1, num, sizeof num);
	else if (fabs(x) >= 9999.5)
		snprintf(num, sizeof num, "%.0f", x);
	else
		snprintf(num, sizeof num, "%#.4g", x);
	gp_c_point(num);
	size_t l = strlen(num);
	if (l && num[l - 1] == '.')
		num[l - 1] = 0;
	snprintf(buf, n, "%s%s", num, names[i]);
}

void gp_unit_grouped(double v, char *buf, size_t n)
{
	gp_fmt_grouped(v, buf, n);
}

void gp_unit_bytes10(double v, char *buf, size_t n)
{
	gp_fmt_bytes(v, buf, n);
}

void gp_unit_rate(double v, char *buf, size_t n)
{
	gp_fmt_si(v, 3, "", buf, n);
}
