/*
 * calibrate_write.c: the Lua texts calibrate fits and writes
 * (calibrate_int.h).
 *
 * The default model's calibratable form is a cost-model script over
 * geoplan.default: with every parameter at its default it computes the
 * very doubles the C default does (attention_scores 1 cuts nothing,
 * overhead and reserve 0 add nothing, activations 1 scales by one), so
 * calibrating can only move the model where the data asks. OUT.lua is
 * the same text with the fitted values as defaults; numbers are written
 * so that they read back as the same doubles, so OUT.lua reproduces the
 * fitted predictions bit for bit.
 */
#include "calibrate_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cal_number(char *buf, size_t n, double v)
{
	for (int p = 15; p <= 17; p++) {
		snprintf(buf, n, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	gp_c_point(buf);
}

const char *cal_form_unit(const char *param)
{
	if (!strcmp(param, "layer_overhead"))
		return "s";
	if (!strcmp(param, "reserve"))
		return "B";
	return "";
}

/* A Lua string literal: quotes, backslashes, control and non-ASCII
 * bytes escaped. */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			fprintf(f, "\\%03u", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static double value_of(const char *name, double def, const struct gp_cal_param *vals, int n)
{
	for (int i = 0; vals && i < n; i++)
		if (!strcmp(vals[i].name, name))
			return vals[i].value;
	return def;
}

static void put_param(FILE *f, const char *name, double v, double lo, double hi)
{
	char a[40], b[40], c[40];
	cal_number(a, sizeof a, v);
	cal_number(b, sizeof b, lo);
	cal_number(c, sizeof c, hi);
	fprintf(f, "    %s = { %s, min = %s, max = %s },\n", name, a, b, c);
}

static const char form_head[] =
	"-- Each parameter stands for something physical:\n"
	"--   efficiency_<GPU>  the fraction of peak FLOP/s large GEMMs reach on that\n"
	"--                     GPU type (gpu.efficiency in the default formulas)\n"
	"--   layer_overhead    seconds added to every pass (F, B and W) of each block:\n"
	"--                     kernel launches, framework work per layer\n"
	"--   attention_scores  with materialised attention (job.attention), the share\n"
	"--                     of the default's memory-bound work over the attention\n"
	"--                     scores (mask, softmax, dropout: k_att b a s^2/t bytes\n"
	"--                     at HBM speed, k_bwd times that in the backward) the\n"
	"--                     stack really does; flash attention has none\n"
	"--   reserve           bytes of each GPU the job cannot use (CUDA context,\n"
	"--                     communication buffers, allocator slack) beyond the\n"
	"--                     default's (geoplan.default.reserve)\n"
	"--   activations       a factor on the activations every layer stores\n"
	"-- With every parameter at 1, 0, 1, 0, 1 and the GPUs' own efficiency this\n"
	"-- is exactly geoplan's default model.\n\n";

static const char form_body[] =
	"local k = geoplan.default.constants\n\n"
	"-- The default's memory-bound work over one layer's attention scores for\n"
	"-- one micro-batch on one TP rank (K_ATT in core/cost_default.c); none\n"
	"-- when flash attention never materialises them.\n"
	"local function scores(layer, gpu, ctx)\n"
	"  if layer.attention ~= \"materialised\" then return 0 end\n"
	"  return k.k_att * layer.micro_batch * layer.heads * layer.seq * layer.seq / ctx.tp\n"
	"    / gpu.hbm_bandwidth\n"
	"end\n\n";

static const char form_ops[] =
	"  efficiency = function(gpu, layer, ctx)\n"
	"    local p = gpus[gpu.name]\n"
	"    if p then return ctx.params[p] end\n"
	"    return gpu.efficiency\n"
	"  end,\n"
	"  compute = function(layer, gpu, ctx)\n"
	"    local f, b, w = geoplan.default.compute(layer, gpu, ctx)\n"
	"    if layer.kind ~= \"block\" then return f, b, w end\n"
	"    local p = ctx.params\n"
	"    local cut = (1 - p.attention_scores) * scores(layer, gpu, ctx)\n"
	"    -- B does k_bwd times the score work, and recomputation (selective or\n"
	"    -- full) the forward's again; W has none\n"
	"    local again = ctx.recompute == \"none\" and 0 or cut\n"
	"    local o = p.layer_overhead\n"
	"    return f - cut + o, b - k.k_bwd * cut - again + o, w + o\n"
	"  end,\n"
	"  memory = function(layer, gpu, ctx)\n"
	"    local a, w = geoplan.default.memory(layer, gpu, ctx)\n"
	"    local x = ctx.params.activations\n"
	"    return a * x, w * x\n"
	"  end,\n"
	"  reserve = function(gpu, ctx)\n"
	"    return geoplan.default.reserve(gpu, ctx) + ctx.params.reserve\n"
	"  end,\n"
	"}\n";

/* Closes the stream open_memstream made over *buf: the text, or NULL. */
static char *close_text(FILE *f, char **buf)
{
	if (fclose(f) || !*buf) {
		free(*buf);
		return NULL;
	}
	return *buf;
}

char *cal_form_text(const struct cal_form *fm, const struct gp_cal_param *vals, int nvals,
		    const char *header, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fprintf(f, "-- The default cost model's calibratable form (geoplan-lua(7),\n"
		   "-- CALIBRATION), written by geoplan calibrate; name it with --cost-model.\n");
	fputs(header ? header : "", f);
	fprintf(f, "--\n%s", form_head);
	fprintf(f, "local gpus = {   -- GPU type -> its efficiency parameter\n");
	for (int i = 0; i < fm->ngpus; i++) {
		fprintf(f, "  [");
		put_string(f, fm->gpus[i].gpu);
		fprintf(f, "] = \"%s\",\n", fm->gpus[i].param);
	}
	fprintf(f, "}\n%s", form_body);
	fprintf(f, "return {\n  description = \"the default cost model, calibrated (geoplan calibrate)\",\n"
		   "  params = {\n");
	for (int i = 0; i < fm->ngpus; i++) {
		double e = fm->gpus[i].efficiency;
		put_param(f, fm->gpus[i].param, value_of(fm->gpus[i].param, e, vals, nvals),
			  e < 0.05 ? e : 0.05, 1);
	}
	put_param(f, "layer_overhead", value_of("layer_overhead", 0, vals, nvals), 0, 0.05);
	put_param(f, "attention_scores", value_of("attention_scores", 1, vals, nvals), 0, 1);
	put_param(f, "reserve", value_of("reserve", 0, vals, nvals), 0, fm->reserve_max);
	put_param(f, "activations", value_of("activations", 1, vals, nvals), 0.25, 4);
	fprintf(f, "  },\n%s", form_ops);
	return close_text(f, &buf);
}

char *cal_wrap_text(const char *base, size_t blen, const char *base_name,
		    const struct gp_cal_param *vals, int nvals, const char *header,
		    size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fprintf(f, "-- A cost-model script with its parameters fitted by geoplan calibrate;\n"
		   "-- name it with --cost-model. Below: ");
	put_string(f, base_name);
	fprintf(f, " as it was, then the fitted\n-- values over its own params.\n");
	fputs(header ? header : "", f);
	fprintf(f, "\nlocal model = (function(...)\n");
	fwrite(base, 1, blen, f);
	fprintf(f, "\nend)(...)\n\n");
	for (int i = 0; i < nvals; i++) {
		if (vals[i].state != GP_CAL_FITTED)
			continue;
		char a[40], b[40], c[40];
		cal_number(a, sizeof a, vals[i].value);
		cal_number(b, sizeof b, vals[i].min);
		cal_number(c, sizeof c, vals[i].max);
		fprintf(f, "model.params.%s = { %s, min = %s, max = %s }\n", vals[i].name, a, b, c);
	}
	fprintf(f, "return model\n");
	return close_text(f, &buf);
}
