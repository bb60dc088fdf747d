/*
 * units.h: values as people type and read them. A field of the terminal
 * planner takes a number with a unit ("100G", "100 Gbit/s", "12.5GB/s",
 * "35ms", "80GiB", "989T"), a plain SI number, or a Lua expression of
 * the scenario's helpers ("Gbps(100)"), which is passed to the scenario
 * loader as it is. What a field shows is the short form.
 */
#ifndef GP_UNITS_H
#define GP_UNITS_H

#include <stddef.h>

enum gp_unit {
	GP_U_NUMBER,      /* plain */
	GP_U_COUNT,       /* a positive integer */
	GP_U_RATIO,       /* 0..1, or a percentage: "45%" */
	GP_U_BANDWIDTH,   /* bytes/s: bare G/M/T suffixes are bits (link speeds) */
	GP_U_BYTERATE,    /* bytes/s: bare G/T suffixes are bytes (NVLink, HBM) */
	GP_U_TIME,        /* s */
	GP_U_BYTES,       /* bytes: GiB/MiB binary, GB/MB decimal, bare G binary */
	GP_U_FLOPS,       /* FLOP/s: bare T = 1e12 */
	GP_U_USD,         /* US dollars: "$2.5" */
};

/* Parses text for a field of that unit. On success *value is SI and
 * lua (n bytes) the value for the scenario loader (%.17g of the value,
 * or the expression itself, which the loader checks); 0. On failure -1
 * and why says what is wrong and what would be right.
 * An expression is a call of a helper of the field's unit (Gbps, GBps,
 * ms, us, GiB, GB, MiB, TFLOPS) with arithmetic inside; *value is its
 * value when the argument is a plain number, else NaN (only the loader
 * can evaluate it). Values outside what real systems reach (a link
 * faster than 1e15 B/s, a time over a day) are refused with the reason. */
int gp_unit_parse(const char *text, enum gp_unit unit, double *value, char *lua, size_t n,
		  char *why, size_t nwhy);

/* A plain number typed for a unit people never type bare (a time, a
 * bandwidth, a size, a FLOP rate: 35 would be 35 s, not 35 ms): -1 and
 * why asks which was meant ("35 s? write 35ms or 35s"); 0 for anything
 * else (a unit given, a helper call, zero, a unit whose base is what
 * people type). */
int gp_unit_bare(const char *text, enum gp_unit unit, char *why, size_t nwhy);

/* The short form: "100G" (Gbit/s), "35ms", "80GiB", "989T", "0.45", "$2.50";
 * from 1e6 of the largest unit a short exponent with the unit, "3.167e13s". */
void gp_unit_format(double v, enum gp_unit unit, char *buf, size_t n);

/* A time read beside another (a change's before and after): 4
 * significant digits, trailing zeros kept ("1.430s", "3.200s",
 * "57.00ms"), so both show the same precision; from 1e6 s "3.167e13s". */
void gp_unit_time4(double v, char *buf, size_t n);

/* A count with thousands grouped, no exponent: "67,540", "1,692,000"
 * (rounded to whole numbers; beyond 1e15 "%.4g"): gp_fmt_grouped. */
void gp_unit_grouped(double v, char *buf, size_t n);
/* A rate (tokens/s) with 3 significant digits, as the CLI prints it
 * (gp_fmt_si): "183 k", "2.65 M" from 1000 up, plain decimals below
 * ("576", "0.576": an SI "576 m" would read as million). */
void gp_unit_rate(double v, char *buf, size_t n);
/* Bytes in decimal units, 3 significant digits: "4.29 GB", "1.36 TB"
 * (as links are sold and bills are written): gp_fmt_bytes. */
void gp_unit_bytes10(double v, char *buf, size_t n);

#endif
