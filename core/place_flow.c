/*
 * place_flow.c: the DP sync tail of a plan as gp_simulate runs it, in
 * closed steps (place_int.h, pm_flow): the channels of a plan's devices
 * (one per stage of each pipeline) each serve their buckets one after
 * another, in the order sim.c's add_buckets makes them: wait for the
 * bucket (every holder of its layers made it: the barrier), its local
 * reduce-scatter, its share of the WAN ring, the ring's latency, its
 * local all-gather. The WAN transfers of all channels share the ring's
 * link directions by processor sharing, each channel's flow weighing 1
 * (sim.c's link_send), so a link idles only while no channel has a
 * transfer on it, not during every channel's local phases (the lockstep
 * form pm_class_tail must assume). The ring's edges carry the same
 * bytes in a symmetric ring, so one link stands for them. Events are
 * the ends of phases; between them every active transfer progresses at
 * 1 / (active transfers) of the link (exact for processor sharing).
 */
#include "place_int.h"

#include <math.h>
#include <stdlib.h>

enum { PH_WAIT, PH_RS, PH_WAN, PH_LAT, PH_AG, PH_DONE };

struct fstate {
	int k, ph;        /* the bucket it serves (of its nb), its phase */
	double te, rem;   /* a timed phase's end; a transfer's remaining work, s */
};

/* Moves channel c as far as time t allows (phases that end by t). */
static void advance(struct pm_fch *c, struct fstate *f, const struct pm_fbk *bk, double t)
{
	for (;;) {
		const struct pm_fbk *b = &bk[c->b0 + f->k];
		switch (f->ph) {
		case PH_WAIT:
			if (f->k == c->nb) {
				f->ph = PH_DONE;
				return;
			}
			if (b->ready > t)
				return;
			f->ph = PH_RS;
			/* From the later of its bucket and its last phase. */
			f->te = fmax(b->ready, c->end > -INFINITY ? c->end : b->ready) + b->rs;
			break;
		case PH_RS:
			if (f->te > t)
				return;
			if (b->wan > 0) {
				f->ph = PH_WAN;
				f->rem = b->wan;
			} else {
				f->ph = PH_LAT;
				f->te += b->lat;
			}
			break;
		case PH_WAN:
			if (f->rem > 1e-12)
				return;
			f->ph = PH_LAT;
			f->te = t + b->lat;
			break;
		case PH_LAT:
			if (f->te > t)
				return;
			f->ph = PH_AG;
			f->te += b->ag;
			break;
		case PH_AG:
			if (f->te > t)
				return;
			c->end = f->te;
			f->k++;
			f->ph = PH_WAIT;
			break;
		default:
			return;
		}
	}
}

/* The next event after t (INFINITY: none); *nact the transfers on the
 * link. */
static double next_event(const struct pm_fch *ch, const struct fstate *f, int nch,
			 const struct pm_fbk *bk, double t, int *nact)
{
	double tn = INFINITY, rmin = INFINITY;
	*nact = 0;
	for (int i = 0; i < nch; i++) {
		switch (f[i].ph) {
		case PH_WAIT:
			tn = fmin(tn, bk[ch[i].b0 + f[i].k].ready);
			break;
		case PH_WAN:
			++*nact;
			rmin = fmin(rmin, f[i].rem);
			break;
		case PH_RS:
		case PH_LAT:
		case PH_AG:
			tn = fmin(tn, f[i].te);
			break;
		default:
			break;
		}
	}
	if (*nact)
		tn = fmin(tn, t + rmin * *nact);
	return tn;
}

int pm_flow(struct pm_fch *ch, int nch, const struct pm_fbk *bk)
{
	struct fstate *f = gp_xcalloc((size_t)nch + 1, sizeof *f);
	if (!f)
		return -1;
	double t = INFINITY;
	for (int i = 0; i < nch; i++) {
		ch[i].end = -INFINITY;
		if (ch[i].nb > 0)
			t = fmin(t, bk[ch[i].b0].ready);
	}
	/* Each pass ends at least one phase: at most 5 per bucket. */
	long guard = 8;
	for (int i = 0; i < nch; i++)
		guard += 6L * ch[i].nb + 2;
	while (t < INFINITY && guard-- > 0) {
		for (int i = 0; i < nch; i++)
			advance(&ch[i], &f[i], bk, t);
		int nact;
		double tn = next_event(ch, f, nch, bk, t, &nact);
		if (!(tn < INFINITY))
			break;
		for (int i = 0; nact && i < nch; i++)
			if (f[i].ph == PH_WAN)
				f[i].rem -= (tn - t) / nact;
		t = tn;
	}
	free(f);
	return 0;
}
