/*
 * json.h: the one JSON writer. Streams to a FILE *, places the commas,
 * escapes strings, writes numbers that are not finite as null (JSON has
 * no inf or nan), and lays out each container on one line or one item
 * per line, as its opener asks.
 */
#ifndef GP_JSON_H
#define GP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define GP_JSON_DEPTH 32   /* containers nested deeper are not written */

struct gp_json {
	FILE *f;
	int depth;
	bool items[GP_JSON_DEPTH];      /* the container has an item already */
	bool multiline[GP_JSON_DEPTH];
	char close[GP_JSON_DEPTH];
	bool after_key;
	bool overflow;
};

void gp_json_init(struct gp_json *j, FILE *f);
/* Containers: multiline puts each item on its own line, indented. */
void gp_json_obj(struct gp_json *j, bool multiline);
void gp_json_arr(struct gp_json *j, bool multiline);
void gp_json_end(struct gp_json *j);
void gp_json_key(struct gp_json *j, const char *key);
void gp_json_str(struct gp_json *j, const char *s);
/* A number as the shortest text that reads back as it (%.15g to
 * %.17g): byte counts whole, seconds to the last bit. */
void gp_json_num(struct gp_json *j, double v);
/* That text for a finite v, in buf (n bytes, 32 are enough). */
char *gp_json_format(double v, char *buf, size_t n);
void gp_json_int(struct gp_json *j, long v);
void gp_json_bool(struct gp_json *j, bool v);
void gp_json_null(struct gp_json *j);

/* A key and its value. */
void gp_json_kstr(struct gp_json *j, const char *key, const char *s);
void gp_json_knum(struct gp_json *j, const char *key, double v);
void gp_json_kbytes(struct gp_json *j, const char *key, double v);
void gp_json_kint(struct gp_json *j, const char *key, long v);
void gp_json_kbool(struct gp_json *j, const char *key, bool v);

#endif
