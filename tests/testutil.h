/* testutil.h: helpers the unit tests share: scenarios from strings. */
#ifndef GP_TESTUTIL_H
#define GP_TESTUTIL_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "lua_host.h"
#include "scenario.h"

/* Loads scenario text (printf-style) through the real sandbox and
 * validation; fails the test on error. */
__attribute__((format(printf, 1, 2)))
static inline struct gp_scenario *scen(const char *fmt, ...)
{
	static char buf[1 << 16];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct gp_err e = { "" };
	struct gp_lua *h = gp_lua_new(NULL, &e);
	assert_non_null(h);
	struct gp_scenario *s = gp_lua_scenario(h, "test.lua", buf, strlen(buf), &e);
	gp_lua_free(h);
	if (!s || gp_scenario_validate(s, &e)) {
		fprintf(stderr, "scenario error: %s\n", e.msg);
		fail();
	}
	return s;
}

#define assert_close(a, b, rel) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (rel) * fabs(b_) + 1e-12)) \
		fail_msg("%s = %.9g, expected %.9g (within %g)", #a, a_, b_, (double)(rel)); \
} while (0)

#endif
