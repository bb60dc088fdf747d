/*
 * view_scenario.c: the scenario screen. Datacenters and their pools, the
 * GPU types they use, the WAN links as a matrix (a row per source DC, a
 * column per destination; bandwidth and latency of each direction, each
 * edited on its own), the model and the job. Every value in the run's
 * scenario that a scenario file sets is edited in place; an edit is an
 * override of the file (app_edit.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "actions.h"
#include "app.h"
#include "form.h"

static void field(struct gp_field *f, enum gp_unit u, double v, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void field(struct gp_field *f, enum gp_unit u, double v, const char *fmt, ...)
{
	*f = (struct gp_field){ .unit = u, .value = v };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->path, sizeof f->path, fmt, ap);
	va_end(ap);
}

static void text_field(struct gp_field *f, const char *value, const char *path)
{
	*f = (struct gp_field){ .text = true };
	snprintf(f->path, sizeof f->path, "%s", path);
	snprintf(f->shown, sizeof f->shown, "%s", value);
}

/* Names as a field's choices ("a|b|c"). */
static void add_choice(struct gp_field *f, const char *name)
{
	size_t l = strlen(f->choices);
	snprintf(f->choices + l, sizeof f->choices - l, "%s%s", l ? "|" : "", name);
}

static void gpu_choices(struct gp_field *f, const struct gp_scenario *s)
{
	for (int g = 0; g < s->ngpus; g++)
		add_choice(f, s->gpus[g].name);
}

/* An editable cell: the value of f. */
static struct gp_form_cell *edit_cell(struct gp_form *fm, int x, int w, const struct gp_field *f)
{
	struct gp_form_cell *c = gp_form_cell(fm, x, w, GP_R_VALUE, "%s", "");
	c->right = !f->text;
	gp_form_edit(fm, c, f);
	return c;
}

/* The longest DC name, in cells. */
static int dc_width(const struct gp_scenario *s, int at_least)
{
	int w = at_least;
	for (int d = 0; d < s->ndcs; d++)
		w = gp_form_widest(w, s->dcs[d].name);
	return w;
}

static void pools(struct gp_form *fm, const struct gp_scenario *s)
{
	static const char *const head[] = { "DC", "GPU", "count", "per node", "NVLink",
					     "NIC", "NIC latency" };
	int ws[7] = { dc_width(s, 2), 3, 7, 8, 9, 9, 11 }, xs[7];
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++)
			ws[1] = gp_form_widest(ws[1], s->gpus[s->dcs[d].pools[q].gpu].name);
	gp_form_columns(ws, xs, 7);
	gp_form_section(fm, "Datacenters and pools");
	gp_form_header(fm);
	for (int i = 0; i < 7; i++)
		gp_form_cell(fm, xs[i], ws[i], GP_R_HEADER, "%s", head[i])->right = i >= 2;
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++) {
			const struct gp_pool *p = &s->dcs[d].pools[q];
			const char *dc = s->dcs[d].name;
			struct gp_field f;
			gp_form_row(fm);
			gp_form_cell(fm, xs[0], ws[0], q ? GP_R_DIM : GP_R_TEXT, "%s", q ? "" : dc);
			char path[160];
			snprintf(path, sizeof path, "dcs[%s].pools[%d].gpu", dc, q + 1);
			text_field(&f, s->gpus[p->gpu].name, path);
			gpu_choices(&f, s);
			edit_cell(fm, xs[1], ws[1], &f);
			field(&f, GP_U_COUNT, p->count, "dcs[%s].pools[%d].count", dc, q + 1);
			edit_cell(fm, xs[2], ws[2], &f);
			field(&f, GP_U_COUNT, p->per_node, "dcs[%s].pools[%d].per_node", dc, q + 1);
			edit_cell(fm, xs[3], ws[3], &f);
			field(&f, GP_U_BYTERATE, p->nvlink, "dcs[%s].pools[%d].nvlink", dc, q + 1);
			edit_cell(fm, xs[4], ws[4], &f);
			field(&f, GP_U_BANDWIDTH, p->network, "dcs[%s].pools[%d].network", dc, q + 1);
			edit_cell(fm, xs[5], ws[5], &f);
			field(&f, GP_U_TIME, p->latency, "dcs[%s].pools[%d].latency", dc, q + 1);
			edit_cell(fm, xs[6], ws[6], &f);
		}
}

static bool gpu_used(const struct gp_scenario *s, int g)
{
	for (int d = 0; d < s->ndcs; d++)
		for (int q = 0; q < s->dcs[d].npools; q++)
			if (s->dcs[d].pools[q].gpu == g)
				return true;
	return false;
}

static void gpus(struct gp_form *fm, const struct gp_scenario *s)
{
	static const char *const head[] = { "GPU type", "FLOP/s", "memory", "HBM",
					     "efficiency", "$/GPU-hour" };
	int ws[6] = { 8, 9, 9, 9, 11, 11 }, xs[6];
	for (int g = 0; g < s->ngpus; g++)
		if (gpu_used(s, g))
			ws[0] = gp_form_widest(ws[0], s->gpus[g].name);
	gp_form_columns(ws, xs, 6);
	gp_form_section(fm, "GPU types in use");
	gp_form_header(fm);
	for (int i = 0; i < 6; i++)
		gp_form_cell(fm, xs[i], ws[i], GP_R_HEADER, "%s", head[i])->right = i >= 1;
	for (int g = 0; g < s->ngpus; g++) {
		if (!gpu_used(s, g))
			continue;
		const struct gp_gpu *u = &s->gpus[g];
		struct gp_field f;
		gp_form_row(fm);
		gp_form_cell(fm, xs[0], ws[0], GP_R_TEXT, "%s", u->name);
		field(&f, GP_U_FLOPS, u->flops, "gpus[\"%s\"].tflops", u->name);
		edit_cell(fm, xs[1], ws[1], &f);
		field(&f, GP_U_BYTES, u->memory, "gpus[\"%s\"].memory", u->name);
		edit_cell(fm, xs[2], ws[2], &f);
		field(&f, GP_U_BYTERATE, u->hbm_bw, "gpus[\"%s\"].hbm_bandwidth", u->name);
		edit_cell(fm, xs[3], ws[3], &f);
		field(&f, GP_U_RATIO, u->efficiency, "gpus[\"%s\"].efficiency", u->name);
		f.positive = true;
		edit_cell(fm, xs[4], ws[4], &f);
		field(&f, GP_U_USD, u->price_per_hour, "gpus[\"%s\"].price_per_hour", u->name);
		f.none = true;   /* no price given: "none", as the plan screen says */
		edit_cell(fm, xs[5], ws[5], &f);
	}
}

/* The matrix: a row per source, a pair of cells (bandwidth, latency) per
 * destination; "." on the diagonal, "-" where no link goes. */
static void links(struct gp_form *fm, const struct gp_scenario *s)
{
	const int lw = dc_width(s, 9), bw = 9, tw = 6;
	/* A column as wide as its DC's name or the two figures. */
	int cws[64], cxs[64], nd = s->ndcs < 64 ? s->ndcs : 64;
	for (int b = 0; b < nd; b++)
		cws[b] = gp_form_widest(bw + tw + 1, s->dcs[b].name);
	gp_form_columns(cws, cxs, nd);
	gp_form_section(fm, "WAN links: bandwidth and latency, from each row's DC to each column's");
	if (s->ndcs < 2) {
		gp_form_text(fm, GP_R_DIM, "one DC: no WAN links");
		return;
	}
	gp_form_header(fm);
	gp_form_cell(fm, 0, lw, GP_R_HEADER, "%s", "from \\ to");
	for (int b = 0; b < nd; b++)
		gp_form_cell(fm, lw + 1 + cxs[b], cws[b], GP_R_HEADER, "%s", s->dcs[b].name)->right =
			true;
	for (int a = 0; a < nd; a++) {
		gp_form_row(fm);
		gp_form_cell(fm, 0, lw, GP_R_TEXT, "%s", s->dcs[a].name);
		for (int b = 0; b < nd; b++) {
			int x = lw + 1 + cxs[b] + cws[b] - (bw + tw + 1);
			const struct gp_link *l = a == b ? NULL : gp_find_link(s, a, b);
			if (!l && a == b) {
				gp_form_cell(fm, x, bw + tw + 1, GP_R_DIM, "%s", ".")->right = true;
				continue;
			}
			if (!l) {   /* Enter: the command that adds the link */
				struct gp_form_cell *c = gp_form_cell(fm, x, bw + tw + 1, GP_R_DIM, "%s", "");
				struct gp_field f = { .text = true, .command = true };
				snprintf(f.path, sizeof f.path,
					 "set links[%s-%s]={ bandwidth = Gbps(), latency = ms() }",
					 s->dcs[a].name, s->dcs[b].name);
				gp_form_edit(fm, c, &f);
				c->right = true;
				snprintf(c->text, sizeof c->text, "%s", "-");
				continue;
			}
			struct gp_field f;
			field(&f, GP_U_BANDWIDTH, l->bandwidth, "links[%s>%s].bandwidth",
			      s->dcs[a].name, s->dcs[b].name);
			edit_cell(fm, x, bw, &f);
			field(&f, GP_U_TIME, l->latency, "links[%s>%s].latency", s->dcs[a].name,
			      s->dcs[b].name);
			edit_cell(fm, x + bw + 1, tw, &f);
		}
	}
}

static const char *const recomputes[] = { "none", "selective", "full", "auto" };
static const char *const objectives[] = { "time", "cost", "wan_bytes" };

/* A labelled value of the model and job section; its cell. */
static struct gp_form_cell *pair(struct gp_form *fm, int vw, const char *label,
				 const struct gp_field *f, const char *note)
{
	gp_form_row(fm);
	gp_form_cell(fm, 0, 18, GP_R_TEXT, "%s", label);
	struct gp_form_cell *c = edit_cell(fm, 19, vw, f);
	if (note)   /* wrapped at words: never "sharded over the re" at 80 */
		gp_form_cell_wrap(fm, 21 + vw, fm->width - 21 - vw > 12 ? fm->width - 21 - vw : 12,
				  GP_R_DIM, note);
	return c;
}

/* A name field of the model and job section, with its choices. */
static void choice(struct gp_form *fm, int vw, const char *label, const char *value,
		   const char *path, const char *choices, const char *note)
{
	struct gp_field f;
	text_field(&f, value, path);
	snprintf(f.choices, sizeof f.choices, "%s", choices);
	pair(fm, vw, label, &f, note);
}

static void model_job(struct gp_form *fm, const struct gp_scenario *s)
{
	const struct gp_model *m = &s->model;
	const struct gp_job *j = &s->job;
	struct gp_field f;
	char note[160];
	int vw = gp_form_widest(14, m->name);
	gp_form_section(fm, "Model and job");
	snprintf(note, sizeof note, "%d layers, hidden %.0f, %.0f heads (%.0f KV), FFN %.0f%s, vocab %.0f",
		 m->layers, m->hidden, m->heads, m->kv_heads, m->ffn, m->gated ? " gated" : "",
		 m->vocab);
	/* Its shape, not "a name of the catalog": a custom model's table
	 * names it too (P6's Nemotron-4-340B), and the shape is true of
	 * both. */
	text_field(&f, m->name, "model");
	pair(fm, vw, "model", &f, NULL);
	gp_form_cell_wrap(fm, 21 + vw, fm->width - 21 - vw > 12 ? fm->width - 21 - vw : 12, GP_R_DIM,
			  note);
	field(&f, GP_U_COUNT, j->seq, "job.seq");
	pair(fm, vw, "sequence length", &f, "tokens");
	field(&f, GP_U_COUNT, j->global_batch, "job.global_batch");
	pair(fm, vw, "global batch", &f, "sequences per iteration");
	field(&f, GP_U_COUNT, j->micro_batch, "job.micro_batch");
	pair(fm, vw, "micro-batch", &f, "sequences");
	field(&f, GP_U_NUMBER, j->zero, "job.zero");
	pair(fm, vw, "ZeRO", &f, "0 or 1: optimizer state sharded over the replicas");
	choice(fm, vw, "recomputation", recomputes[j->recompute], "job.recompute",
	       "none|selective|full|auto", "none, selective, full or auto (Up/Down in the editor)");
	choice(fm, vw, "DP sync", gp_sync_name(j->sync_mode), "job.sync.mode",
	       "flat|hierarchical|auto", "flat, hierarchical or auto");
	field(&f, GP_U_COUNT, j->sync_every, "job.sync.every");
	pair(fm, vw, "sync every", &f, "steps (local SGD when > 1)");
	choice(fm, vw, "objective", objectives[s->objective], "objective", "time|cost|wan_bytes",
	       "time, cost or wan_bytes");
	field(&f, GP_U_USD, s->budget_usd_per_hour, "budget.usd_per_hour");
	f.none = true;   /* not "$0.00": there is none */
	pair(fm, vw, "budget", &f, "USD per hour of the GPUs");
}

static void build(struct gp_app *a, struct gp_form *fm)
{
	gp_form_init(fm);
	fm->width = a->w - 3;
	const struct gp_scenario *s = a->run.sc;
	pools(fm, s);
	gpus(fm, s);
	links(fm, s);
	model_job(fm, s);
}

static void draw(struct gp_app *a, struct gp_canvas *cv, struct gp_rect r)
{
	struct gp_form fm;
	build(a, &fm);
	gp_form_draw(&fm, &a->sc, cv, r, a->th);
	gp_form_free(&fm);
}

/* Moves and searches over the form; the global actions do the rest. */
static bool action(struct gp_app *a, int act, const struct gp_key *k)
{
	(void)k;
	struct gp_form fm;
	build(a, &fm);
	bool done = gp_form_act(a, &fm, &a->sc, act);
	gp_form_free(&fm);
	return done;
}

static void click(struct gp_app *a, int x, int y)
{
	struct gp_form fm;
	build(a, &fm);
	gp_form_click(&fm, &a->sc, x, y);
	gp_form_free(&fm);
}

/* The field is copied out of the form into the app, which outlives it. */
static const struct gp_field *cur_field(struct gp_app *a)
{
	struct gp_form fm;
	build(a, &fm);
	struct gp_form_cursor c = a->sc;
	gp_form_fix(&fm, &c);
	const struct gp_field *f = gp_form_cur_field(&fm, &c);
	bool have = f != NULL;
	if (have)
		a->editing = *f;
	gp_form_free(&fm);
	return have ? &a->editing : NULL;
}

static void status(struct gp_app *a, char *buf, size_t n)
{
	const struct gp_field *f = cur_field(a);
	if (f && f->command) {   /* "set links[a-b]={ ... }": the pair, whole */
		const char *p = strchr(f->path, '['), *q = p ? strchr(p, ']') : NULL;
		int len = p && q ? (int)(q - p - 1) : 0;
		snprintf(buf, n, "no link %.*s: Enter types the :set that adds one", len, p ? p + 1 : "");
		return;
	}
	int len = f ? snprintf(buf, n, "%s = %s", f->path, f->shown) : 0;
	if (f && len + 60 <= a->w)
		snprintf(buf + len, n - (size_t)len, "   Enter edits, u undoes, s saves, Tab next pane");
	else if (f && len + 16 <= a->w)
		snprintf(buf + len, n - (size_t)len, "   Enter edits");
	else if (!f)
		snprintf(buf, n, "arrows move, Tab next pane, Enter edits");
}

const struct gp_view_ops gp_view_scenario = {
	"scenario", "Scenario", draw, action, click, cur_field, status,
};
