/*
 * display.h: the terminal, and the only file that talks to ncurses
 * (display.c): start and stop it (restoring the terminal on every exit
 * path), copy a canvas to it, read keys, clicks and resizes. While the
 * screen is up, standard error goes to a pipe the face reads into the
 * log pane, and a copy is replayed after the screen closes, so no
 * library scribbles over it.
 */
#ifndef GP_DISPLAY_H
#define GP_DISPLAY_H

#include <stdbool.h>
#include "canvas.h"
#include "gp.h"
#include "keys.h"

enum gp_color_mode { GP_COLOR_AUTO, GP_COLOR_NEVER, GP_COLOR_ALWAYS };

struct gp_display;

/* Opens the terminal on standard input and output. */
struct gp_display *gp_display_open(enum gp_color_mode color, struct gp_err *e);
/* Closes it (the terminal as it was) and replays what went to stderr. */
void gp_display_close(struct gp_display *d);
/* Colours the terminal shows: 0 (none), 8, 16, 256. */
int gp_display_colors(const struct gp_display *d);
void gp_display_size(const struct gp_display *d, int *w, int *h);
/* Copies the canvas; the cursor at (x, y), hidden when x < 0. */
void gp_display_blit(struct gp_display *d, const struct gp_canvas *cv, int x, int y);
/* The next key within timeout_ms (< 0: wait): 0 a key, 1 none yet. */
int gp_display_key(struct gp_display *d, struct gp_key *k, int timeout_ms);
/* The next key, or fd readable, or what went to stderr, within
 * timeout_ms (< 0: wait): 0 a key, 2 fd or stderr has something, 1
 * nothing (a signal included). */
int gp_display_next(struct gp_display *d, struct gp_key *k, int timeout_ms, int fd);
/* A whole line written to stderr since the screen opened (1, into buf),
 * or 0 when none is complete. */
int gp_display_stderr(struct gp_display *d, char *buf, size_t n);
/* Clicks and the wheel come as keys (on), or the terminal keeps them
 * (off: selecting text works as without the planner). */
void gp_display_mouse(struct gp_display *d, bool on);
/* For a fatal signal: puts the terminal back (async-signal tolerant as
 * far as ncurses allows). */
void gp_display_emergency(void);

#endif
