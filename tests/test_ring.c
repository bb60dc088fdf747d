/*
 * test_ring.c: the cross-DC gradient ring's order (ring.h, issue 14):
 * the ring chosen on a small case is the one worked out by hand; and
 * beyond GP_RING_EXACT DCs the greedy + 2-opt order stays within a
 * stated factor of the exact one.
 */
#include "testutil.h"
#include "costtab.h"
#include "ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A DC of 8 H100s named x. */
#define N4_DC(x) " { name = '" x "', pools = { { gpu = 'H100', count = 8, per_node = 8 } } },"

/* Four DCs a, b, c, d (indices 0-3); 1e9 bytes per hop, latency terms
 * 2 x the link's (latm = 2); every latency 1 ms, so each hop costs
 * 1e9 / bandwidth + 0.002 s:
 *   a-b, c-d  8 Gbit/s = 1e9 B/s        -> 1.002 s
 *   b-c, b-d, d-a  80 Gbit/s = 1e10 B/s -> 0.102 s
 *   a->c 80 Gbit/s (0.102 s), c->a 16 Gbit/s = 2e9 B/s (0.502 s)
 * Of the three cycles two cross a-b or c-d (1.002 s); the third, a c b
 * d, takes 0.102 s on every hop one way (a->c, c->b, b->d, d->a) and
 * 0.502 s the other (its c->a). The ring: a > c > b > d, 0.102 s; its
 * sum 0.408 s; the index order a > b > c > d takes 1.002 s. */
static void test_hand_computed(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = {" N4_DC("a") N4_DC("b") N4_DC("c") N4_DC("d") " },"
		" links = { { 'a', 'b', bandwidth = Gbps(8), latency = ms(1) },"
		"  { 'c', 'd', bandwidth = Gbps(8), latency = ms(1) },"
		"  { 'b', 'c', bandwidth = Gbps(80), latency = ms(1) },"
		"  { 'b', 'd', bandwidth = Gbps(80), latency = ms(1) },"
		"  { 'd', 'a', bandwidth = Gbps(80), latency = ms(1) },"
		"  { 'a', 'c', bandwidth = Gbps(80), latency = ms(1), reverse = { bandwidth = Gbps(16) } } },"
		" model = 'Llama-3-8B', job = { seq = 4096, global_batch = 64, micro_batch = 1 } }");
	struct gp_err e = { "" };
	struct gp_costtab *ct = gp_costtab_new(s, NULL, &e);
	assert_non_null(ct);
	int dcs[4] = { 0, 1, 2, 3 }, ring[4];
	double t;
	assert_int_equal(gp_ring_choose(s, ct, dcs, 4, 1e9, 2, ring, &t), 0);
	assert_close(t, 0.102, 1e-12);
	int want[4] = { 0, 2, 1, 3 };
	for (int i = 0; i < 4; i++)
		assert_int_equal(ring[i], want[i]);
	/* The same figures from the cost matrix: the ring, its reversal,
	 * the index order. */
	double c[16];
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			const struct gp_link *l = i == j ? NULL : gp_find_link(s, i, j);
			c[i * 4 + j] = l ? 1e9 / l->bandwidth + 2 * l->latency : INFINITY;
		}
	int rev[4] = { 0, 3, 1, 2 }, idx[4] = { 0, 1, 2, 3 };
	assert_close(gp_ring_time(4, c, want), 0.102, 1e-12);
	assert_close(gp_ring_sum(4, c, want), 0.408, 1e-12);
	assert_close(gp_ring_time(4, c, rev), 0.502, 1e-12);
	assert_close(gp_ring_time(4, c, idx), 1.002, 1e-12);
	/* Two DCs: both directions, the slower (c->a). */
	int two[2] = { 0, 2 };
	assert_int_equal(gp_ring_choose(s, ct, two, 2, 1e9, 2, ring, &t), 0);
	assert_close(t, 0.502, 1e-12);
	gp_costtab_free(ct);
	gp_scenario_free(s);
}

/* A deterministic generator (64-bit LCG, Knuth's constants). */
static double rnd(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(*x >> 11) / 9007199254740992.0;
}

/* The factor the greedy + 2-opt order may be off the exact one. */
#define HEUR_FACTOR 1.10

/* Seeded random cases of 9-12 DCs, each direction of each pair its own
 * bandwidth (1, 10, 25 or 100 Gbit/s) and latency (1-80 ms), 10 % of the
 * directions missing; 1e9 bytes per hop, latm 2: the heuristic's ring
 * against the exact one. */
static void test_heur_vs_exact(void **state)
{
	(void)state;
	static const double bws[4] = { 1, 10, 25, 100 };
	double worst = 1, sum = 0;
	int cases = 0, equal = 0;
	for (int n = 9; n <= 12; n++)
		for (int seed = 1; seed <= 8; seed++) {
			uint64_t x = (uint64_t)n * 1000 + (uint64_t)seed;
			double c[GP_RING_EXACT_MAX * GP_RING_EXACT_MAX];
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++) {
					double bw = bws[(int)(rnd(&x) * 4)] * 1e9 / 8;
					double lat = (1 + 79 * rnd(&x)) * 1e-3;
					bool gone = rnd(&x) < 0.1;
					c[i * n + j] = i == j || gone ? INFINITY : 1e9 / bw + 2 * lat;
				}
			int oe[GP_RING_EXACT_MAX], oh[GP_RING_EXACT_MAX];
			double te = gp_ring_exact(n, c, oe), th = gp_ring_heur(n, c, oh);
			assert_true(te < INFINITY);
			assert_close(gp_ring_time(n, c, oe), te, 1e-12);
			assert_close(gp_ring_time(n, c, oh), th, 1e-12);
			assert_true(th >= te * (1 - 1e-12));   /* the exact one is exact */
			double f = th / te;
			worst = fmax(worst, f);
			sum += f;
			equal += f <= 1 + 1e-12;
			cases++;
		}
	printf("# greedy + 2-opt against exact on %d cases of 9-12 DCs: %d equal, mean %.4f, worst %.4f (allowed %.2f)\n",
	       cases, equal, sum / cases, worst, HEUR_FACTOR);
	assert_true(worst <= HEUR_FACTOR);
}

/* gp_ring_best is the exact order up to GP_RING_EXACT DCs, and ties go
 * to the lower indices: on equal hops the index order itself. */
static void test_ties(void **state)
{
	(void)state;
	double c[36];
	for (int i = 0; i < 36; i++)
		c[i] = i % 7 ? 1 : INFINITY;   /* the diagonal of 6 x 6 */
	int o[6];
	assert_close(gp_ring_best(6, c, o), 1, 1e-12);
	for (int i = 0; i < 6; i++)
		assert_int_equal(o[i], i);
	/* No link out of DC 2 but to DC 0: no ring of three or more can
	 * pass through it... unless 0 follows it: 1 > ... > 2 > 0. */
	for (int j = 0; j < 6; j++)
		c[2 * 6 + j] = j == 0 ? 1 : INFINITY;
	assert_close(gp_ring_best(6, c, o), 1, 1e-12);
	assert_int_equal(o[5], 2);
	/* And none at all: INFINITY, the index order. */
	c[2 * 6] = INFINITY;
	assert_true(gp_ring_best(6, c, o) == INFINITY);
	assert_true(gp_ring_heur(6, c, o) == INFINITY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_computed),
		cmocka_unit_test(test_heur_vs_exact),
		cmocka_unit_test(test_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
