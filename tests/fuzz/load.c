/*
 * load.c: the libFuzzer target (make fuzz): a scenario file's bytes
 * through the loader, the cost tables, the simulator and the writer.
 *
 * Every input must end by itself with either an error value or a result;
 * the sanitizers, libFuzzer's -timeout and -rss_limit_mb catch the rest.
 * One invariant is checked beyond "no crash": a scenario that loads and
 * that the writer accepts must load back from what it wrote (the
 * writer's own load-back check says so; its failure aborts, so libFuzzer
 * keeps the input).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *ud, const char *line)
{
	(void)ud;
	(void)line;
}

static int put(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t n = fwrite(data, 1, size, f);
	return fclose(f) || n != size ? -1 : 0;
}

/* Saves what loaded and checks it loads back; a refusal of what the
 * format cannot say is fine, a file that does not load back is not. */
static void round_trip(const struct gp_scenario *s, const char *out)
{
	struct gp_err e = { "" };
	if (gp_scenario_save(out, s, &e) &&
	    (strstr(e.msg, "does not load back") || strstr(e.msg, "loads back as another"))) {
		fprintf(stderr, "load: %s\n", e.msg);
		abort();
	}
	unlink(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char in[64], out[64];
	snprintf(in, sizeof in, "/tmp/geoplan-fuzz-%ld.lua", (long)getpid());
	snprintf(out, sizeof out, "/tmp/geoplan-fuzz-%ld-out.lua", (long)getpid());
	if (put(in, data, size))
		return 0;
	struct gp_run r;
	gp_run_init(&r);
	r.log = quiet;
	r.plan_optional = true;
	struct gp_err e = { "" };
	if (gp_run_load(&r, in, NULL, 0, &e) == 0) {
		round_trip(r.sc, out);
		struct gp_sim_req rq = { .schedule = -1, .time_limit = 0.2 };
		if (gp_run_plan_of(&r))
			gp_run_simulate(&r, &rq, &e);
	}
	gp_run_free(&r);
	unlink(in);
	return 0;
}
