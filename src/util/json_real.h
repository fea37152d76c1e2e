#ifndef REVPERF_UTIL_JSON_REAL_H
#define REVPERF_UTIL_JSON_REAL_H

/*
 * A double as a JSON value for every JSON writer: JSON has no NaN or infinity, and Jansson's
 * json_real() of one is NULL, which json_object_set_new() takes as a dropped key and
 * json_array_append_new() as a dropped element. Thread-safe; nothing kept.
 */
#include <jansson.h>

/*
 * A new reference to v as a JSON number, or to null when v is NaN or infinite (no mean, no
 * sd, an unknown rate). The caller owns it (json_decref(), or a *_set_new/_append_new).
 */
json_t *json_real_or_null(double v);

#endif
