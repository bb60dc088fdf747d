/*
 * oom.h: why no plan holds the model in GPU memory, said consistently
 * for the reports and the engines' refusals: the layout that needs the
 * least memory per GPU within the GPUs there are (one replica over all
 * of them, in as many pipeline stages as they allow at each TP degree a
 * pool takes, the first stage on the pool that suits it best), what its first stage needs against what the GPU
 * has, and, when the weights, gradients and optimizer state alone exceed
 * all the GPUs together, how many GPUs they would take. It reads the
 * scenario and its cost tables; it never plans.
 */
#ifndef GP_OOM_H
#define GP_OOM_H

#include <stddef.h>
#include "costtab.h"
#include "scenario.h"

/* The explanation into msg (n bytes) and 1 when even that layout does
 * not fit; 0 (msg "") when it fits, so the cause is elsewhere (a plan's
 * own split, an engine's limits). */
int gp_oom_explain(const struct gp_scenario *sc, const struct gp_costtab *ct, char *msg,
		   size_t n);

#endif
