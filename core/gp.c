/* gp.c: the error value and the one allocation helper. */
#include "gp.h"

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
