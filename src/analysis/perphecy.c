/*
 * Perphecy's data and indicators (docs/prediction.md): the static data of a commit pair,
 * the dynamic data of a benchmark, the eight indicator values, and predictors as
 * disjunctions of indicators. Training is in perphecy_train.c, JSON in perphecy_json.c.
 */
#include "analysis/perphecy.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "binary/bindiff.h"
#include "util/common.h"

static const struct {
	const char *id, *label;
	enum perphecy_direction dir;
	bool dynamic;
} templates[PERPHECY_NR_TEMPLATES] = {
    [PERPHECY_DEL_FUNC] = {"del_func", "Del Func", PERPHECY_AT_LEAST, false},
    [PERPHECY_NEW_FUNC] = {"new_func", "New Func", PERPHECY_AT_LEAST, false},
    [PERPHECY_REACHED_DEL_FUNC] = {"reached_del_func", "Reached Del Func", PERPHECY_AT_LEAST, true},
    [PERPHECY_TOP_CHG_BY_CALL] = {"top_chg_by_call", "Top Chg by Call", PERPHECY_AT_MOST, true},
    [PERPHECY_TOP_CALL_CHG_10] = {"top_call_chg_10", "Top >X% by Call Chg by >= 10%",
				  PERPHECY_AT_MOST, true},
    [PERPHECY_TOP_CHG_BY_INSTR] = {"top_chg_by_instr", "Top Chg by Instr", PERPHECY_AT_MOST, true},
    [PERPHECY_TOP_CHG_LEN] = {"top_chg_len", "Top Chg Len", PERPHECY_AT_LEAST, false},
    [PERPHECY_TOP_REACHED_CHG_LEN] = {"top_reached_chg_len", "Top Reached Chg Len",
				      PERPHECY_AT_LEAST, true},
    [PERPHECY_CHG_IMPORTS] = {"chg_imports", "Chg Imports", PERPHECY_AT_LEAST, false},
    [PERPHECY_CHG_DYN_RELOCS] = {"chg_dyn_relocs", "Chg Dyn Relocs", PERPHECY_AT_LEAST, false},
    [PERPHECY_CHG_IMPORTS_PER_MINSTR] = {"chg_imports_per_minstr", "Chg Imports per M Instr",
					 PERPHECY_AT_LEAST, true},
    [PERPHECY_CHG_DYN_RELOCS_PER_MINSTR] = {"chg_dyn_relocs_per_minstr",
					    "Chg Dyn Relocs per M Instr", PERPHECY_AT_LEAST, true},
    [PERPHECY_EST_COST_CHG] = {"est_cost_chg", "Est Cost Chg", PERPHECY_AT_LEAST, true},
};

static bool template_valid(int t)
{
	return t >= 0 && t < PERPHECY_NR_TEMPLATES;
}

const char *perphecy_template_id(enum perphecy_template t)
{
	return template_valid((int)t) ? templates[t].id : "?";
}

const char *perphecy_template_label(enum perphecy_template t)
{
	return template_valid((int)t) ? templates[t].label : "?";
}

int perphecy_template_parse(const char *id, enum perphecy_template *out)
{
	for (int t = 0; t < PERPHECY_NR_TEMPLATES; t++) {
		if (id && !strcmp(id, templates[t].id)) {
			*out = (enum perphecy_template)t;
			return 0;
		}
	}
	return -1;
}

enum perphecy_direction perphecy_template_direction(enum perphecy_template t)
{
	return template_valid((int)t) ? templates[t].dir : PERPHECY_AT_LEAST;
}

bool perphecy_template_dynamic(enum perphecy_template t)
{
	return template_valid((int)t) && templates[t].dynamic;
}

static const struct {
	const char *name;
	unsigned mask;
} template_sets[] = {
    {"paper", PERPHECY_PAPER_TEMPLATES},
    {"startup", PERPHECY_STARTUP_TEMPLATES},
    {"cost", PERPHECY_COST_TEMPLATES},
};

int perphecy_templates_parse(const char *s, unsigned *out)
{
	unsigned mask = PERPHECY_PAPER_TEMPLATES;

	if (!strcmp(s, "auto")) {
		*out = PERPHECY_TEMPLATES_AUTO | PERPHECY_PAPER_TEMPLATES | PERPHECY_COST_TEMPLATES;
		return 0;
	}

	for (;;) {
		size_t len = strcspn(s, ","), k;
		for (k = 0; k < ARRAY_SIZE(template_sets); k++)
			if (strlen(template_sets[k].name) == len &&
			    !strncmp(s, template_sets[k].name, len))
				break;
		if (k == ARRAY_SIZE(template_sets))
			return -1;
		mask |= template_sets[k].mask;
		if (!s[len])
			break;
		s += len + 1;
	}
	*out = mask;
	return 0;
}

const char *perphecy_templates_name(unsigned mask)
{
	bool startup = mask & PERPHECY_STARTUP_TEMPLATES, cost = mask & PERPHECY_COST_TEMPLATES;
	if (mask & PERPHECY_TEMPLATES_AUTO)
		return "auto";
	return startup && cost ? "startup,cost" : startup ? "startup" : cost ? "cost" : "paper";
}

/* ---- name storage ---- */

#define NAMES_BLOCK 65536u

static void names_release(struct perphecy_names *n)
{
	for (size_t i = 0; i < n->nr_blocks; i++)
		free(n->blocks[i]);
	free(n->blocks);
	memset(n, 0, sizeof(*n));
}

/* A copy of s (strlen(s) == slen) that lives as long as n. */
static const char *names_add(struct perphecy_names *n, const char *s, size_t slen)
{
	size_t len = slen + 1;
	char *dst;

	if (len > NAMES_BLOCK / 4) {
		/* A long name gets its own block, kept before the current one. */
		ALLOC_GROW(n->blocks, n->nr_blocks + 1, n->alloc_blocks);
		dst = xmalloc(len);
		if (n->nr_blocks) {
			n->blocks[n->nr_blocks] = n->blocks[n->nr_blocks - 1];
			n->blocks[n->nr_blocks - 1] = dst;
		} else {
			n->blocks[0] = dst;
			n->used = NAMES_BLOCK; /* no current block: the next name opens one */
		}
		n->nr_blocks++;
		memcpy(dst, s, len);
		return dst;
	}
	if (!n->nr_blocks || NAMES_BLOCK - n->used < len) {
		ALLOC_GROW(n->blocks, n->nr_blocks + 1, n->alloc_blocks);
		n->blocks[n->nr_blocks++] = xmalloc(NAMES_BLOCK);
		n->used = 0;
	}
	dst = n->blocks[n->nr_blocks - 1] + n->used;
	memcpy(dst, s, len);
	n->used += len;
	return dst;
}

/* ---- static data ---- */

void perphecy_static_init(struct perphecy_static *s)
{
	memset(s, 0, sizeof(*s));
	s->max_len_pct = NAN;
}

void perphecy_static_release(struct perphecy_static *s)
{
	if (!s)
		return;
	free(s->funcs);
	names_release(&s->names);
	perphecy_static_init(s);
}

int perphecy_static_add(struct perphecy_static *s, enum perphecy_change kind, const char *name,
			double len_pct)
{
	struct perphecy_changed_func *f;

	if (kind == PERPHECY_ADDED) {
		s->nr_added++;
		return RP_OK;
	}
	if (kind != PERPHECY_MODIFIED && kind != PERPHECY_DELETED) {
		error("perphecy: unknown kind of change %d", (int)kind);
		return RP_EINPUT;
	}
	if (!name || !*name) {
		error("perphecy: a %s function without a name",
		      kind == PERPHECY_DELETED ? "deleted" : "modified");
		return RP_EINPUT;
	}
	if (kind == PERPHECY_MODIFIED && !(fabs(len_pct) <= PERPHECY_MAX_VALUE)) {
		error("perphecy: modified function %s: length change %g%% is not a number of at "
		      "most %g",
		      name, len_pct, PERPHECY_MAX_VALUE);
		return RP_EINPUT;
	}
	ALLOC_GROW(s->funcs, s->nr_funcs + 1, s->alloc_funcs);
	f = &s->funcs[s->nr_funcs++];
	f->name = names_add(&s->names, name, strlen(name));
	f->deleted = kind == PERPHECY_DELETED;
	if (f->deleted) {
		f->len_pct = NAN;
		s->nr_deleted++;
	} else {
		f->len_pct = fabs(len_pct);
		if (isnan(s->max_len_pct) || f->len_pct > s->max_len_pct)
			s->max_len_pct = f->len_pct;
		s->nr_modified++;
	}
	return RP_OK;
}

int perphecy_static_set_startup(struct perphecy_static *s, const struct perphecy_startup *st)
{
	const double max = PERPHECY_MAX_VALUE;
	if ((double)st->relocs_i > max || (double)st->relocs_u > max ||
	    (double)st->imports_added > max || (double)st->imports_removed > max) {
		error("perphecy: start-up data with a count above %g", max);
		return RP_EINPUT;
	}
	s->startup = *st;
	return RP_OK;
}

double perphecy_len_change_pct(uint32_t old_insns, uint32_t new_insns)
{
	if (!old_insns)
		return new_insns ? 100.0 : 0.0;
	return 100.0 * fabs((double)new_insns - (double)old_insns) / (double)old_insns;
}

int perphecy_static_from_bindiff(const struct bindiff *d, struct perphecy_static *out)
{
	perphecy_static_init(out);
	for (size_t i = 0; i < d->nr_entries; i++) {
		const struct bindiff_entry *e = &d->entries[i];
		int ret = RP_OK;

		switch (e->cls) {
		case BINDIFF_ADDED: ret = perphecy_static_add(out, PERPHECY_ADDED, NULL, 0); break;
		case BINDIFF_DELETED:
			ret = perphecy_static_add(out, PERPHECY_DELETED, e->old_fn->name, NAN);
			break;
		case BINDIFF_MODIFIED:
			ret = perphecy_static_add(
			    out, PERPHECY_MODIFIED, e->old_fn->name,
			    perphecy_len_change_pct(e->old_fn->nr_insns, e->new_fn->nr_insns));
			break;
		case BINDIFF_RENAMED:
		case BINDIFF_UNCHANGED:
		case BINDIFF_NR_CLASSES: break;
		}
		if (ret) {
			perphecy_static_release(out);
			return ret;
		}
	}
	if (d->old_file && d->new_file && d->old_file->dynlink.dynamic &&
	    d->new_file->dynlink.dynamic) {
		struct perphecy_startup st = {true, d->old_file->dynlink.nr_relocs,
					      d->new_file->dynlink.nr_relocs, 0, 0};
		size_t added, removed;
		binfile_dynlink_compare(&d->old_file->dynlink, &d->new_file->dynlink, &added,
					&removed);
		st.imports_added = added;
		st.imports_removed = removed;
		/* counts of a file of at most 4 GiB: within range */
		perphecy_static_set_startup(out, &st);
	}
	return RP_OK;
}

/* ---- dynamic data ---- */

/* A word-at-a-time hash of a name of `len` bytes (names are hashed once per add or find). */
static uint64_t hash_name(const char *s, size_t len)
{
	uint64_t h = 0x9E3779B97F4A7C15ULL ^ (len * 0xff51afd7ed558ccdULL), k;
	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&k, s, 8);
		h ^= k * 0x87c37b91114253d5ULL;
		h = ((h << 31) | (h >> 33)) * 0x4cf5ad432745937fULL;
	}
	k = 0;
	memcpy(&k, s, len);
	h ^= k * 0x87c37b91114253d5ULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 29);
}

void perphecy_profile_init(struct perphecy_profile *p, const char *benchmark,
			   enum perphecy_cost cost_unit)
{
	memset(p, 0, sizeof(*p));
	p->benchmark = benchmark ? xstrdup(benchmark) : NULL;
	p->cost_unit = cost_unit;
}

void perphecy_profile_release(struct perphecy_profile *p)
{
	if (!p)
		return;
	free(p->benchmark);
	free(p->funcs);
	free(p->slots);
	names_release(&p->names);
	memset(p, 0, sizeof(*p));
}

static size_t find_slot(const struct perphecy_profile *p, const char *name, uint64_t h)
{
	size_t mask = p->nr_slots - 1, i = (size_t)h & mask;
	for (;; i = (i + 1) & mask) {
		uint32_t idx = p->slots[i];
		if (!idx)
			return i;
		const struct perphecy_func_dyn *f = &p->funcs[idx - 1];
		if (f->hash == h && !strcmp(f->name, name))
			return i;
	}
}

static void rehash(struct perphecy_profile *p, size_t nr_slots)
{
	free(p->slots);
	p->nr_slots = nr_slots;
	p->slots = xcalloc(nr_slots, sizeof(*p->slots));
	for (size_t k = 0; k < p->nr; k++) {
		size_t mask = nr_slots - 1, i = (size_t)p->funcs[k].hash & mask;
		while (p->slots[i])
			i = (i + 1) & mask;
		p->slots[i] = (uint32_t)(k + 1);
	}
}

void perphecy_profile_reserve(struct perphecy_profile *p, size_t nr)
{
	size_t slots = 64;
	if (nr > UINT32_MAX - 1)
		nr = UINT32_MAX - 1;
	ALLOC_GROW(p->funcs, nr, p->alloc);
	while (slots < 2 * nr)
		slots *= 2;
	if (slots > p->nr_slots)
		rehash(p, slots);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

int perphecy_profile_add(struct perphecy_profile *p, const char *name, uint64_t calls,
			 uint64_t cost)
{
	const char *bench = p->benchmark ? p->benchmark : "(unnamed)";
	struct perphecy_func_dyn *f;
	uint64_t h;
	size_t slot, len;

	if (!name || !*name) {
		error("perphecy: dynamic data of benchmark %s: a function without a name", bench);
		return RP_EINPUT;
	}
	if (!calls && !cost)
		return RP_OK;
	len = strlen(name);
	if (p->nr >= UINT32_MAX - 1) {
		error("perphecy: dynamic data of benchmark %s: more than %u functions", bench,
		      UINT32_MAX - 1);
		return RP_EINPUT;
	}
	/* Keep the load factor at most 1/2. */
	if (2 * (p->nr + 1) > p->nr_slots)
		rehash(p, p->nr_slots ? 2 * p->nr_slots : 64);
	h = hash_name(name, len);
	slot = find_slot(p, name, h);
	if (p->slots[slot]) {
		f = &p->funcs[p->slots[slot] - 1];
		f->calls = add_sat(f->calls, calls);
		f->cost = add_sat(f->cost, cost);
		return RP_OK;
	}
	ALLOC_GROW(p->funcs, p->nr + 1, p->alloc);
	f = &p->funcs[p->nr++];
	f->name = names_add(&p->names, name, len);
	f->calls = calls;
	f->cost = cost;
	f->hash = h;
	p->slots[slot] = (uint32_t)p->nr;
	return RP_OK;
}

const struct perphecy_func_dyn *perphecy_profile_find(const struct perphecy_profile *p,
						      const char *name)
{
	size_t slot;
	if (!p->nr)
		return NULL;
	slot = find_slot(p, name, hash_name(name, strlen(name)));
	return p->slots[slot] ? &p->funcs[p->slots[slot] - 1] : NULL;
}

/* ---- indicator values ---- */

/* What the changed functions that b reached look like, for the ranks. */
struct reached_changes {
	size_t deleted;	    /* reached deleted functions */
	bool any, any10;    /* a reached modified function (one changed by >= 10%) */
	uint64_t calls;	    /* the most calls among the reached modified functions */
	uint64_t calls10;   /* ... among those changed by >= 10% */
	uint64_t cost;	    /* the highest cost among the reached modified functions */
	uint64_t cost10;    /* ... among those changed by >= 10% */
	double max_len_pct; /* among the reached modified functions */
	double cost_len;    /* the sum of cost x length change (%) over them */
};

static void scan_changes(const struct perphecy_static *s, const struct perphecy_profile *p,
			 struct reached_changes *rc)
{
	memset(rc, 0, sizeof(*rc));
	rc->max_len_pct = NAN;
	for (size_t k = 0; k < s->nr_funcs; k++) {
		const struct perphecy_changed_func *c = &s->funcs[k];
		const struct perphecy_func_dyn *f = perphecy_profile_find(p, c->name);
		if (!f)
			continue;
		if (c->deleted) {
			rc->deleted++;
			continue;
		}
		if (!rc->any || f->calls > rc->calls)
			rc->calls = f->calls;
		if (!rc->any || f->cost > rc->cost)
			rc->cost = f->cost;
		if (!rc->any || c->len_pct > rc->max_len_pct)
			rc->max_len_pct = c->len_pct;
		rc->cost_len += (double)f->cost * c->len_pct;
		rc->any = true;
		if (c->len_pct >= 10.0) {
			if (!rc->any10 || f->calls > rc->calls10)
				rc->calls10 = f->calls;
			if (!rc->any10 || f->cost > rc->cost10)
				rc->cost10 = f->cost;
			rc->any10 = true;
		}
	}
}

/*
 * The start-up values (docs/prediction.md, "Start-up work"): the changes of the imports
 * and of the dynamic relocations, absolute and per 10^6 instructions of b at i.
 */
static void compute_startup(const struct perphecy_startup *st, const struct perphecy_profile *p,
			    struct perphecy_values *out)
{
	double imports, relocs, minstr = 0;

	if (!st->known)
		return;
	imports = (double)st->imports_added + (double)st->imports_removed;
	relocs = fabs((double)st->relocs_u - (double)st->relocs_i);
	out->v[PERPHECY_CHG_IMPORTS] = fmin(imports, PERPHECY_MAX_VALUE);
	out->v[PERPHECY_CHG_DYN_RELOCS] =
	    st->relocs_i ? fmin(100.0 * relocs / (double)st->relocs_i, PERPHECY_MAX_VALUE)
			 : (st->relocs_u ? 100.0 : 0.0);
	if (!p || p->cost_unit != PERPHECY_COST_INSTRUCTIONS)
		return;
	for (size_t k = 0; k < p->nr; k++)
		minstr += (double)p->funcs[k].cost;
	minstr /= 1e6;
	if (!(minstr > 0))
		return;
	out->v[PERPHECY_CHG_IMPORTS_PER_MINSTR] = fmin(imports / minstr, PERPHECY_MAX_VALUE);
	out->v[PERPHECY_CHG_DYN_RELOCS_PER_MINSTR] = fmin(relocs / minstr, PERPHECY_MAX_VALUE);
}

void perphecy_compute(const struct perphecy_static *s, const struct perphecy_profile *p,
		      struct perphecy_values *out)
{
	struct reached_changes rc;
	size_t above_calls = 0, above_calls10 = 0, above_cost = 0, above_cost10 = 0;
	size_t with_calls = 0, with_cost = 0;
	double n, total_cost = 0;

	for (int t = 0; t < PERPHECY_NR_TEMPLATES; t++)
		out->v[t] = NAN;
	out->v[PERPHECY_DEL_FUNC] = (double)s->nr_deleted;
	out->v[PERPHECY_NEW_FUNC] = (double)s->nr_added;
	out->v[PERPHECY_TOP_CHG_LEN] = s->max_len_pct;
	compute_startup(&s->startup, p, out);
	if (!p)
		return;

	scan_changes(s, p, &rc);
	out->v[PERPHECY_REACHED_DEL_FUNC] = (double)rc.deleted;
	out->v[PERPHECY_TOP_REACHED_CHG_LEN] = rc.max_len_pct;
	if (!rc.any)
		return;
	/*
	 * Rank of the best-ranked changed function = 1 + the reached functions with strictly
	 * more calls (ties share the best rank), so one pass over the profile, no sort.
	 */
	for (size_t k = 0; k < p->nr; k++) {
		const struct perphecy_func_dyn *f = &p->funcs[k];
		above_calls += f->calls > rc.calls;
		above_calls10 += f->calls > rc.calls10;
		above_cost += f->cost > rc.cost;
		above_cost10 += f->cost > rc.cost10;
		with_calls += f->calls > 0;
		with_cost += f->cost > 0;
		total_cost += (double)f->cost;
	}
	n = (double)p->nr;
	/*
	 * A profile without calls (sampled trees, folded stacks) ranks the call templates by
	 * self cost instead: the most-run functions stand in for the most-called ones. A
	 * profile with neither cannot rank.
	 */
	if (with_calls) {
		out->v[PERPHECY_TOP_CHG_BY_CALL] = 100.0 * (double)(above_calls + 1) / n;
		if (rc.any10)
			out->v[PERPHECY_TOP_CALL_CHG_10] = 100.0 * (double)(above_calls10 + 1) / n;
	} else if (with_cost) {
		out->v[PERPHECY_TOP_CHG_BY_CALL] = 100.0 * (double)(above_cost + 1) / n;
		if (rc.any10)
			out->v[PERPHECY_TOP_CALL_CHG_10] = 100.0 * (double)(above_cost10 + 1) / n;
	}
	if (with_cost) {
		out->v[PERPHECY_TOP_CHG_BY_INSTR] = 100.0 * (double)(above_cost + 1) / n;
		/* parts per million of b's cost: 10^6 x cost share x length change / 100 */
		out->v[PERPHECY_EST_COST_CHG] =
		    fmin(1e4 * rc.cost_len / total_cost, PERPHECY_MAX_VALUE);
	}
}

/* ---- indicators and predictors ---- */

bool perphecy_indicator_fires(const struct perphecy_indicator *ind, const struct perphecy_values *v)
{
	double x = v->v[ind->tmpl], t = (double)ind->threshold;
	if (isnan(x))
		return false;
	return templates[ind->tmpl].dir == PERPHECY_AT_LEAST ? x >= t : x <= t;
}

void perphecy_indicator_format(const struct perphecy_indicator *ind, struct strbuf *out)
{
	int64_t x = ind->threshold;
	switch (ind->tmpl) {
	case PERPHECY_DEL_FUNC:
	case PERPHECY_NEW_FUNC:
	case PERPHECY_REACHED_DEL_FUNC:
		strbuf_addf(out, "%s >= %" PRId64, templates[ind->tmpl].label, x);
		break;
	case PERPHECY_TOP_CHG_BY_CALL:
	case PERPHECY_TOP_CHG_BY_INSTR:
		strbuf_addf(out, "%s %" PRId64 "%%", templates[ind->tmpl].label, x);
		break;
	case PERPHECY_TOP_CALL_CHG_10:
		strbuf_addf(out, "Top %" PRId64 "%% by Call Chg by >= 10%%", x);
		break;
	case PERPHECY_TOP_CHG_LEN:
	case PERPHECY_TOP_REACHED_CHG_LEN:
	case PERPHECY_CHG_DYN_RELOCS:
		strbuf_addf(out, "%s >= %" PRId64 "%%", templates[ind->tmpl].label, x);
		break;
	case PERPHECY_CHG_IMPORTS:
	case PERPHECY_CHG_IMPORTS_PER_MINSTR:
	case PERPHECY_CHG_DYN_RELOCS_PER_MINSTR:
		strbuf_addf(out, "%s >= %" PRId64, templates[ind->tmpl].label, x);
		break;
	case PERPHECY_EST_COST_CHG:
		strbuf_addf(out, "%s >= %" PRId64 " ppm", templates[ind->tmpl].label, x);
		break;
	case PERPHECY_NR_TEMPLATES: strbuf_addstr(out, "?"); break;
	}
}

void perphecy_predictor_init(struct perphecy_predictor *p)
{
	memset(p, 0, sizeof(*p));
}

int perphecy_predictor_add(struct perphecy_predictor *p, enum perphecy_template t,
			   int64_t threshold)
{
	int64_t max;

	if (!template_valid((int)t)) {
		error("perphecy: unknown indicator template %d", (int)t);
		return RP_EINPUT;
	}
	max = templates[t].dir == PERPHECY_AT_MOST ? 100 : (int64_t)PERPHECY_MAX_VALUE;
	if (threshold < 0 || threshold > max) {
		error("perphecy: %s: threshold %" PRId64 " is outside [0, %" PRId64 "]",
		      templates[t].label, threshold, max);
		return RP_EINPUT;
	}
	for (size_t k = 0; k < p->nr; k++) {
		struct perphecy_indicator *ind = &p->ind[k];
		if (ind->tmpl != t)
			continue;
		/* The disjunction of two thresholds of one template is the less selective one. */
		if (templates[t].dir == PERPHECY_AT_LEAST ? threshold < ind->threshold
							  : threshold > ind->threshold)
			ind->threshold = threshold;
		return RP_OK;
	}
	p->ind[p->nr].tmpl = t;
	p->ind[p->nr].threshold = threshold;
	p->nr++;
	return RP_OK;
}

bool perphecy_predict(const struct perphecy_predictor *p, const struct perphecy_values *v,
		      size_t *fired)
{
	for (size_t k = 0; k < p->nr; k++) {
		if (perphecy_indicator_fires(&p->ind[k], v)) {
			if (fired)
				*fired = k;
			return true;
		}
	}
	return false;
}
