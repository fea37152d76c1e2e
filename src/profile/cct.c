#include "profile/cct.h"

#include <stdio.h>
#include <string.h>

#include "util/common.h"

#define ROOT_NAME "[root]"

static uint64_t hash_bytes(const char *s, size_t len)
{
	/* FNV-1a: names are short, and this is not exposed to adversarial inputs of note. */
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static uint64_t hash_child(uint32_t parent, uint32_t name, uint32_t site)
{
	uint64_t h = ((uint64_t)parent << 32 | name) * 0x9e3779b97f4a7c15ull;
	h ^= (uint64_t)site * 0xc2b2ae3d27d4eb4full;
	return h ^ (h >> 29);
}

static size_t name_slot(const struct cct *t, const char *name, size_t len)
{
	size_t mask = t->name_table_size - 1;
	size_t i = (size_t)hash_bytes(name, len) & mask;
	for (;;) {
		uint32_t v = t->name_table[i];
		if (!v)
			return i;
		const char *s = t->names[v - 1];
		if (strncmp(s, name, len) == 0 && s[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
}

static void name_table_grow(struct cct *t)
{
	uint32_t *old = t->name_table;
	size_t old_size = t->name_table_size;
	t->name_table_size = old_size ? old_size * 2 : 64;
	t->name_table = xcalloc(t->name_table_size, sizeof(*t->name_table));
	for (size_t i = 0; i < old_size; i++) {
		if (!old[i])
			continue;
		const char *s = t->names[old[i] - 1];
		t->name_table[name_slot(t, s, strlen(s))] = old[i];
	}
	free(old);
}

static size_t child_slot(const struct cct *t, uint32_t parent, uint32_t name, uint32_t site)
{
	size_t mask = t->child_table_size - 1;
	size_t i = (size_t)hash_child(parent, name, site) & mask;
	for (;;) {
		uint32_t v = t->child_table[i];
		if (!v)
			return i;
		const struct cct_node *n = &t->nodes[v - 1];
		if (n->parent == parent && n->name == name && n->site == site)
			return i;
		i = (i + 1) & mask;
	}
}

static void child_table_grow(struct cct *t)
{
	free(t->child_table);
	t->child_table_size = t->child_table_size ? t->child_table_size * 2 : 256;
	t->child_table = xcalloc(t->child_table_size, sizeof(*t->child_table));
	for (size_t i = 1; i < t->nr_nodes; i++) {
		const struct cct_node *n = &t->nodes[i];
		t->child_table[child_slot(t, n->parent, n->name, n->site)] = (uint32_t)i + 1;
	}
}

static uint32_t node_append(struct cct *t, uint32_t parent, uint32_t name, uint32_t site)
{
	ALLOC_GROW(t->nodes, t->nr_nodes + 1, t->alloc_nodes);
	uint32_t idx = (uint32_t)t->nr_nodes++;
	struct cct_node *n = &t->nodes[idx];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->site = site;
	n->parent = parent;
	n->first_child = n->last_child = n->next_sibling = CCT_NONE;
	if (parent != CCT_NONE) {
		struct cct_node *p = &t->nodes[parent];
		n->rank = p->nr_children++;
		if (p->last_child == CCT_NONE)
			p->first_child = idx;
		else
			t->nodes[p->last_child].next_sibling = idx;
		p->last_child = idx;
	}
	return idx;
}

void cct_init(struct cct *t)
{
	memset(t, 0, sizeof(*t));
	t->nr_runs = 1;
	name_table_grow(t);
	child_table_grow(t);
	node_append(t, CCT_NONE, cct_intern(t, ROOT_NAME), 0);
}

void cct_release(struct cct *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr_names; i++)
		free(t->names[i]);
	free(t->names);
	free(t->name_table);
	free(t->child_table);
	free(t->nodes);
	free(t->sd);
	memset(t, 0, sizeof(*t));
}

uint32_t cct_intern_len(struct cct *t, const char *name, size_t len)
{
	size_t slot = name_slot(t, name, len);
	if (t->name_table[slot])
		return t->name_table[slot] - 1;
	ALLOC_GROW(t->names, t->nr_names + 1, t->alloc_names);
	t->names[t->nr_names] = xstrndup(name, len);
	uint32_t id = (uint32_t)t->nr_names++;
	t->name_table[slot] = id + 1;
	/* Keep the load at most 1/2 so that probes stay short. */
	if (t->nr_names * 2 > t->name_table_size)
		name_table_grow(t);
	return id;
}

uint32_t cct_intern(struct cct *t, const char *name)
{
	return cct_intern_len(t, name, strlen(name));
}

uint32_t cct_name_find(const struct cct *t, const char *name)
{
	uint32_t v = t->name_table[name_slot(t, name, strlen(name))];
	return v ? v - 1 : CCT_NONE;
}

const char *cct_name(const struct cct *t, uint32_t name)
{
	return name < t->nr_names ? t->names[name] : "?";
}

uint32_t cct_child_find(const struct cct *t, uint32_t parent, uint32_t name, uint32_t site)
{
	uint32_t v = t->child_table[child_slot(t, parent, name, site)];
	return v ? v - 1 : CCT_NONE;
}

uint32_t cct_child(struct cct *t, uint32_t parent, uint32_t name, uint32_t site)
{
	size_t slot = child_slot(t, parent, name, site);
	if (t->child_table[slot])
		return t->child_table[slot] - 1;
	if (t->nr_nodes >= CCT_MAX_NODES) {
		error("calling context tree: more than %u nodes; profile a smaller run",
		      (unsigned)CCT_MAX_NODES);
		return CCT_NONE;
	}
	uint32_t idx = node_append(t, parent, name, site);
	t->child_table[slot] = idx + 1;
	if (t->nr_nodes * 2 > t->child_table_size)
		child_table_grow(t);
	return idx;
}

void cct_set_weight(struct cct *t, enum cct_weight weight, const char *event)
{
	t->weight = weight;
	snprintf(t->weight_event, sizeof(t->weight_event), "%s",
		 weight == CCT_WEIGHT_EVENT && event ? event : "");
}

void cct_copy_weight(struct cct *dst, const struct cct *src)
{
	cct_set_weight(dst, src->weight, src->weight_event);
	dst->calls_known = src->calls_known;
}

bool cct_same_weight(const struct cct *a, const struct cct *b)
{
	return a->weight == b->weight && !strcmp(a->weight_event, b->weight_event);
}

const char *cct_weight_name(enum cct_weight w)
{
	switch (w) {
	case CCT_WEIGHT_ELAPSED_NS: return "elapsed ns";
	case CCT_WEIGHT_CPU_NS: return "on-CPU ns";
	case CCT_WEIGHT_WAIT_NS: return "off-CPU (waiting) ns";
	case CCT_WEIGHT_CALLS: return "calls";
	case CCT_WEIGHT_EVENT: return "event ";
	case CCT_WEIGHT_UNKNOWN: break;
	}
	return "unnamed weight";
}

void cct_compute_inclusive(struct cct *t)
{
	for (size_t i = 0; i < t->nr_nodes; i++)
		t->nodes[i].incl = t->nodes[i].excl;
	/* Children have larger indices than their parents: one backward pass suffices. */
	for (size_t i = t->nr_nodes; i-- > 1;)
		t->nodes[t->nodes[i].parent].incl += t->nodes[i].incl;
}

double cct_total(const struct cct *t)
{
	return t->nr_nodes ? t->nodes[CCT_ROOT].incl : 0.0;
}

void cct_path(const struct cct *t, uint32_t node, struct strbuf *sb)
{
	uint32_t stack_buf[64];
	uint32_t *stack = stack_buf;
	size_t nr = 0, alloc = ARRAY_SIZE(stack_buf);

	for (uint32_t n = node; n != CCT_NONE && n != CCT_ROOT; n = t->nodes[n].parent) {
		if (nr == alloc) {
			size_t new_alloc = alloc * 2;
			uint32_t *grown = xmallocarray(new_alloc, sizeof(*grown));
			memcpy(grown, stack, nr * sizeof(*grown));
			if (stack != stack_buf)
				free(stack);
			stack = grown;
			alloc = new_alloc;
		}
		stack[nr++] = n;
	}
	for (size_t i = nr; i-- > 0;) {
		const struct cct_node *n = &t->nodes[stack[i]];
		strbuf_addstr(sb, cct_name(t, n->name));
		if (n->site)
			strbuf_addf(sb, "#%u", (unsigned)n->site);
		if (i)
			strbuf_addch(sb, ';');
	}
	if (stack != stack_buf)
		free(stack);
}

void cct_plain(const struct cct *in, struct cct *out)
{
	uint32_t *map = xmallocarray(in->nr_nodes, sizeof(*map));

	cct_init(out);
	out->nr_runs = in->nr_runs;
	cct_copy_weight(out, in);
	map[CCT_ROOT] = CCT_ROOT;
	out->nodes[CCT_ROOT].calls = in->nodes[CCT_ROOT].calls;
	out->nodes[CCT_ROOT].excl = in->nodes[CCT_ROOT].excl;
	for (size_t i = 1; i < in->nr_nodes; i++) {
		const struct cct_node *n = &in->nodes[i];
		uint32_t name = cct_intern(out, cct_name(in, n->name));
		/* The output never has more nodes than the input, so this cannot fail. */
		uint32_t o = cct_child(out, map[n->parent], name, 0);
		map[i] = o;
		out->nodes[o].calls += n->calls;
		out->nodes[o].excl += n->excl;
	}
	cct_compute_inclusive(out);
	free(map);
}

/* Node indices of `arg` (a tree) by name, then call site. */
static int by_name_site(const void *pa, const void *pb, void *arg)
{
	const struct cct *t = arg;
	const struct cct_node *a = &t->nodes[*(const uint32_t *)pa];
	const struct cct_node *b = &t->nodes[*(const uint32_t *)pb];
	int c = strcmp(cct_name(t, a->name), cct_name(t, b->name));
	if (c)
		return c;
	return a->site < b->site ? -1 : a->site > b->site;
}

void cct_sort_children(const struct cct *in, struct cct *out)
{
	uint32_t *map = xmallocarray(in->nr_nodes, sizeof(*map));
	uint32_t *queue = xmallocarray(in->nr_nodes, sizeof(*queue));
	uint32_t *kids = NULL;
	size_t alloc_kids = 0, head = 0, tail = 0;

	cct_init(out);
	cct_copy_weight(out, in);
	out->nr_runs = in->nr_runs;
	if (in->sd)
		out->sd = xcalloc(in->nr_nodes, sizeof(*out->sd));
	map[CCT_ROOT] = CCT_ROOT;
	queue[tail++] = CCT_ROOT;
	/* Breadth first: a node's children are created together, in order, after it. */
	while (head < tail) {
		uint32_t u = queue[head++];
		size_t nr = 0;
		for (uint32_t c = in->nodes[u].first_child; c != CCT_NONE;
		     c = in->nodes[c].next_sibling) {
			ALLOC_GROW(kids, nr + 1, alloc_kids);
			kids[nr++] = c;
		}
		if (nr > 1)
			qsort_r(kids, nr, sizeof(*kids), by_name_site, (void *)in);
		for (size_t k = 0; k < nr; k++) {
			const struct cct_node *n = &in->nodes[kids[k]];
			/* The output has as many nodes as the input, so this cannot fail. */
			map[kids[k]] =
			    cct_child(out, map[u], cct_intern(out, cct_name(in, n->name)), n->site);
			queue[tail++] = kids[k];
		}
	}
	for (size_t i = 0; i < in->nr_nodes; i++) {
		struct cct_node *o = &out->nodes[map[i]];
		o->calls = in->nodes[i].calls;
		o->incl = in->nodes[i].incl;
		o->excl = in->nodes[i].excl;
		if (in->sd)
			out->sd[map[i]] = in->sd[i];
	}
	free(kids);
	free(queue);
	free(map);
}
