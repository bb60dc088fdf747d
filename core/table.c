/*
 * table.c: text tables sized to their content (table.h).
 */
#include "table.h"
#include "escape.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void gp_table_init(struct gp_table *t, const char *spec, const char *const *heads)
{
	memset(t, 0, sizeof *t);
	for (; spec[t->ncols] && t->ncols < GP_TABLE_COLS; t->ncols++) {
		t->right[t->ncols] = spec[t->ncols] == 'r';
		t->head[t->ncols] = heads[t->ncols];
	}
}

void gp_table_row(struct gp_table *t)
{
	if (t->oom)
		return;
	if (t->nrows == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		char **c = realloc(t->cell, sizeof *c * (size_t)cap * (size_t)t->ncols);
		if (c)
			t->cell = c;
		char **nt = c ? realloc(t->note, sizeof *nt * (size_t)cap) : NULL;
		if (nt)
			t->note = nt;
		int *nc = nt ? realloc(t->note_col, sizeof *nc * (size_t)cap) : NULL;
		if (!nc) {
			t->oom = true;
			return;
		}
		t->note_col = nc;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++)
		t->cell[(size_t)t->nrows * (size_t)t->ncols + (size_t)i] = NULL;
	t->note[t->nrows] = NULL;
	t->note_col[t->nrows] = t->ncols;
	t->nrows++;
}

static char *vformat(const char *fmt, va_list ap)
{
	va_list aq;
	va_copy(aq, ap);
	int len = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	char *s = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (s)
		vsnprintf(s, (size_t)len + 1, fmt, ap);
	return s;
}

/* Replaces *slot with the formatted text. */
static void put(struct gp_table *t, char **slot, const char *fmt, va_list ap)
{
	char *s = vformat(fmt, ap);
	if (!s) {
		t->oom = true;
		return;
	}
	free(*slot);
	*slot = s;
}

void gp_table_set(struct gp_table *t, int col, const char *fmt, ...)
{
	if (t->oom || !t->nrows || col < 0 || col >= t->ncols)
		return;
	va_list ap;
	va_start(ap, fmt);
	put(t, &t->cell[(size_t)(t->nrows - 1) * (size_t)t->ncols + (size_t)col], fmt, ap);
	va_end(ap);
}

void gp_table_note(struct gp_table *t, int col, const char *fmt, ...)
{
	if (t->oom || !t->nrows)
		return;
	va_list ap;
	va_start(ap, fmt);
	put(t, &t->note[t->nrows - 1], fmt, ap);
	va_end(ap);
	t->note_col[t->nrows - 1] = col < 0 ? 0 : col > t->ncols ? t->ncols : col;
}

bool gp_table_used(const struct gp_table *t, int col)
{
	for (int r = 0; r < t->nrows; r++) {
		const char *c = t->cell[(size_t)r * (size_t)t->ncols + (size_t)col];
		if (c && c[0])
			return true;
	}
	return false;
}

int gp_text_width(const char *s)
{
	int w = 0;
	uint32_t cp;
	for (int k; (k = gp_utf8_decode(s, &cp)) > 0; s += k)
		w++;
	return w;
}

/* The note at column col, wrapped before t->wrap under itself. */
static void print_note(const struct gp_table *t, FILE *f, const char *indent, int col,
		       const char *note)
{
	int room = t->wrap - col;
	if (t->wrap <= 0 || room < 20) {
		fputs(note, f);
		return;
	}
	int used = 0;
	for (const char *p = note; *p;) {
		size_t word = strcspn(p, " ");
		int ww = 0;
		for (size_t i = 0; i < word; i++)
			ww += ((unsigned char)p[i] & 0xC0) != 0x80;   /* not a continuation byte */
		if (used && used + 1 + ww > room) {
			fprintf(f, "\n%s%*s", indent, col, "");
			used = 0;
		} else if (used) {
			fputc(' ', f);
			used++;
		}
		fprintf(f, "%.*s", (int)word, p);
		used += ww;
		for (p += word; *p == ' '; p++)
			;
	}
}

/* One line: cells[0..ncols) (NULL: empty), then the note from column
 * ncol; blanks are written only before something that follows them. */
static void print_line(const struct gp_table *t, FILE *f, const char *indent,
		       const char *const *cells, const int *width, const char *note,
		       int ncol)
{
	int pending = 0, col = 0;
	bool any = false;
	fputs(indent, f);
	for (int i = 0; i < t->ncols && i < ncol; i++) {
		if (t->hide[i])
			continue;
		const char *c = cells[i] ? cells[i] : "";
		int w = gp_text_width(c), pad = width[i] - w;
		if (any)
			pending += 2;
		any = true;
		if (t->right[i])
			pending += pad;
		if (w) {
			fprintf(f, "%*s%s", pending, "", c);
			col += pending + w;
			pending = 0;
		}
		if (!t->right[i])
			pending += pad;
	}
	if (note && note[0]) {
		fprintf(f, "%*s", any ? pending + 2 : 0, "");
		print_note(t, f, indent, col + (any ? pending + 2 : 0), note);
	}
	fputc('\n', f);
}

int gp_table_print(const struct gp_table *t, FILE *f, const char *indent)
{
	if (t->oom)
		return -1;
	int width[GP_TABLE_COLS] = { 0 };
	for (int i = 0; i < t->ncols; i++) {
		width[i] = gp_text_width(t->head[i]);
		for (int r = 0; r < t->nrows; r++) {
			const char *c = t->cell[(size_t)r * (size_t)t->ncols + (size_t)i];
			if (i < t->note_col[r] && c && gp_text_width(c) > width[i])
				width[i] = gp_text_width(c);
		}
	}
	print_line(t, f, indent, t->head, width, NULL, t->ncols);
	for (int r = 0; r < t->nrows; r++)
		print_line(t, f, indent,
			   (const char *const *)&t->cell[(size_t)r * (size_t)t->ncols], width,
			   t->note[r], t->note_col[r]);
	return ferror(f) ? -1 : 0;
}

void gp_table_free(struct gp_table *t)
{
	for (int r = 0; r < t->nrows; r++) {
		for (int i = 0; i < t->ncols; i++)
			free(t->cell[(size_t)r * (size_t)t->ncols + (size_t)i]);
		free(t->note[r]);
	}
	free(t->cell);
	free(t->note);
	free(t->note_col);
	memset(t, 0, sizeof *t);
}
