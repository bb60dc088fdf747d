/*
 * lua_view.h: internal to the script files (lua_cost.c, lua_call.c,
 * lua_heur.c): the read-only descriptors a script's functions receive,
 * and the geoplan.default.* closures that read them back.
 *
 * A descriptor is a plain table of SI figures behind a proxy: reads go
 * straight to the table (__index), writes raise an error naming it, and
 * pairs and # see the fields. C never trusts a descriptor it handed out:
 * geoplan.default.* read the fields they need from whatever tables they
 * are given, so a script may pass an edited copy.
 */
#ifndef GP_LUA_VIEW_H
#define GP_LUA_VIEW_H

#include <lua.h>

#include "cost.h"

/* Replaces the table at the top of the stack by a read-only view of it,
 * named `what` in the error a write raises. */
void lv_readonly(lua_State *L, const char *what);

/* Descriptors, each pushed as a read-only view. `params` is the stack
 * index of the script's parameter values (a view), or 0. */
void lv_push_layer(lua_State *L, const struct gp_layer_q *q);
/* efficiency: what gpu.efficiency reads (the script's own when it has
 * an efficiency function). */
void lv_push_gpu(lua_State *L, const struct gp_gpu *g, double efficiency);
/* ctx of compute, efficiency, memory, optimizer and reserve. */
void lv_push_ctx(lua_State *L, const struct gp_layer_q *q, int params);
void lv_push_channel(lua_State *L, const struct gp_channel_q *q);
/* ctx of p2p, allreduce and optimizer: only params. */
void lv_push_bare_ctx(lua_State *L, int params);

/* The scenario a heuristic's plan() receives: gpus (by name), dcs (each
 * with its pools), links (one entry per direction), model, job,
 * objective, budget; read-only all the way down. */
void lv_push_scenario(lua_State *L, const struct gp_scenario *sc);

/* Pushes the table geoplan.default: the C default model's operations
 * and its constants. */
void lv_push_defaults(lua_State *L);

/* Of a message lh_msgh made: the length of its first part (the error),
 * and in frames the traceback's lines that name the script's own file. */
int lv_trace(const char *msg, const char *script, char *frames, size_t n);

/* Names as descriptors spell them. */
const char *lv_recompute_name(enum gp_recompute rc);
const char *lv_channel_name(enum gp_channel k);

#endif
