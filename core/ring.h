/*
 * ring.h: the order of a DP group's DCs round its cross-DC gradient ring.
 *
 * The simulator (sim.c's on_sync) sends a bucket's WAN share over every
 * hop of the ring at once, hop i from ring[i] to ring[i + 1] (the last
 * back to the first; two DCs: both directions), and the ring is done
 * when its slowest hop is: bytes / bandwidth + its latency terms on that
 * link direction, as the links are given (asymmetric links make the two
 * directions of one cycle differ). A real job orders its ring (NCCL
 * searches its rings over the topology), so the planner must not take
 * the order the scenario file lists the DCs in: every model of the sync
 * (sim_setup.c, estimate.c, the baselines) takes its order from here.
 *
 * The order minimises the ring's time, the slowest hop's; ties go to the
 * smaller sum of the hops' times, then to the lexicographically first
 * sequence of DC indices (relative ties within 1e-12). Up to
 * GP_RING_EXACT DCs it is exact: the first DC fixed, every direction of
 * each of the (n - 1)! / 2 cycles, by depth-first search pruned on the
 * slowest hop so far. Beyond, greedy rings (nearest by hop time, from
 * each of the first 8 DCs) and the index order, each improved by 2-opt
 * reversals, relocations and swaps until no move gains (rings ranked by
 * their hops sorted slowest first), then 50 deterministic double-bridge
 * kicks of the best, each searched again; test_ring.c measures it
 * against the exact order on 9-12 DCs (32 seeded cases: 26 equal, mean
 * 1.007, worst 1.067 x the exact ring's time). Its work is capped
 * (moves x DCs <= 2.5e5): the simulator runs it once per set of DCs
 * per plan, about 7 ms for 16 DCs.
 */
#ifndef GP_RING_H
#define GP_RING_H

#include "costtab.h"
#include "scenario.h"

#define GP_RING_EXACT 8       /* exact up to this many DCs */
#define GP_RING_EXACT_MAX 12  /* gp_ring_exact refuses more (tests only beyond 8) */

/* cost[i * n + j]: the time of the hop from DC i to DC j (INFINITY: no
 * link). order: a permutation of 0..n-1 with order[0] = 0. */

/* The ring's time: its slowest hop (n = 2: both directions; n < 2: 0). */
double gp_ring_time(int n, const double *cost, const int *order);
/* The sum of its hops' times (the tie-break). */
double gp_ring_sum(int n, const double *cost, const int *order);

/* The best order, exactly (n <= GP_RING_EXACT_MAX), greedily with 2-opt,
 * or whichever applies to n; each returns its time (INFINITY when no
 * ring has a link on every hop: order is then 0..n-1). */
double gp_ring_exact(int n, const double *cost, int *order);
double gp_ring_heur(int n, const double *cost, int *order);
double gp_ring_best(int n, const double *cost, int *order);

/* The ring of DCs dcs[0..n) (ascending indices) of scenario sc for a
 * bucket of `bytes` per hop whose hop waits latm times the link's latency
 * (the simulator's 2 (steps - 1) / sync.every): the WAN links as the cost
 * tables give them. ring[0..n) gets the DC indices in ring order; *t its
 * time (INFINITY: no ring). -1: out of memory. */
int gp_ring_choose(const struct gp_scenario *sc, const struct gp_costtab *ct, const int *dcs,
		   int n, double bytes, double latm, int *ring, double *t);

#endif
