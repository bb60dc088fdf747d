/*
 * test_scenario.c: the scenario's link index (scenario.c): gp_find_link
 * answers from a DC x DC table made at load, the same as a scan of the
 * links for every pair, in a copy too, and falls back to the scan when
 * the table is not for the scenario at hand.
 */
#include "testutil.h"

#include <unistd.h>

/* The link from a to b by a scan, as gp_find_link found it before. */
static const struct gp_link *scan(const struct gp_scenario *s, int a, int b)
{
	for (int i = 0; i < s->nlinks; i++)
		if (s->links[i].from == a && s->links[i].to == b)
			return &s->links[i];
	return NULL;
}

/* n DCs, a link between a pair when (a * 7 + b * 3) % 5 != 0 (so some
 * pairs have none), one direction slower. */
static void write_mesh(const char *path, int n)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "return { dcs = {\n");
	for (int d = 0; d < n; d++)
		fprintf(f, "  { name = 'd%d', pools = { { gpu = 'H100', count = 8 } } },\n", d);
	fprintf(f, "}, links = {\n");
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++)
			if ((a * 7 + b * 3) % 5)
				fprintf(f, "  { 'd%d', 'd%d', bandwidth = Gbps(%d), latency = ms(2),"
					" reverse = { bandwidth = Gbps(%d) } },\n", a, b, 10 + b, 5 + a);
	fprintf(f, "}, model = 'Llama-3-8B', job = { seq = 4096, global_batch = 64 } }\n");
	assert_int_equal(fclose(f), 0);
}

/* Every pair, both ways, and DCs out of range; returns the links found. */
static int check_all(const struct gp_scenario *s)
{
	int found = 0;
	for (int a = -1; a <= s->ndcs; a++)
		for (int b = -1; b <= s->ndcs; b++) {
			const struct gp_link *l = gp_find_link(s, a, b), *r = scan(s, a, b);
			if (l != r)
				fail_msg("link %d -> %d: index gives %td, scan %td", a, b,
					 l ? l - s->links : -1, r ? r - s->links : -1);
			found += l != NULL;
		}
	return found;
}

static void test_link_index(void **state)
{
	(void)state;
	char path[] = "/tmp/geoplan-test-scenario-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_mesh(path, 40);
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load(path, &e);
	unlink(path);
	if (!s)
		fail_msg("%s", e.msg);
	assert_non_null(s->link_at);
	int pairs = 0;
	for (int a = 0; a < 40; a++)
		for (int b = a + 1; b < 40; b++)
			pairs += (a * 7 + b * 3) % 5 != 0;
	assert_int_equal(s->nlinks, 2 * pairs);
	assert_int_equal(check_all(s), 2 * pairs);
	/* The reverse direction is its own link, slower. */
	const struct gp_link *ab = gp_find_link(s, 0, 1), *ba = gp_find_link(s, 1, 0);
	assert_non_null(ab);
	assert_non_null(ba);
	assert_true(ab != ba && ab->from == 0 && ab->to == 1 && ba->from == 1 && ba->to == 0);
	assert_true(ab->bandwidth > ba->bandwidth);
	assert_null(gp_find_link(s, 0, 5));   /* (0 * 7 + 5 * 3) % 5 == 0 */
	/* A copy has its own index. */
	struct gp_scenario *d = gp_scenario_dup(s, 0);
	assert_non_null(d);
	assert_true(d->link_at && d->link_at != s->link_at);
	assert_int_equal(check_all(d), 2 * pairs);
	gp_scenario_free(d);
	/* A table made for other links is not used: the scan answers. */
	s->nlinks -= 2;
	assert_int_equal(check_all(s), 2 * pairs - 2);
	s->nlinks += 2;
	gp_scenario_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
