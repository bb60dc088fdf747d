/*
 * editor.c: the one-line editor (editor.h). Left/Right, Home/End and
 * C-a/C-e move; BS and Del delete; C-u clears to the start, C-k to the
 * end; C-w deletes the word before the caret. A character typed while
 * the text is as offered replaces it.
 */
#include "editor.h"

#include <stdio.h>
#include <string.h>

#include "canvas.h"

void gp_ed_start(struct gp_editor *ed, const char *prompt, const char *text)
{
	snprintf(ed->prompt, sizeof ed->prompt, "%s", prompt);
	snprintf(ed->buf, sizeof ed->buf, "%s", text);
	ed->len = (int)strlen(ed->buf);
	ed->cur = ed->len;
	ed->fresh = ed->len > 0;
}

void gp_ed_set(struct gp_editor *ed, const char *text)
{
	snprintf(ed->buf, sizeof ed->buf, "%s", text);
	ed->len = (int)strlen(ed->buf);
	ed->cur = ed->len;
	ed->fresh = ed->len > 0;
}

static bool cont(char c)
{
	return ((unsigned char)c & 0xc0) == 0x80;
}

static int prev_char(const struct gp_editor *ed, int i)
{
	while (i > 0 && cont(ed->buf[--i]))
		;
	return i;
}

static int next_char(const struct gp_editor *ed, int i)
{
	while (i < ed->len && cont(ed->buf[++i]))
		;
	return i;
}

static void cut(struct gp_editor *ed, int a, int b)
{
	memmove(ed->buf + a, ed->buf + b, (size_t)(ed->len - b + 1));
	ed->len -= b - a;
	if (ed->cur > b)
		ed->cur -= b - a;
	else if (ed->cur > a)
		ed->cur = a;
}

/* Inserts the UTF-8 of code point c at the caret. */
static int insert(struct gp_editor *ed, int c)
{
	char u[4];
	int n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	if (n == 1) {
		u[0] = (char)c;
	} else {
		for (int i = n - 1; i > 0; i--, c >>= 6)
			u[i] = (char)(0x80 | (c & 0x3f));
		u[0] = (char)((0xf00 >> n) | c);
	}
	if (ed->len + n >= GP_ED_MAX)
		return 0;
	memmove(ed->buf + ed->cur + n, ed->buf + ed->cur, (size_t)(ed->len - ed->cur + 1));
	memcpy(ed->buf + ed->cur, u, (size_t)n);
	ed->len += n;
	ed->cur += n;
	return 1;
}

/* A key other than typing a character: 1 if it changed the text or
 * the caret. */
static int edit_key(struct gp_editor *ed, int c)
{
	switch (c) {
	case GP_K_LEFT: ed->cur = prev_char(ed, ed->cur); return 1;
	case GP_K_RIGHT: ed->cur = next_char(ed, ed->cur); return 1;
	case GP_K_HOME: case GP_K_CTRL('a'): ed->cur = 0; return 1;
	case GP_K_END: case GP_K_CTRL('e'): ed->cur = ed->len; return 1;
	case GP_K_BS: case 127: case GP_K_CTRL('h'):
		if (ed->cur > 0)
			cut(ed, prev_char(ed, ed->cur), ed->cur);
		return 1;
	case GP_K_DEL: case GP_K_CTRL('d'):
		if (ed->cur < ed->len)
			cut(ed, ed->cur, next_char(ed, ed->cur));
		return 1;
	case GP_K_CTRL('u'): cut(ed, 0, ed->cur); return 1;
	case GP_K_CTRL('k'): cut(ed, ed->cur, ed->len); return 1;
	case GP_K_CTRL('w'): {
		int i = ed->cur;
		while (i > 0 && ed->buf[i - 1] == ' ')
			i--;
		while (i > 0 && ed->buf[i - 1] != ' ')
			i--;
		cut(ed, i, ed->cur);
		return 1;
	}
	default: return 0;
	}
}

int gp_ed_key(struct gp_editor *ed, const struct gp_key *k)
{
	int c = k->code;
	if (c >= 32 && c != 127 && c < GP_K_BASE) {
		if (ed->fresh) {
			ed->buf[0] = 0;
			ed->len = ed->cur = 0;
		}
		ed->fresh = false;
		return insert(ed, c);
	}
	int rc = edit_key(ed, c);
	if (rc)
		ed->fresh = false;
	return rc;
}

int gp_ed_caret_cells(const struct gp_editor *ed)
{
	char tmp[GP_ED_MAX];
	memcpy(tmp, ed->buf, (size_t)ed->cur);
	tmp[ed->cur] = 0;
	return gp_cv_width(tmp);
}
