/*
 * calibrate_int.h: internal to calibrate.c (the fit) and
 * calibrate_write.c (the Lua it fits and writes): the default model's
 * calibratable form as data, and the texts made from it.
 */
#ifndef GP_CALIBRATE_INT_H
#define GP_CALIBRATE_INT_H

#include "calibrate.h"
#include "scenario.h"

#define CAL_MAX_GPUS 48

/* The form for the runs at hand: their GPU types, each with its
 * efficiency parameter, and the bound on the reserve. */
struct cal_form {
	struct {
		char gpu[GP_NAME_MAX];
		char param[48];
		double efficiency;    /* the default: the type's own */
	} gpus[CAL_MAX_GPUS];
	int ngpus;
	double reserve_max;       /* bytes: 40 % of the smallest GPU's memory */
};

/* The unit of one of the form's parameters ("s", "B" or ""). */
const char *cal_form_unit(const char *param);

/* The form's text with each parameter's default taken from vals (by
 * name; NULL or absent: the form's own default), under a header of
 * comment lines (NULL: none). malloc'd; NULL when out of memory. */
char *cal_form_text(const struct cal_form *f, const struct gp_cal_param *vals, int nvals,
		    const char *header, size_t *len);

/* BASE's text wrapped so that it returns BASE's table with the fitted
 * params (state GP_CAL_FITTED) replaced: one self-contained script. */
char *cal_wrap_text(const char *base, size_t blen, const char *base_name,
		    const struct gp_cal_param *vals, int nvals, const char *header,
		    size_t *len);

/* A number as Lua reads it back to the same double, whatever the
 * locale's decimal point. */
void cal_number(char *buf, size_t n, double v);

#endif
