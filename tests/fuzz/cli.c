/*
 * cli.c: a mutation driver over geoplan's command line (make fuzz, and a
 * bounded pass in make check).
 *
 * Each run takes one seed scenario, applies one to four mutations that
 * fuzzing found productive (a number or string literal replaced by a
 * hostile value, a line deleted, doubled or moved, a byte changed, the
 * file cut short, a hostile chunk inserted), writes it to a file and runs
 * one geoplan command on it in a child process. A run passes when the
 * child exits by itself with a documented code (0 to 4), says why in a
 * "geoplan:" line when it fails, prints no sanitizer report, ends within
 * the wall-clock limit and stays under the memory budget (its peak RSS,
 * from wait4: an address space limit would break ASan). A failing input
 * is kept under the output directory with the command that failed, and
 * the driver exits 1.
 *
 * Runs are a pure function of (seed, run number): `--seed S --only I`
 * repeats run I alone.
 *
 * usage: cli GEOPLAN [--runs N] [--seed S] [--only I] [--secs T]
 *            [--mem MB] [--out DIR] [--tap] SEED.lua...
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct opts {
	const char *geoplan, *out;
	long runs, only;
	uint64_t seed;
	double secs;
	long mem_mb;
	int tap;
	char **seeds;
	int nseeds;
};

struct buf {
	char *p;
	size_t n, cap;
};

/* splitmix64: small, seedable, the same everywhere. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t below(uint64_t *s, size_t n)
{
	return n ? (size_t)(rnd(s) % n) : 0;
}

static int buf_put(struct buf *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		while (cap < b->n + n + 1)
			cap *= 2;
		char *q = realloc(b->p, cap);
		if (!q)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0;
	return 0;
}

static int read_all(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	char tmp[8192];
	size_t n;
	int rc = 0;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		if (buf_put(b, tmp, n))
			rc = -1;
	fclose(f);
	return b->p ? rc : buf_put(b, "", 0);
}

/* Replaces [at, at+len) of b with the text r. */
static int splice(struct buf *b, size_t at, size_t len, const char *r)
{
	struct buf o = { 0 };
	if (buf_put(&o, b->p, at) || buf_put(&o, r, strlen(r)) ||
	    buf_put(&o, b->p + at + len, b->n - at - len)) {
		free(o.p);
		return -1;
	}
	free(b->p);
	*b = o;
	return 0;
}

/* Values a field should never see; each was behind a crash or a hang
 * once, or sits at a boundary of the loader's checks. */
static const char *const hostile_num[] = {
	"0", "-1", "1", "-0.0", "0.5", "1e308", "-1e308", "(0/0)", "math.huge",
	"-math.huge", "2^53", "2^63", "1e-300", "4096", "100000", "1e9",
	"\"x\"", "\"12\"", "{}", "{1,2}", "nil", "true", "Gbps(0)", "ms(1e6)",
};
static const char *const hostile_str[] = {
	"\"\"", "\"H100\"", "\"h100\"", "\"llama-2-7b\"", "\"a\\0b\"",
	"\"\\xff\\xfe\"", "\"<&>\\\"'\"", "\"a,b\\nc\"", "\"xdc-milp\"",
	"\"interleaved\"", "\"1f1b\"", "5", "{}", "nil", "(\"x\"):rep(5000)",
};
static const char *const hostile_chunk[] = {
	"local _ = string.rep('x', 1 << 24)\n",
	"for i = 1, 1e12 do end\n",
	"setmetatable(_G, {__index = function() return 1 end})\n",
	"local t = {} for i = 1, 1e7 do t[i] = {} end\n",
	"local s = ('a'):rep(30) .. 'b' s:find(('a*'):rep(30) .. 'c')\n",
	"error(setmetatable({}, {__tostring = function() error('x') end}))\n",
	"print(('y'):rep(100000))\n",
	"collectgarbage = nil\n",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A number literal starts here: a digit not inside a name or another
 * number. */
static int is_num_start(const char *p, const char *base)
{
	return (*p >= '0' && *p <= '9') &&
	       (p == base || !(p[-1] == '_' || p[-1] == '.' ||
			       (p[-1] >= 'a' && p[-1] <= 'z') ||
			       (p[-1] >= 'A' && p[-1] <= 'Z') ||
			       (p[-1] >= '0' && p[-1] <= '9')));
}

static size_t num_len(const char *p)
{
	size_t n = 0;
	while (p[n] && (strchr("0123456789.eE", p[n]) ||
			((p[n] == '-' || p[n] == '+') && n && (p[n - 1] == 'e' || p[n - 1] == 'E'))))
		n++;
	return n;
}

static size_t str_len(const char *p)
{
	size_t n = 1;
	while (p[n] && p[n] != '"' && p[n] != '\n')
		n += p[n] == '\\' && p[n + 1] ? 2 : 1;
	return p[n] == '"' ? n + 1 : 0;
}

/* The first number literal (str 0) or double-quoted string (str 1) at
 * or after a random place in b, wrapping round: its start and length;
 * -1 if there is none. */
static int find_tok(const struct buf *b, uint64_t *s, int str, size_t *at, size_t *len)
{
	size_t start = below(s, b->n);
	for (size_t k = 0; k < b->n; k++) {
		size_t i = (start + k) % b->n;
		const char *p = b->p + i;
		size_t n = 0;
		if (str && *p == '"')
			n = str_len(p);
		else if (!str && is_num_start(p, b->p))
			n = num_len(p);
		if (n) {
			*at = i;
			*len = n;
			return 0;
		}
	}
	return -1;
}

/* Line k's start and length (with its newline); the last line if k is
 * past the end. */
static void line_at(const struct buf *b, size_t k, size_t *at, size_t *len)
{
	size_t i = 0;
	while (k-- && i < b->n) {
		const char *nl = memchr(b->p + i, '\n', b->n - i);
		if (!nl || (size_t)(nl - b->p) + 1 >= b->n)
			break;
		i = (size_t)(nl - b->p) + 1;
	}
	const char *nl = memchr(b->p + i, '\n', b->n - i);
	*at = i;
	*len = nl ? (size_t)(nl - (b->p + i)) + 1 : b->n - i;
}

static size_t nlines(const struct buf *b)
{
	size_t n = 1;
	for (size_t i = 0; i < b->n; i++)
		n += b->p[i] == '\n';
	return n;
}

/* One mutation; its name goes to `what`. */
static int mutate(struct buf *b, uint64_t *s, const char **what)
{
	size_t at, len, at2, len2;
	char tmp[64];
	switch (below(s, 12)) {
	case 0:
	case 1:
	case 2:
	case 3:
		*what = "number";
		if (find_tok(b, s, 0, &at, &len))
			return 0;
		return splice(b, at, len, hostile_num[below(s, N(hostile_num))]);
	case 4:
	case 5:
		*what = "string";
		if (find_tok(b, s, 1, &at, &len))
			return 0;
		return splice(b, at, len, hostile_str[below(s, N(hostile_str))]);
	case 6:
		*what = "delete-line";
		line_at(b, below(s, nlines(b)), &at, &len);
		return splice(b, at, len, "");
	case 7: {
		*what = "move-line";
		line_at(b, below(s, nlines(b)), &at, &len);
		char *l = strndup(b->p + at, len);
		if (!l || splice(b, at, len, "")) {
			free(l);
			return -1;
		}
		line_at(b, below(s, nlines(b)), &at2, &len2);
		int rc = splice(b, at2, 0, l);
		if (!rc && below(s, 2))
			rc = splice(b, at2, 0, l); /* doubled */
		free(l);
		return rc;
	}
	case 8:
		*what = "byte";
		if (!b->n)
			return 0;
		snprintf(tmp, sizeof tmp, "%c", "{}()[]=,.\"'\\-#\n0x~"[below(s, 18)]);
		return splice(b, below(s, b->n), below(s, 2), tmp);
	case 9:
		*what = "truncate";
		b->n = below(s, b->n + 1);
		if (b->p)
			b->p[b->n] = 0;
		return 0;
	default:
		/* at the top, where a statement may stand */
		*what = "chunk";
		return splice(b, 0, 0, hostile_chunk[below(s, N(hostile_chunk))]);
	}
}

/* The commands a run may take, FILE standing for the input and OUT for
 * an output file in the run's directory. */
static const char *const commands[][8] = {
	{ "check", "FILE" },
	{ "sim", "FILE" },
	{ "sim", "FILE", "--json" },
	{ "plan", "FILE", "--time-limit", "0.3" },
	{ "plan", "FILE", "--time-limit", "0.3", "--engine", "search" },
	{ "gantt", "FILE", "-o", "OUT" },
	{ "sim", "FILE", "--csv" },
	{ "compare", "FILE", "--time-limit", "0.2" },
	{ "sensitivity", "FILE" },
	{ "sim", "FILE", "--set", "SET" },
	{ "plan", "FILE", "--time-limit", "0.3", "--set", "SET" },
};

/* Fields --set reaches; SET is one of them = a hostile value. */
static const char *const set_paths[] = {
	"job.seq", "job.global_batch", "job.micro_batch", "dcs[1].pools[1].count",
	"links[1].bandwidth", "links[1].latency", "plan.pipelines[1].micro_batches",
	"plan.schedule", "gpus[H100].efficiency", "model", "dcs[2].name", "job.recompute",
};

struct outcome {
	int rc, sig, timed_out;
	double secs;
	long rss_mb;
};

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Runs argv with stdout and stderr to log, killing its process group
 * after secs. */
static int run_child(char *const *argv, const char *log, double secs, struct outcome *o)
{
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_RDONLY);
		if (fd < 0 || nul < 0)
			_exit(125);
		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], argv);
		_exit(126);
	}
	setpgid(pid, pid);
	memset(o, 0, sizeof *o);
	int st;
	struct rusage ru;
	for (;;) {
		pid_t w = wait4(pid, &st, WNOHANG, &ru);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (!o->timed_out && now() - t0 > secs) {
			o->timed_out = 1;
			kill(-pid, SIGKILL);
		}
		usleep(2000);
	}
	o->secs = now() - t0;
	o->rss_mb = ru.ru_maxrss / 1024;
	o->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	o->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return 0;
}

/* Why the run failed, or NULL. */
static const char *judge(const struct outcome *o, const char *log, long mem_mb)
{
	if (o->timed_out)
		return "did not end within the time limit";
	if (o->sig)
		return "killed by a signal";
	if (o->rc < 0 || o->rc > 4)
		return "an undocumented exit code";
	if (o->rss_mb > mem_mb)
		return "over the memory budget";
	struct buf b = { 0 };
	if (read_all(log, &b))
		return "its output could not be read";
	const char *why = NULL;
	if (strstr(b.p, "Sanitizer") || strstr(b.p, "runtime error:"))
		why = "a sanitizer report";
	else if (o->rc && o->rc != 3 && !strstr(b.p, "geoplan"))
		why = "failed without a message";
	free(b.p);
	return why;
}

static int write_file(const char *path, const struct buf *b)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int rc = fwrite(b->p, 1, b->n, f) != b->n;
	return fclose(f) || rc ? -1 : 0;
}

/* Appends to the description d of n bytes at *off, never past its end
 * (a long seed path is cut, not written beyond). */
static void addf(char *d, size_t n, int *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void addf(char *d, size_t n, int *off, const char *fmt, ...)
{
	if (*off < 0 || (size_t)*off >= n - 1)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(d + *off, n - (size_t)*off, fmt, ap);
	va_end(ap);
	*off = k < 0 ? *off : (size_t)(*off + k) >= n ? (int)n - 1 : *off + k;
}

/* Run i: builds its input in dir, runs it, judges it. Returns 1 if it
 * failed (its input kept in o->out), 0 if it passed, -1 on a driver
 * error. */
static int one_run(const struct opts *op, long i, const char *dir, struct outcome *oc,
		   char *desc, size_t descsz)
{
	uint64_t s = op->seed * 1000003u + (uint64_t)i;
	const char *seed = op->seeds[below(&s, (size_t)op->nseeds)];
	struct buf b = { 0 };
	if (read_all(seed, &b))
		return -1;
	int nm = below(&s, 3) ? 1 : 2 + (int)below(&s, 3);
	int off = 0;
	addf(desc, descsz, &off, "%s:", seed);
	for (int k = 0; k < nm; k++) {
		const char *what = "";
		if (mutate(&b, &s, &what)) {
			free(b.p);
			return -1;
		}
		addf(desc, descsz, &off, " %s", what);
	}
	char in[4096], out[4096], log[4096], set[256];
	snprintf(set, sizeof set, "%s=%s", set_paths[below(&s, N(set_paths))],
		 below(&s, 2) ? hostile_num[below(&s, N(hostile_num))]
			      : hostile_str[below(&s, N(hostile_str))]);
	snprintf(in, sizeof in, "%s/in.lua", dir);
	snprintf(out, sizeof out, "%s/out.svg", dir);
	snprintf(log, sizeof log, "%s/log", dir);
	int rc = write_file(in, &b);
	free(b.p);
	if (rc)
		return -1;
	const char *const *c = commands[below(&s, N(commands))];
	char *argv[12] = { (char *)op->geoplan };
	int n = 1;
	for (int k = 0; c[k]; k++)
		argv[n++] = (char *)(!strcmp(c[k], "FILE") ? in : !strcmp(c[k], "OUT") ? out
				     : !strcmp(c[k], "SET") ? set : c[k]);
	addf(desc, descsz, &off, " | geoplan");
	for (int k = 1; k < n; k++)
		addf(desc, descsz, &off, " %s",
				!strcmp(c[k - 1], "SET") ? set : c[k - 1]);
	if (run_child(argv, log, op->secs, oc))
		return -1;
	const char *why = judge(oc, log, op->mem_mb);
	if (!why)
		return 0;
	addf(desc, descsz, &off, ": %s (exit %d, signal %d, %.1f s, %ld MB)",
		 why, oc->rc, oc->sig, oc->secs, oc->rss_mb);
	char keep[4096];
	snprintf(keep, sizeof keep, "%s/fail-%llu-%ld.lua", op->out,
		 (unsigned long long)op->seed, i);
	struct buf kb = { 0 };
	if (read_all(in, &kb) == 0) {
		write_file(keep, &kb);
		free(kb.p);
	}
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: cli GEOPLAN [--runs N] [--seed S] [--only I] [--secs T] "
			"[--mem MB] [--out DIR] [--tap] SEED.lua...\n");
	return 2;
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ .runs = 200, .only = -1, .seed = 1, .secs = 20, .mem_mb = 2048,
			    .out = "." };
	if (argc < 2)
		return -1;
	o->geoplan = argv[1];
	int i = 2;
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--tap")) {
			o->tap = 1;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (!strcmp(a, "--out")) {
			o->out = v;
			continue;
		}
		char *end;
		double x = strtod(v, &end);
		if (*end || x < 0)
			return -1;
		if (!strcmp(a, "--runs"))
			o->runs = (long)x;
		else if (!strcmp(a, "--seed"))
			o->seed = (uint64_t)x;
		else if (!strcmp(a, "--only"))
			o->only = (long)x;
		else if (!strcmp(a, "--secs"))
			o->secs = x;
		else if (!strcmp(a, "--mem"))
			o->mem_mb = (long)x;
		else
			return -1;
	}
	o->seeds = argv + i;
	o->nseeds = argc - i;
	return o->nseeds > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct opts op;
	if (parse(argc, argv, &op))
		return usage();
	char dir[] = "/tmp/geoplan-fuzz-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("cli: mkdtemp");
		return 2;
	}
	mkdir(op.out, 0755);
	long from = op.only >= 0 ? op.only : 0, to = op.only >= 0 ? op.only + 1 : op.runs;
	long fails = 0, byrc[5] = { 0 }, peak = 0;
	double slowest = 0;
	int rc = 0;
	for (long i = from; i < to; i++) {
		struct outcome oc;
		char desc[1024];
		int r = one_run(&op, i, dir, &oc, desc, sizeof desc);
		if (r < 0) {
			fprintf(stderr, "cli: run %ld: %s\n", i, strerror(errno));
			rc = 2;
			break;
		}
		fails += r;
		if (oc.rc >= 0 && oc.rc <= 4)
			byrc[oc.rc]++;
		slowest = oc.secs > slowest ? oc.secs : slowest;
		peak = oc.rss_mb > peak ? oc.rss_mb : peak;
		if (op.tap)
			printf("%sok %ld - %s (exit %d, %.1f s)\n", r ? "not " : "", i - from + 1,
			       desc, oc.rc, oc.secs);
		else if (r)
			printf("FAIL run %ld (--seed %llu --only %ld): %s\n", i,
			       (unsigned long long)op.seed, i, desc);
		fflush(stdout);
	}
	printf("%sfuzz: %ld runs from seed %llu: exit 0: %ld, 1: %ld, 2: %ld, 3: %ld, 4: %ld; "
	       "slowest %.1f s, peak %ld MB; %ld failed%s%s\n",
	       op.tap ? "# " : "", to - from, (unsigned long long)op.seed, byrc[0], byrc[1],
	       byrc[2], byrc[3], byrc[4], slowest, peak, fails, fails ? ", inputs in " : "",
	       fails ? op.out : "");
	const char *const left[] = { "in.lua", "out.svg", "log" };
	for (size_t k = 0; k < N(left); k++) {
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, left[k]);
		unlink(p);
	}
	rmdir(dir);
	return rc ? rc : fails ? 1 : 0;
}
