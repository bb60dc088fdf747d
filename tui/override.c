/*
 * override.c: an override as people type it (override.h): the unit
 * words of the editor read into the loader's numbers, and the loader's
 * numbered entries named back as the override named them.
 */
#include "override.h"
#include "whatif.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum gp_unit gp_ov_unit_of(const char *path)
{
	static const struct { const char *name; enum gp_unit u; } by[] = {
		{ "latency", GP_U_TIME }, { "network", GP_U_BANDWIDTH },
		{ "nvlink", GP_U_BYTERATE }, { "hbm_bandwidth", GP_U_BYTERATE },
		{ "memory", GP_U_BYTES }, { "tflops", GP_U_FLOPS },
		{ "price_per_hour", GP_U_USD }, { "usd_per_hour", GP_U_USD },
		{ "efficiency", GP_U_RATIO },
	};
	const char *dot = strrchr(path, '.'), *last = dot ? dot + 1 : path;
	if (!strcmp(last, "bandwidth"))
		return GP_U_BANDWIDTH;   /* a link's: bare G is Gbit/s */
	for (size_t i = 0; i < sizeof by / sizeof by[0]; i++)
		if (!strcmp(last, by[i].name))
			return by[i].u;
	return GP_U_NUMBER;
}

/* A number and then only unit letters ("40GB", "-1G", "35 ms", "10Q"):
 * what the editor reads, not a Lua expression ("2*Gbps(5)", "1e9/8"). */
static bool unit_word(const char *v, const char *end)
{
	if (end == v || !*end)
		return false;
	for (const char *p = end; *p; p++)
		if (!isalpha((unsigned char)*p) && !strchr("/%$ \t", *p) && !((unsigned char)*p & 0x80))
			return false;
	return true;
}

int gp_ov_units(const char *set, bool strict, char *out, size_t n, char *why, size_t nwhy)
{
	const char *eq = strchr(set, '=');
	char path[200], lua[128], no[200], *end;
	if (!eq || (size_t)(eq - set) >= sizeof path) {
		snprintf(out, n, "%s", set);   /* not PATH=VALUE: the loader says why */
		return 0;
	}
	snprintf(path, sizeof path, "%.*s", (int)(eq - set), set);
	enum gp_unit u = gp_ov_unit_of(path);
	double v;
	if (strict && gp_unit_bare(eq + 1, u, why, nwhy))
		return -1;
	strtod(eq + 1, &end);
	if (u != GP_U_NUMBER && *end && end != eq + 1) {
		if (!gp_unit_parse(eq + 1, u, &v, lua, sizeof lua, no, sizeof no)) {
			snprintf(out, n, "%s=%s", path, lua);
			return 0;
		}
		if (unit_word(eq + 1, end)) {   /* "40GB" for a rate: never the loader's guess */
			snprintf(out, n, "%s", set);
			snprintf(why, nwhy, "%s", no);
			return -1;
		}
	}
	snprintf(out, n, "%s", set);
	return 0;
}

int gp_ov_check(const char *set, char *why, size_t nwhy)
{
	char **vals, out[512];
	int nv = gp_whatif_split(set, &vals), rc = 0;
	for (int i = 0; i < nv && !rc; i++)
		if (gp_ov_units(vals[i], false, out, sizeof out, why, nwhy))
			rc = -1;
	for (int i = 0; i < nv; i++)
		free(vals[i]);
	free(vals);
	return rc;
}

void gp_ov_xlate(const char *set, char *out, size_t n)
{
	char why[8];
	gp_ov_units(set, false, out, n, why, sizeof why);
}

/* Do the selectors at a and b ("[ams-fra]...", "[2]...") name the same
 * entry as far as can be told here? A number names only its own number
 * (dcs[1].name=fra does not own the loader's "dcs[2].name: ..."); a
 * name may be any number, but for a rename. */
static bool same_entry(const char *a, const char *b)
{
	size_t na = strcspn(a, "]"), nb = strcspn(b, "]");
	if (a[0] != '[' || strspn(a + 1, "0123456789") != na - 1 || na < 2)
		/* A name, but not a rename's: dcs[ams].name=fra leaves no
		 * dcs[ams], and the loader's message is of the other fra. */
		return strlen(a) < 5 || strcmp(a + strlen(a) - 5, ".name") != 0;
	return na == nb && !strncmp(a, b, na);
}

bool gp_ov_as_written(const char *set, const char *msg, char *buf, size_t n)
{
	const char *colon = strstr(msg, ": "), *eq = strchr(set, '=');
	char p[200];
	snprintf(p, sizeof p, "%.*s", eq ? (int)(eq - set) : (int)strlen(set), set);
	const char *dot = strrchr(p, '.');
	size_t top = strcspn(p, "[."), ll = dot ? strlen(dot) : 0;
	if (colon && dot && (size_t)(colon - msg) > ll && !strncmp(msg, p, top) &&
	    msg[top] == '[' && !strncmp(colon - ll, dot, ll) && same_entry(p + top, msg + top)) {
		snprintf(buf, n, "%s%s", p, colon);
		return true;
	}
	snprintf(buf, n, "%s", msg);
	return false;
}

bool gp_ov_name(const char *const *sets, int nsets, const char *file, const char *msg,
		char *buf, size_t n)
{
	size_t fl = file ? strlen(file) : 0;
	size_t skip = fl && !strncmp(msg, file, fl) && !strncmp(msg + fl, ": ", 2) ? fl + 2 : 0;
	char *named = malloc(n);
	if (!named) {
		snprintf(buf, n, "%s", msg);
		return false;
	}
	for (int i = nsets - 1; i >= 0; i--)
		if (gp_ov_as_written(sets[i], msg + skip, named, n)) {
			snprintf(buf, n, "%.*s%s", (int)skip, msg, named);
			free(named);
			return true;
		}
	free(named);
	snprintf(buf, n, "%s", msg);
	return false;
}
