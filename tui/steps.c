/*
 * steps.c: the steps every batch command takes, through the run object:
 * load with the overrides, plan with the request the flags make,
 * simulate, and the exit code a result deserves.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "json.h"
#include "ofile.h"
#include "override.h"

int cli_fail(const struct args *a, int code, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cli_error(code, "%s", msg);
	if (a->json)
		cli_json_error(msg, code);
	return code;
}

void cli_json_error(const char *msg, int code)
{
	struct gp_json j;
	gp_json_init(&j, stdout);
	gp_json_obj(&j, false);
	gp_json_kstr(&j, "error", msg);
	gp_json_kint(&j, "exit_code", code);
	gp_json_end(&j);
	putchar('\n');
	fflush(stdout);
}

/* The scripts' warnings and prints: standard error, never the output. */
static void log_stderr(void *ud, const char *line)
{
	(void)ud;
	fprintf(stderr, "geoplan: %s\n", line);
}

void cli_run_setup(struct gp_run *r, const struct args *a)
{
	r->cost_path = a->cost_model;
	r->heur_path = a->heuristic;
	r->log = log_stderr;
	r->xlate = gp_ov_xlate;   /* --set links[ams-fra].bandwidth=10G */
}

int cli_load(struct gp_run *r, const struct args *a, bool planning)
{
	struct gp_err e = { "" };
	r->plan_optional = planning;
	cli_run_setup(r, a);
	if (gp_run_load(r, a->file, a->sets, a->nsets, &e)) {
		char msg[sizeof e.msg];
		gp_ov_name(a->sets, a->nsets, a->file, e.msg, msg, sizeof msg);
		return cli_fail(a, EXIT_INPUT, "%s", msg);
	}
	char doubt[256];
	if (gp_scenario_doubt(r->sc, doubt, sizeof doubt))
		fprintf(stderr, "geoplan: warning: %s: %s\n", a->file, doubt);
	return EXIT_OK;
}

int cli_plan_req(const struct args *a, const struct gp_run *r, struct gp_plan_req *rq)
{
	*rq = (struct gp_plan_req){ .engine = a->engine ? gp_engine_find(a->engine) : NULL };
	struct gp_plan_opts *o = &rq->o;
	o->time_limit = a->time_limit;
	o->work_s = a->work_limit;
	o->gap = a->gap;
	o->seed = a->seed ? a->seed : 1;
	o->polish = !a->no_polish;
	o->schedule = GP_SCHED_1F1B;
	if (a->schedule)
		gp_sched_parse(a->schedule, &o->schedule);
	o->chunks = a->chunks;
	if (a->chunks > 1 && o->schedule != GP_SCHED_INTERLEAVED &&
	    o->schedule != GP_SCHED_XDC_GREEDY && o->schedule != GP_SCHED_XDC_MILP)
		return cli_fail(a, EXIT_USAGE, "--chunks %d needs --schedule interleaved, xdc-greedy or xdc-milp, not %s",
				a->chunks, gp_sched_name(o->schedule));
	if (a->chunks > r->sc->model.layers)
		return cli_fail(a, EXIT_USAGE, "--chunks %d: more than the model's %d layers (a stage holds a layer of each chunk)",
				a->chunks, r->sc->model.layers);
	if (a->warm && !strcmp(a->warm, "plan")) {
		if (r->sc->has_plan)
			o->warm = &r->sc->plan;
		else if (r->plan_note[0])
			fprintf(stderr, "geoplan: %s: --warm plan: the file's plan is left out: %s\n",
				a->file, r->plan_note);
		else
			return cli_fail(a, EXIT_USAGE, "%s: --warm plan: the scenario has no plan to start from",
					a->file);
	} else if (a->warm) {
		rq->warm = gp_engine_find(a->warm);
	}
	return EXIT_OK;
}

int cli_plan(struct gp_run *r, const struct args *a)
{
	struct gp_plan_req rq;
	int rc = cli_plan_req(a, r, &rq);
	if (rc)
		return rc;
	struct gp_err e = { "" };
	if (gp_run_plan(r, &rq, &e))
		return cli_fail(a, r->last_status == GP_MILP_INFEASIBLE ? EXIT_INFEASIBLE : EXIT_INPUT,
				"%s: %s", a->file, e.msg);
	return EXIT_OK;
}

int cli_simulate(struct gp_run *r, const struct args *a, bool override, bool record)
{
	struct gp_sim_req rq = { .schedule = -1, .chunks = override ? a->chunks : 0,
				 .record = record, .time_limit = a->time_limit, .gap = a->gap };
	enum gp_sched k;
	if (override && a->schedule && gp_sched_parse(a->schedule, &k) == 0)
		rq.schedule = (int)k;
	struct gp_err e = { "" };
	if (gp_run_simulate(r, &rq, &e)) {
		if (r->src == GP_SRC_ENGINE)
			return cli_fail(a, EXIT_INPUT, "%s: the %s plan does not simulate: %s", a->file,
					r->rep.engine, e.msg);
		return cli_fail(a, EXIT_INPUT, "%s", e.msg);
	}
	return EXIT_OK;
}

int cli_result_code(const struct gp_run *r, const struct args *a)
{
	const struct gp_solver_info *si = &r->res.solver;
	if (!r->res.fits)
		return EXIT_INFEASIBLE;
	if (!si->present || si->proven)
		return EXIT_OK;
	/* An engine's proof: not within --gap (default 0) is a gap. */
	if (r->src == GP_SRC_ENGINE && r->has_rep) {
		const struct gp_engine *eng = gp_engine_find(r->rep.engine);
		bool exact = eng && (eng->flags & GP_ENGINE_EXACT);
		return exact && isfinite(r->rep.bound) && !(r->rep.gap <= a->gap * (1 + 1e-9))
		       ? EXIT_GAP : EXIT_OK;
	}
	return EXIT_GAP;   /* the schedule MILP did not prove its schedule */
}

int cli_write_file(const char *out, int (*write)(FILE *f, const void *ud), const void *ud)
{
	struct gp_ofile o;
	struct gp_err e = { "" };
	if (!strcmp(out, "-"))
		gp_ofile_stream(&o, stdout, "standard output");
	else if (gp_ofile_open(&o, out, &e))
		return cli_error(EXIT_INPUT, "%s", e.msg);
	if (write(o.f, ud)) {
		int err = errno;
		gp_ofile_discard(&o);
		return cli_error(EXIT_INPUT, "%s: write failed: %s", out, strerror(err));
	}
	return gp_ofile_commit(&o, &e) ? cli_error(EXIT_INPUT, "%s", e.msg) : EXIT_OK;
}
