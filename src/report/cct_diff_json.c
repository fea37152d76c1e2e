/* The JSON report of a calling context tree diff (docs/json-schema.md). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "report/attribution_report.h"
#include "report/cct_report.h"
#include "util/common.h"
#include "util/json_real.h"

/*
 * A JSON string. Function names come from a profile and need not be UTF-8: bytes that are
 * not become '?' so that the report is still written.
 */
static json_t *jstr(const char *s)
{
	json_t *j;
	char *copy;
	if ((j = json_string(s)))
		return j;
	copy = xstrdup(s);
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_string("?");
}

/* A count: an integer when it is one (a single profile), else a real (a mean). */
static json_t *jcount(double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		return json_integer((json_int_t)v);
	return json_real_or_null(v);
}

static void set(json_t *o, const char *key, json_t *v)
{
	json_object_set_new(o, key, v);
}

/* The frames from the top one down to `node`, named as cct_path() names them. */
static json_t *path_json(const struct cct *t, uint32_t node)
{
	json_t *a = json_array();
	struct strbuf sb = STRBUF_INIT;
	size_t depth = 0;

	for (uint32_t n = node; n != CCT_NONE && n != CCT_ROOT; n = t->nodes[n].parent)
		depth++;
	for (size_t i = 0; i < depth; i++)
		json_array_append_new(a, json_null());
	for (uint32_t n = node; n != CCT_NONE && n != CCT_ROOT; n = t->nodes[n].parent) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, cct_name(t, t->nodes[n].name));
		if (t->nodes[n].site)
			strbuf_addf(&sb, "#%u", (unsigned)t->nodes[n].site);
		json_array_set_new(a, --depth, jstr(sb.buf));
	}
	strbuf_release(&sb);
	return a;
}

static json_t *profile_json(const char *label, const struct cct *t, bool calls)
{
	json_t *o = json_object();
	set(o, "label", jstr(label));
	set(o, "contexts", json_integer((json_int_t)(t->nr_nodes - 1)));
	set(o, "total_weight", json_real_or_null(cct_total(t)));
	set(o, "runs", json_integer((json_int_t)(t->nr_runs ? t->nr_runs : 1)));
	set(o, "merged", json_boolean(t->sd != NULL));
	set(o, "calls_known", json_boolean(calls));
	return o;
}

static json_t *topo_json(const struct cct_diff *d, const struct cct_topo_diff *e, bool calls)
{
	const struct cct *t = e->in_new ? d->new_tree : d->old_tree;
	const struct cct_node *n = &t->nodes[e->node];
	json_t *o = json_object(), *attr = json_array();

	for (size_t i = 0; i < e->nr_attr; i++)
		json_array_append_new(attr, jstr(d->attr[e->attr_first + i]));
	set(o, "stage", json_integer(e->stage));
	set(o, "stage_name", jstr(cct_diff_stage_name(e->stage)));
	set(o, "in", jstr(e->in_new ? "new" : "old"));
	set(o, "path", path_json(t, e->node));
	set(o, "caller", e->caller == CCT_NONE ? json_null() : path_json(t, e->caller));
	set(o, "pweight", json_real_or_null(e->pweight));
	set(o, "pweight_sd",
	    t->sd
		? json_real_or_null(cct_report_scaled_sd(e->pweight, n->incl, t->sd[e->node].incl))
		: json_null());
	set(o, "subtree_weight", json_real_or_null(n->incl));
	set(o, "calls", calls ? jcount(e->calls) : json_null());
	set(o, "calls_sd", calls && t->sd ? json_real_or_null(t->sd[e->node].calls) : json_null());
	set(o, "attribution", attr);
	return o;
}

static json_t *side_json(const struct cct *t, uint32_t node, double pweight, bool calls)
{
	const struct cct_node *n = &t->nodes[node];
	json_t *o = json_object();
	set(o, "pweight", json_real_or_null(pweight));
	set(o, "pweight_sd",
	    t->sd ? json_real_or_null(cct_report_scaled_sd(pweight, n->excl, t->sd[node].excl))
		  : json_null());
	set(o, "self_weight", json_real_or_null(n->excl));
	set(o, "weight", json_real_or_null(n->incl));
	set(o, "calls", calls ? jcount(n->calls) : json_null());
	set(o, "calls_sd", calls && t->sd ? json_real_or_null(t->sd[node].calls) : json_null());
	return o;
}

json_t *cct_diff_to_json(const struct cct_diff *d, const struct cct_report_options *o)
{
	bool calls_old = cct_report_has_calls(d->old_tree);
	bool calls_new = cct_report_has_calls(d->new_tree);
	json_t *root = json_object(), *topo = json_array(), *pairs = json_array();

	for (size_t i = 0; i < d->nr_topo; i++)
		json_array_append_new(
		    topo, topo_json(d, &d->topo[i], d->topo[i].in_new ? calls_new : calls_old));
	for (size_t i = 0; i < d->nr_pairs; i++) {
		const struct cct_weight_pair *p = &d->pairs[i];
		json_t *e = json_object();
		set(e, "path", path_json(d->new_tree, p->new_node));
		set(e, "old", side_json(d->old_tree, p->old_node, p->old_pweight, calls_old));
		set(e, "new", side_json(d->new_tree, p->new_node, p->new_pweight, calls_new));
		set(e, "change", json_real_or_null(p->new_pweight - p->old_pweight));
		json_array_append_new(pairs, e);
	}
	set(root, "old",
	    profile_json(o && o->old_label ? o->old_label : "old", d->old_tree, calls_old));
	set(root, "new",
	    profile_json(o && o->new_label ? o->new_label : "new", d->new_tree, calls_new));
	set(root, "absolute", o && o->absolute ? attribution_json(o->absolute) : json_null());
	set(root, "absolute_note",
	    o && !o->absolute && o->absolute_note ? jstr(o->absolute_note) : json_null());
	set(root, "matched", json_integer((json_int_t)(d->nr_matched ? d->nr_matched - 1 : 0)));
	set(root, "overlap", json_real_or_null(d->overlap));
	set(root, "overlap_after", json_real_or_null(d->overlap_after));
	set(root, "different", json_boolean(d->nr_topo || d->nr_pairs));
	set(root, "topological", topo);
	set(root, "weight_differences", pairs);
	return root;
}

int cct_diff_report_json(FILE *f, const struct cct_diff *d, const struct cct_report_options *o)
{
	json_t *root = json_object(), *body = cct_diff_to_json(d, o);
	int ret;

	set(root, "revperf_version", jstr(REVPERF_VERSION));
	set(root, "schema", jstr("revperf-diff/2"));
	set(root, "exit_code", json_integer(d->nr_topo || d->nr_pairs ? 1 : 0));
	json_object_update(root, body);
	json_decref(body);
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	fputc('\n', f);
	json_decref(root);
	return ret || fflush(f) || ferror(f) ? -1 : 0;
}
