/*
 * lua_heur.h: heuristic scripts (geoplan-lua(7)): a Lua file returning
 * { name, description, plan = function(scenario, ctx) ... end } whose
 * plan() returns a plan in the scenario file's schema. The engine
 * "heuristic" (plan.c) runs it; its plan is validated (field paths into
 * what the script returned), simulated like any engine's and handed to
 * the placement MILP as a warm start.
 *
 * Inside plan(), geoplan.layer_time, geoplan.p2p_time and the other
 * queries read the cost tables, so a heuristic sees the effective cost
 * model (a cost-model script included).
 */
#ifndef GP_LUA_HEUR_H
#define GP_LUA_HEUR_H

#include "costtab.h"
#include "planner.h"

struct gp_lua_heur;

struct gp_lua_heur *gp_lua_heur_load(const char *path, struct gp_err *e);
struct gp_lua_heur *gp_lua_heur_from_text(const char *name, const char *text, size_t len,
					  struct gp_err *e);
void gp_lua_heur_free(struct gp_lua_heur *h);

/* The script's name (its `name`, else the file's base name) and
 * description. */
const char *gp_lua_heur_name(const struct gp_lua_heur *h);
const char *gp_lua_heur_description(const struct gp_lua_heur *h);
/* While muted, what the script prints goes nowhere (a warm start whose
 * output its own run shows again, as compare's row). */
void gp_lua_heur_mute(struct gp_lua_heur *h, bool mute);
void gp_lua_heur_set_log(struct gp_lua_heur *h, void (*fn)(void *ud, const char *line),
			 void *ud);

/* Runs plan(scenario, ctx) for s (its own plan ignored) with queries
 * served from ct; *out a plan gp_plan_validate accepts, or -1 and e
 * naming the script, the field and why. */
int gp_lua_heur_plan(struct gp_lua_heur *h, const struct gp_scenario *s,
		     const struct gp_costtab *ct, const struct gp_plan_opts *o,
		     struct gp_plan *out, struct gp_err *e);

#endif
