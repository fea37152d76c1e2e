/*
 * A Perphecy predictor as JSON (Jansson), so that the store can keep it next to the data
 * it was trained on. Format in docs/prediction.md.
 */
#include "analysis/perphecy.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <jansson.h>

#include "util/common.h"

#define PREDICTOR_VERSION 1
/* A predictor is a few hundred bytes; refuse anything far larger before parsing. */
#define PREDICTOR_MAX_BYTES (1u << 20)

char *perphecy_predictor_to_json(const struct perphecy_predictor *p)
{
	struct strbuf sb = STRBUF_INIT;

	/* Written by hand (ids need no escaping): the same bytes for the same predictor. */
	strbuf_addf(&sb,
		    "{\"version\":%d,\"no_hits\":%s,\"hits\":%zu,\"misses\":%zu,"
		    "\"uncovered\":%zu,\"indicators\":[",
		    PREDICTOR_VERSION, p->no_hits ? "true" : "false", p->nr_hits, p->nr_misses,
		    p->nr_uncovered);
	for (size_t k = 0; k < p->nr; k++)
		strbuf_addf(&sb, "%s{\"template\":\"%s\",\"threshold\":%" PRId64 "}", k ? "," : "",
			    perphecy_template_id(p->ind[k].tmpl), p->ind[k].threshold);
	strbuf_addstr(&sb, "]}");
	return strbuf_detach(&sb);
}

/* A non-negative integer member `key` of obj into *out; -1 after error() otherwise. */
static int get_count(json_t *obj, const char *key, const char *origin, size_t *out)
{
	json_t *v = json_object_get(obj, key);
	if (!v) {
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		error("%s: predictor member \"%s\" must be an integer >= 0", origin, key);
		return -1;
	}
	*out = (size_t)json_integer_value(v);
	return 0;
}

static int parse_indicator(json_t *ind, size_t idx, const char *origin,
			   struct perphecy_predictor *out)
{
	json_t *tmpl = json_object_get(ind, "template");
	json_t *thr = json_object_get(ind, "threshold");
	enum perphecy_template t;
	int64_t x, max;

	if (!json_is_object(ind)) {
		error("%s: indicator %zu is not an object", origin, idx);
		return -1;
	}
	if (!json_is_string(tmpl) || perphecy_template_parse(json_string_value(tmpl), &t)) {
		error("%s: indicator %zu: unknown template %s%s%s; expected one of del_func, "
		      "new_func, reached_del_func, top_chg_by_call, top_call_chg_10, "
		      "top_chg_by_instr, top_chg_len, top_reached_chg_len, chg_imports, "
		      "chg_dyn_relocs, chg_imports_per_minstr, chg_dyn_relocs_per_minstr, "
		      "est_cost_chg",
		      origin, idx, json_is_string(tmpl) ? "\"" : "",
		      json_is_string(tmpl) ? json_string_value(tmpl) : "(missing)",
		      json_is_string(tmpl) ? "\"" : "");
		return -1;
	}
	if (!json_is_integer(thr)) {
		error("%s: indicator %zu (%s): the threshold must be an integer", origin, idx,
		      perphecy_template_id(t));
		return -1;
	}
	for (size_t k = 0; k < out->nr; k++) {
		if (out->ind[k].tmpl == t) {
			error("%s: indicator %zu: template %s appears twice", origin, idx,
			      perphecy_template_id(t));
			return -1;
		}
	}
	x = (int64_t)json_integer_value(thr);
	max =
	    perphecy_template_direction(t) == PERPHECY_AT_MOST ? 100 : (int64_t)PERPHECY_MAX_VALUE;
	if (x < 0 || x > max) {
		error("%s: indicator %zu (%s): threshold %" PRId64 " is outside [0, %" PRId64 "]",
		      origin, idx, perphecy_template_id(t), x, max);
		return -1;
	}
	/* in range and a new template: cannot fail */
	perphecy_predictor_add(out, t, x);
	return 0;
}

int perphecy_predictor_from_json(const char *text, const char *origin,
				 struct perphecy_predictor *out)
{
	json_t *root = NULL, *v, *inds;
	json_error_t jerr;
	size_t len;
	int ret = RP_EINPUT;

	perphecy_predictor_init(out);
	if (!origin)
		origin = "predictor";
	if (!text) {
		error("%s: no predictor text", origin);
		return RP_EINPUT;
	}
	len = strnlen(text, PREDICTOR_MAX_BYTES + 1);
	if (len > PREDICTOR_MAX_BYTES) {
		error("%s: larger than 1 MiB; not a predictor", origin);
		return RP_EINPUT;
	}
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		error("%s:%d:%d: invalid JSON: %s", origin, jerr.line, jerr.column, jerr.text);
		return RP_EINPUT;
	}
	if (!json_is_object(root)) {
		error("%s: a predictor is a JSON object", origin);
		goto out;
	}
	v = json_object_get(root, "version");
	if (!json_is_integer(v) || json_integer_value(v) != PREDICTOR_VERSION) {
		error("%s: unknown predictor version (expected \"version\": %d)", origin,
		      PREDICTOR_VERSION);
		goto out;
	}
	v = json_object_get(root, "no_hits");
	if (v && !json_is_boolean(v)) {
		error("%s: predictor member \"no_hits\" must be true or false", origin);
		goto out;
	}
	out->no_hits = json_is_true(v);
	if (get_count(root, "hits", origin, &out->nr_hits) ||
	    get_count(root, "misses", origin, &out->nr_misses) ||
	    get_count(root, "uncovered", origin, &out->nr_uncovered))
		goto out;
	inds = json_object_get(root, "indicators");
	if (!json_is_array(inds)) {
		error("%s: predictor member \"indicators\" must be an array", origin);
		goto out;
	}
	if (json_array_size(inds) > PERPHECY_NR_TEMPLATES) {
		error("%s: %zu indicators; a predictor has at most one per template (%d)", origin,
		      json_array_size(inds), PERPHECY_NR_TEMPLATES);
		goto out;
	}
	for (size_t k = 0; k < json_array_size(inds); k++)
		if (parse_indicator(json_array_get(inds, k), k, origin, out))
			goto out;
	if (out->no_hits && (out->nr || out->nr_hits)) {
		error("%s: a predictor trained without hits (\"no_hits\": true) has no indicators "
		      "and no hits",
		      origin);
		goto out;
	}
	ret = RP_OK;
out:
	json_decref(root);
	if (ret)
		perphecy_predictor_init(out);
	return ret;
}
