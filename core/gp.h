/*
 * gp.h: what every part of geoplan's core shares: the error value.
 *
 * Errors below main are values, never exits: a function that can fail
 * takes a struct gp_err *, fills it with a message a user can act on
 * (file, line or field path first), and returns -1 or NULL.
 */
#ifndef GP_GP_H
#define GP_GP_H

#include <stddef.h>

#define GP_VERSION "0.1.0"

struct gp_err {
	char msg[1024];
};

/* Formats into e (if not NULL) and returns -1, so callers can write
 * `return gp_errf(e, "...")`. */
int gp_errf(struct gp_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prepends "prefix: " to an error already set. */
void gp_err_prefix(struct gp_err *e, const char *prefix);

void *gp_xcalloc(size_t n, size_t size);
/* Room for `need` elements of `size` bytes in the growable array *arr
 * of *cap: doubled from `first` until it fits. -1 (the array as it
 * was) when out of memory. */
int gp_room(void *arr, int *cap, int need, size_t size, int first);

/* A whole text file (scenarios and scripts: at most 16 MiB) and its
 * length; free() it. */
char *gp_read_file(const char *path, size_t *len, struct gp_err *e);

#endif
