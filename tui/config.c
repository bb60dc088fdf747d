/*
 * config.c: the planner's config.lua (app.h's gp_config): a file the
 * user writes by hand and the program only reads, never rewrites:
 *
 *   return {
 *     theme = "light",
 *     mouse = false, live = true,
 *     keys = { quit = { "q", "<F10>" }, ["view-plan"] = "2", undo = "<C-z>" },
 *   }
 *
 * Keys are bound by action name (actions.h, the help screen's second
 * column), one key or a list; a key bound here means that action on
 * every screen, over the built-in bindings.
 */
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "actions.h"
#include "lua_config.h"

void gp_config_path(char *buf, size_t n)
{
	gp_xdg_path("XDG_CONFIG_HOME", ".config", "config.lua", buf, n);
}

static int bool_of(struct gp_conf *cf, const struct gp_conf_item *it, int *out, struct gp_err *e)
{
	if (it->type != GP_CONF_BOOL)
		return gp_conf_errf(cf, e, it->key, "%s: true or false", it->key);
	*out = it->b;
	return 0;
}

/* keys.ACTION or keys.ACTION[i] = "KEY". */
static int bind(struct gp_config *c, struct gp_conf *cf, const struct gp_conf_item *it,
		struct gp_err *e)
{
	char action[64];
	snprintf(action, sizeof action, "%s", it->key + 5);
	action[strcspn(action, "[")] = 0;
	int act = gp_action_find(action);
	if (act == GP_A_NONE)
		return gp_conf_errf(cf, e, it->key, "%s: no action '%s' (the help screen lists them)",
				    it->key, action);
	struct gp_key k[2];
	int where;
	if (it->type != GP_CONF_STRING || gp_keys_parse(it->str, k, 2, &where) != 1)
		return gp_conf_errf(cf, e, it->key, "%s: one key, as \"q\", \"<F10>\", \"<C-z>\"",
				    it->key);
	if (c->nkeys == GP_CONFIG_KEYS)
		return gp_conf_errf(cf, e, it->key, "more than %d keys", GP_CONFIG_KEYS);
	c->keys[c->nkeys].key = k[0].code;
	c->keys[c->nkeys++].action = act;
	return 0;
}

static int item(struct gp_config *c, struct gp_conf *cf, const struct gp_conf_item *it,
		struct gp_err *e)
{
	if (!strcmp(it->key, "theme")) {
		if (it->type != GP_CONF_STRING)
			return gp_conf_errf(cf, e, it->key, "theme: a theme's name");
		snprintf(c->theme, sizeof c->theme, "%s", it->str);
		return 0;
	}
	if (!strcmp(it->key, "mouse"))
		return bool_of(cf, it, &c->mouse, e);
	if (!strcmp(it->key, "live"))
		return bool_of(cf, it, &c->live, e);
	if (!strncmp(it->key, "keys.", 5))
		return bind(c, cf, it, e);
	return gp_conf_errf(cf, e, it->key, "%s means nothing here (theme, mouse, live, keys)",
			    it->key);
}

int gp_config_load(const char *path, struct gp_config *c, struct gp_err *e)
{
	memset(c, 0, sizeof *c);
	c->mouse = c->live = -1;
	if (!path || !path[0] || access(path, F_OK))
		return 0;   /* none: the defaults */
	struct gp_conf cf;
	if (gp_conf_load(path, &cf, e))
		return -1;
	int rc = 0;
	for (int i = 0; i < cf.n; i++)   /* every error said, not the first only */
		rc |= item(c, &cf, &cf.items[i], e);
	gp_conf_free(&cf);
	return rc ? -1 : 0;
}

int gp_config_action(const struct gp_config *c, int key)
{
	for (int i = 0; c && i < c->nkeys; i++)
		if (c->keys[i].key == key)
			return c->keys[i].action;
	return GP_A_NONE;
}
