/*
 * test_place_time.c: the placement MILP's model of one replica's 1F1B
 * time (place_time.c) against a plain walk of the simulator's task graph
 * and a closed form. The MILP's agreement with gp_simulate on whole
 * plans is test_place_milp.c's (its exhaustive and honesty checks).
 */
#include "testutil.h"

#include "place_milp.h"

#include <math.h>
#include <stdlib.h>

static unsigned rnd(unsigned *st)
{
	*st = *st * 1103515245u + 12345u;
	return *st >> 16 & 0x7fff;
}

/* The MILP's 1F1B time of one replica (place_time.c): its curve and the
 * walk that skips periodic pairs equal the plain walk on random stages
 * and delays, and S equal stages without delays take the closed form
 * (m + S - 1)(f + b) (the pipeline fills, then drains). One case in
 * three is deep (up to 64 stages) with links that carry one message at
 * a time (a serial part q of the delay): their queues make transients
 * long, past most of N, where the curve times each m by the drain's
 * functional rather than by a period. */
static void test_1f1b_curve(void **state)
{
	(void)state;
	unsigned st = 7;
	enum { NMAX = 300 };
	double *t0 = malloc(3 * NMAX * sizeof *t0), *t1 = t0 + NMAX, *t2 = t1 + NMAX;
	assert_non_null(t0);
	for (int it = 0; it < 300; it++) {
		bool deep = it % 3 == 1;
		int S = 1 + (int)(rnd(&st) % (deep ? 64 : 12)), N = 1 + (int)(rnd(&st) % NMAX);
		double f[64], b[64], d[64], q[64];
		bool flat = it % 5 == 0;
		for (int i = 0; i < S; i++) {
			f[i] = flat ? 1 : 0.1 + (rnd(&st) % 1000) / 1000.0;
			b[i] = flat ? 2 : f[i] * (1 + (rnd(&st) % 3));
			d[i] = flat ? 0 : rnd(&st) % 3 ? (rnd(&st) % 100) / 100.0 : (rnd(&st) % 100) / 10.0;
			q[i] = deep && rnd(&st) % 4 == 0 ? d[i] * (rnd(&st) % 100) / 100.0 : 0;
		}
		assert_int_equal(gp_place_1f1b(S, f, b, d, q, N, 0, t0), 0);
		assert_int_equal(gp_place_1f1b(S, f, b, d, q, N, 1, t1), 0);
		assert_int_equal(gp_place_1f1b(S, f, b, d, q, N, 2, t2), 0);
		for (int m = 1; m <= N; m++) {
			if (fabs(t1[m - 1] - t0[m - 1]) > 1e-9 * t0[m - 1] ||
			    fabs(t2[m - 1] - t0[m - 1]) > 1e-9 * t0[m - 1])
				fail_msg("case %d (S %d, N %d), m %d: walk %.12g, curve %.12g, fast %.12g",
					 it, S, N, m, t0[m - 1], t1[m - 1], t2[m - 1]);
			if (flat)
				assert_close(t0[m - 1], (m + S - 1) * 3.0, 1e-12);
			if (m > 1 && t0[m - 1] < t0[m - 2])
				fail_msg("case %d: t(%d) = %.12g < t(%d)", it, m, t0[m - 1], m - 1);
		}
	}
	free(t0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_1f1b_curve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
