/*
 * display.c: ncursesw behind display.h, the one file that includes
 * curses.
 *
 * Colours: a canvas holds 24-bit RGB, sent as it is to a terminal with
 * direct colour (COLORTERM=truecolor and a -direct terminfo entry); one
 * with 256 colours gets the nearest of the xterm cube and grey ramp, one
 * with 8 or 16 the nearest ANSI colour, one without colours only the attributes. Pairs
 * come from alloc_pair (ncurses >= 6.1) and go through setcchar's
 * extended-pair argument, so more than 256 pairs work. The palette is
 * never redefined (init_color would rewrite the user's).
 */
#include "display.h"

#include <curses.h>
#include <term.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE 1024
#define ERRBUF 4096

struct gp_display {
	SCREEN *scr;
	int colors;                  /* 0, 8, 16, 256 */
	int saved_err;               /* the real stderr */
	int err_rd;                  /* the pipe stderr writes to meanwhile */
	FILE *errlog;                /* and a copy of it, replayed at the end */
	char errbuf[ERRBUF];         /* what came of a line not ended yet */
	int errlen;
	struct { uint32_t rgb; int idx; bool used; } cache[CACHE];
};

static const uint8_t ansi16[16][3] = {
	{ 0, 0, 0 }, { 205, 0, 0 }, { 0, 205, 0 }, { 205, 205, 0 },
	{ 0, 0, 238 }, { 205, 0, 205 }, { 0, 205, 205 }, { 229, 229, 229 },
	{ 127, 127, 127 }, { 255, 0, 0 }, { 0, 255, 0 }, { 255, 255, 0 },
	{ 92, 92, 255 }, { 255, 0, 255 }, { 0, 255, 255 }, { 255, 255, 255 },
};

static int dist2(int r, int g, int b, int r2, int g2, int b2)
{
	return (r - r2) * (r - r2) + (g - g2) * (g - g2) + (b - b2) * (b - b2);
}

/* The xterm 256-colour index nearest to rgb: the 6x6x6 cube (levels 0,
 * 95, 135, 175, 215, 255) or the 24-step grey ramp (8 + 10 i). */
static short to256(uint32_t rgb)
{
	int r = rgb >> 16 & 255, g = rgb >> 8 & 255, b = rgb & 255;
	static const int lv[6] = { 0, 95, 135, 175, 215, 255 };
	int q[3], c[3] = { r, g, b };
	for (int i = 0; i < 3; i++) {
		int best = 0;
		for (int k = 1; k < 6; k++)
			if (abs(c[i] - lv[k]) < abs(c[i] - lv[best]))
				best = k;
		q[i] = best;
	}
	int cube = 16 + 36 * q[0] + 6 * q[1] + q[2];
	int grey = (r + g + b) / 3, gi = grey < 8 ? 0 : grey > 238 ? 23 : (grey - 8 + 5) / 10;
	int gv = 8 + 10 * gi;
	int dc = dist2(r, g, b, lv[q[0]], lv[q[1]], lv[q[2]]), dg = dist2(r, g, b, gv, gv, gv);
	return (short)(dg < dc ? 232 + gi : cube);
}

static short to16(uint32_t rgb, int n)
{
	int r = rgb >> 16 & 255, g = rgb >> 8 & 255, b = rgb & 255, best = 0;
	for (int i = 1; i < n; i++)
		if (dist2(r, g, b, ansi16[i][0], ansi16[i][1], ansi16[i][2]) <
		    dist2(r, g, b, ansi16[best][0], ansi16[best][1], ansi16[best][2]))
			best = i;
	return (short)best;
}

/* Direct colour (a terminfo with RGB: xterm-direct): the colour is its
 * own index. */
#define DIRECT (1 << 24)

static int nearest(const struct gp_display *d, uint32_t rgb)
{
	return d->colors >= DIRECT ? (int)rgb : d->colors >= 256 ? to256(rgb) : to16(rgb, d->colors);
}

static int color_index(struct gp_display *d, uint32_t rgb)
{
	if (rgb == GP_CV_DEFAULT)
		return -1;
	unsigned h = (rgb * 2654435761u) >> 22 & (CACHE - 1);
	for (int i = 0; i < CACHE; i++) {
		unsigned k = (h + (unsigned)i) & (CACHE - 1);
		if (!d->cache[k].used) {
			d->cache[k].used = true;
			d->cache[k].rgb = rgb;
			d->cache[k].idx = nearest(d, rgb);
			return d->cache[k].idx;
		}
		if (d->cache[k].rgb == rgb)
			return d->cache[k].idx;
	}
	return nearest(d, rgb);
}

/* stderr into a pipe while the screen is up: the log pane reads it
 * (gp_display_stderr), and a file keeps a copy to replay at the end. */
static void capture_stderr(struct gp_display *d)
{
	int p[2];
	fflush(stderr);
	d->err_rd = -1;
	d->errlog = tmpfile();
	if (!d->errlog || pipe(p))
		return;
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	d->saved_err = dup(2);
	if (d->saved_err < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	dup2(p[1], 2);
	close(p[1]);
	d->err_rd = p[0];
}

/* What the pipe holds into errbuf (and the copy). */
static void read_stderr(struct gp_display *d)
{
	while (d->err_rd >= 0 && d->errlen < ERRBUF - 1) {
		ssize_t n = read(d->err_rd, d->errbuf + d->errlen, (size_t)(ERRBUF - 1 - d->errlen));
		if (n <= 0)
			break;
		fwrite(d->errbuf + d->errlen, 1, (size_t)n, d->errlog);
		d->errlen += (int)n;
	}
}

int gp_display_stderr(struct gp_display *d, char *buf, size_t n)
{
	read_stderr(d);
	char *nl = memchr(d->errbuf, '\n', (size_t)d->errlen);
	int len = nl ? (int)(nl - d->errbuf) : d->errlen == ERRBUF - 1 ? d->errlen : -1;
	if (len < 0 || n == 0)
		return 0;
	snprintf(buf, n, "%.*s", len, d->errbuf);
	int used = len + (nl != NULL);
	memmove(d->errbuf, d->errbuf + used, (size_t)(d->errlen - used));
	d->errlen -= used;
	return 1;
}

static void release_stderr(struct gp_display *d)
{
	if (d->saved_err < 0) {
		if (d->errlog)
			fclose(d->errlog);
		return;
	}
	fflush(stderr);
	dup2(d->saved_err, 2);
	close(d->saved_err);
	d->saved_err = -1;
	read_stderr(d);
	close(d->err_rd);
	d->err_rd = -1;
	rewind(d->errlog);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, d->errlog)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(d->errlog);
	d->errlog = NULL;
}

/* Truecolour when COLORTERM says so (truecolor, 24bit) and terminfo has
 * the terminal's -direct entry (xterm-256color: xterm-direct): 1 with
 * its name; else 0, and TERM's own entry (256, 16, 8 colours). */
static int direct_term(char *buf, size_t n)
{
	const char *ct = getenv("COLORTERM"), *t = getenv("TERM");
	if (!ct || (strcmp(ct, "truecolor") && strcmp(ct, "24bit")) || !t || !t[0])
		return 0;
	if (strstr(t, "-direct"))
		return snprintf(buf, n, "%s", t), 1;
	snprintf(buf, n, "%.*s-direct", (int)strcspn(t, "-"), t);
	int err = 0;
	if (setupterm(buf, fileno(stdout), &err) != OK)
		return 0;
	del_curterm(cur_term);
	return 1;
}

struct gp_display *gp_display_open(enum gp_color_mode color, struct gp_err *e)
{
	struct gp_display *d = calloc(1, sizeof *d);
	if (!d) {
		gp_errf(e, "out of memory");
		return NULL;
	}
	d->saved_err = d->err_rd = -1;
	if (!getenv("ESCDELAY"))
		set_escdelay(25);
	char direct[64];
	d->scr = direct_term(direct, sizeof direct) ? newterm(direct, stdout, stdin) : NULL;
	if (!d->scr)
		d->scr = newterm(NULL, stdout, stdin);
	if (!d->scr) {
		free(d);
		gp_errf(e, "cannot open the terminal (TERM=%s)", getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	set_term(d->scr);
	/* A terminal that cannot move the cursor (TERM=dumb, an editor's
	 * shell) would smear every frame onto one line. */
	const char *cup = tigetstr("cup");
	if (!cup || cup == (const char *)-1) {
		endwin();
		delscreen(d->scr);
		free(d);
		gp_errf(e, "the terminal (TERM=%s) cannot move the cursor: the planner needs one "
			   "that can (xterm-256color, tmux); plan, sim and compare work anywhere",
			getenv("TERM") ? getenv("TERM") : "");
		return NULL;
	}
	/* raw: ^C and ^Z come as keys (quit asks about unsaved edits, C-z
	 * undoes) instead of killing or stopping the program. */
	raw();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	mouseinterval(0);
	gp_display_mouse(NULL, true);
	if (color != GP_COLOR_NEVER && has_colors()) {
		start_color();
		use_default_colors();
		d->colors = COLORS >= DIRECT ? DIRECT : COLORS >= 256 ? 256 : COLORS >= 16 ? 16 : 8;
	}
	capture_stderr(d);
	return d;
}

void gp_display_close(struct gp_display *d)
{
	if (!d)
		return;
	endwin();
	delscreen(d->scr);
	release_stderr(d);
	free(d);
}

void gp_display_emergency(void)
{
	if (!isendwin())
		endwin();
}

int gp_display_colors(const struct gp_display *d)
{
	return d->colors;
}

void gp_display_size(const struct gp_display *d, int *w, int *h)
{
	(void)d;
	getmaxyx(stdscr, *h, *w);
}

static attr_t attrs(uint16_t a)
{
	attr_t r = A_NORMAL;
	if (a & GP_CV_BOLD)
		r |= A_BOLD;
	if (a & GP_CV_DIM)
		r |= A_DIM;
	if (a & GP_CV_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & GP_CV_REVERSE)
		r |= A_REVERSE;
#ifdef A_ITALIC
	if (a & GP_CV_ITALIC)
		r |= A_ITALIC;
#endif
	return r;
}

void gp_display_blit(struct gp_display *d, const struct gp_canvas *cv, int x, int y)
{
	int w, h;
	getmaxyx(stdscr, h, w);
	for (int r = 0; r < cv->h && r < h; r++)
		for (int c = 0; c < cv->w && c < w; c++) {
			const struct gp_cell *k = gp_cv_cell(cv, c, r);
			if (k->ch == GP_CV_WIDE_TAIL)
				continue;
			int pair = 0;
			if (d->colors) {
				pair = alloc_pair(color_index(d, k->fg), color_index(d, k->bg));
				if (pair < 0)
					pair = 0;
			}
			wchar_t wc[2] = { k->ch ? k->ch : L' ', 0 };
			cchar_t cc;
			setcchar(&cc, wc, attrs(k->attr), 0, &pair);
			mvadd_wch(r, c, &cc);   /* ERR in the last cell: harmless */
		}
	if (x >= 0 && y >= 0) {
		move(y, x);
		curs_set(1);
	} else {
		/* Screen readers follow the hardware cursor: park it top left. */
		move(0, 0);
		curs_set(0);
	}
	wnoutrefresh(stdscr);
	doupdate();
}

static int special(int code)
{
	switch (code) {
	case KEY_UP: return GP_K_UP;
	case KEY_DOWN: return GP_K_DOWN;
	case KEY_LEFT: return GP_K_LEFT;
	case KEY_RIGHT: return GP_K_RIGHT;
	case KEY_PPAGE: return GP_K_PGUP;
	case KEY_NPAGE: return GP_K_PGDN;
	case KEY_HOME: return GP_K_HOME;
	case KEY_END: return GP_K_END;
	case KEY_BTAB: return GP_K_BTAB;
	case KEY_DC: return GP_K_DEL;
	case KEY_BACKSPACE: return GP_K_BS;
	case KEY_ENTER: return GP_K_ENTER;
	default:
		if (code >= KEY_F(1) && code <= KEY_F(12))
			return GP_K_F(code - KEY_F(1) + 1);
		return -1;
	}
}

static void mouse(struct gp_key *k)
{
	MEVENT m;
	*k = (struct gp_key){ .code = GP_K_MOUSE, .button = 0 };
	if (getmouse(&m) != OK)
		return;
	k->x = m.x;
	k->y = m.y;
	k->button = m.bstate & BUTTON1_PRESSED ? 1 : m.bstate & BUTTON3_PRESSED ? 3 :
		    m.bstate & BUTTON4_PRESSED ? 4 : m.bstate & BUTTON5_PRESSED ? 5 : 0;
	k->shift = (m.bstate & BUTTON_SHIFT) != 0;
}

/* A key from get_wch's rc and wc: 0, or 1 when it is none of ours. */
static int key_of(int rc, wint_t wc, struct gp_key *k)
{
	if (rc == ERR)
		return 1;
	*k = (struct gp_key){ 0 };
	if (rc == KEY_CODE_YES) {
		if (wc == KEY_RESIZE) {
			k->code = GP_K_RESIZE;
			getmaxyx(stdscr, k->y, k->x);
			return 0;
		}
		if (wc == KEY_MOUSE) {
			mouse(k);
			return 0;
		}
		k->code = special((int)wc);
		return k->code < 0 ? 1 : 0;
	}
	k->code = wc == '\n' ? GP_K_ENTER : wc == 127 || wc == 8 ? GP_K_BS : (int)wc;
	return 0;
}

int gp_display_key(struct gp_display *d, struct gp_key *k, int timeout_ms)
{
	(void)d;
	wint_t wc;
	timeout(timeout_ms);
	int rc = get_wch(&wc);
	if (rc == ERR)
		return 1;
	return key_of(rc, wc, k);
}

int gp_display_next(struct gp_display *d, struct gp_key *k, int timeout_ms, int fd)
{
	/* What ncurses has read already first: poll sees only the tty. */
	if (gp_display_key(d, k, 0) == 0)
		return 0;
	struct pollfd p[3] = { { 0, POLLIN, 0 }, { fd, POLLIN, 0 }, { d->err_rd, POLLIN, 0 } };
	int rc = poll(p, 3, timeout_ms);
	if (rc < 0 && errno == EINTR)
		return gp_display_key(d, k, 0) == 0 ? 0 : 1;   /* SIGWINCH: KEY_RESIZE waits */
	if (rc <= 0)
		return 1;
	if (p[0].revents && gp_display_key(d, k, 0) == 0)
		return 0;
	return p[1].revents || p[2].revents ? 2 : 1;
}

void gp_display_mouse(struct gp_display *d, bool on)
{
	(void)d;
	mousemask(on ? BUTTON1_PRESSED | BUTTON3_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED |
			       BUTTON_SHIFT : 0, NULL);
}
