/*
 * cmdline.h: the command line's memory and its Tab: the history of
 * commands typed (kept in a file across runs, Up and Down walk the
 * lines that start with what is typed, as shells do) and completion of
 * a word among candidates (the longest prefix they share; which they
 * are when several fit) or among the files a prefix names. What the
 * commands are and what their words complete to is app_cmd.c's.
 */
#ifndef GP_CMDLINE_H
#define GP_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define GP_CL_KEEP 500       /* history lines kept (the file is cut to them) */
#define GP_CL_LINE 256       /* the editor's width (editor.h) */

struct gp_cmdline {
	char **hist;                 /* the oldest first */
	int nhist, cap;
	int at;                      /* browsing: hist[at] shown; nhist: none */
	char typed[GP_CL_LINE];      /* what was typed before browsing */
	char path[512];              /* the history file ("": kept in memory only) */
	int flines;                  /* lines the file has */
};

/* The history file: $XDG_STATE_HOME/geoplan/history, else
 * ~/.local/state/geoplan/history; "" with neither. */
void gp_cl_default_path(char *buf, size_t n);
/* $VAR/geoplan/REST when VAR is an absolute path, else
 * ~/DFLT/geoplan/REST (the XDG base directories); "" with neither. */
void gp_xdg_path(const char *var, const char *dflt, const char *rest, char *buf, size_t n);
/* Starts a history on path (NULL or "": none) and reads what it has. */
void gp_cl_init(struct gp_cmdline *c, const char *path);
void gp_cl_free(struct gp_cmdline *c);
/* A command run: appended (not when empty or the same as the last), to
 * the file as well (its directory made; the file cut back to GP_CL_KEEP
 * lines when it has twice that). 0, or -1 when the file cannot be
 * written (the line is still kept in memory). */
int gp_cl_add(struct gp_cmdline *c, const char *line);
/* Up (dir -1) or Down (+1) from the line now shown (text: what the
 * editor holds): the next line starting with what was typed before
 * browsing, or that text again past the newest; NULL when there is no
 * further line. */
const char *gp_cl_browse(struct gp_cmdline *c, int dir, const char *text);
/* Editing anew: browsing starts again from the newest. */
void gp_cl_reset(struct gp_cmdline *c);

/* Candidates for a completion. */
struct gp_words {
	char **w;
	int n, cap;
};

int gp_words_add(struct gp_words *ws, const char *w);   /* -1: out of memory */
void gp_words_free(struct gp_words *ws);
/* The candidates starting with word: how many; out gets their longest
 * common prefix (word itself when none fits). */
int gp_cl_complete(const struct gp_words *ws, const char *word, char *out, size_t n);
/* The files and directories (these with a '/') whose path starts with
 * prefix, hidden ones only when the prefix's name starts with '.'. */
void gp_cl_files(const char *prefix, struct gp_words *ws);

#endif
