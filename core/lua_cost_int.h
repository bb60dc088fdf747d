/*
 * lua_cost_int.h: internal to lua_cost.c (loading a cost-model script)
 * and lua_call.c (its operations: calling the script and checking what
 * it returns).
 */
#ifndef GP_LUA_COST_INT_H
#define GP_LUA_COST_INT_H

#include <stdbool.h>

#include "lua_cost.h"
#include "lua_int.h"

enum lc_key { K_COMPUTE, K_EFFICIENCY, K_MEMORY, K_P2P, K_ALLREDUCE, K_OPTIMIZER,
	      K_RESERVE, K_N };

/* The script's table keys of the operations, in enum lc_key order. */
extern const char *const lc_key_names[K_N];

#define LC_MAX_PARAMS 64

struct gp_lua_cost {
	struct gp_lua *h;
	char name[512];
	char description[512];
	int ref[K_N];           /* LUA_NOREF: the default's */
	int line[K_N];          /* where each function is defined */
	int values;             /* registry: the params' values (a plain table) */
	int view;               /* registry: ctx.params, a view of values */
	struct gp_cost_param params[LC_MAX_PARAMS];
	int nparams;
	struct gp_cost_model cm;
	bool in_batch, failed;
	struct gp_err err;      /* the batch's first failure */
	long calls, stray;
	bool warned[K_N];       /* one magnitude warning per operation */
	struct gp_layer_q eff_q; /* the last efficiency call's query, and its answer */
	double eff;
	bool eff_valid;
	void (*log)(void *ud, const char *line);
	void *log_ud;
};

/* The operations (lua_call.c). */
extern const struct gp_cost_ops lc_ops;

#endif
