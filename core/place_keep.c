/*
 * place_keep.c: class sets handed from one engine state (struct pm) to
 * another, so that no solve builds the same classes twice (place_int.h).
 *
 * The bound's check (place_milp.c, verify_bound) searches the same
 * space as the search with every tail at its least; its classes are the
 * search's, which depend only on the scenario, the kinds and the
 * replica bound's memory: it takes the search's sets (pm_keep_move)
 * instead of building them again at its smaller work limit, which cut
 * chains the search kept and so could not close a proof. It hands them
 * back when done.
 *
 * The second solve at the plan's pool counts (gp_plan_milp) changes the
 * pace of the pools whose counts differ, and so those kinds' costs
 * only: the first solve's sets are kept (pm_keep_store), and a class
 * whose kinds all cost the same is copied from the first solve's set of
 * the same capacities (pm_keep_find, place_classes.c's reuse of the set
 * built before) rather than split and walked again. The kept sets count
 * in the memory the class sets may take.
 */
#include "place_int.h"

#include <stdlib.h>
#include <string.h>

/* Memory a class set takes (m's current one: x NULL). */
size_t pm_set_bytes(const struct pm *m, const struct pm_cset *x)
{
	int capc = x ? x->capc : m->capc, caplay = x ? x->caplay : m->caplay, nc = x ? x->nc : m->nc;
	int capcv = x ? x->capcv : m->capcv;
	return (size_t)capc * sizeof *m->c + (size_t)caplay * sizeof *m->lay +
	       (size_t)capcv * sizeof *m->cv +
	       (size_t)nc * sizeof *m->order + (size_t)m->nk * 64 * 64 * sizeof *m->capt;
}

static void cset_free(struct pm_cset *x)
{
	free(x->capt);
	free(x->c);
	free(x->lay);
	free(x->cv);
	free(x->order);
	*x = (struct pm_cset){ 0 };
}

/* m's current set as a kept one (m's arrays then belong to it). */
static struct pm_cset current(struct pm *m)
{
	struct pm_cset t = { m->capt, m->c, m->nc, m->capc, m->lay, m->nlay, m->caplay,
			     m->cv, m->ncv, m->capcv, m->order, m->Smax, m->nchain, m->attempt,
			     m->trunc_two, m->no_two, m->trunc_chain };
	m->capt = NULL;
	m->c = NULL;
	m->lay = NULL;
	m->cv = NULL;
	m->order = NULL;
	m->nc = m->capc = m->nlay = m->caplay = m->ncv = m->capcv = 0;
	m->enumerated = false;
	return t;
}

/* Frees m's class sets, current and kept. */
void pm_sets_free(struct pm *m)
{
	struct pm_cset t = current(m);
	cset_free(&t);
	for (int i = 0; i < m->nsets; i++)
		cset_free(&m->sets[i]);
	m->nsets = 0;
	m->prev = NULL;
	m->prev_other = false;
}

/* Moves from's class sets (current and kept) into to, whose own are
 * freed: both are states of one scenario with the same kinds. The cuts
 * they carry go with them (to->cut), as the least stage bound. */
void pm_keep_move(struct pm *to, struct pm *from)
{
	if (to->nk != from->nk || to->L != from->L || to->N != from->N)
		return;
	pm_sets_free(to);
	bool en = from->enumerated;
	int d = from->cur_d;
	struct pm_cset t = current(from);
	to->capt = t.capt;
	to->c = t.c;
	to->nc = t.nc;
	to->capc = t.capc;
	to->lay = t.lay;
	to->nlay = t.nlay;
	to->caplay = t.caplay;
	to->cv = t.cv;
	to->ncv = t.ncv;
	to->capcv = t.capcv;
	to->order = t.order;
	to->Smax = t.Smax;
	to->nchain = t.nchain;
	to->attempt = t.natt;
	to->trunc_two = t.trunc_two;
	to->no_two = t.no_two;
	to->trunc_chain = t.trunc_chain;
	to->enumerated = en;
	to->cur_d = d;
	memcpy(to->sets, from->sets, (size_t)from->nsets * sizeof *from->sets);
	to->nsets = from->nsets;
	from->nsets = 0;
	from->prev = to->prev = NULL;
	to->cut |= from->cut;
	if (from->Sproof && (!to->Sproof || from->Sproof < to->Sproof))
		to->Sproof = from->Sproof;
	/* from needs a table to build into again (pm_enum_classes). */
	from->capt = gp_xcalloc((size_t)from->nk * 64 * 64 + 1, sizeof *from->capt);
	if (!to->capt)
		to->capt = gp_xcalloc((size_t)to->nk * 64 * 64 + 1, sizeof *to->capt);
}

/* Moves m's complete class sets into k, with m's kinds. -1: out of
 * memory (k then holds none). */
int pm_keep_store(struct pm_keep *k, struct pm *m)
{
	pm_keep_free(k);
	k->k = gp_xcalloc((size_t)m->nk + 1, sizeof *k->k);
	if (!k->k)
		return -1;
	memcpy(k->k, m->k, (size_t)m->nk * sizeof *m->k);
	k->nk = m->nk;
	bool en = m->enumerated;
	struct pm_cset t = current(m);
	if (en && t.capt)
		k->s[k->n++] = t;
	else
		cset_free(&t);
	for (int i = 0; i < m->nsets; i++)
		k->s[k->n++] = m->sets[i];
	m->nsets = 0;
	m->prev = NULL;
	m->capt = gp_xcalloc((size_t)m->nk * 64 * 64 + 1, sizeof *m->capt);
	return 0;
}

void pm_keep_free(struct pm_keep *k)
{
	for (int i = 0; i < k->n; i++)
		cset_free(&k->s[i]);
	free(k->k);
	*k = (struct pm_keep){ 0 };
}

/* Two kinds cost and hold the same (their classes are the same). */
static bool kind_same(const struct pm_kind *a, const struct pm_kind *b)
{
	return a->fp == b->fp && a->tp == b->tp && a->rc == b->rc && a->x == b->x &&
	       a->bl == b->bl && a->lx == b->lx && a->lb == b->lb && a->act == b->act &&
	       a->lact == b->lact && a->reserve == b->reserve && a->delta == b->delta;
}

/* m copies from k's sets the classes whose kinds cost the same. -1: out
 * of memory (m then copies none). */
int pm_keep_use(struct pm *m, const struct pm_keep *k)
{
	m->from = NULL;
	if (!k || !k->n || k->nk != m->nk)
		return 0;
	free(m->ksame);
	m->ksame = gp_xcalloc((size_t)m->nk + 1, 1);
	if (!m->ksame)
		return -1;
	bool any = false;
	for (int i = 0; i < m->nk; i++)
		any |= m->ksame[i] = kind_same(&m->k[i], &k->k[i]);
	m->from = any ? k : NULL;
	return 0;
}

/* The set of m->from built for m's capacity table (m->capt) up to its
 * stage bound, or NULL. Not the deeper rows of the full classes: their
 * paths follow the kinds' pace (so the rows each solve fills differ);
 * same_as_prev compares each class's own rows before it copies one. */
const struct pm_cset *pm_keep_find(const struct pm *m)
{
	for (int i = 0; m->from && i < m->from->n; i++) {
		const struct pm_cset *x = &m->from->s[i];
		size_t blk = (size_t)x->Smax * 64 * sizeof *x->capt;
		bool same = x->nc > 0;
		for (int k = 0; same && k < m->nk; k++)
			same = !memcmp(x->capt + (size_t)k * 64 * 64, m->capt + (size_t)k * 64 * 64, blk);
		if (same)
			return x;
	}
	return NULL;
}

/* Memory m->from's sets take. */
size_t pm_keep_bytes(const struct pm *m)
{
	size_t b = 0;
	for (int i = 0; m->from && i < m->from->n; i++)
		b += pm_set_bytes(m, &m->from->s[i]);
	return b;
}
