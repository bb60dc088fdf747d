/*
 * keys.h: keys as the terminal planner sees them, and their notation.
 *
 * A key is a Unicode code point (a typed character), a control key
 * (GP_K_CTRL('z')), or one of the special keys below. The notation is
 * the man page's and the key scripts': characters stand for themselves,
 * and <Name> for the others: <Enter> <Esc> <Tab> <S-Tab> <BS> <Del>
 * <Up> <Down> <Left> <Right> <PgUp> <PgDn> <Home> <End> <F1>..<F12>
 * <C-a>..<C-z> <Space> <lt> (a literal <), and in scripts <Resize WxH>,
 * <Click X,Y> (a left click at cell X, Y), <Wheel X,Y up|down> and
 * <S-Wheel X,Y up|down> (the wheel turned there, Shift held), <Wait> (until the planning
 * job ends) and <Wait N> (until it has sent N progress reports; it then
 * stays paused there until the next <Wait> or <Esc>).
 */
#ifndef GP_KEYS_H
#define GP_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#define GP_K_CTRL(c) ((c) & 0x1f)

enum {
	GP_K_BASE = 0x110000,       /* above every code point */
	GP_K_UP = GP_K_BASE, GP_K_DOWN, GP_K_LEFT, GP_K_RIGHT,
	GP_K_PGUP, GP_K_PGDN, GP_K_HOME, GP_K_END,
	GP_K_BTAB, GP_K_DEL, GP_K_BS,
	GP_K_F1, GP_K_F12 = GP_K_F1 + 11,
	GP_K_RESIZE,                /* the terminal changed size: w, h */
	GP_K_MOUSE,                 /* x, y, button */
	GP_K_WAIT,                  /* scripts: x reports (0: the job's end) */
	GP_K_TAB = '\t', GP_K_ENTER = '\r', GP_K_ESC = 27,
};

#define GP_K_F(n) (GP_K_F1 + (n) - 1)

struct gp_key {
	int code;
	int x, y, button;           /* GP_K_MOUSE (button 1 left, 3 right, 4/5 wheel),
				     * GP_K_RESIZE (x, y: the new width, height) */
	bool shift;                 /* GP_K_MOUSE: with Shift held */
};

/* The notation of one key: "j", "<Enter>", "<C-z>", "<F2>". */
void gp_key_name(int code, char *buf, size_t n);
/* Parses a key script ("<Tab>jj<Enter>") into keys[0..max) (keys NULL:
 * only counts them); returns how many, or -1 with *where the offset of
 * a bad name. */
int gp_keys_parse(const char *script, struct gp_key *keys, int max, int *where);

#endif
