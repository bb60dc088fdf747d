/*
 * table.h: a text table whose columns are as wide as their widest cell,
 * header included, so a long name (a DC called london-docklands) widens
 * its own column and never shifts the others out of line. Cells are
 * UTF-8; a width counts characters. Columns are two spaces apart; lines
 * carry no trailing blanks.
 *
 * A row may end in a note: free text from one column on (a sweep point's
 * message) that is not counted in the widths; with `wrap` set it wraps
 * at spaces under its first line.
 *
 * Building never fails loudly: out of memory, the table remembers it and
 * gp_table_print returns -1 without printing.
 */
#ifndef GP_TABLE_H
#define GP_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#define GP_TABLE_COLS 24

struct gp_table {
	int ncols;
	const char *head[GP_TABLE_COLS];
	bool right[GP_TABLE_COLS];   /* figures are right-aligned */
	bool hide[GP_TABLE_COLS];    /* a column left out when printed */
	char **cell;                 /* nrows * ncols, row-major; NULL: empty */
	char **note;                 /* per row, or NULL */
	int *note_col;
	int nrows, cap;
	int wrap;                    /* notes wrap before this column; 0: never */
	bool oom;
};

/* spec: the columns, one per character: 'l' or 'r'; heads: as many. */
void gp_table_init(struct gp_table *t, const char *spec, const char *const *heads);
/* Starts a row (its cells empty). */
void gp_table_row(struct gp_table *t);
/* Sets cell col of the last row. */
void gp_table_set(struct gp_table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Ends the last row with a note from column col on. */
void gp_table_note(struct gp_table *t, int col, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Whether column col has a non-empty cell in some row. */
bool gp_table_used(const struct gp_table *t, int col);
/* Prints the header, then the rows, each line after indent; -1 when
 * out of memory or on a write error. */
int gp_table_print(const struct gp_table *t, FILE *f, const char *indent);
void gp_table_free(struct gp_table *t);

/* Characters (UTF-8 code points) in s. */
int gp_text_width(const char *s);

#endif
