/*
 * json.c: the JSON writer (json.h).
 */
#include "json.h"
#include "escape.h"

#include <math.h>
#include <stdlib.h>

void gp_json_init(struct gp_json *j, FILE *f)
{
	*j = (struct gp_json){ .f = f };
}

/* Before a value or a key: the separator and, in a multiline container,
 * the new line and its indent. */
static void item(struct gp_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	int d = j->depth - 1;
	if (j->items[d])
		fputc(',', j->f);
	if (j->multiline[d])
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	else if (j->items[d])
		fputc(' ', j->f);
	j->items[d] = true;
}

static void open_container(struct gp_json *j, char open, char close, bool multiline)
{
	if (j->overflow || j->depth == GP_JSON_DEPTH) {
		j->overflow = true;
		return;
	}
	item(j);
	fputc(open, j->f);
	j->items[j->depth] = false;
	j->multiline[j->depth] = multiline;
	j->close[j->depth] = close;
	j->depth++;
}

void gp_json_obj(struct gp_json *j, bool multiline)
{
	open_container(j, '{', '}', multiline);
}

void gp_json_arr(struct gp_json *j, bool multiline)
{
	open_container(j, '[', ']', multiline);
}

void gp_json_end(struct gp_json *j)
{
	if (j->overflow || j->depth == 0)
		return;
	int d = --j->depth;
	if (j->multiline[d] && j->items[d])
		fprintf(j->f, "\n%*s", 2 * d, "");
	fputc(j->close[d], j->f);
}

/* Invalid UTF-8 too (escape.h): the output is always JSON. */
static void put_str(struct gp_json *j, const char *s)
{
	gp_esc_json(j->f, s);
}

void gp_json_key(struct gp_json *j, const char *key)
{
	if (j->overflow)
		return;
	item(j);
	put_str(j, key);
	fputs(": ", j->f);
	j->after_key = true;
}

void gp_json_str(struct gp_json *j, const char *s)
{
	if (j->overflow)
		return;
	item(j);
	put_str(j, s);
}

/* A whole number up to 2^53 as its digits (a byte count: 4294967296,
 * not 4.2949673e+09); else the fewest digits (15 to 17) that read back
 * as v (a time as it is held).
 * Printed in the C locale's way: the program never sets LC_NUMERIC. */
char *gp_json_format(double v, char *buf, size_t n)
{
	if (v == trunc(v) && fabs(v) <= 9007199254740992.0) {   /* 2^53: whole */
		snprintf(buf, n, "%.0f", v);
		return buf;
	}
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, n, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void gp_json_num(struct gp_json *j, double v)
{
	if (j->overflow)
		return;
	item(j);
	if (isfinite(v)) {
		char buf[40];
		gp_json_format(v, buf, sizeof buf);
		fputs(buf, j->f);
	} else {
		fputs("null", j->f);
	}
}

void gp_json_int(struct gp_json *j, long v)
{
	if (j->overflow)
		return;
	item(j);
	fprintf(j->f, "%ld", v);
}

void gp_json_bool(struct gp_json *j, bool v)
{
	if (j->overflow)
		return;
	item(j);
	fputs(v ? "true" : "false", j->f);
}

void gp_json_null(struct gp_json *j)
{
	if (j->overflow)
		return;
	item(j);
	fputs("null", j->f);
}

void gp_json_kstr(struct gp_json *j, const char *key, const char *s)
{
	gp_json_key(j, key);
	gp_json_str(j, s);
}

void gp_json_knum(struct gp_json *j, const char *key, double v)
{
	gp_json_key(j, key);
	gp_json_num(j, v);
}

/* A byte count: the model's arithmetic leaves 4859953151.999999 where
 * the bytes are 4859953152, so it is written rounded to a whole byte. */
void gp_json_kbytes(struct gp_json *j, const char *key, double v)
{
	gp_json_knum(j, key, isfinite(v) ? round(v) : v);
}

void gp_json_kint(struct gp_json *j, const char *key, long v)
{
	gp_json_key(j, key);
	gp_json_int(j, v);
}

void gp_json_kbool(struct gp_json *j, const char *key, bool v)
{
	gp_json_key(j, key);
	gp_json_bool(j, v);
}
