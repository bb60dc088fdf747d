/*
 * worker.c: the planning thread (worker.h).
 *
 * One mutex and one condition variable guard everything the two
 * threads share: the queued job (at most one: a newer one replaces
 * it), the running one and its run (so a cancel reaches the engine),
 * the status slot and the finished results. The worker never holds the
 * mutex while it plans; the main thread never waits on it but for a
 * copy (or, held, in gp_worker_wait).
 *
 * A cancel is an atomic flag of the job, passed on to the run's own
 * (gp_run_cancel, safe from any thread). gp_run_plan clears the run's
 * flag as it starts, so a cancel landing just then would be lost: each
 * progress report passes the job's flag on again, and the app cancels
 * again while it waits.
 */
#include "worker.h"

#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct job_rec {
	unsigned id;
	struct gp_plan_job j;             /* path, sets and label point into the copies */
	char *path;
	char **sets;
	char *cost_path, *heur_path;
	char label[64];
	atomic_int cancel;
};

struct gp_worker {
	pthread_t th;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int efd;
	bool own_fd;
	bool hold, go, quit;
	int pause_at;                /* held: pause at this many reports (0: never) */
	bool paused;
	int skip;                    /* reports since the last history point */
	unsigned last_id;
	struct job_rec *queued, *running;
	struct gp_run *active;       /* the running job's run */
	struct gp_job_status st;
	struct gp_job_result *done, *done_tail;
	void (*log)(void *, const char *);
	void *log_ud;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wake(struct gp_worker *w)
{
	uint64_t one = 1;
	ssize_t n = write(w->efd, &one, sizeof one);
	(void)n;   /* the counter is only a doorbell */
}

static void rec_free(struct job_rec *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->j.nsets; i++)
		free(r->sets[i]);
	free(r->sets);
	free(r->path);
	free(r->cost_path);
	free(r->heur_path);
	free(r);
}

static char *dup_or_null(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;
	if (s && !d)
		*oom = true;
	return d;
}

static struct job_rec *rec_new(const struct gp_plan_job *j)
{
	struct job_rec *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	bool oom = false;
	r->j = *j;
	r->path = dup_or_null(j->path, &oom);
	r->cost_path = dup_or_null(j->cost_path, &oom);
	r->heur_path = dup_or_null(j->heur_path, &oom);
	r->sets = calloc((size_t)j->nsets + 1, sizeof *r->sets);
	oom |= !r->sets;
	r->j.nsets = 0;
	for (int i = 0; r->sets && i < j->nsets; i++, r->j.nsets++)
		if (!(r->sets[i] = strdup(j->sets[i]))) {
			oom = true;
			break;
		}
	snprintf(r->label, sizeof r->label, "%s", j->label ? j->label : "planning");
	r->j.path = r->path;
	r->j.sets = (const char *const *)r->sets;
	r->j.cost_path = r->cost_path;
	r->j.heur_path = r->heur_path;
	r->j.label = r->label;
	atomic_init(&r->cancel, 0);
	if (oom || !r->path) {
		rec_free(r);
		return NULL;
	}
	return r;
}

/* Under the mutex: a history point of the first phase, thinned (every
 * other one dropped, the stride doubled) when the history is full. */
static void add_point(struct gp_worker *w, const struct gp_progress *p)
{
	struct gp_job_status *st = &w->st;
	if (st->nreports == 1) {
		snprintf(st->hist_engine, sizeof st->hist_engine, "%s", st->engine);
		snprintf(st->hist_phase, sizeof st->hist_phase, "%s", st->phase);
	} else if (strcmp(st->hist_engine, st->engine) || strcmp(st->hist_phase, st->phase)) {
		return;
	}
	if (st->stride < 1)
		st->stride = 1;
	if (++w->skip < st->stride && st->nhist > 0)
		return;
	w->skip = 0;
	if (st->nhist == GP_HIST_MAX) {
		for (int i = 0; i < GP_HIST_MAX / 2; i++)
			st->hist[i] = st->hist[2 * i + 1];
		st->nhist = GP_HIST_MAX / 2;
		st->stride *= 2;
	}
	st->hist[st->nhist++] = (struct gp_hist_point){ p->elapsed, p->incumbent, p->bound };
}

/* Under the mutex: the engine's last word (its objective, bound and
 * gap as proven) as the status and the history's last point. */
static void final_point(struct gp_worker *w, const struct gp_plan_report *rep, double t)
{
	struct gp_job_status *st = &w->st;
	snprintf(st->engine, sizeof st->engine, "%s", rep->engine);
	snprintf(st->phase, sizeof st->phase, "done");
	st->incumbent = rep->objective;
	st->bound = rep->bound;
	st->gap = rep->gap;
	st->elapsed = t;
	if (st->nhist == GP_HIST_MAX)
		st->nhist--;
	if (st->nhist > 0 && !strcmp(st->hist_engine, rep->engine))
		st->hist[st->nhist++] = (struct gp_hist_point){ t, rep->objective, rep->bound };
}

static void on_progress(void *ud, const struct gp_progress *p)
{
	struct gp_worker *w = ud;
	pthread_mutex_lock(&w->mu);
	struct job_rec *r = w->running;
	if (r && atomic_load(&r->cancel) && w->active)
		gp_run_cancel(w->active);
	if (r && r->id == w->st.id) {
		struct gp_job_status *st = &w->st;
		snprintf(st->engine, sizeof st->engine, "%s", p->engine ? p->engine : "");
		snprintf(st->phase, sizeof st->phase, "%s", p->phase ? p->phase : "");
		st->incumbent = p->incumbent;
		st->bound = p->bound;
		st->gap = p->gap;
		st->elapsed = p->elapsed;
		st->nreports++;
		add_point(w, p);
		if (w->pause_at > 0 && st->nreports >= w->pause_at) {
			st->paused = w->paused = true;
			pthread_cond_broadcast(&w->cv);
			while (w->paused && !atomic_load(&r->cancel) && !w->quit)
				pthread_cond_wait(&w->cv, &w->mu);
			st->paused = w->paused = false;
			if (atomic_load(&r->cancel) && w->active)
				gp_run_cancel(w->active);
		}
	}
	pthread_mutex_unlock(&w->mu);
	wake(w);
}

/* An exact engine starts from the heuristic script's plan (run.c):
 * that plan made here first, so that a failure (which only leaves the
 * engine cold) is an error of the job's, for the log, and not only a
 * phrase of the plan's note. The options are gp_plan_make's for it. */
static void warm_first(struct gp_run *run, struct gp_plan_req *rq, struct gp_plan *w,
		       struct gp_err *we)
{
	const struct gp_engine *eng = rq->engine ? rq->engine : gp_engine_default();
	const struct gp_engine *h = gp_engine_script();
	unsigned need = GP_ENGINE_EXACT | GP_ENGINE_WARM;
	if (!run->heur || !h || (eng->flags & need) != need || rq->o.warm || rq->warm)
		return;
	struct gp_scenario view = *run->sc;
	view.has_plan = false;   /* as gp_run_plan plans */
	view.plan = (struct gp_plan){ 0 };
	struct gp_plan_opts o = rq->o;
	if (o.time_limit <= 0 && eng->time_limit > 0)
		o.time_limit = eng->time_limit;
	o.objective = view.objective;
	o.budget_usd_per_hour = view.budget_usd_per_hour;
	o.costs = run->costs;
	o.cancel = &run->cancel;
	o.heuristic = run->heur;
	struct gp_plan_report wr;
	if (h->fn(&view, &o, w, &wr, we) == 0)
		rq->o.warm = w;   /* run.c then runs it no more */
}

/* Plans r (its warm start made first, above); a failed warm start is
 * not made again: the engine runs cold, its note saying why as
 * gp_plan_make's would. */
static int plan_job(struct gp_run *run, struct gp_plan_req *rq, struct gp_err *we,
		    struct gp_err *e)
{
	struct gp_plan w = { 0 };
	warm_first(run, rq, &w, we);
	struct gp_lua_heur *heur = run->heur;
	if (we->msg[0])
		run->heur = NULL;
	int rc = gp_run_plan(run, rq, e);
	run->heur = heur;
	gp_plan_free(&w);
	if (rc == 0 && we->msg[0]) {
		char one[sizeof run->rep.note];
		size_t l = strlen(run->rep.note);
		snprintf(run->rep.note + l, sizeof run->rep.note - l,
			 "%swarm start from %s failed, started without it: %s", l ? "; " : "",
			 gp_engine_script()->name, gp_fmt_one_line(we->msg, one, sizeof one));
	}
	return rc;
}

/* Loads and plans (and simulates) job r into res, on the worker. */
static void execute(struct gp_worker *w, struct job_rec *r, struct gp_job_result *res)
{
	struct gp_run *run = calloc(1, sizeof *run);
	if (!run) {
		res->rc = gp_errf(&res->e, "out of memory");
		return;
	}
	gp_run_init(run);
	run->plan_optional = true;
	run->cost_path = r->cost_path;
	run->heur_path = r->heur_path;
	run->log = w->log;
	run->log_ud = w->log_ud;
	res->rc = gp_run_load(run, r->path, r->j.sets, r->j.nsets, &res->e);
	pthread_mutex_lock(&w->mu);
	w->active = run;
	pthread_mutex_unlock(&w->mu);
	run->progress = on_progress;
	run->progress_ud = w;
	if (res->rc == 0 && !atomic_load(&r->cancel)) {
		struct gp_plan_req rq = { .engine = r->j.engine,
					  .o = { .time_limit = r->j.time_limit, .gap = r->j.gap,
						 .work_s = r->j.work_limit, .seed = 1, .polish = r->j.polish,
						 .schedule = r->j.schedule, .chunks = r->j.chunks } };
		res->rc = plan_job(run, &rq, &res->warm, &res->e);
	}
	if (res->rc == 0 && r->j.simulate && !atomic_load(&r->cancel)) {
		struct gp_sim_req sq = { .schedule = -1, .record = true,
					 .time_limit = r->j.time_limit, .gap = r->j.gap };
		res->rc = gp_run_simulate(run, &sq, &res->e);
	}
	pthread_mutex_lock(&w->mu);
	w->active = NULL;
	pthread_mutex_unlock(&w->mu);
	run->progress = NULL;
	run->progress_ud = NULL;
	res->run = run;
}

/* Under the mutex: the next job to run, or NULL to quit. */
static struct job_rec *next_job(struct gp_worker *w)
{
	while (!w->quit && !(w->queued && (!w->hold || w->go)))
		pthread_cond_wait(&w->cv, &w->mu);
	if (w->quit)
		return NULL;
	struct job_rec *r = w->queued;
	w->queued = NULL;
	w->running = r;
	w->skip = 0;
	if (r->id == w->st.id) {
		w->st.running = true;
		w->st.started = now_s();
	}
	return r;
}

static void *thread_main(void *arg)
{
	struct gp_worker *w = arg;
	pthread_mutex_lock(&w->mu);
	struct job_rec *r;
	while ((r = next_job(w))) {
		pthread_mutex_unlock(&w->mu);
		struct gp_job_result *res = calloc(1, sizeof *res);
		double t0 = now_s();
		if (res)
			execute(w, r, res);
		pthread_mutex_lock(&w->mu);
		w->running = NULL;
		if (res) {
			res->id = r->id;
			res->purpose = r->j.purpose;
			res->cancelled = atomic_load(&r->cancel) != 0;
			res->seconds = now_s() - t0;
			if (w->done_tail)
				w->done_tail->next = res;
			else
				w->done = res;
			w->done_tail = res;
		}
		if (r->id == w->st.id) {
			w->st.running = false;
			w->st.done = true;
			if (res && res->rc == 0 && !res->cancelled && res->run && res->run->has_rep)
				final_point(w, &res->run->rep, res->seconds);
		}
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		wake(w);
		rec_free(r);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

struct gp_worker *gp_worker_new(bool hold, int efd, void (*log)(void *, const char *),
				void *log_ud, struct gp_err *e)
{
	struct gp_worker *w = calloc(1, sizeof *w);
	if (!w) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	w->hold = hold;
	w->log = log;
	w->log_ud = log_ud;
	w->own_fd = efd < 0;
	w->efd = efd >= 0 ? efd : eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		free(w);
		gp_errf(e, "cannot make an eventfd for the planning thread");
		return NULL;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if (pthread_create(&w->th, NULL, thread_main, w)) {
		gp_worker_free(w);
		gp_errf(e, "cannot start the planning thread");
		return NULL;
	}
	w->started = true;
	return w;
}

void gp_worker_free(struct gp_worker *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	if (w->running)
		atomic_store(&w->running->cancel, 1);
	if (w->active)
		gp_run_cancel(w->active);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	if (w->started)
		pthread_join(w->th, NULL);
	rec_free(w->queued);
	struct gp_job_result *r;
	while ((r = gp_worker_take(w)))
		gp_worker_free_result(r);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	if (w->own_fd)
		close(w->efd);
	free(w);
}

int gp_worker_fd(const struct gp_worker *w)
{
	return w->efd;
}

void gp_worker_ack(struct gp_worker *w)
{
	uint64_t n;
	ssize_t r = read(w->efd, &n, sizeof n);
	(void)r;   /* EAGAIN: nothing was pending */
}

/* Under the mutex: cancels what runs and drops what waits. */
static void cancel_all(struct gp_worker *w)
{
	if (w->running) {
		atomic_store(&w->running->cancel, 1);
		if (w->active)
			gp_run_cancel(w->active);
		if (w->running->id == w->st.id)
			w->st.cancelling = true;
	}
	rec_free(w->queued);
	w->queued = NULL;
	pthread_cond_broadcast(&w->cv);
}

unsigned gp_worker_submit(struct gp_worker *w, const struct gp_plan_job *j)
{
	struct job_rec *r = rec_new(j);
	if (!r)
		return 0;
	pthread_mutex_lock(&w->mu);
	cancel_all(w);
	r->id = ++w->last_id;
	w->queued = r;
	w->st = (struct gp_job_status){ .id = r->id, .purpose = j->purpose, .incumbent = HUGE_VAL,
					.bound = -HUGE_VAL, .gap = HUGE_VAL, .stride = 1 };
	snprintf(w->st.label, sizeof w->st.label, "%s", r->label);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return r->id;
}

void gp_worker_cancel(struct gp_worker *w, unsigned id)
{
	pthread_mutex_lock(&w->mu);
	if (w->queued && (id == 0 || w->queued->id == id)) {
		if (w->queued->id == w->st.id)
			w->st.done = w->st.cancelling = true;
		rec_free(w->queued);
		w->queued = NULL;
	}
	if (w->running && (id == 0 || w->running->id == id)) {
		atomic_store(&w->running->cancel, 1);
		if (w->active)
			gp_run_cancel(w->active);
		if (w->running->id == w->st.id)
			w->st.cancelling = true;
	}
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void gp_worker_status(struct gp_worker *w, struct gp_job_status *st)
{
	pthread_mutex_lock(&w->mu);
	*st = w->st;
	pthread_mutex_unlock(&w->mu);
}

struct gp_job_result *gp_worker_take(struct gp_worker *w)
{
	pthread_mutex_lock(&w->mu);
	struct gp_job_result *r = w->done;
	if (r) {
		w->done = r->next;
		if (!w->done)
			w->done_tail = NULL;
		r->next = NULL;
	}
	pthread_mutex_unlock(&w->mu);
	return r;
}

void gp_worker_free_result(struct gp_job_result *r)
{
	if (!r)
		return;
	if (r->run) {
		gp_run_free(r->run);
		free(r->run);
	}
	free(r);
}

void gp_worker_wait(struct gp_worker *w, int reports)
{
	pthread_mutex_lock(&w->mu);
	w->go = true;
	w->pause_at = reports > 0 ? reports : 0;
	w->paused = false;
	pthread_cond_broadcast(&w->cv);
	for (;;) {
		bool idle = !w->queued && !w->running;
		if (idle || (reports > 0 && w->paused))
			break;
		pthread_cond_wait(&w->cv, &w->mu);
	}
	w->go = false;
	pthread_mutex_unlock(&w->mu);
}
