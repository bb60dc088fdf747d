/*
 * editor.h: the one-line editor of the status line (field values,
 * searches, file names): emacs-style keys, a caret, what was there
 * before kept for Esc.
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
};

/* Starts editing text after prompt, the caret at the end. */
void gp_ed_start(struct gp_editor *ed, const char *prompt, const char *text);
/* Handles a key: 1 changed, 0 ignored (Enter, Esc, Tab are the caller's). */
int gp_ed_key(struct gp_editor *ed, const struct gp_key *k);
/* Cells from the start of the text to the caret. */
int gp_ed_caret_cells(const struct gp_editor *ed);

#endif
