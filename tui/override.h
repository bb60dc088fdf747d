/*
 * override.h: an override (--set PATH=VALUE, :set, :sweep) as people
 * type it, and the loader's messages about it named the way they typed
 * it. Shared by the terminal planner and the batch commands, so that
 * "links[ams-fra].bandwidth=10G" means the same on both and a refusal
 * names links[ams-fra], not the entry's number.
 */
#ifndef GP_OVERRIDE_H
#define GP_OVERRIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "units.h"

/* The unit of the value a path names, by its last name (as the
 * scenario screen's fields have them); GP_U_NUMBER when none. */
enum gp_unit gp_ov_unit_of(const char *path);

/* PATH=50G as the editor takes it (100G, 35ms, 80GB, $2.50) into out
 * (n bytes): the value the loader reads; any other Lua value (Gbps(50),
 * ms(35)) as it is. strict: a bare number where a unit belongs
 * (latency=35) is refused as the editor refuses it: -1 with why ("35
 * s? write 35ms or 35s", nwhy bytes); not strict (the batch's --set,
 * whose bare numbers are SI and warned of by the loader): taken as it
 * is. Strict or not, a number with a unit word the unit refuses
 * ("bandwidth=40GB": a size, not a rate; "latency=-1ms"; "10Q") is
 * refused with why, never left to the loader's guess; out is set as
 * it is then. */
int gp_ov_units(const char *set, bool strict, char *out, size_t n, char *why, size_t nwhy);

/* Each value of set ("PATH=v" or a sweep's "PATH=v1,v2,...") read as
 * gp_ov_units reads it, not strict: -1 and why for the first refused,
 * before anything is loaded or run (the batch's --set). */
int gp_ov_check(const char *set, char *why, size_t nwhy);

/* gp_ov_units, not strict, for gp_run's xlate hook: set with its unit
 * words read, or as it is. */
void gp_ov_xlate(const char *set, char *out, size_t n);

/* msg (without a file name) with the entry the loader numbers named as
 * set "PATH=v" wrote it: "links[1].bandwidth: ..." for
 * links[ams-fra].bandwidth=... (the same table before '[', the same
 * last name) reads "links[ams-fra].bandwidth: ..."; a numbered entry
 * (dcs[1]) owns only its own number's messages. True when it did, else
 * msg as it is. */
bool gp_ov_as_written(const char *set, const char *msg, char *buf, size_t n);

/* The same over overrides sets[0..nsets) (the last that names the entry
 * wins) for a message that may start "FILE: ", the file name kept;
 * true when one did. */
bool gp_ov_name(const char *const *sets, int nsets, const char *file, const char *msg,
		char *buf, size_t n);

#endif
