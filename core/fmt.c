/*
 * fmt.c: figures with units and SI prefixes (fmt.h). One rule for all:
 * scale by 1000 until the figure lies in [1, 1000), round it to the
 * digits asked, and scale once more when the rounding reached 1000 (so
 * 999.7 ms is "1 s", not "1e+03 ms"). From 1e6 of the largest unit
 * (a time in seconds, bytes beyond EB) the figure would be too wide for
 * any column: it takes a short exponent, "3.167e13 s".
 */
#include "fmt.h"
#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const si_prefix[] = { "p", "n", "u", "m", "", "k", "M", "G", "T", "P", "E" };

enum { FMT_NONE = 4, FMT_TOP = 10 };

/* x rounded to d significant digits, as printf rounds it (the C
 * locale's point: geoplan never sets LC_NUMERIC). */
static double round_sig(double x, int d)
{
	char t[64];
	snprintf(t, sizeof t, "%.*e", d - 1, x);
	return strtod(t, NULL);
}

/* The number, in the C locale's form, without an exponent, its
 * significant digits all written ("2.50", "140", "1.00"). */
static void put_number(char *buf, size_t n, double x, int digits)
{
	if (x == 0 || fabs(x) >= pow(10, digits - 1))
		snprintf(buf, n, "%.0f", x);
	else
		snprintf(buf, n, "%#.*g", digits, x);
	gp_c_point(buf);
}

char *gp_fmt_exp(double x, int digits, int keep_zeros, char *buf, size_t n)
{
	char t[64];
	digits = digits < 1 ? 1 : digits > 17 ? 17 : digits;
	snprintf(t, sizeof t, "%.*e", digits - 1, x);
	gp_c_point(t);
	char *e = strchr(t, 'e');
	if (!e) {   /* not finite */
		snprintf(buf, n, "%s", t);
		return buf;
	}
	*e = 0;
	int ex = atoi(e + 1);
	size_t l = strlen(t);
	if (!keep_zeros && strchr(t, '.')) {
		while (l && t[l - 1] == '0')
			t[--l] = 0;
		if (l && t[l - 1] == '.')
			t[--l] = 0;
	}
	snprintf(buf, n, "%se%d", t, ex);
	return buf;
}

static const char *not_finite(double v)
{
	return isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/* v with prefixes from index lo to hi of si_prefix. */
static char *scaled(double v, int digits, int lo, int hi, const char *unit, char *buf,
		    size_t n)
{
	const char *sep = unit[0] ? " " : "";
	if (!isfinite(v)) {
		snprintf(buf, n, "%s%s%s", not_finite(v), sep, unit);
		return buf;
	}
	digits = digits < 2 ? 2 : digits > 6 ? 6 : digits;
	int i = FMT_NONE;
	double x = v;
	while (fabs(x) >= 1000 && i < hi) {
		x /= 1000;
		i++;
	}
	while (x != 0 && fabs(x) < 1 && i > lo) {
		x *= 1000;
		i--;
	}
	if (fabs(x) < 1000)   /* above the top prefix: whole, not rounded */
		x = round_sig(x, digits);
	if (fabs(x) >= 1000 && i < hi) {
		x = round_sig(x / 1000, digits);
		i++;
	}
	if (fabs(x) < 1e-3)   /* below the smallest prefix */
		x = 0;
	char num[64];
	if (fabs(x) >= 1e6)   /* far above the top prefix: too wide whole */
		gp_fmt_exp(x, digits, 1, num, sizeof num);
	else
		put_number(num, sizeof num, x + 0.0, digits);   /* + 0.0: no "-0" */
	const char *p = x == 0 ? "" : si_prefix[i];
	snprintf(buf, n, "%s%s%s%s", num, p[0] || unit[0] ? " " : "", p, unit);
	return buf;
}

char *gp_fmt_si(double v, int digits, const char *unit, char *buf, size_t n)
{
	return scaled(v, digits, unit && unit[0] ? 0 : FMT_NONE, FMT_TOP, unit ? unit : "", buf, n);
}

char *gp_fmt_time(double s, int digits, char *buf, size_t n)
{
	return scaled(s, digits, 0, FMT_NONE, "s", buf, n);
}

char *gp_fmt_bytes(double b, char *buf, size_t n)
{
	return scaled(b, 3, FMT_NONE, FMT_TOP, "B", buf, n);
}

char *gp_fmt_bitrate(double bytes_per_s, char *buf, size_t n)
{
	return scaled(bytes_per_s * 8, 3, FMT_NONE, FMT_TOP, "bit/s", buf, n);
}

char *gp_fmt_gib(double b, char *buf, size_t n)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	if (!isfinite(b)) {
		snprintf(buf, n, "%s B", not_finite(b));
		return buf;
	}
	int i = 0;
	double x = b;
	while (fabs(x) >= 1023.95 && i < 5) {
		x /= 1024;
		i++;
	}
	snprintf(buf, n, i ? "%.1f %s" : "%.0f %s", x, names[i]);
	gp_c_point(buf);
	return buf;
}

char *gp_fmt_usd(double v, char *buf, size_t n)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "$%s", not_finite(v));
		return buf;
	}
	const char *sign = v < 0 ? "-" : "";
	double a = fabs(v);
	char num[64];
	if (round_sig(a, 3) >= 1000) {
		gp_fmt_grouped(a, num, sizeof num);
	} else if (a >= 1 || a == 0) {
		snprintf(num, sizeof num, a == 0 ? "0" : "%.2f", a);
	} else {
		int dec = 2 - (int)floor(log10(round_sig(a, 3)));
		snprintf(num, sizeof num, "%.*f", dec > 12 ? 12 : dec, a);
	}
	gp_c_point(num);
	snprintf(buf, n, "%s$%s", sign, num);
	return buf;
}

char *gp_fmt_gap(double frac, char *buf, size_t n)
{
	if (!isfinite(frac))
		snprintf(buf, n, "%s %%", not_finite(frac));
	else if (frac > 0 && 100 * frac < 0.005)
		snprintf(buf, n, "< 0.01 %%");
	else
		snprintf(buf, n, "%.2f %%", 100 * frac + 0.0);
	gp_c_point(buf);
	return buf;
}

char *gp_fmt_pct(double frac, char *buf, size_t n)
{
	if (!isfinite(frac))
		snprintf(buf, n, "%s %%", not_finite(frac));
	else
		snprintf(buf, n, "%.1f %%", 100 * frac + 0.0);
	gp_c_point(buf);
	return buf;
}

char *gp_fmt_grouped(double v, char *buf, size_t n)
{
	if (!isfinite(v) || fabs(v) >= 1e15) {
		snprintf(buf, n, "%.4g", v);
		gp_c_point(buf);
		return buf;
	}
	char d[32];
	snprintf(d, sizeof d, "%.0f", fabs(v));
	size_t len = strlen(d), o = 0;
	if (v <= -0.5 && o + 1 < n)
		buf[o++] = '-';
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	if (n)
		buf[o < n ? o : n - 1] = 0;
	return buf;
}

char *gp_fmt_one_line(const char *msg, char *buf, size_t n)
{
	size_t l = 0;
	if (!n)
		return buf;
	for (const char *p = msg; *p && l + 1 < n; p++) {
		bool sp = *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r';
		if (!sp)
			buf[l++] = *p;
		else if (l && buf[l - 1] != ' ')
			buf[l++] = ' ';
	}
	while (l && buf[l - 1] == ' ')
		l--;
	buf[l] = 0;
	return buf;
}
