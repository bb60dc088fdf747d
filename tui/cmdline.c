/*
 * cmdline.c: the command line's history and completion (cmdline.h).
 *
 * The history file is one command a line, appended as each is run so
 * two planners open at once both keep theirs; it is rewritten (to a
 * temporary file, then renamed) only when it has grown to twice what is
 * kept.
 */
#include "cmdline.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void gp_xdg_path(const char *var, const char *dflt, const char *rest, char *buf, size_t n)
{
	const char *base = getenv(var), *home = getenv("HOME");
	if (base && base[0] == '/')
		snprintf(buf, n, "%s/geoplan/%s", base, rest);
	else if (home && home[0])
		snprintf(buf, n, "%s/%s/geoplan/%s", home, dflt, rest);
	else
		buf[0] = 0;
}

void gp_cl_default_path(char *buf, size_t n)
{
	gp_xdg_path("XDG_STATE_HOME", ".local/state", "history", buf, n);
}

/* Keeps line in memory (the oldest dropped past GP_CL_KEEP). */
static int keep(struct gp_cmdline *c, const char *line)
{
	if (c->nhist == GP_CL_KEEP) {
		free(c->hist[0]);
		memmove(c->hist, c->hist + 1, (size_t)(c->nhist - 1) * sizeof *c->hist);
		c->nhist--;
	}
	if (c->nhist == c->cap) {
		int cap = c->cap ? 2 * c->cap : 32;
		char **h = realloc(c->hist, (size_t)cap * sizeof *h);
		if (!h)
			return -1;
		c->hist = h;
		c->cap = cap;
	}
	char *d = strdup(line);
	if (!d)
		return -1;
	c->hist[c->nhist++] = d;
	return 0;
}

void gp_cl_init(struct gp_cmdline *c, const char *path)
{
	memset(c, 0, sizeof *c);
	snprintf(c->path, sizeof c->path, "%s", path ? path : "");
	FILE *f = c->path[0] ? fopen(c->path, "r") : NULL;
	char line[GP_CL_LINE];
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		c->flines++;
		if (line[0])
			keep(c, line);
	}
	if (f)
		fclose(f);
	c->at = c->nhist;
}

void gp_cl_free(struct gp_cmdline *c)
{
	for (int i = 0; i < c->nhist; i++)
		free(c->hist[i]);
	free(c->hist);
	memset(c, 0, sizeof *c);
}

/* mkdir -p of the file's directory. */
static void make_dirs(const char *path)
{
	char d[512];
	snprintf(d, sizeof d, "%s", path);
	for (char *p = d + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(d, 0700) && errno != EEXIST)
				return;
			*p = '/';
		}
}

/* The file as the lines kept, when it has grown to twice that. */
static int rewrite(struct gp_cmdline *c)
{
	char tmp[600];
	snprintf(tmp, sizeof tmp, "%s.tmp", c->path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return -1;
	for (int i = 0; i < c->nhist; i++)
		fprintf(f, "%s\n", c->hist[i]);
	if (fclose(f) || rename(tmp, c->path)) {
		remove(tmp);
		return -1;
	}
	c->flines = c->nhist;
	return 0;
}

int gp_cl_add(struct gp_cmdline *c, const char *line)
{
	gp_cl_reset(c);
	if (!line[0] || strchr(line, '\n') || (c->nhist && !strcmp(c->hist[c->nhist - 1], line)))
		return 0;
	if (keep(c, line))
		return -1;
	c->at = c->nhist;
	if (!c->path[0])
		return 0;
	make_dirs(c->path);
	FILE *f = fopen(c->path, "a");
	if (!f)
		return -1;
	fprintf(f, "%s\n", line);
	if (fclose(f))
		return -1;
	if (++c->flines >= 2 * GP_CL_KEEP)
		return rewrite(c);
	return 0;
}

void gp_cl_reset(struct gp_cmdline *c)
{
	c->at = c->nhist;
	c->typed[0] = 0;
}

const char *gp_cl_browse(struct gp_cmdline *c, int dir, const char *text)
{
	if (c->at == c->nhist)
		snprintf(c->typed, sizeof c->typed, "%s", text);
	size_t n = strlen(c->typed);
	for (int i = c->at + dir; i >= 0 && i < c->nhist; i += dir)
		if (!strncmp(c->hist[i], c->typed, n) && strcmp(c->hist[i], text)) {
			c->at = i;
			return c->hist[i];
		}
	if (dir > 0 && c->at < c->nhist) {
		c->at = c->nhist;
		return c->typed;
	}
	return NULL;
}

int gp_words_add(struct gp_words *ws, const char *w)
{
	if (ws->n == ws->cap) {
		int cap = ws->cap ? 2 * ws->cap : 16;
		char **v = realloc(ws->w, (size_t)cap * sizeof *v);
		if (!v)
			return -1;
		ws->w = v;
		ws->cap = cap;
	}
	char *d = strdup(w);
	if (!d)
		return -1;
	ws->w[ws->n++] = d;
	return 0;
}

void gp_words_free(struct gp_words *ws)
{
	for (int i = 0; i < ws->n; i++)
		free(ws->w[i]);
	free(ws->w);
	memset(ws, 0, sizeof *ws);
}

int gp_cl_complete(const struct gp_words *ws, const char *word, char *out, size_t n)
{
	size_t wl = strlen(word), common = 0;
	const char *first = NULL;
	int hits = 0;
	for (int i = 0; i < ws->n; i++) {
		const char *w = ws->w[i];
		if (strncmp(w, word, wl))
			continue;
		if (first && !strcmp(first, w))
			continue;   /* the same word twice is one */
		if (!first) {
			first = w;
			common = strlen(w);
		} else {
			size_t k = 0;
			while (k < common && w[k] == first[k])
				k++;
			common = k;
		}
		hits++;
	}
	if (!first)
		snprintf(out, n, "%s", word);
	else
		snprintf(out, n, "%.*s", (int)common, first);
	return hits;
}

void gp_cl_files(const char *prefix, struct gp_words *ws)
{
	const char *slash = strrchr(prefix, '/');
	char dir[512];
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - prefix + 1), prefix);
	else
		dir[0] = 0;
	const char *base = slash ? slash + 1 : prefix;
	DIR *d = opendir(dir[0] ? dir : ".");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, "..") || (nm[0] == '.' && base[0] != '.') ||
		    strncmp(nm, base, strlen(base)))
			continue;
		char path[1100];
		snprintf(path, sizeof path, "%s%s", dir, nm);
		struct stat st;
		bool isdir = !stat(path, &st) && S_ISDIR(st.st_mode);
		if (isdir)
			strcat(path, "/");
		gp_words_add(ws, path);
	}
	closedir(d);
}
