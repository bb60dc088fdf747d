/*
 * options.c: the one option table. Parsing, each command's usage line,
 * --help and the man page's synopsis (checked by tests/cli.test.sh) all
 * come from it; an option a command does not take is refused, naming
 * the commands that take it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "override.h"

struct opt {
	const char *key;     /* the name commands list it by */
	const char *flag;
	const char *alias;   /* or NULL */
	const char *arg;     /* NULL: a switch */
	const char *need;    /* "--warm needs an engine"; NULL: "a value" */
	const char *help;
	int (*set)(struct args *a, const char *flag, const char *v);
};

static int num(const struct args *a, const char *flag, const char *v, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double x = strtod(v, &end);
	if (errno || *end || end == v || !(x >= lo && x <= hi))
		return cli_usage_error(a, "%s: expected a number in [%g, %g], got '%s'", flag, lo, hi, v);
	*out = x;
	return 0;
}

static int integer(const struct args *a, const char *flag, const char *v, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long x = strtol(v, &end, 10);
	if (errno || *end || end == v || x < lo || x > hi)
		return cli_usage_error(a, "%s: expected an integer in %ld..%ld, got '%s'", flag, lo, hi, v);
	*out = x;
	return 0;
}

static int set_set(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	if (a->nsets == MAX_SETS)
		return cli_usage_error(a, "at most %d --set options", MAX_SETS);
	if (!strchr(v, '=') || v[0] == '=')   /* a usage error, as the loader would say */
		return cli_usage_error(a, "--set '%s': expected PATH=VALUE", v);
	char why[300];
	if (gp_ov_check(v, why, sizeof why))   /* "bandwidth=40GB": before any run */
		return cli_fail(a, EXIT_INPUT, "%.*s: %s", (int)(strchr(v, '=') - v), v, why);
	a->sets[a->nsets++] = v;
	return 0;
}

static int set_schedule(struct args *a, const char *flag, const char *v)
{
	enum gp_sched k;
	if (gp_sched_parse(v, &k))
		return cli_usage_error(a, "%s: unknown schedule '%s' (gpipe, 1f1b, interleaved, zb-h1, xdc-greedy, xdc-milp)",
				       flag, v);
	a->schedule = v;
	return 0;
}

static int set_chunks(struct args *a, const char *flag, const char *v)
{
	long n;
	if (integer(a, flag, v, 1, 64, &n))
		return EXIT_USAGE;
	a->chunks = (int)n;
	return 0;
}

static int set_json(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->json = 1;
	return 0;
}

static int set_csv(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->csv = 1;
	return 0;
}

static int set_jsonl(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->jsonl = 1;
	return 0;
}

static int set_no_polish(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->no_polish = 1;
	return 0;
}

static int set_time_limit(struct args *a, const char *flag, const char *v)
{
	return num(a, flag, v, 0.001, 86400, &a->time_limit) ? EXIT_USAGE : 0;
}

static int set_work_limit(struct args *a, const char *flag, const char *v)
{
	return num(a, flag, v, 0.001, 86400, &a->work_limit) ? EXIT_USAGE : 0;
}

static int set_gap(struct args *a, const char *flag, const char *v)
{
	return num(a, flag, v, 0, 1, &a->gap) ? EXIT_USAGE : 0;
}

/* "a, b, c or d": the first word, then the engines with (or without)
 * the flag. */
static void engine_list(char *buf, size_t n, const char *first, unsigned flag, bool with)
{
	const char *w[32];
	int k = 0;
	if (first)
		w[k++] = first;
	for (int i = 0; i < gp_engine_count() && k < 32; i++)
		if (!(gp_engine_at(i)->flags & flag) == !with)
			w[k++] = gp_engine_at(i)->name;
	size_t l = 0;
	buf[0] = 0;
	for (int i = 0; i < k && l < n; i++)
		l += (size_t)snprintf(buf + l, n - l, "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ",
				      w[i]);
}

static int set_engine(struct args *a, const char *flag, const char *v)
{
	if (!gp_engine_find(v)) {
		char names[256];
		engine_list(names, sizeof names, NULL, 0, false);
		return cli_usage_error(a, "%s: unknown engine '%s' (%s)", flag, v, names);
	}
	a->engine = v;
	return 0;
}

/* What a plan can start from: the file's own (plan), or a heuristic's. */
static int set_warm(struct args *a, const char *flag, const char *v)
{
	const struct gp_engine *e = gp_engine_find(v);
	if (strcmp(v, "plan") && (!e || !(e->flags & GP_ENGINE_HEURISTIC))) {
		char names[256];
		engine_list(names, sizeof names, "plan", GP_ENGINE_HEURISTIC, true);
		return cli_usage_error(a, "%s: expected %s, got '%s'", flag, names, v);
	}
	a->warm = v;
	return 0;
}

static int set_seed(struct args *a, const char *flag, const char *v)
{
	long n;
	if (integer(a, flag, v, 0, 2147483647, &n))
		return EXIT_USAGE;
	a->seed = (unsigned)n;
	return 0;
}

static int set_jobs(struct args *a, const char *flag, const char *v)
{
	long n;
	if (integer(a, flag, v, 1, 256, &n))
		return EXIT_USAGE;
	a->jobs = (int)n;
	return 0;
}

static int set_points(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	a->points = v;
	return 0;
}

static int set_out(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	a->out = v;
	return 0;
}

static int set_theme(struct args *a, const char *flag, const char *v)
{
	if (!gp_theme_known(v))
	{
		char names[400];
		gp_theme_list(names, sizeof names);
		return cli_usage_error(a, "%s: unknown theme '%s' (%s)", flag, v, names);
	}
	a->theme = v;
	return 0;
}

static int set_color(struct args *a, const char *flag, const char *v)
{
	if (strcmp(v, "never") && strcmp(v, "auto") && strcmp(v, "always"))
		return cli_usage_error(a, "%s: expected never, auto or always, got '%s'", flag, v);
	a->color = v;
	return 0;
}

static int set_ascii(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->ascii = 1;
	return 0;
}

static int set_no_cursor(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	(void)v;
	a->no_cursor = 1;
	return 0;
}

static int set_view(struct args *a, const char *flag, const char *v)
{
	if (cli_view_id(v) < 0)
		return cli_usage_error(a, "%s: expected scenario, plan, gantt, solver, compare or help, got '%s'", flag, v);
	a->view = v;
	return 0;
}

static int set_keys(struct args *a, const char *flag, const char *v)
{
	int where;
	if (gp_keys_parse(v, NULL, 0, &where) < 0)
		return cli_usage_error(a, "%s: bad key name at \"%.20s\" (the notation: j, <Enter>, <C-z>, <F2>; <lt> for <)",
				       flag, v + where);
	a->keys = v;
	return 0;
}

static int set_size(struct args *a, const char *flag, const char *v)
{
	int w, h;
	char c;
	if (sscanf(v, "%dx%d%c", &w, &h, &c) != 2 || w < 1 || h < 1 || w > 1000 || h > 1000)
		return cli_usage_error(a, "%s: expected WxH, 1 to 1000 each (such as 100x30), got '%s'",
				       flag, v);
	a->width = w;
	a->height = h;
	return 0;
}

static int set_cost_model(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	a->cost_model = v;
	return 0;
}

static int set_heuristic(struct args *a, const char *flag, const char *v)
{
	(void)flag;
	a->heuristic = v;
	return 0;
}

static const struct opt opts[] = {
	{ "set", "--set", NULL, "PATH=V", "PATH=VALUE", "override a scenario field, e.g.\n"
	  "'links[ams-fra].bandwidth=Gbps(50)'; sweep: PATH=v1,v2,...", set_set },
	{ "schedule", "--schedule", NULL, "K", NULL, "gpipe, 1f1b, interleaved, zb-h1, xdc-greedy\n"
	  "or xdc-milp (overrides the plan's)", set_schedule },
	{ "chunks", "--chunks", NULL, "N", NULL, "virtual stages per device (interleaved; 2:\n"
	  "V-shaped xdc-*)", set_chunks },
	{ "time-limit", "--time-limit", NULL, "S", NULL, "seconds for xdc-milp per pipeline (default\n"
	  "10) and the planner's wall-clock safety net\n"
	  "(default 4 x the work limit)", set_time_limit },
	{ "work-limit", "--work-limit", NULL, "S", NULL, "the planner's limit that repeats, in seconds\n"
	  "of counted work (default the time limit, else 10;\n"
	  "search 4)", set_work_limit },
	{ "gap", "--gap", NULL, "G", NULL, "relative gap at which the MILPs stop (default 0:\n"
	  "prove the optimum)", set_gap },
	{ "engine", "--engine", NULL, "E", "an engine", "the planner: milp (default), megatron,\n"
	  "dp-across-dcs, atlas, search or heuristic", set_engine },
	{ "no-polish", "--no-polish", NULL, NULL, NULL, "milp: its own plan, without the\n"
	  "search's polish", set_no_polish },
	{ "warm", "--warm", NULL, "E", "an engine", "milp: start from engine E's plan, or the file's\n"
	  "(plan)", set_warm },
	{ "seed", "--seed", NULL, "N", NULL, "seed of the search engine (default 1)", set_seed },
	{ "json", "--json", NULL, NULL, NULL, "one JSON object (compare: an array)", set_json },
	{ "csv", "--csv", NULL, NULL, NULL, "the timeline, a line per task and transfer", set_csv },
	{ "jobs", "-j", "--jobs", "N", NULL, "points in N parallel processes", set_jobs },
	{ "jsonl", "--jsonl", NULL, NULL, NULL, "one JSON object per line", set_jsonl },
	{ "points", "--points", NULL, "F", "a file (or - for standard input)", "read points as JSON lines {\"set\": [...]}\n"
	  "(- for standard input)", set_points },
	{ "out", "-o", NULL, "FILE", "a file (or - for standard output)", "the output file (- for standard output);\n"
	  "shot: .svg, .html, .txt or .ans", set_out },
	{ "theme", "--theme", NULL, "NAME", "a theme", NULL, set_theme },   /* themes/ */
	{ "color", "--color", NULL, "WHEN", NULL, "never, auto (the default; NO_COLOR is\n"
	  "honoured) or always", set_color },
	{ "ascii", "--ascii", NULL, NULL, NULL, "ASCII boxes and blocks (also outside UTF-8\n"
	  "locales)", set_ascii },
	{ "view", "--view", NULL, "V", "a screen", "the first screen: scenario, plan, gantt\n"
	  "or help", set_view },
	{ "no-cursor", "--no-cursor", NULL, NULL, NULL, "shot: no cursor or selection drawn (a\n"
	  "screenshot for a review)", set_no_cursor },
	{ "keys", "--keys", NULL, "KEYS", "keys", "keys to press first, as the man page writes\n"
	  "them: <Tab>jj<Enter>", set_keys },
	{ "size", "--size", NULL, "WxH", "a size", "the screen's size (default 100x30)", set_size },
	{ "cost-model", "--cost-model", NULL, "FILE", "a file", "a cost-model script (geoplan-lua(7));\n"
	  "over the scenario's cost_model", set_cost_model },
	{ "heuristic", "--heuristic", NULL, "FILE", "a file", "a heuristic script (geoplan-lua(7)): the\n"
	  "engine heuristic, and milp's warm start", set_heuristic },
};
#define NOPTS (int)(sizeof opts / sizeof opts[0])

/* Does the space-separated list name key? */
static bool lists(const char *list, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = list; (p = strstr(p, key)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

static const struct opt *find_opt(const char *flag)
{
	for (int i = 0; i < NOPTS; i++)
		if (!strcmp(flag, opts[i].flag) || (opts[i].alias && !strcmp(flag, opts[i].alias)))
			return &opts[i];
	return NULL;
}

static int not_taken(const struct args *a, const struct cmd *c, const struct opt *o)
{
	char who[256] = "";
	for (int i = 0; cli_cmds[i]; i++)
		if (lists(cli_cmds[i]->opts, o->key)) {
			size_t l = strlen(who);
			snprintf(who + l, sizeof who - l, "%s%s", l ? ", " : "", cli_cmds[i]->name);
		}
	return cli_usage_error(a, "%s does not take %s (%s do%s)", c->name, o->flag, who,
			       strchr(who, ',') ? "" : "es");
}

/* The file a command opens when given none (samples/default.lua): in
 * the working directory, else beside the program (installed: its
 * ../share/geoplan; the source tree's: its .. or ../.., for
 * build/geoplan and build/san/geoplan), so `geoplan` alone works from
 * anywhere; a failure says where it looked. */
static int find_default(const struct cmd *c, struct args *a)
{
	const char *name = c->default_file;
	char looked[1200] = ".";
	if (access(name, R_OK) == 0) {
		snprintf(a->default_file, sizeof a->default_file, "%s", name);
		a->file = a->default_file;
		return 0;
	}
	char exe[512];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	char *slash = l > 0 ? (exe[l] = 0, strrchr(exe, '/')) : NULL;
	static const char *const up[] = { "/../share/geoplan", "/..", "/../.." };
	for (size_t i = 0; slash && i < sizeof up / sizeof up[0]; i++) {
		*slash = 0;
		snprintf(a->default_file, sizeof a->default_file, "%.400s%s/%s", exe, up[i], name);
		char real[PATH_MAX];
		if (access(a->default_file, R_OK) == 0) {
			if (realpath(a->default_file, real) && strlen(real) < sizeof a->default_file)
				strcpy(a->default_file, real);   /* no build/.. in what it says */
			a->file = a->default_file;
			return 0;
		}
		size_t k = strlen(looked);
		snprintf(looked + k, sizeof looked - k, ", %.400s%s", exe, up[i]);
	}
	a->default_file[0] = 0;
	return cli_error(EXIT_INPUT, "%s needs a scenario FILE: no %s in %s", c->name, name, looked);
}

int cli_parse(const struct cmd *c, int argc, char **argv, int from, struct args *a)
{
	*a = (struct args){ .jobs = 1 };
	/* A usage error anywhere is said in JSON too when --json is asked
	 * for, before or after it. */
	for (int i = from; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			a->json = 1;
	for (int i = from; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "-h") || !strcmp(w, "--help")) {
			cli_cmd_help(stdout, c);
			return -1;
		}
		const char *eq = strncmp(w, "--", 2) ? NULL : strchr(w, '=');
		char flag[32];
		snprintf(flag, sizeof flag, "%.*s", eq ? (int)(eq - w) : (int)strlen(w), w);
		const struct opt *o = w[0] == '-' && w[1] ? find_opt(flag) : NULL;
		if (w[0] == '-' && w[1] && !o)
			return cli_usage_error(a, "unknown option '%s'", w);
		if (!o) {
			if ((a->file && !c->many) || !c->file)
				return cli_usage_error(a, "unexpected argument '%s'", w);
			if (a->nfiles == MAX_FILES)
				return cli_usage_error(a, "at most %d files", MAX_FILES);
			a->files[a->nfiles++] = w;
			a->file = a->files[0];
			continue;
		}
		if (!lists(c->opts, o->key))
			return not_taken(a, c, o);
		const char *v = NULL;
		if (o->arg && eq)
			v = eq + 1;
		else if (o->arg && i + 1 < argc)
			v = argv[++i];
		else if (o->arg)
			return cli_usage_error(a, "%s needs %s", o->flag, o->need ? o->need : "a value");
		else if (eq)
			return cli_usage_error(a, "%s takes no value", o->flag);
		int rc = o->set(a, o->flag, v);
		if (rc)
			return rc;
	}
	if (c->file && !a->file && c->default_file)
		return find_default(c, a);
	if (c->file && !a->file)
		return cli_usage_error(a, "%s needs a scenario FILE", c->name);
	return 0;
}

void cli_usage_line(const struct cmd *c, char *buf, size_t n)
{
	size_t l = (size_t)snprintf(buf, n, "%s%s", c->name,
				    !c->file ? "" : c->many ? " FILE..." :
				    c->default_file ? " [FILE]" : " FILE");
	for (int i = 0; i < NOPTS && l < n; i++) {
		const struct opt *o = &opts[i];
		if (!lists(c->opts, o->key))
			continue;
		l += (size_t)snprintf(buf + l, n - l, " [%s%s%s]%s", o->flag, o->arg ? " " : "",
				      o->arg ? o->arg : "", o->set == set_set ? "..." : "");
	}
}

/* "usage:" and the line, folded at 78 columns on option boundaries. */
static void print_usage(FILE *f, const char *lead, const struct cmd *c)
{
	char line[1024];
	cli_usage_line(c, line, sizeof line);
	int col = fprintf(f, "%s", lead);
	int indent = col + (int)strlen(c->name) + 1;
	for (char *p = line; *p;) {
		char *q = strstr(p + 1, " [");
		int len = q ? (int)(q - p) : (int)strlen(p);
		if (col + len > 78 && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			if (*p == ' ') {
				p++;
				len--;
			}
		}
		col += fprintf(f, "%.*s", len, p);
		p += len;
	}
	fputc('\n', f);
}

static void print_opt(FILE *f, const struct opt *o)
{
	char head[40];
	snprintf(head, sizeof head, "%s%s%s%s%s", o->flag, o->alias ? ", " : "",
		 o->alias ? o->alias : "", o->arg ? " " : "", o->arg ? o->arg : "");
	const char *h = o->help;
	char themes[400];
	if (!h) {   /* --theme: the themes there are, 46 columns a line */
		char names[400];
		gp_theme_list(names, sizeof names);
		size_t l = 0, line = 0;
		for (char *w = strtok(names, ", "); w; w = strtok(NULL, ", ")) {
			bool nl = line && line + strlen(w) + 2 > 46;
			l += (size_t)snprintf(themes + l, sizeof themes - l, "%s%s", !l ? "" : nl ? ",\n" : ", ", w);
			line = nl || !line ? strlen(w) : line + 2 + strlen(w);
			if (l >= sizeof themes)
				break;
		}
		h = themes;
	}
	for (bool first = true; *h; first = false) {
		const char *nl = strchr(h, '\n');
		int len = nl ? (int)(nl - h) : (int)strlen(h);
		fprintf(f, "  %-18s %.*s\n", first ? head : "", len, h);
		h += len + (nl != NULL);
	}
}

void cli_cmd_help(FILE *f, const struct cmd *c)
{
	print_usage(f, "usage: geoplan ", c);
	fprintf(f, "\n%s\n", c->help);
	bool any = false;
	for (int i = 0; i < NOPTS; i++)
		if (lists(c->opts, opts[i].key)) {
			if (!any)
				fprintf(f, "\noptions:\n");
			any = true;
			print_opt(f, &opts[i]);
		}
}

void cli_help(FILE *f)
{
	fprintf(f, "usage: geoplan [FILE] [options]       the terminal planner\n"
		   "       geoplan COMMAND FILE [options]\n\n"
		   "Plan and simulate LLM training across datacenters.\n\ncommands:\n");
	for (int i = 0; cli_cmds[i]; i++)
		fprintf(f, "  %-12s %s\n", cli_cmds[i]->name, cli_cmds[i]->help);
	fprintf(f, "\noptions (each command takes some; geoplan COMMAND --help):\n");
	for (int i = 0; i < NOPTS; i++)
		print_opt(f, &opts[i]);
	fprintf(f, "  %-18s %s\n  %-18s %s\n", "-h, --help", "this help", "--version",
		"the version");
	fprintf(f, "\nexit status: 0 ok, 1 bad input, 2 usage, 3 not proven optimal,\n"
		   "4 infeasible. See geoplan(1) and geoplan-scenario(5).\n");
}

int cli_error(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "geoplan: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return code;
}

int cli_usage_error(const struct args *a, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "geoplan: %s\nTry 'geoplan --help'.\n", msg);
	if (a && a->json)
		cli_json_error(msg, EXIT_USAGE);
	return EXIT_USAGE;
}
