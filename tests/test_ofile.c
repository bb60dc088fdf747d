/*
 * test_ofile.c: output files written whole or not at all (ofile.c): a
 * new file, a replaced one keeping its mode, a full disk (/dev/full put
 * under the temporary file) and a discarded write leaving the old file
 * and no temporary file, a link kept, devices written in place.
 */
#include "testutil.h"
#include "ofile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct dir {
	char path[64], file[96];
};

static void dir_init(struct dir *d)
{
	snprintf(d->path, sizeof d->path, "/tmp/geoplan-ofile-XXXXXX");
	assert_non_null(mkdtemp(d->path));
	snprintf(d->file, sizeof d->file, "%s/out.svg", d->path);
}

/* Entries of the directory (. and .. not counted). */
static int entries(const char *path)
{
	DIR *dp = opendir(path);
	assert_non_null(dp);
	int n = 0;
	for (struct dirent *de; (de = readdir(dp));)
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(dp);
	return n;
}

static void dir_free(struct dir *d)
{
	DIR *dp = opendir(d->path);
	for (struct dirent *de; dp && (de = readdir(dp));) {
		char p[400];
		snprintf(p, sizeof p, "%s/%s", d->path, de->d_name);
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			unlink(p);
	}
	if (dp)
		closedir(dp);
	rmdir(d->path);
}

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static void expect(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	assert_string_equal(buf, text);
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	return st.st_mode & 07777;
}

static void test_new_and_replaced(void **state)
{
	(void)state;
	struct dir d;
	dir_init(&d);
	struct gp_ofile o;
	struct gp_err e = { "" };
	mode_t mask = umask(027);
	assert_int_equal(gp_ofile_open(&o, d.file, &e), 0);
	assert_false(o.in_place);
	fputs("new\n", o.f);
	assert_int_equal(entries(d.path), 1);   /* only the temporary file */
	assert_int_equal(access(d.file, F_OK), -1);
	assert_int_equal(gp_ofile_commit(&o, &e), 0);
	expect(d.file, "new\n");
	assert_int_equal(mode_of(d.file), 0640);   /* 0666 less the umask */
	umask(mask);
	/* Replaced: its mode kept, nothing else left. */
	put(d.file, "old\n", 0604);
	assert_int_equal(gp_ofile_open(&o, d.file, &e), 0);
	fputs("newer\n", o.f);
	expect(d.file, "old\n");   /* until the commit */
	assert_int_equal(gp_ofile_commit(&o, &e), 0);
	expect(d.file, "newer\n");
	assert_int_equal(mode_of(d.file), 0604);
	assert_int_equal(entries(d.path), 1);
	dir_free(&d);
}

/* A full disk: /dev/full under the temporary file's descriptor. The
 * commit fails with ENOSPC's message; the old file and nothing else. */
static void test_full_disk(void **state)
{
	(void)state;
	struct dir d;
	dir_init(&d);
	put(d.file, "old\n", 0644);
	struct gp_ofile o;
	struct gp_err e = { "" };
	assert_int_equal(gp_ofile_open(&o, d.file, &e), 0);
	int full = open("/dev/full", O_WRONLY);
	assert_true(full >= 0);
	assert_true(dup2(full, fileno(o.f)) >= 0);
	close(full);
	for (int i = 0; i < 10000; i++)
		fputs("<rect x=\"1\" y=\"2\"/>\n", o.f);
	assert_int_equal(gp_ofile_commit(&o, &e), -1);
	printf("# %s\n", e.msg);
	assert_non_null(strstr(e.msg, d.file));
	assert_non_null(strstr(e.msg, strerror(ENOSPC)));
	expect(d.file, "old\n");
	assert_int_equal(entries(d.path), 1);
	/* Given up on: the same. */
	assert_int_equal(gp_ofile_open(&o, d.file, &e), 0);
	fputs("half", o.f);
	gp_ofile_discard(&o);
	expect(d.file, "old\n");
	assert_int_equal(entries(d.path), 1);
	dir_free(&d);
}

/* A link stays a link; the file it names is replaced. */
static void test_link(void **state)
{
	(void)state;
	struct dir d;
	dir_init(&d);
	char target[128], link[128];
	snprintf(target, sizeof target, "%s/real.svg", d.path);
	snprintf(link, sizeof link, "%s/link.svg", d.path);
	put(target, "old\n", 0644);
	assert_int_equal(symlink("real.svg", link), 0);
	struct gp_ofile o;
	struct gp_err e = { "" };
	assert_int_equal(gp_ofile_open(&o, link, &e), 0);
	fputs("new\n", o.f);
	assert_int_equal(gp_ofile_commit(&o, &e), 0);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect(target, "new\n");
	assert_int_equal(entries(d.path), 2);
	dir_free(&d);
}

/* Devices are written in place: /dev/null takes it, /dev/full says why
 * not; no directory, a message. */
static void test_in_place(void **state)
{
	(void)state;
	struct gp_ofile o;
	struct gp_err e = { "" };
	assert_int_equal(gp_ofile_open(&o, "/dev/null", &e), 0);
	assert_true(o.in_place);
	fputs("x", o.f);
	assert_int_equal(gp_ofile_commit(&o, &e), 0);
	assert_int_equal(gp_ofile_open(&o, "/dev/full", &e), 0);
	assert_true(o.in_place);
	fputs("x", o.f);
	assert_int_equal(gp_ofile_commit(&o, &e), -1);
	assert_non_null(strstr(e.msg, strerror(ENOSPC)));
	assert_int_equal(gp_ofile_open(&o, "/nonexistent/dir/x.svg", &e), -1);
	assert_non_null(strstr(e.msg, "/nonexistent/dir/x.svg: cannot create a file beside it"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_replaced),
		cmocka_unit_test(test_full_disk),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
