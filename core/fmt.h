/*
 * fmt.h: figures as a design review reads them: a few significant
 * digits, an SI prefix and a unit ("2.68 s", "27.8 ms", "97.8 k",
 * "4.29 GB", "47.2 GiB", "100 Gbit/s", "$0.135"), never printf's
 * exponent (9.778e+04) and never more digits than the model is good for;
 * from 1e6 of the largest unit a short exponent, "3.167e13 s". Each
 * writes into buf (n bytes) and returns buf, so calls nest in a printf.
 * The batch reports and the terminal planner share them.
 */
#ifndef GP_FMT_H
#define GP_FMT_H

#include <stddef.h>

/* v with `digits` significant digits (2..6) and the SI prefix (p n u m,
 * k M G T P E) that keeps it in [1, 1000), then unit: "97.8 k" (unit "",
 * a count or rate, has no prefix below 1: "0.576", never "576 m"),
 * "100 Gbit/s", "27.8 ms". Above the largest prefix whole up to 1e6
 * ("123456 s"), then with a short exponent ("3.17e13 s"). Below the
 * smallest prefix it is 0; not finite: "inf", "-inf", "nan". */
char *gp_fmt_si(double v, int digits, const char *unit, char *buf, size_t n);
/* Seconds: "2.68 s", "27.8 ms", "12 us" (digits as above; no prefix
 * above seconds: "3600 s", "123456 s", "3.167e13 s"). */
char *gp_fmt_time(double s, int digits, char *buf, size_t n);
/* Bytes in decimal units, 3 significant digits: "4.29 GB", "0 B" (as
 * links are sold and bills are written). */
char *gp_fmt_bytes(double b, char *buf, size_t n);
/* Bytes in binary units, one decimal: "47.2 GiB", "512.0 MiB" (as GPU
 * memory is sized). */
char *gp_fmt_gib(double b, char *buf, size_t n);
/* A link speed in bytes/s, as bits: "100 Gbit/s", "4.8 Gbit/s". */
char *gp_fmt_bitrate(double bytes_per_s, char *buf, size_t n);
/* US dollars: 3 significant digits below $1000 ("$0.135", "$12.3"),
 * whole dollars grouped above ("$1,234"). */
char *gp_fmt_usd(double v, char *buf, size_t n);
/* A fraction as a percentage with one decimal: "24.2 %". */
char *gp_fmt_pct(double frac, char *buf, size_t n);
/* A solver's relative gap with two decimals, "4.99 %"; one above 0
 * that would read "0.00 %" is "< 0.01 %" (the status beside it says it
 * is not proven). */
char *gp_fmt_gap(double frac, char *buf, size_t n);
/* x (|x| at least 1) with `digits` significant digits (1..17) and a
 * short exponent: "3.167e13", "1e6" ("1.000e6" with zeros kept), no
 * "+", no leading zeros, the C locale's point. */
char *gp_fmt_exp(double x, int digits, int keep_zeros, char *buf, size_t n);
/* A count with thousands grouped, no exponent: "67,540", "1,692,000"
 * (rounded to whole numbers; beyond 1e15 "%.4g"). */
char *gp_fmt_grouped(double v, char *buf, size_t n);
/* A message on one line, for a note or a table cell: runs of spaces,
 * tabs and newlines (a script's error has blank lines) as one space,
 * none at either end; cut to fit buf. */
char *gp_fmt_one_line(const char *msg, char *buf, size_t n);

#endif
