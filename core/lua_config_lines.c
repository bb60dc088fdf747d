/*
 * lua_config_lines.c: where in a settings file each value is written
 * (lua_config.h's gp_conf_lines), so that what is wrong with a value is
 * said at its line. Lua keeps no line per table field, so the file's
 * text is read as the table constructor it returns: names and ["keys"]
 * before '=', positional elements counted as Lua counts them, tables
 * inside tables; comments and strings skipped, and whatever sits inside
 * parentheses (a helper's call) is part of the value it computes. A file
 * that builds its table some other way simply has no lines for it.
 */
#include "lua_config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct frame {
	char key[GP_CONF_KEY];   /* this table's dotted key ("" at the top) */
	int index;               /* positional elements so far */
};

struct scan {
	const char *s, *end;
	int line;
	struct frame st[GP_CONF_DEPTH + 2];
	int depth;               /* frames in use; 0: before the returned table */
	int parens;              /* open '(' inside the current value */
	char pending[GP_CONF_KEY];   /* a "name =" seen: the next value's key */
	int pending_line;
	bool in_value;           /* after a value began, until ',' ';' or '}' */
	bool after_return;
	struct gp_conf *c;
};

/* Skips a string opened by q at s->s (already past the quote). */
static void skip_quoted(struct scan *s, char q)
{
	while (s->s < s->end && *s->s != q) {
		if (*s->s == '\\' && s->s + 1 < s->end)
			s->s++;
		if (*s->s == '\n')
			s->line++;
		s->s++;
	}
	if (s->s < s->end)
		s->s++;
}

/* A long bracket "[[", "[==[" at s->s: skipped whole; false if none. */
static bool skip_long(struct scan *s)
{
	const char *p = s->s + 1;
	int level = 0;
	while (p < s->end && *p == '=')
		p++, level++;
	if (p >= s->end || *p != '[')
		return false;
	for (p++; p < s->end; p++) {
		if (*p == '\n')
			s->line++;
		if (*p != ']')
			continue;
		const char *q = p + 1;
		int l = 0;
		while (q < s->end && *q == '=')
			q++, l++;
		if (l == level && q < s->end && *q == ']') {
			s->s = q + 1;
			return true;
		}
	}
	s->s = s->end;
	return true;
}

/* Spaces, newlines and comments. */
static void skip_space(struct scan *s)
{
	while (s->s < s->end) {
		if (*s->s == '\n') {
			s->line++;
			s->s++;
		} else if (isspace((unsigned char)*s->s)) {
			s->s++;
		} else if (s->s + 1 < s->end && s->s[0] == '-' && s->s[1] == '-') {
			s->s += 2;
			if (s->s < s->end && *s->s == '[' && skip_long(s))
				continue;
			while (s->s < s->end && *s->s != '\n')
				s->s++;
		} else {
			return;
		}
	}
}

static void leaf(struct scan *s, const char *key, int line)
{
	struct gp_conf *c = s->c;
	if (c->nlines < GP_CONF_MAX) {
		snprintf(c->lines[c->nlines].key, GP_CONF_KEY, "%s", key);
		c->lines[c->nlines++].line = line;
	}
}

/* The key of the element that starts here: the pending name, else the
 * next position. */
static void element_key(struct scan *s, char *key, int *line)
{
	struct frame *f = &s->st[s->depth - 1];
	if (s->pending[0]) {   /* "[3]" follows its table with no dot */
		snprintf(key, GP_CONF_KEY, "%s%s%s", f->key,
			 f->key[0] && s->pending[0] != '[' ? "." : "", s->pending);
		*line = s->pending_line;
	} else {
		snprintf(key, GP_CONF_KEY, "%s[%d]", f->key, ++f->index);
		*line = s->line;
	}
	s->pending[0] = 0;
}

/* A value starts at the current token; open: it is a '{'. */
static void value_starts(struct scan *s, bool open)
{
	char key[GP_CONF_KEY];
	int line;
	element_key(s, key, &line);
	if (open && s->depth < GP_CONF_DEPTH + 2) {
		struct frame *f = &s->st[s->depth++];
		snprintf(f->key, sizeof f->key, "%s", key);
		f->index = 0;
		return;
	}
	leaf(s, key, line);
	s->in_value = true;
	s->parens += open;   /* too deep to follow: its '{' is the value's */
}

/* "name =" or "[\"name\"] =" or "[3] =" at s->s: *key set, s->s past
 * the '='; false (nothing moved) when the token is none of them. */
static bool field_name(struct scan *s, char *key, size_t n)
{
	const char *p = s->s, *a, *b;
	int line = s->line;
	if (isalpha((unsigned char)*p) || *p == '_') {
		a = p;
		while (p < s->end && (isalnum((unsigned char)*p) || *p == '_'))
			p++;
		b = p;
	} else if (*p == '[' && p + 1 < s->end && (p[1] == '"' || p[1] == '\'' ||
						    isdigit((unsigned char)p[1]))) {
		char q = p[1];
		a = p + 2 - !(q == '"' || q == '\'');
		for (p = a; p < s->end && *p != (isdigit((unsigned char)q) ? ']' : q) && *p != '\n'; p++)
			;
		b = p;
		if ((q == '"' || q == '\'') && p < s->end)
			p++;
		while (p < s->end && *p == ' ')
			p++;
		if (p >= s->end || *p != ']')
			return false;
		p++;
	} else {
		return false;
	}
	while (p < s->end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= s->end || *p != '=' || (p + 1 < s->end && p[1] == '='))
		return false;
	bool index = a > s->s && s->s[0] == '[' && isdigit((unsigned char)s->s[1]);
	snprintf(key, n, index ? "[%.*s]" : "%.*s", (int)(b - a), a);
	s->s = p + 1;
	s->line = line;
	return true;
}

/* One token at the top of a table frame (not inside a value). */
static void table_token(struct scan *s)
{
	char c = *s->s;
	char name[GP_CONF_KEY];
	int line = s->line;
	if (c == '}') {
		s->depth--;
		s->s++;
		s->in_value = s->depth > 0;
		return;
	}
	if (c == ',' || c == ';') {
		s->s++;
		return;
	}
	if (!s->pending[0] && field_name(s, name, sizeof name)) {
		snprintf(s->pending, sizeof s->pending, "%s", name);
		s->pending_line = line;
		return;
	}
	value_starts(s, c == '{');
	if (c == '{')
		s->s++;
}

/* One token inside a value: strings, brackets, calls; ',' ';' '}' end it. */
static void value_token(struct scan *s)
{
	char c = *s->s;
	if (s->parens == 0 && (c == ',' || c == ';' || c == '}')) {
		s->in_value = false;
		return;   /* the table's token */
	}
	if (c == '[' && skip_long(s))
		return;
	s->s++;
	if (c == '"' || c == '\'')
		skip_quoted(s, c);
	else if (c == '(' || c == '{')
		s->parens++;
	else if ((c == ')' || c == '}') && s->parens > 0)
		s->parens--;
}

/* Before the returned table: "return {" starts it. */
static void top_token(struct scan *s)
{
	char c = *s->s;
	if (c == '"' || c == '\'') {
		s->s++;
		skip_quoted(s, c);
	} else if (c == '[' && skip_long(s)) {
	} else if (isalpha((unsigned char)c) || c == '_') {
		const char *a = s->s;
		while (s->s < s->end && (isalnum((unsigned char)*s->s) || *s->s == '_'))
			s->s++;
		s->after_return = s->s - a == 6 && !strncmp(a, "return", 6);
		return;
	} else if (c == '{' && s->after_return) {
		s->s++;
		s->st[0] = (struct frame){ "", 0 };
		s->depth = 1;
		s->c->line = s->line;
		return;
	} else {
		s->s++;
	}
	s->after_return = false;
}

void gp_conf_lines(struct gp_conf *c, const char *text, size_t len)
{
	struct scan s = { .s = text, .end = text + len, .line = 1, .c = c };
	c->nlines = 0;
	c->line = 0;
	while (s.s < s.end) {
		skip_space(&s);
		if (s.s >= s.end)
			break;
		const char *at = s.s;
		if (s.depth == 0)
			top_token(&s);
		else if (s.in_value)
			value_token(&s);
		else
			table_token(&s);
		if (s.depth == 0 && c->line && at != s.s && !s.in_value)
			break;   /* the returned table closed */
	}
}

int gp_conf_line_of(const struct gp_conf *c, const char *key)
{
	for (int i = 0; c && i < c->nlines; i++)
		if (!strcmp(c->lines[i].key, key))
			return c->lines[i].line;
	return c ? c->line : 0;
}
