/*
 * log.c: the log's two rings (log.h): the pending one under a mutex,
 * posted to from any thread, and the kept one only the main thread
 * touches. A post never blocks on anything but the mutex, held for a
 * copy of one line.
 */
#include "log.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gp_log {
	pthread_mutex_t mu;
	struct gp_log_line pend[GP_LOG_RING];
	int phead, pn;               /* the oldest pending line, how many */
	long dropped;                /* pending lines overwritten since the last drain */
	unsigned seq;
	int wake;
	/* The main thread's. */
	struct gp_log_line *kept;    /* [GP_LOG_KEEP] */
	int khead, kn;
	int unseen[3];
};

struct gp_log *gp_log_new(void)
{
	struct gp_log *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->kept = calloc(GP_LOG_KEEP, sizeof *l->kept);
	if (!l->kept) {
		free(l);
		return NULL;
	}
	pthread_mutex_init(&l->mu, NULL);
	l->wake = -1;
	return l;
}

void gp_log_free(struct gp_log *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->mu);
	free(l->kept);
	free(l);
}

void gp_log_set_wake(struct gp_log *l, int fd)
{
	l->wake = fd;
}

/* Under the mutex: one line into the pending ring. */
static void push(struct gp_log *l, enum gp_log_level lv, bool cont, const char *text, size_t n)
{
	if (l->pn == GP_LOG_RING) {
		l->phead = (l->phead + 1) % GP_LOG_RING;
		l->pn--;
		l->dropped++;
	}
	struct gp_log_line *x = &l->pend[(l->phead + l->pn++) % GP_LOG_RING];
	x->level = lv;
	x->cont = cont;
	x->seq = ++l->seq;
	if (n >= sizeof x->text) {
		n = sizeof x->text - 4;
		while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;   /* not inside a UTF-8 character */
		snprintf(x->text, sizeof x->text, "%.*s...", (int)n, text);
	} else {
		memcpy(x->text, text, n);
		x->text[n] = 0;
	}
	for (char *p = x->text; *p; p++)
		if (*p == '\t' || *p == '\r')
			*p = ' ';
}

void gp_log_post(struct gp_log *l, enum gp_log_level lv, const char *text)
{
	if (!l || !text)
		return;
	pthread_mutex_lock(&l->mu);
	const char *p = text;
	do {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		push(l, lv, p != text, p, n);
		p = nl ? nl + 1 : NULL;
	} while (p && *p);
	pthread_mutex_unlock(&l->mu);
	if (l->wake >= 0) {
		uint64_t one = 1;
		ssize_t w = write(l->wake, &one, sizeof one);
		(void)w;   /* a full counter wakes the poll all the same */
	}
}

/* Lua's warn ("[file:3] warning: ", "warning: ") or the host's check
 * of a script's figure ("file.lua:3: warning: "). */
bool gp_log_is_warning(const char *line)
{
	if (strstr(line, "] warning: ") || !strncmp(line, "warning: ", 9))
		return true;
	const char *w = strstr(line, ": warning: ");
	const char *d = w;
	while (d && d > line && d[-1] >= '0' && d[-1] <= '9')
		d--;
	return w && d < w && d > line && d[-1] == ':';
}

void gp_log_script(void *log, const char *line)
{
	gp_log_post(log, gp_log_is_warning(line) ? GP_LOG_WARN : GP_LOG_INFO, line);
}

static void keep(struct gp_log *l, const struct gp_log_line *x)
{
	if (l->kn == GP_LOG_KEEP) {
		l->khead = (l->khead + 1) % GP_LOG_KEEP;
		l->kn--;
	}
	l->kept[(l->khead + l->kn++) % GP_LOG_KEEP] = *x;
	l->unseen[x->level]++;
}

/* The same warning among the last lines kept: the main thread's check
 * of an edit and the worker's re-plan load the same script, and both
 * warn; once is enough. */
static bool warned_lately(const struct gp_log *l, const char *text)
{
	for (int i = l->kn - 1; i >= 0 && i >= l->kn - GP_LOG_RECENT; i--) {
		const struct gp_log_line *k = &l->kept[(l->khead + i) % GP_LOG_KEEP];
		if (k->level == GP_LOG_WARN && !k->cont && !strcmp(k->text, text))
			return true;
	}
	return false;
}

int gp_log_drain(struct gp_log *l)
{
	if (!l)
		return 0;
	int n = 0;
	pthread_mutex_lock(&l->mu);
	if (l->dropped) {
		struct gp_log_line x = { GP_LOG_WARN, l->pend[l->phead].seq - 1, false, "" };
		snprintf(x.text, sizeof x.text, "(%ld lines lost: more came than the log holds)",
			 l->dropped);
		keep(l, &x);
		l->dropped = 0;
		n++;
	}
	bool skip = false;
	for (; l->pn > 0; l->pn--) {
		const struct gp_log_line *x = &l->pend[l->phead];
		if (!x->cont)
			skip = x->level == GP_LOG_WARN && warned_lately(l, x->text);
		if (!skip) {
			keep(l, x);
			n++;
		}
		l->phead = (l->phead + 1) % GP_LOG_RING;
	}
	pthread_mutex_unlock(&l->mu);
	return n;
}

int gp_log_count(const struct gp_log *l)
{
	return l ? l->kn : 0;
}

const struct gp_log_line *gp_log_at(const struct gp_log *l, int i)
{
	return l && i >= 0 && i < l->kn ? &l->kept[(l->khead + i) % GP_LOG_KEEP] : NULL;
}

int gp_log_unseen(const struct gp_log *l, enum gp_log_level lv)
{
	int n = 0;
	for (int i = lv; l && i <= GP_LOG_ERROR; i++)
		n += l->unseen[i];
	return n;
}

void gp_log_seen(struct gp_log *l)
{
	if (l)
		memset(l->unseen, 0, sizeof l->unseen);
}
