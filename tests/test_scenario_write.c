/*
 * test_scenario_write.c: the canonical writer and the atomic save. Every
 * sample is written, loaded back through the real sandbox
 * (gp_scenario_load on a file) and compared field by field; what the
 * loader would change silently (a one-way link, a plan pool it cannot
 * name) is refused; a save replaces the file by rename or leaves it as
 * it was, and no temporary file stays behind.
 */
#include "testutil.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

/* The writer's text for s (NULL and *err on refusal). */
static char *text_of(const struct gp_scenario *s, size_t *len, struct gp_err *err)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	assert_non_null(f);
	int rc = gp_scenario_write_lua(f, s, err);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(1 << 20);
	*len = fread(buf, 1, (1 << 20) - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

static void put_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* Files in dir, "." and ".." aside. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

struct tmp {
	char dir[64], file[128];
};

static void tmp_init(struct tmp *t)
{
	snprintf(t->dir, sizeof t->dir, "/tmp/gp_write_XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	snprintf(t->file, sizeof t->file, "%s/s.lua", t->dir);
}

static void tmp_done(struct tmp *t)
{
	DIR *d = opendir(t->dir);
	char p[400];
	for (struct dirent *de; d && (de = readdir(d));)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			snprintf(p, sizeof p, "%s/%s", t->dir, de->d_name);
			unlink(p);
		}
	if (d)
		closedir(d);
	rmdir(t->dir);
}

/* Writes s to a file, loads it with gp_scenario_load and checks that it
 * is s again and writes as the same bytes. Returns the loaded copy. */
static struct gp_scenario *reload(const struct gp_scenario *s, struct tmp *t)
{
	struct gp_err e = { "" };
	size_t len, len2;
	char *text = text_of(s, &len, &e);
	if (!text)
		fail_msg("%s: %s", s->name, e.msg);
	put_file(t->file, text);
	struct gp_scenario *b = gp_scenario_load(t->file, &e);
	if (!b)
		fail_msg("%s: the written file does not load: %s\n%s", s->name, e.msg, text);
	char *again = text_of(b, &len2, &e);
	assert_non_null(again);
	assert_int_equal(len, len2);
	assert_memory_equal(text, again, len);
	free(text);
	free(again);
	return b;
}

static void test_samples_round_trip(void **state)
{
	(void)state;
	glob_t g;
	assert_int_equal(glob("samples/*.lua", 0, NULL, &g), 0);
	assert_true(g.gl_pathc >= 7);
	struct tmp t;
	tmp_init(&t);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct gp_err e = { "" };
		struct gp_scenario *s = gp_scenario_load(g.gl_pathv[i], &e);
		if (!s)
			fail_msg("%s: %s", g.gl_pathv[i], e.msg);
		struct gp_scenario *b = reload(s, &t);
		if (!gp_scenario_same(s, b))
			fail_msg("%s: loads back as another scenario", g.gl_pathv[i]);
		assert_int_equal(s->has_plan, b->has_plan);
		if (s->has_plan && !gp_plan_same(&s->plan, &b->plan))
			fail_msg("%s: loads back with another plan", g.gl_pathv[i]);
		/* Stable: the same scenario, the same bytes, twice. */
		size_t l1, l2;
		char *x = text_of(s, &l1, &e), *y = text_of(s, &l2, &e);
		assert_int_equal(l1, l2);
		assert_memory_equal(x, y, l1);
		free(x);
		free(y);
		gp_scenario_free(b);
		gp_scenario_free(s);
	}
	globfree(&g);
	tmp_done(&t);
}

/* What the loader's defaults and mirroring would lose if the writer
 * left it out: an asymmetric link, a budget, ZeRO 0, custom and
 * overridden GPU types, job and plan settings off their defaults. */
static const char *rich =
	"return { name = 'rich', gpus = {"
	"  X1 = { tflops = TFLOPS(100), memory = GiB(24), hbm_bandwidth = GBps(1000),"
	"         nvlink = GBps(64), efficiency = 0.5, price_per_hour = 1.25 },"
	"  Z9 = { tflops = TFLOPS(50), memory = 17179869184.5, hbm_bandwidth = 123456789012.25 },"
	"  ['V100-16'] = { price_per_hour = 0.5 } },"
	" dcs = { { name = 'a', pools = { { gpu = 'X1', count = 16, per_node = 8,"
	"           network = 3333333333.3, latency = 0 } } },"
	"         { name = 'b', pools = { { gpu = 'H100', count = 8, per_node = 4 } } } },"
	" links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4), price_per_gb = 0.02 },"
	"           { 'b', 'a', bandwidth = Gbps(40), latency = ms(35), streams = 4 } },"
	" model = { name = 'tiny', layers = 8, hidden = 1024, heads = 16, kv_heads = 4,"
	"           ffn = 2816, vocab = 32000, gated = true },"
	" job = { seq = 2048, global_batch = 64, micro_batch = 2, zero = 0,"
	"         recompute = 'selective', cross_entropy = 'unfused',"
	"         sync = { mode = 'flat', every = 4, overlap = false } },"
	" objective = 'cost', budget = { usd_per_hour = 123.5 },"
	" plan = { schedule = 'interleaved', chunks = 2, microbatch_group = 4, sync = 'flat',"
	"   pipelines = {"
	"   { micro_batches = 16, replicas = 2, stages = {"
	"     { dc = 'a', gpu = 'X1', tp = 4, layers = { 1, 4 }, recompute = 'full' },"
	"     { dc = 'b', tp = 4, layers = { 5, 8 } } } } } } }";

static void test_keeps_what_defaults_would_lose(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", rich);
	struct tmp t;
	tmp_init(&t);
	struct gp_scenario *b = reload(s, &t);
	assert_true(gp_scenario_same(s, b));
	assert_true(b->has_plan && gp_plan_same(&s->plan, &b->plan));
	int a = gp_find_dc(b, "a"), bb = gp_find_dc(b, "b");
	assert_true(gp_find_link(b, a, bb)->bandwidth == 100 * 1e9 / 8);
	assert_true(gp_find_link(b, bb, a)->bandwidth == 40 * 1e9 / 8);
	assert_true(gp_find_link(b, bb, a)->latency == 35 * 1e-3);
	assert_int_equal(gp_find_link(b, bb, a)->streams, 4);
	assert_true(b->budget_usd_per_hour == 123.5);
	assert_int_equal(b->plan.microbatch_group, 4);
	assert_int_equal(b->job.zero, 0);
	assert_int_equal(b->job.sync_every, 4);
	assert_int_equal(b->job.cross_entropy, GP_CE_UNFUSED);
	const struct gp_gpu *x1 = &b->gpus[b->dcs[a].pools[0].gpu];
	assert_string_equal(x1->name, "X1");
	assert_true(x1->memory == 24.0 * 1073741824 && x1->price_per_hour == 1.25);
	assert_true(b->dcs[a].pools[0].network == 3333333333.3);
	/* The text: helpers where exact, plain numbers with their unit. */
	size_t len;
	struct gp_err e;
	char *text = text_of(s, &len, &e);
	assert_non_null(strstr(text, "      memory = GiB(24),\n"));
	assert_non_null(strstr(text, "      memory = 17179869184.5, -- 16 GiB\n"));
	assert_non_null(strstr(text, "      hbm_bandwidth = 123456789012.25, -- 123.5 GB/s\n"));
	assert_non_null(strstr(text, "          network = 3333333333.3, -- 26.67 Gbit/s\n"));
	assert_non_null(strstr(text, "      bandwidth = Gbps(40),\n"));
	assert_non_null(strstr(text, "    cross_entropy = \"unfused\",\n"));
	assert_non_null(strstr(text, "      \"b\", \"a\",\n"));
	/* Unused GPU types: the custom one and the overridden catalog one
	 * are written, an untouched catalog one is not. */
	assert_non_null(strstr(text, "[\"Z9\"]"));
	assert_non_null(strstr(text, "[\"V100-16\"]"));
	assert_null(strstr(text, "[\"H200\"]"));
	free(text);
	gp_scenario_free(b);
	gp_scenario_free(s);
	tmp_done(&t);
}

static const struct gp_gpu *gpu_named(const struct gp_scenario *s, const char *name)
{
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].name, name))
			return &s->gpus[i];
	fail_msg("no GPU type %s", name);
	return NULL;
}

/* Where a GPU type's efficiency comes from survives a save: a new type's
 * efficiency_borrows and a catalog type's changed source are written; a
 * catalog type's own source (H100's measured data) is not repeated. */
static void test_keeps_efficiency_source(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'X3', count = 8 },"
		" { gpu = 'H100', count = 8 } } } }, model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },"
		" gpus = { X3 = { tflops = TFLOPS(100), memory = GiB(40), hbm_bandwidth = GBps(1000),"
		"  efficiency = 0.64193, efficiency_borrows = 'H100' },"
		"  MI300X = { efficiency_borrows = 'A100-80' } } }");
	struct tmp t;
	tmp_init(&t);
	struct gp_scenario *b = reload(s, &t);
	const struct gp_gpu *x3 = gpu_named(b, "X3"), *mi = gpu_named(b, "MI300X");
	assert_int_equal(x3->eff_src, GP_EFF_BORROWED);
	assert_string_equal(x3->eff_ref, "H100");
	assert_int_equal(mi->eff_src, GP_EFF_BORROWED);
	assert_string_equal(mi->eff_ref, "A100-80");
	size_t len;
	struct gp_err e;
	char *text = text_of(s, &len, &e);
	assert_non_null(strstr(text, "      efficiency_borrows = \"H100\",\n"));
	assert_non_null(strstr(text, "      efficiency_borrows = \"A100-80\",\n"));
	assert_null(strstr(text, "efficiency_data"));
	free(text);
	gp_scenario_free(b);
	gp_scenario_free(s);
	tmp_done(&t);
}

/* No price is no field, not a price of 0 (which reads back as none
 * but reads to a person as "free"); a price given is kept. */
static void test_no_price_no_field(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'X3', count = 8 } } },"
		" { name = 'b', pools = { { gpu = 'H100', count = 8 } } } },"
		" links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(4) } },"
		" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },"
		" gpus = { X3 = { tflops = TFLOPS(100), memory = GiB(40), hbm_bandwidth = GBps(1000) },"
		"  H100 = { price_per_hour = 2.5 } } }");
	size_t len;
	struct gp_err e;
	char *text = text_of(s, &len, &e);
	assert_non_null(text);
	assert_null(strstr(text, "price_per_hour = 0"));
	assert_null(strstr(text, "price_per_gb"));
	assert_non_null(strstr(text, "price_per_hour = 2.5"));
	free(text);
	gp_scenario_free(s);
}

/* Edits as the terminal planner makes them: a GPU type appended out of
 * the loader's name order, one link direction changed to a value no
 * helper gives, an odd name. The file does not depend on indices. */
static void test_edited_scenario(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", rich);
	struct gp_scenario *d = gp_scenario_dup(s, 1);
	assert_non_null(d);
	struct gp_gpu aaa = { "AAA", 5e14, 96.0 * 1073741824, 4e12, 4.5e11, 0.7, 4, 0, GP_EFF_SCENARIO, "" };
	d->gpus[d->ngpus] = aaa;
	int a = gp_find_dc(d, "a"), b = gp_find_dc(d, "b");
	d->dcs[b].pools[0].gpu = d->ngpus++;
	d->has_plan = false;
	((struct gp_link *)gp_find_link(d, a, b))->bandwidth = (0.1 + 0.2) * 1e10;
	snprintf(d->name, sizeof d->name, "say \"hi\"\\\n");
	struct tmp t;
	tmp_init(&t);
	struct gp_scenario *r = reload(d, &t);
	assert_string_equal(r->name, d->name);
	assert_string_equal(r->gpus[r->dcs[b].pools[0].gpu].name, "AAA");
	assert_true(r->gpus[r->dcs[b].pools[0].gpu].flops == 5e14);
	assert_true(gp_find_link(r, a, b)->bandwidth == (0.1 + 0.2) * 1e10);
	assert_true(gp_find_link(r, b, a)->bandwidth == 40 * 1e9 / 8);
	/* Loader order differs (AAA sorts before X1, Z9), so indices do. */
	assert_false(gp_scenario_same(d, r));
	assert_int_equal(r->ngpus, d->ngpus);
	struct gp_err e = { "" };
	if (gp_scenario_save(t.file, d, &e))
		fail_msg("%s", e.msg);
	assert_true(gp_scenario_file_is_canonical(t.file, d));
	assert_true(gp_scenario_file_is_canonical(t.file, r));
	gp_scenario_free(r);
	gp_scenario_free(d);
	gp_scenario_free(s);
	tmp_done(&t);
}

/* Links in an order the loader never makes (a->b, b->c, b->a, c->b):
 * written as pairs, so the file loads back in the order it writes. */
static void test_links_in_any_order(void **state)
{
	(void)state;
	struct gp_scenario *s = scen(
		"return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 } } },"
		" { name = 'b', pools = { { gpu = 'H100', count = 8 } } },"
		" { name = 'c', pools = { { gpu = 'H100', count = 8 } } } },"
		" links = { { 'a', 'b', bandwidth = Gbps(100), latency = ms(1) },"
		"           { 'b', 'c', bandwidth = Gbps(200), latency = ms(2) } },"
		" model = 'OPT-350M', job = { seq = 2048, global_batch = 8 } }");
	assert_int_equal(s->nlinks, 4);
	struct gp_link l[4] = { s->links[0], s->links[2], s->links[1], s->links[3] };
	memcpy(s->links, l, sizeof l);
	struct tmp t;
	tmp_init(&t);
	struct gp_scenario *b = reload(s, &t);
	for (int i = 0; i < 4; i++) {
		const struct gp_link *x = gp_find_link(b, s->links[i].from, s->links[i].to);
		assert_non_null(x);
		assert_true(x->bandwidth == s->links[i].bandwidth);
	}
	gp_scenario_free(b);
	gp_scenario_free(s);
	tmp_done(&t);
}

static void expect_refused(struct gp_scenario *s, const char *msg)
{
	struct gp_err e = { "" };
	size_t len;
	char *text = text_of(s, &len, &e);
	if (text)
		fail_msg("written, wanted \"%s\":\n%s", msg, text);
	if (!strstr(e.msg, msg))
		fail_msg("got \"%s\", wanted \"%s\"", e.msg, msg);
	gp_scenario_free(s);
}

static void test_refuses_what_a_file_cannot_say(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", rich);
	struct gp_scenario *d = gp_scenario_dup(s, 0);
	d->nlinks--;   /* b -> a, the second entry, is gone */
	expect_refused(d, "links[1]: a -> b has no reverse");
	d = gp_scenario_dup(s, 0);
	d->links = realloc(d->links, 3 * sizeof *d->links);
	d->links[d->nlinks++] = d->links[0];
	expect_refused(d, "links[3]: a -> b is given twice");
	d = gp_scenario_dup(s, 0);
	d->job.precision_bytes = 4;
	expect_refused(d, "job: precision of 4 bytes");
	d = gp_scenario_dup(s, 0);
	d->links[1].latency = NAN;
	expect_refused(d, "links[2]: latency is nan, not a finite number");
	gp_scenario_free(s);

	/* Two H100 pools in one DC: the plan names the pool "H100", which
	 * the loader reads as the last one; the first cannot be named. */
	s = scen("return { dcs = { { name = 'a', pools = { { gpu = 'H100', count = 8 },"
		 " { gpu = 'H100', count = 8, network = Gbps(400) } } } },"
		 " model = 'OPT-350M', job = { seq = 2048, global_batch = 8 },"
		 " plan = { pipelines = { { micro_batches = 8, stages = {"
		 " { dc = 'a', gpu = 'H100', tp = 8, layers = { 1, 24 } } } } } } }");
	assert_int_equal(s->plan.pipes[0].stages[0].pool, 1);
	struct tmp t;
	tmp_init(&t);
	struct gp_scenario *b = reload(s, &t);
	assert_true(gp_plan_same(&s->plan, &b->plan));
	gp_scenario_free(b);
	tmp_done(&t);
	s->plan.pipes[0].stages[0].pool = 0;
	expect_refused(s, "has another pool of H100 after this one");
}

static void test_save_replaces_atomically(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", rich);
	struct tmp t;
	tmp_init(&t);
	put_file(t.file, "-- a person's file\nreturn {}\n");
	assert_int_equal(chmod(t.file, 0640), 0);
	int old = open(t.file, O_RDONLY);
	assert_true(old >= 0);
	struct gp_err e = { "" };
	if (gp_scenario_save(t.file, s, &e))
		fail_msg("%s", e.msg);
	/* Renamed over, not rewritten: the old file is still whole. */
	char buf[64] = "";
	assert_true(read(old, buf, sizeof buf - 1) > 0);
	assert_string_equal(buf, "-- a person's file\nreturn {}\n");
	close(old);
	size_t len, want;
	char *got = slurp(t.file, &len), *text = text_of(s, &want, &e);
	assert_int_equal(len, want);
	assert_memory_equal(got, text, len);
	assert_int_equal(entries(t.dir), 1);
	struct stat st;
	assert_int_equal(stat(t.file, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	free(got);
	free(text);
	gp_scenario_free(s);
	tmp_done(&t);
}

static void test_failed_save_changes_nothing(void **state)
{
	(void)state;
	struct gp_scenario *s = scen("%s", rich);
	struct tmp t;
	tmp_init(&t);
	put_file(t.file, "old\n");
	struct gp_err e = { "" };
	/* Written, but it does not load back: beyond the loader's range. */
	struct gp_scenario *d = gp_scenario_dup(s, 0);
	d->links[0].latency = 1e5;
	assert_int_equal(gp_scenario_save(t.file, d, &e), -1);
	assert_non_null(strstr(e.msg, "not saved: the file written does not load back"));
	assert_non_null(strstr(e.msg, "latency 100000 s is more than an hour"));
	gp_scenario_free(d);
	/* Refused before any file is made. */
	d = gp_scenario_dup(s, 0);
	d->nlinks--;
	assert_int_equal(gp_scenario_save(t.file, d, &e), -1);
	assert_non_null(strstr(e.msg, "has no reverse"));
	gp_scenario_free(d);
	size_t len;
	char *got = slurp(t.file, &len);
	assert_string_equal(got, "old\n");
	assert_int_equal(entries(t.dir), 1);
	free(got);

	/* No such directory: a message, and nothing created. */
	char path[256], missing[200];
	snprintf(missing, sizeof missing, "%s/nope", t.dir);
	snprintf(path, sizeof path, "%s/s.lua", missing);
	assert_int_equal(gp_scenario_save(path, s, &e), -1);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, "No such file or directory"));
	struct stat st;
	assert_int_equal(stat(missing, &st), -1);
	assert_int_equal(entries(t.dir), 1);
	gp_scenario_free(s);
	tmp_done(&t);
}

static void test_canonical(void **state)
{
	(void)state;
	struct gp_err e = { "" };
	struct gp_scenario *s = gp_scenario_load("samples/default.lua", &e);
	assert_non_null(s);
	assert_false(gp_scenario_file_is_canonical("samples/default.lua", s));
	struct tmp t;
	tmp_init(&t);
	assert_false(gp_scenario_file_is_canonical(t.file, s));   /* no file */
	assert_int_equal(gp_scenario_save(t.file, s, &e), 0);
	assert_true(gp_scenario_file_is_canonical(t.file, s));
	/* Loaded from the saved file: still canonical. */
	struct gp_scenario *b = gp_scenario_load(t.file, &e);
	assert_non_null(b);
	assert_true(gp_scenario_file_is_canonical(t.file, b));
	/* Another scenario is not what the file holds. */
	b->budget_usd_per_hour = 100;
	assert_false(gp_scenario_file_is_canonical(t.file, b));
	/* A comment a person added: no longer canonical. */
	FILE *f = fopen(t.file, "a");
	fputs("-- mine\n", f);
	fclose(f);
	assert_false(gp_scenario_file_is_canonical(t.file, s));
	/* A shorter file neither. */
	size_t len;
	char *text = slurp(t.file, &len);
	text[len - strlen("-- mine\n") - 1] = '\0';
	put_file(t.file, text);
	assert_false(gp_scenario_file_is_canonical(t.file, s));
	free(text);
	gp_scenario_free(b);
	gp_scenario_free(s);
	tmp_done(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_round_trip),
		cmocka_unit_test(test_keeps_what_defaults_would_lose),
		cmocka_unit_test(test_keeps_efficiency_source),
		cmocka_unit_test(test_no_price_no_field),
		cmocka_unit_test(test_edited_scenario),
		cmocka_unit_test(test_links_in_any_order),
		cmocka_unit_test(test_refuses_what_a_file_cannot_say),
		cmocka_unit_test(test_save_replaces_atomically),
		cmocka_unit_test(test_failed_save_changes_nothing),
		cmocka_unit_test(test_canonical),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
