/*
 * ofile.c: output files written whole or not at all (ofile.h): a
 * temporary file beside the target, flushed, synced, then renamed over
 * it (POSIX rename replaces the target atomically).
 */
#include "ofile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mode of the file being replaced, else what creating it would give
 * (0666 less the umask; mkstemp makes 0600). POSIX reads the umask only
 * by setting it: it is put back at once. */
static mode_t target_mode(const struct stat *st, bool exists)
{
	if (exists)
		return st->st_mode & 07777;
	mode_t mask = umask(022);
	umask(mask);
	return 0666 & ~mask;
}

/* The file a chain of links ends at (as fopen would follow them), into
 * out; path itself when it is no link. */
static void resolve(const char *path, char *out, size_t n)
{
	snprintf(out, n, "%s", path);
	for (int hop = 0; hop < 40; hop++) {
		struct stat st;
		char to[4096], dir[4096];
		if (lstat(out, &st) || !S_ISLNK(st.st_mode))
			return;
		ssize_t k = readlink(out, to, sizeof to - 1);
		if (k <= 0)
			return;
		to[k] = 0;
		snprintf(dir, sizeof dir, "%s", out);
		char *slash = strrchr(dir, '/');
		if (to[0] == '/' || !slash)
			snprintf(out, n, "%s", to);
		else if ((size_t)snprintf(out, n, "%.*s/%s", (int)(slash - dir), dir, to) >= n)
			return;
	}
}

int gp_ofile_open(struct gp_ofile *o, const char *path, struct gp_err *e)
{
	*o = (struct gp_ofile){ .f = NULL };
	resolve(path, o->path, sizeof o->path);
	struct stat st;
	bool exists = stat(o->path, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		o->in_place = true;
		o->f = fopen(o->path, "w");
		return o->f ? 0 : gp_errf(e, "%s: %s", path, strerror(errno));
	}
	if ((size_t)snprintf(o->tmp, sizeof o->tmp, "%s.tmp.XXXXXX", o->path) >= sizeof o->tmp)
		return gp_errf(e, "%s: path too long", path);
	int fd = mkstemp(o->tmp);
	if (fd < 0) {
		o->tmp[0] = 0;
		return gp_errf(e, "%s: cannot create a file beside it: %s", path, strerror(errno));
	}
	if (fchmod(fd, target_mode(&st, exists)) || !(o->f = fdopen(fd, "w"))) {
		int err = errno;
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = 0;
		return gp_errf(e, "%s: cannot create a file beside it: %s", path, strerror(err));
	}
	return 0;
}

void gp_ofile_stream(struct gp_ofile *o, FILE *f, const char *name)
{
	*o = (struct gp_ofile){ .f = f, .in_place = true, .borrowed = true };
	snprintf(o->path, sizeof o->path, "%s", name);
}

int gp_ofile_finish(struct gp_ofile *o, struct gp_err *e)
{
	if (o->finished)
		return 0;
	o->finished = true;
	errno = 0;
	bool bad = fflush(o->f) != 0 || ferror(o->f);
	int err = errno;
	/* A terminal or a pipe cannot be synced; a file must be. */
	if (!bad && !o->in_place && fsync(fileno(o->f))) {
		bad = true;
		err = errno;
	}
	if (!o->borrowed && fclose(o->f) && !bad) {
		bad = true;
		err = errno;
	}
	o->f = NULL;
	if (!bad)
		return 0;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
	return gp_errf(e, "%s: write failed: %s", o->path, err ? strerror(err) : "an I/O error");
}

/* After the rename the file is written; syncing its directory makes the
 * rename itself durable where the file system allows it. */
static void sync_dir(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else
		slash[slash == dir] = '\0';
	int fd = open(dir, O_RDONLY);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int gp_ofile_commit(struct gp_ofile *o, struct gp_err *e)
{
	if (gp_ofile_finish(o, e))
		return -1;
	if (o->in_place)
		return 0;
	if (rename(o->tmp, o->path)) {
		int err = errno;
		unlink(o->tmp);
		o->tmp[0] = 0;
		return gp_errf(e, "%s: cannot rename the file written over it: %s", o->path,
			       strerror(err));
	}
	o->tmp[0] = 0;
	sync_dir(o->path);
	return 0;
}

void gp_ofile_discard(struct gp_ofile *o)
{
	if (!o->finished && o->f && !o->borrowed)
		fclose(o->f);
	o->f = NULL;
	o->finished = true;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}
