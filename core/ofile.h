/*
 * ofile.h: output files written whole or not at all. Every file geoplan
 * writes (the Gantt SVG, shots, the planner's exports and saves) goes to
 * a temporary file beside its target, is flushed and synced, and only
 * then renamed over the target: a full disk, a crash or an error leaves
 * the old file as it was and no temporary file behind.
 *
 * A stream the caller owns (standard output: gp_ofile_stream), and a
 * target that exists but is not a regular file (a terminal, /dev/null, a
 * pipe), are written in place: neither can be renamed over. A symbolic link keeps pointing where it did: the file
 * it names is the one replaced. A replaced file keeps its permissions; a
 * new one gets 0666 less the umask, as fopen would give it.
 */
#ifndef GP_OFILE_H
#define GP_OFILE_H

#include <stdbool.h>
#include <stdio.h>
#include "gp.h"

struct gp_ofile {
	FILE *f;               /* write here between open and commit */
	char path[4096];       /* the target (a link's target resolved) */
	char tmp[4096];        /* the temporary file, "" when in place */
	bool in_place;         /* a stream given, or not a regular file */
	bool borrowed;         /* the caller's stream: flushed, never closed */
	bool finished;         /* f flushed, synced and closed */
};

/* Opens o for path; -1 with e ("PATH: ...") when no file can be made. */
int gp_ofile_open(struct gp_ofile *o, const char *path, struct gp_err *e);
/* o writes to f in place, named name in messages; f is not closed. */
void gp_ofile_stream(struct gp_ofile *o, FILE *f, const char *name);
/* Flushes, syncs and closes o->f, so o->tmp holds every byte and can be
 * checked before the commit; -1 with e (the temporary file removed). */
int gp_ofile_finish(struct gp_ofile *o, struct gp_err *e);
/* Finishes (when not yet) and renames the temporary file over the
 * target; -1 with e and the target untouched. */
int gp_ofile_commit(struct gp_ofile *o, struct gp_err *e);
/* Gives up: closes and removes the temporary file (target untouched). */
void gp_ofile_discard(struct gp_ofile *o);

#endif
