/* gp.c: the error value, the one allocation helper and the file reader. */
#include "gp.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gp_errf(struct gp_err *e, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof e->msg, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void gp_err_prefix(struct gp_err *e, const char *prefix)
{
	char tmp[sizeof e->msg];
	if (!e)
		return;
	snprintf(tmp, sizeof tmp, "%s: %s", prefix, e->msg);
	memcpy(e->msg, tmp, sizeof tmp);
}

/* calloc that treats n * size overflow as failure; callers check NULL. */
void *gp_xcalloc(size_t n, size_t size)
{
	if (n == 0)
		n = 1;
	if (size && n > (size_t)-1 / size)
		return NULL;
	return calloc(n, size);
}

int gp_room(void *arr, int *cap, int need, size_t size, int first)
{
	if (need <= *cap)
		return 0;
	int nc = *cap ? *cap : first;
	while (nc < need)
		nc *= 2;
	void **p = arr, *a = realloc(*p, (size_t)nc * size);
	if (!a)
		return -1;
	*p = a;
	*cap = nc;
	return 0;
}

char *gp_read_file(const char *path, size_t *len, struct gp_err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		gp_errf(e, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
		if (n == cap) {
			if (cap >= (16u << 20)) {
				gp_errf(e, "%s: larger than 16 MiB; not a scenario or script?", path);
				free(buf);
				buf = NULL;
				break;
			}
			char *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				gp_errf(e, "out of memory");
			}
			buf = nb;
		}
	}
	if (buf && ferror(f)) {
		gp_errf(e, "%s: read error: %s", path, strerror(errno));
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		*len = n;
	return buf;
}
