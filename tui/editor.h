/*
 * editor.h: the one-line editor of the status line (field values,
 * searches, file names): emacs-style keys, a caret, what was there
 * before kept for Esc. The text it starts with is offered, not
 * appended to (as in mc's and most dialogs' input fields): the first
 * character typed replaces it, while a move or a deletion keeps it to
 * be edited.
 */
#ifndef GP_EDITOR_H
#define GP_EDITOR_H

#include <stdbool.h>
#include <stddef.h>
#include "keys.h"

#define GP_ED_MAX 256

struct gp_editor {
	char prompt[64];
	char buf[GP_ED_MAX];         /* UTF-8 */
	int len, cur;                /* bytes; cur on a character boundary */
	bool fresh;                  /* the text is as offered: typing replaces it */
};

/* Starts editing text after prompt, the caret at the end; text is
 * offered (fresh) unless it is empty. */
void gp_ed_start(struct gp_editor *ed, const char *prompt, const char *text);
/* Replaces the whole text (choices cycled with Up and Down); fresh. */
void gp_ed_set(struct gp_editor *ed, const char *text);
/* Handles a key: 1 changed, 0 ignored (Enter, Esc, Tab are the caller's). */
int gp_ed_key(struct gp_editor *ed, const struct gp_key *k);
/* Cells from the start of the text to the caret. */
int gp_ed_caret_cells(const struct gp_editor *ed);

#endif
