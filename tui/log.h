/*
 * log.h: what the log pane shows: what scripts print and warn, Lua
 * errors with their tracebacks, the planner's warnings and failures,
 * and what libraries write to standard error.
 *
 * Any thread posts: a locked ring buffer, so a worker thread never
 * waits for the screen (when the ring is full the oldest pending lines
 * go, and the next drain says how many). The main thread drains it into
 * the lines it shows, which keep the last GP_LOG_KEEP. A post can wake
 * the main thread's poll through a file descriptor (an eventfd).
 */
#ifndef GP_LOG_H
#define GP_LOG_H

#include <stdbool.h>

#define GP_LOG_WIDTH 480     /* bytes of a line's text; longer ones are cut */
#define GP_LOG_RING 256      /* lines posted and not drained yet */
#define GP_LOG_KEEP 2000     /* lines the pane keeps */
#define GP_LOG_RECENT 64     /* a warning as one of these last kept is not kept again */

enum gp_log_level { GP_LOG_INFO, GP_LOG_WARN, GP_LOG_ERROR };

struct gp_log_line {
	enum gp_log_level level;
	unsigned seq;              /* 1, 2, ... over the whole run */
	bool cont;                 /* a later line of one message (a traceback's) */
	char text[GP_LOG_WIDTH];
};

struct gp_log;

struct gp_log *gp_log_new(void);
void gp_log_free(struct gp_log *l);
/* A post also writes 1 to fd (an eventfd; < 0: none). */
void gp_log_set_wake(struct gp_log *l, int fd);

/* Any thread: text split at its line breaks, each a line of level lv
 * (the lines after the first marked cont: a traceback's). */
void gp_log_post(struct gp_log *l, enum gp_log_level lv, const char *text);
/* The shape of the run's log callback (core/run.h): a script's line, a
 * warning as gp_log_is_warning says. */
void gp_log_script(void *log, const char *line);
/* The line is a warning: Lua's warn wrote it ("[f.lua:3] warning: ",
 * "warning: ") or the host's check of a script's figure ("f.lua:3:
 * warning: "). */
bool gp_log_is_warning(const char *line);

/* Main thread: moves what was posted into the kept lines; returns how
 * many lines it kept (dropped ones are counted in one line saying so; a
 * warning the last GP_LOG_RECENT lines hold already is not kept). */
int gp_log_drain(struct gp_log *l);
/* Kept lines: 0 the oldest. */
int gp_log_count(const struct gp_log *l);
const struct gp_log_line *gp_log_at(const struct gp_log *l, int i);
/* Lines of level >= lv drained since the count was last cleared. */
int gp_log_unseen(const struct gp_log *l, enum gp_log_level lv);
void gp_log_seen(struct gp_log *l);

#endif
