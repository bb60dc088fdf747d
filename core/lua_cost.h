/*
 * lua_cost.h: cost-model scripts (geoplan-lua(7)).
 *
 * A cost-model script is a Lua file that returns a table of optional
 * functions (compute, efficiency, memory, p2p, allreduce, optimizer,
 * reserve), calibratable params and a description. Loaded, it is a
 * struct gp_cost_model like the default one: every operation it leaves
 * out is the default's, every one it gives calls the script.
 *
 * The contract: the script's functions are pure, called only while cost
 * tables are built or updated (costtab.h), never from a MILP build or the
 * simulator's event loop: an operation called outside a table's batch is
 * refused and counted (gp_lua_cost_stray). Every result is checked (a
 * finite number of the right sign and kind); the first failure of a
 * batch, with the script's file, line and the call it was evaluating,
 * fails the table.
 */
#ifndef GP_LUA_COST_H
#define GP_LUA_COST_H

#include "cost.h"

struct gp_lua_cost;

/* A calibratable parameter: ctx.params[name] in the script. */
struct gp_cost_param {
	char name[48];
	double value, def, min, max;
};

/* Loads the script at path (any Lua the sandbox allows at its top). */
struct gp_lua_cost *gp_lua_cost_load(const char *path, struct gp_err *e);
/* The same from text, named `name` in messages. */
struct gp_lua_cost *gp_lua_cost_from_text(const char *name, const char *text, size_t len,
					  struct gp_err *e);
void gp_lua_cost_free(struct gp_lua_cost *lc);

const struct gp_cost_model *gp_lua_cost_model(struct gp_lua_cost *lc);
const char *gp_lua_cost_name(const struct gp_lua_cost *lc);
/* The script's description, or "". */
const char *gp_lua_cost_description(const struct gp_lua_cost *lc);

int gp_lua_cost_nparams(const struct gp_lua_cost *lc);
const struct gp_cost_param *gp_lua_cost_param(const struct gp_lua_cost *lc, int i);
/* Index of the parameter called name, or -1. */
int gp_lua_cost_find_param(const struct gp_lua_cost *lc, const char *name);
/* Sets parameter i (within its bounds); tables made before must be
 * rebuilt to see it. */
int gp_lua_cost_set_param(struct gp_lua_cost *lc, int i, double v, struct gp_err *e);

/* Where the script's warnings, print and warn go (one line each, no
 * newline); NULL: the Lua host's default (standard error). */
void gp_lua_cost_set_log(struct gp_lua_cost *lc, void (*fn)(void *ud, const char *line),
			 void *ud);

/* Calls into the script so far, and calls refused for coming outside a
 * table's batch (a bug: the tables are the only caller). */
long gp_lua_cost_calls(const struct gp_lua_cost *lc);
long gp_lua_cost_stray(const struct gp_lua_cost *lc);

#endif
