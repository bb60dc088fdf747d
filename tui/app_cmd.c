/*
 * app_cmd.c: the command line (`:`): what each command does, and what
 * Tab completes each word of one to. Commands do what keys do, with
 * arguments keys cannot give (an engine, a limit, a file, a sweep's
 * values); the same text drives headless replays (geoplan shot --keys
 * ':set ...<Enter>'), so a golden can say anything a user types.
 *
 * Overrides are the --set language: PATH=VALUE with a Lua value
 * (Gbps(50), ms(35), "H100"), or a value with a unit as the editor takes
 * it (50G, 35ms, 80GB); each is an edit, undone by u. A bare number
 * where a unit belongs (latency=35) is refused as the editor refuses it:
 * the README promises a bare 35 in a latency is never taken as seconds.
 */
#include "app.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "override.h"
#include "units.h"
#include "whatif.h"

#define MAX_ARGS 16

/* What a command's later words complete to. */
enum arg_kind { K_NONE, K_PATH, K_ENGINE, K_FILE, K_THEME, K_CMD, K_VIEW };

struct command {
	const char *name, *args, *help;
	void (*run)(struct gp_app *a, int argc, char **argv);
	enum arg_kind kind;
};

static void say_usage(struct gp_app *a, const struct command *c)
{
	gp_app_say(a, GP_R_WARN, "usage: :%s %s", c->name, c->args);
}

static bool is_on(const char *v, bool *on)
{
	if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1"))
		return *on = true, true;
	if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0"))
		return *on = false, true;
	return false;
}

/* set mouse=off, live=on, ascii=on: the planner's own switches. */
static bool set_switch(struct gp_app *a, const char *name, const char *v)
{
	bool *sw = !strcmp(name, "mouse") ? &a->mouse : !strcmp(name, "live") ? &a->live
		   : !strcmp(name, "ascii") ? &a->ascii : NULL;
	if (!sw)
		return false;
	bool on;
	if (!is_on(v, &on)) {
		gp_app_say(a, GP_R_ERROR, "%s: on or off, not '%s'", name, v);
		return true;
	}
	*sw = on;
	gp_app_say(a, GP_R_OK, "%s %s%s", name, on ? "on" : "off",
		   sw == &a->mouse && !on ? ": the terminal selects text again" : "");
	return true;
}

static void c_set(struct gp_app *a, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i]) {
			gp_app_say(a, GP_R_ERROR, "'%s': PATH=VALUE, as --set", argv[i]);
			return;
		}
		char name[64], why[200];
		snprintf(name, sizeof name, "%.*s", (int)(eq - argv[i]), argv[i]);
		char set[GP_ED_MAX];
		if (set_switch(a, name, eq + 1))
			continue;
		if (gp_ov_units(argv[i], true, set, sizeof set, why, sizeof why)) {
			gp_app_say(a, GP_R_ERROR, "refused, old value kept: %.*s: %s",
				   (int)(eq - argv[i]), argv[i], why);
			return;
		}
		if (!gp_app_set(a, set))
			return;   /* refused: it said why; the rest are not tried */
	}
}

/* Does an argument of argv[1..argc) start with key? */
static bool has_arg(int argc, char **argv, const char *key)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, strlen(key)))
			return true;
	return false;
}

/* What :plan's words set, kept to be put back when one is refused. */
struct plan_pick {
	const struct gp_engine *engine;
	double time_limit, work_limit, gap;
	enum gp_sched schedule;
	bool schedule_picked;
	int chunks;
};

static struct plan_pick pick_of(const struct gp_app *a)
{
	return (struct plan_pick){ a->engine, a->time_limit, a->work_limit, a->gap, a->schedule,
				   a->schedule_picked, a->chunks };
}

static void pick_back(struct gp_app *a, const struct plan_pick *p)
{
	a->engine = p->engine;
	a->time_limit = p->time_limit;
	a->work_limit = p->work_limit;
	a->gap = p->gap;
	a->schedule = p->schedule;
	a->schedule_picked = p->schedule_picked;
	a->chunks = p->chunks;
}

/* One word of :plan into a; false (said why) when refused. */
static bool plan_word(struct gp_app *a, const char *w, int argc, char **argv)
{
	char *end;
	if (!strncmp(w, "limit=", 6)) {
		double v = strtod(w + 6, &end);
		if (*end || end == w + 6 || !(v >= 0.001 && v <= 86400))   /* as --time-limit */
			return gp_app_say(a, GP_R_ERROR, "limit: seconds in [0.001, 86400], not '%s'",
					  w + 6), false;
		a->time_limit = v;
	} else if (!strncmp(w, "work=", 5)) {
		double v = strtod(w + 5, &end);
		if (*end || !(v >= 0))
			return gp_app_say(a, GP_R_ERROR, "work: seconds of work, not '%s'", w + 5), false;
		a->work_limit = v;
	} else if (!strncmp(w, "gap=", 4)) {
		double v = strtod(w + 4, &end);
		if (*end || end == w + 4 || !(v >= 0 && v <= 1))   /* as --gap */
			return gp_app_say(a, GP_R_ERROR, "gap: a fraction in [0, 1], not '%s'", w + 4),
			       false;
		a->gap = v;
	} else if (!strncmp(w, "schedule=", 9)) {
		enum gp_sched k;
		if (gp_sched_parse(w + 9, &k))
			return gp_app_say(a, GP_R_ERROR, "schedule: gpipe, 1f1b, interleaved, zb-h1, "
					  "xdc-greedy or xdc-milp, not '%s'", w + 9), false;
		a->schedule = k;
		a->schedule_picked = true;
		if (!has_arg(argc, argv, "chunks="))
			a->chunks = 0;   /* a new schedule: its own default chunks */
	} else if (!strncmp(w, "chunks=", 7)) {
		long v = strtol(w + 7, &end, 10);
		if (*end || end == w + 7 || v < 1 || v > 64)   /* as --chunks */
			return gp_app_say(a, GP_R_ERROR, "chunks: 1 to 64, not '%s'", w + 7), false;
		a->chunks = (int)v;
	} else if (!strncmp(w, "objective=", 10)) {
		char set[96];
		snprintf(set, sizeof set, "objective=\"%s\"", w + 10);
		return gp_app_set(a, set);   /* an edit: it said why if refused */
	} else if (gp_engine_find(w)) {
		a->engine = gp_engine_find(w);
	} else {
		char names[256];
		gp_engine_names(names, sizeof names, 0);
		return gp_app_say(a, GP_R_ERROR, "'%s': an engine (%s), limit=, work=, gap=, "
				  "schedule=, chunks= or objective=", w, names), false;
	}
	return true;
}

/* plan [ENGINE] [limit=S] [work=S] [gap=G] [schedule=K] [chunks=N]
 * [objective=time|cost|wan_bytes]: a word refused, none of them kept
 * (an objective is an edit of its own, which u takes back). */
static void c_plan(struct gp_app *a, int argc, char **argv)
{
	struct plan_pick was = pick_of(a);
	for (int i = 1; i < argc; i++)
		if (!plan_word(a, argv[i], argc, argv)) {
			pick_back(a, &was);
			return;
		}
	enum gp_sched k;
	int chunks;
	gp_app_plan_for(a, &k, &chunks);
	if (chunks > 1 && k != GP_SCHED_INTERLEAVED && k != GP_SCHED_XDC_GREEDY &&
	    k != GP_SCHED_XDC_MILP) {
		pick_back(a, &was);
		return (void)gp_app_say(a, GP_R_ERROR, "chunks: %s runs one chunk; schedule=interleaved, "
				       "xdc-greedy or xdc-milp takes them", gp_sched_name(k));
	}
	gp_app_plan(a);
}

static void c_sim(struct gp_app *a, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct gp_app_then before = gp_app_now(a);
	gp_app_simulate(a);
	if (a->run.has_res)
		gp_app_say_change(a, "simulated again", before);
}

static void c_pin(struct gp_app *a, int argc, char **argv)
{
	(void)argc;
	if (!strcmp(argv[0], "unpin"))
		gp_app_unpin(a);
	else
		gp_app_pin(a);
}

static void c_compare(struct gp_app *a, int argc, char **argv)
{
	a->view = GP_V_COMPARE;
	if (argc < 2)
		return;
	const struct gp_engine *e = gp_engine_find(argv[1]);
	if (!e) {
		char names[256];
		gp_engine_names(names, sizeof names, 0);
		gp_app_say(a, GP_R_ERROR, "'%s' is no engine: %s", argv[1], names);
		return;
	}
	gp_app_compare_engine(a, e);
}

static void c_save(struct gp_app *a, int argc, char **argv)
{
	if (argc > 1)
		gp_app_save_as(a, argv[1]);
	else
		gp_app_save(a);
}

static void c_export(struct gp_app *a, int argc, char **argv)
{
	char name[256];
	gp_app_export_name(a, name, sizeof name);
	gp_app_export(a, argc > 1 ? argv[1] : name);
}

static void c_theme(struct gp_app *a, int argc, char **argv)
{
	char names[400];
	gp_themes_names(&a->themes, names, sizeof names);
	if (argc < 2) {
		gp_app_say(a, GP_R_DIM, "theme %s; themes: %s", a->th->name, names);
		return;
	}
	const struct gp_theme *t = gp_themes_find(&a->themes, argv[1]);
	if (!t) {
		gp_app_say(a, GP_R_ERROR, "no theme '%s': %s", argv[1], names);
		return;
	}
	a->th = t;
	gp_app_say(a, GP_R_OK, "theme %s", t->name);
}

static void c_view(struct gp_app *a, int argc, char **argv)
{
	for (int v = 0; argc > 1 && v < GP_V__N; v++)
		if (!strcmp(gp_app_view(v)->name, argv[1])) {
			a->view = v;
			return;
		}
	gp_app_say(a, GP_R_ERROR, "view: scenario, plan, gantt, solver, compare or help");
}

static void c_undo(struct gp_app *a, int argc, char **argv)
{
	(void)argc;
	if (!strcmp(argv[0], "redo"))
		gp_app_redo(a);
	else
		gp_app_undo(a);
}

static void c_quit(struct gp_app *a, int argc, char **argv)
{
	(void)argc;
	struct gp_key k = { .code = 'q' };
	size_t n = strlen(argv[0]);
	if (argv[0][n - 1] == '!' || !gp_app_dirty(a))
		a->quit = true;
	else
		gp_app_key(a, &k);   /* asks, as q does */
}

static void c_help(struct gp_app *a, int argc, char **argv);

static const struct command commands[] = {
	{ "set", "PATH=VALUE...", "edit the scenario as --set does (each an edit: u undoes it); "
	  "mouse=off, live=off, ascii=on switch the planner", c_set, K_PATH },
	{ "plan", "[ENGINE] [limit=S] [work=S] [gap=G] [schedule=K] [chunks=N] [objective=time|cost|wan_bytes]",
	  "plan anew in the background; the engine and limits stay for later re-plans", c_plan,
	  K_ENGINE },
	{ "sim", "", "simulate the plan shown again", c_sim, K_NONE },
	{ "pin", "", "pin the plan shown as the compare screen's A", c_pin, K_NONE },
	{ "unpin", "", "A is the plan before the last edit again", c_pin, K_NONE },
	{ "compare", "[ENGINE]", "the compare screen; with an engine, A is its plan for this scenario",
	  c_compare, K_ENGINE },
	{ "sensitivity", "", "which link or pool, 10 % better, shortens the iteration most",
	  gp_cmd_sensitivity, K_NONE },
	{ "sweep", "PATH=V1,V2,...", "the plan shown simulated for each value (a table)",
	  gp_cmd_sweep, K_PATH },
	{ "calibrate", "RUN.lua... -o OUT.lua", "fit the cost model to measured runs, write OUT.lua "
	  "and use it (an edit: cost_model)", gp_cmd_calibrate, K_FILE },
	{ "save", "[FILE]", "save the scenario (to FILE: save as)", c_save, K_FILE },
	{ "export", "[FILE]", "write the screen (.svg, .html, .txt, .ans)", c_export, K_FILE },
	{ "theme", "[NAME]", "use a theme (without a name: which there are)", c_theme, K_THEME },
	{ "view", "NAME", "show a screen: scenario, plan, gantt, solver, compare, help", c_view,
	  K_VIEW },
	{ "undo", "", "undo the last edit", c_undo, K_NONE },
	{ "redo", "", "redo what was undone", c_undo, K_NONE },
	{ "help", "[COMMAND]", "the commands (a table), or what one does", c_help, K_CMD },
	{ "quit", "", "quit (asks when edits are unsaved; quit! does not)", c_quit, K_NONE },
};

#define NCMDS (int)(sizeof commands / sizeof commands[0])

/* Aliases vi users type. */
static const char *alias(const char *w)
{
	static const char *const al[][2] = { { "q", "quit" }, { "q!", "quit!" }, { "w", "save" },
					    { "e", "export" }, { "h", "help" } };
	for (size_t i = 0; i < sizeof al / sizeof al[0]; i++)
		if (!strcmp(w, al[i][0]))
			return al[i][1];
	return w;
}

/* The command named w (a unique prefix is enough); NULL when none. */
static const struct command *find(const char *w, int *hits)
{
	const struct command *c = NULL;
	size_t n = strlen(w);
	if (n && w[n - 1] == '!')
		n--;
	*hits = 0;
	for (int i = 0; i < NCMDS; i++) {
		if (strlen(commands[i].name) == n && !strncmp(commands[i].name, w, n))
			return *hits = 1, &commands[i];
		if (!strncmp(commands[i].name, w, n))
			c = &commands[i], ++*hits;
	}
	return *hits == 1 ? c : NULL;
}

int gp_cmd_count(void)
{
	return NCMDS;
}

void gp_cmd_at(int i, const char **name, const char **args, const char **help)
{
	*name = commands[i].name;
	*args = commands[i].args;
	*help = commands[i].help;
}

static void c_help(struct gp_app *a, int argc, char **argv)
{
	int hits;
	const struct command *c = argc > 1 ? find(argv[1], &hits) : NULL;
	if (c) {
		gp_app_say(a, GP_R_DIM, ":%s %s: %s", c->name, c->args, c->help);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	for (int i = 0; i < NCMDS; i++)
		fprintf(f, "%-12s %s\n", commands[i].name, commands[i].args);
	fprintf(f, "\nTab completes; Up and Down walk the history; :help NAME says more");
	fclose(f);
	gp_app_table(a, "commands", text);
	free(text);
}

/* Splits the line at spaces outside quotes and brackets (a value may
 * be { ... } or "a b"); returns the words' count, -1 past MAX_ARGS. */
int gp_cmd_split(char *line, char **argv, int max)
{
	int argc = 0, depth = 0;
	char q = 0;
	for (char *p = line; *p;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (argc == max)
			return -1;
		argv[argc++] = p;
		for (; *p && (q || depth || (*p != ' ' && *p != '\t')); p++) {
			if (q) {
				if (*p == '\\' && p[1])
					p++;
				else if (*p == q)
					q = 0;
			} else if (*p == '"' || *p == '\'') {
				q = *p;
			} else if (strchr("([{", *p)) {
				depth++;
			} else if (strchr(")]}", *p) && depth) {
				depth--;
			}
		}
	}
	return argc;
}

void gp_app_command(struct gp_app *a, const char *line)
{
	char buf[GP_ED_MAX], *argv[MAX_ARGS];
	snprintf(buf, sizeof buf, "%s", line);
	int argc = gp_cmd_split(buf, argv, MAX_ARGS);
	if (argc == 0)
		return;
	if (argc < 0)
		return (void)gp_app_say(a, GP_R_ERROR, "more than %d words", MAX_ARGS);
	argv[0] = (char *)alias(argv[0]);
	int hits;
	const struct command *c = find(argv[0], &hits);
	if (!c) {
		gp_app_say(a, GP_R_ERROR, hits ? "'%s' is short for more than one command; Tab lists "
					      "them" : "no command '%s'; :help lists them", argv[0]);
		return;
	}
	size_t n = strlen(argv[0]);
	if (argv[0][n - 1] == '!' && c->run != c_quit)
		return (void)gp_app_say(a, GP_R_ERROR, "only quit! takes a !");
	if (argc == 1 && c->args[0] && c->args[0] != '[')
		return say_usage(a, c);
	c->run(a, argc, argv);
}

void gp_app_table(struct gp_app *a, const char *title, const char *text)
{
	free(a->table);
	a->table = strdup(text);
	snprintf(a->table_title, sizeof a->table_title, "%s", title);
}
