/*
 * worker.h: planning in the background. One worker thread (with the
 * log's posts, the only code another thread runs) takes one job at a
 * time: it loads the scenario anew (the file and the overrides the job
 * copied), plans it with the job's engine and limits, and hands the
 * whole run back. It never touches the screen or the app: the main
 * thread reads its progress from a coalesced slot (the newest report
 * wins; a history of incumbent and bound, thinned to fit) and its
 * results from a queue, woken through an eventfd it polls with the
 * keyboard.
 *
 * A job submitted while another runs supersedes it: the running one is
 * cancelled (its result comes back marked so) and a queued one is
 * dropped. Esc cancels the same way.
 *
 * Held (headless replay: geoplan shot, the tests, the bench), a job
 * starts only when the main thread waits for it, and a wait can stop it
 * after its Nth progress report, paused inside the report until the
 * next wait or a cancel: so a key script sees a solve mid-way, the same
 * every time.
 */
#ifndef GP_WORKER_H
#define GP_WORKER_H

#include <stdbool.h>
#include "run.h"

/* What a job does; gp_worker_submit copies it (strings included). */
struct gp_plan_job {
	int purpose;                       /* the caller's: what the result is for */
	const char *path;
	const char *const *sets;
	int nsets;
	const char *cost_path, *heur_path; /* the run's (--cost-model, --heuristic) */
	const struct gp_engine *engine;    /* NULL: the default */
	double time_limit, gap;            /* 0: the engine's */
	double work_limit;                 /* gp_plan_opts.work_s; 0: the default */
	enum gp_sched schedule;            /* the schedule planned for (1F1B: 0) */
	int chunks;                        /* and its chunks (0: its default) */
	bool polish;
	bool simulate;                     /* the plan simulated too, its timeline kept */
	const char *label;                 /* "re-planning": what the screen calls it */
};

struct gp_job_result {
	unsigned id;
	int purpose;
	int rc;                            /* 0: run holds the plan (and its scenario;
					    * simulated when the job said so) */
	bool cancelled;
	struct gp_err e;
	struct gp_err warm;                /* the heuristic script's error when the
					    * engine's warm start from it failed
					    * ("" else): the engine started cold */
	struct gp_run *run;                /* owned by the taker: gp_worker_free_result */
	double seconds;                    /* the job's wall time */
	struct gp_job_result *next;
};

#define GP_HIST_MAX 128

struct gp_hist_point {
	double t;                          /* seconds since the job started */
	double incumbent, bound;           /* HUGE_VAL, -HUGE_VAL: none */
};

/* The job running (or queued) as the main thread sees it. */
struct gp_job_status {
	unsigned id;                       /* 0: nothing queued or running */
	int purpose;
	bool running, paused, cancelling;
	bool done;                         /* it ended (the figures are its last) */
	char label[64];
	char engine[32], phase[48];        /* of the last report, or "" */
	double incumbent, bound, gap;      /* of the last report (HUGE_VAL etc.: none) */
	double elapsed;                    /* seconds, by the last report */
	double started;                    /* the monotonic clock when it began */
	int nreports;
	/* The history of the first phase (the solver proper: the later
	 * ones, a polish, judge other things on other scales). */
	char hist_engine[32], hist_phase[48];
	int nhist, stride;                 /* points kept; reports per point */
	struct gp_hist_point hist[GP_HIST_MAX];
};

struct gp_worker;

/* A worker (its thread, and its eventfd, or efd >= 0: another worker's,
 * so one poll hears both); hold: headless (above). log gets the
 * scripts' output of every job's run. NULL with e on failure. */
struct gp_worker *gp_worker_new(bool hold, int efd, void (*log)(void *, const char *),
				void *log_ud, struct gp_err *e);
/* Cancels everything, joins the thread, frees what is left. */
void gp_worker_free(struct gp_worker *w);
/* The file descriptor that becomes readable when something happened. */
int gp_worker_fd(const struct gp_worker *w);
/* Clears the descriptor's count (before reading the slot and queue). */
void gp_worker_ack(struct gp_worker *w);

/* Queues j, superseding what runs or waits: its id (> 0), 0 if out of
 * memory. */
unsigned gp_worker_submit(struct gp_worker *w, const struct gp_plan_job *j);
/* Cancels the job id (0: whatever runs or waits). */
void gp_worker_cancel(struct gp_worker *w, unsigned id);
/* The status of the newest job (id 0 when none). */
void gp_worker_status(struct gp_worker *w, struct gp_job_status *st);
/* The next finished job (oldest first), or NULL. */
struct gp_job_result *gp_worker_take(struct gp_worker *w);
void gp_worker_free_result(struct gp_job_result *r);
/* Held: lets the newest job run and waits until it is done, or (reports
 * > 0) until it has sent that many progress reports and is paused. Not
 * held: waits until it is done. Returns at once when nothing waits. */
void gp_worker_wait(struct gp_worker *w, int reports);

#endif
