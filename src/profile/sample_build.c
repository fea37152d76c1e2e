/*
 * A sampled profile from the recorder's raw file (profile/sample_build.h): replays the
 * kernel's records in time order, collects each sample's stack into a tree of addresses
 * per thread, and names that tree once at the end (docs/sampling.md).
 */
#include "profile/sample_build.h"

#include <inttypes.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>

#include "profile/sample_impl.h"
#include "util/strmap.h"
#include "util/common.h"

/* Frames kept per sample (the kernel's chains stop at perf_event_max_stack, 127). */
#define MAX_FRAMES 512
#define NO_MODULE UINT32_MAX
#define NO_INDEX UINT32_MAX

/* ---- a small map of 32-bit ids (pids, tids) to indices --------------------------------- */

struct idmap {
	uint64_t *slots; /* (id + 1) << 32 | index; 0 = empty */
	size_t size, used;
};

static uint32_t idmap_get(const struct idmap *m, uint32_t id)
{
	if (!m->size)
		return NO_INDEX;
	for (size_t i = (id * UINT64_C(0x9e3779b97f4a7c15)) >> 40 & (m->size - 1);;
	     i = (i + 1) & (m->size - 1)) {
		if (!m->slots[i])
			return NO_INDEX;
		if ((m->slots[i] >> 32) == (uint64_t)id + 1)
			return (uint32_t)m->slots[i];
	}
}

static void idmap_set(struct idmap *m, uint32_t id, uint32_t index)
{
	if ((m->used + 1) * 2 > m->size) {
		struct idmap n = {.size = m->size ? m->size * 2 : 64};
		n.slots = xcalloc(n.size, sizeof(*n.slots));
		for (size_t i = 0; i < m->size; i++)
			if (m->slots[i])
				idmap_set(&n, (uint32_t)((m->slots[i] >> 32) - 1),
					  (uint32_t)m->slots[i]);
		free(m->slots);
		*m = n;
	}
	for (size_t i = (id * UINT64_C(0x9e3779b97f4a7c15)) >> 40 & (m->size - 1);;
	     i = (i + 1) & (m->size - 1)) {
		if (!m->slots[i] || (m->slots[i] >> 32) == (uint64_t)id + 1) {
			if (!m->slots[i])
				m->used++;
			m->slots[i] = ((uint64_t)id + 1) << 32 | index;
			return;
		}
	}
}

/* ---- the state of the replay --------------------------------------------------------- */

struct proc {
	uint32_t pid;
	struct sample_image *img;
	char comm[32];
	char *exe; /* the first file mapped after its exec: the program */
	uint64_t samples;
};

struct thr {
	uint32_t pid, tid;
	char comm[32];
	uint64_t samples;
	double weight;
	uint32_t root; /* its node in the address tree */
};

/* A node of the address tree: (module, ELF address looked up) under its parent. */
struct anode {
	uint32_t parent, module;
	uint64_t addr;
	uint64_t samples;
	double weight;
};

/* How a module's frames were found. */
enum frame_source { FROM_CHAIN, FROM_CFI, FROM_NOCFI, NR_SOURCES };

struct module {
	char *path;
	uint64_t frames[NR_SOURCES];
};

struct build {
	const struct sample_raw *raw;
	struct symbolizer *sym;
	struct sample_unwinder *unwinder;
	struct proc *procs;
	size_t nr_procs, alloc_procs;
	struct idmap proc_of; /* pid -> procs index */
	struct thr *thrs;
	size_t nr_thrs, alloc_thrs;
	struct idmap thr_of; /* tid -> thrs index */
	struct anode *nodes;
	size_t nr_nodes, alloc_nodes;
	uint32_t *node_table; /* open addressing: node index + 1 */
	size_t node_table_size;
	struct module *modules;
	size_t nr_modules, alloc_modules;
	struct strmap module_of;
	struct sample_profile *out;
	uint64_t pcs[MAX_FRAMES]; /* the sample being added */
	bool is_return[MAX_FRAMES];
	bool from_chain[MAX_FRAMES];
};

static struct sample_image *image_new(void)
{
	struct sample_image *img = xcalloc(1, sizeof(*img));
	proc_maps_init(&img->maps);
	img->refs = 1;
	return img;
}

static void image_put(struct sample_image *img)
{
	if (!img || --img->refs)
		return;
	sample_unwind_image_release(img);
	proc_maps_release(&img->maps);
	free(img->map_module);
	free(img->map_vaddr);
	free(img);
}

static struct proc *proc_get(struct build *b, uint32_t pid)
{
	uint32_t i = idmap_get(&b->proc_of, pid);

	if (i != NO_INDEX)
		return &b->procs[i];
	ALLOC_GROW(b->procs, b->nr_procs + 1, b->alloc_procs);
	memset(&b->procs[b->nr_procs], 0, sizeof(*b->procs));
	b->procs[b->nr_procs].pid = pid;
	b->procs[b->nr_procs].img = image_new();
	idmap_set(&b->proc_of, pid, (uint32_t)b->nr_procs);
	return &b->procs[b->nr_procs++];
}

static uint32_t anode_hash(const struct build *b, uint32_t parent, uint32_t module, uint64_t addr)
{
	uint64_t h = ((uint64_t)parent << 32 | module) * UINT64_C(0x9e3779b97f4a7c15) ^ addr;
	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	return (uint32_t)((h ^ (h >> 32)) & (b->node_table_size - 1));
}

static uint32_t anode_child(struct build *b, uint32_t parent, uint32_t module, uint64_t addr)
{
	size_t i;

	if ((b->nr_nodes + 1) * 2 > b->node_table_size) {
		free(b->node_table);
		b->node_table_size = b->node_table_size ? b->node_table_size * 2 : 1024;
		b->node_table = xcalloc(b->node_table_size, sizeof(*b->node_table));
		for (uint32_t n = 0; n < b->nr_nodes; n++) {
			const struct anode *a = &b->nodes[n];
			if (a->parent == NO_INDEX)
				continue; /* thread roots are not looked up */
			for (i = anode_hash(b, a->parent, a->module, a->addr); b->node_table[i];
			     i = (i + 1) & (b->node_table_size - 1))
				;
			b->node_table[i] = n + 1;
		}
	}
	for (i = anode_hash(b, parent, module, addr); b->node_table[i];
	     i = (i + 1) & (b->node_table_size - 1)) {
		const struct anode *a = &b->nodes[b->node_table[i] - 1];
		if (a->parent == parent && a->module == module && a->addr == addr)
			return b->node_table[i] - 1;
	}
	ALLOC_GROW(b->nodes, b->nr_nodes + 1, b->alloc_nodes);
	memset(&b->nodes[b->nr_nodes], 0, sizeof(*b->nodes));
	b->nodes[b->nr_nodes].parent = parent;
	b->nodes[b->nr_nodes].module = module;
	b->nodes[b->nr_nodes].addr = addr;
	b->node_table[i] = (uint32_t)b->nr_nodes + 1;
	return (uint32_t)b->nr_nodes++;
}

static struct thr *thr_new(struct build *b, uint32_t pid, uint32_t tid, const char *comm)
{
	struct thr *t;

	ALLOC_GROW(b->thrs, b->nr_thrs + 1, b->alloc_thrs);
	t = &b->thrs[b->nr_thrs];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	snprintf(t->comm, sizeof(t->comm), "%s", comm && *comm ? comm : "?");
	ALLOC_GROW(b->nodes, b->nr_nodes + 1, b->alloc_nodes);
	memset(&b->nodes[b->nr_nodes], 0, sizeof(*b->nodes));
	b->nodes[b->nr_nodes].parent = NO_INDEX;
	b->nodes[b->nr_nodes].module = NO_MODULE;
	t->root = (uint32_t)b->nr_nodes++;
	idmap_set(&b->thr_of, tid, (uint32_t)b->nr_thrs);
	return &b->thrs[b->nr_thrs++];
}

static struct thr *thr_get(struct build *b, uint32_t pid, uint32_t tid)
{
	uint32_t i = idmap_get(&b->thr_of, tid);

	if (i != NO_INDEX && b->thrs[i].pid == pid)
		return &b->thrs[i];
	return thr_new(b, pid, tid, proc_get(b, pid)->comm);
}

static uint32_t module_id(struct build *b, const char *path)
{
	size_t *v = strmap_get(&b->module_of, path);

	if (v)
		return (uint32_t)*v;
	ALLOC_GROW(b->modules, b->nr_modules + 1, b->alloc_modules);
	memset(&b->modules[b->nr_modules], 0, sizeof(*b->modules));
	b->modules[b->nr_modules].path = xstrdup(path);
	strmap_put(&b->module_of, path, b->nr_modules, NULL);
	return (uint32_t)b->nr_modules++;
}

/* ---- the records ----------------------------------------------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* The NUL-terminated string in [p, p + n), copied into buf. */
static void copy_name(char *buf, size_t size, const unsigned char *p, size_t n)
{
	size_t len = strnlen((const char *)p, n);
	snprintf(buf, size, "%.*s", (int)len, (const char *)p);
}

static void on_comm(struct build *b, const struct sample_raw_rec *rec, uint16_t misc)
{
	size_t len;
	const unsigned char *d = sample_raw_body(b->raw, rec, &len);
	struct proc *p;
	uint32_t ti;

	if (len < 8 + 16)
		return;
	p = proc_get(b, rd32(d));
	copy_name(p->comm, sizeof(p->comm), d + 8, len - 8 - 16);
	if (misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* A new program: the old mappings are gone. */
		image_put(p->img);
		p->img = image_new();
		free(p->exe);
		p->exe = NULL;
	}
	ti = idmap_get(&b->thr_of, rd32(d + 4));
	if (ti != NO_INDEX && b->thrs[ti].pid == p->pid)
		snprintf(b->thrs[ti].comm, sizeof(b->thrs[ti].comm), "%s", p->comm);
	else
		thr_new(b, p->pid, rd32(d + 4), p->comm);
}

static void on_mmap2(struct build *b, const struct sample_raw_rec *rec)
{
	static const char deleted[] = " (deleted)";
	size_t len, n, dn = sizeof(deleted) - 1;
	const unsigned char *d = sample_raw_body(b->raw, rec, &len);
	struct proc_map map;
	struct proc *p;
	char path[4096];

	if (len < 64 + 16)
		return;
	memset(&map, 0, sizeof(map));
	map.start = rd64(d + 8);
	map.end = map.start + rd64(d + 16);
	map.offset = rd64(d + 24);
	map.inode = rd64(d + 40);
	memcpy(map.perms, "r-xp", 5);
	copy_name(path, sizeof(path), d + 64, len - 64 - 16);
	n = strlen(path);
	if (n > dn && !strcmp(path + n - dn, deleted)) {
		path[n - dn] = '\0';
		map.deleted = true;
	}
	map.path = path[0] ? path : NULL;
	if (map.end <= map.start)
		return;
	p = proc_get(b, rd32(d));
	if (!p->exe && map.path && map.path[0] == '/')
		p->exe = xstrdup(map.path);
	if (p->img->refs > 1) {
		/* Shared since a fork: the child's own from now on. */
		struct sample_image *own = image_new();
		proc_maps_copy(&own->maps, &p->img->maps);
		image_put(p->img);
		p->img = own;
	}
	proc_maps_replace(&p->img->maps, &map);
	p->img->generation++;
}

static void on_fork(struct build *b, const struct sample_raw_rec *rec)
{
	size_t len;
	const unsigned char *d = sample_raw_body(b->raw, rec, &len);
	uint32_t pid, ppid, tid;
	struct proc *parent;

	if (len < 16)
		return;
	pid = rd32(d);
	ppid = rd32(d + 4);
	tid = rd32(d + 8);
	parent = proc_get(b, ppid);
	if (pid != ppid) {
		/* A new process: the parent's mappings, shared until it maps its own. */
		struct proc *child;
		char comm[32];
		snprintf(comm, sizeof(comm), "%s", parent->comm);
		child = proc_get(b, pid); /* may move parent */
		parent = proc_get(b, ppid);
		image_put(child->img);
		child->img = parent->img;
		child->img->refs++;
		snprintf(child->comm, sizeof(child->comm), "%s", comm);
		free(child->exe);
		child->exe = parent->exe ? xstrdup(parent->exe) : NULL;
	}
	thr_new(b, pid, tid, proc_get(b, pid)->comm);
}

/* The module id and ELF address of run-time address addr in img (NO_MODULE when in no file). */
static uint32_t place(struct build *b, struct sample_image *img, uint64_t addr, uint64_t *vaddr)
{
	const struct proc_map *m = proc_maps_find(&img->maps, addr);
	size_t i;

	*vaddr = 0;
	if (!m || !m->path)
		return NO_MODULE;
	if (img->cache_generation != img->generation || img->cache_alloc < img->maps.nr) {
		if (img->cache_alloc < img->maps.nr) {
			img->cache_alloc = img->maps.nr;
			img->map_module =
			    xrealloc(img->map_module, img->cache_alloc * sizeof(*img->map_module));
			img->map_vaddr =
			    xrealloc(img->map_vaddr, img->cache_alloc * sizeof(*img->map_vaddr));
		}
		for (i = 0; i < img->maps.nr; i++)
			img->map_module[i] = NO_INDEX;
		img->cache_generation = img->generation;
	}
	i = (size_t)(m - img->maps.maps);
	if (img->map_module[i] == NO_INDEX) {
		uint64_t bias;
		img->map_module[i] = module_id(b, m->path);
		/* Without the file (deleted, [vdso]), addresses are offsets in the mapping. */
		if (m->path[0] == '/' && !m->deleted &&
		    !symbolizer_map_bias(b->sym, m->path, m->start, m->offset, &bias))
			img->map_vaddr[i] = m->start - bias;
		else
			img->map_vaddr[i] = m->path[0] == '/' ? m->offset : 0;
	}
	*vaddr = addr - m->start + img->map_vaddr[i];
	return img->map_module[i];
}

/* The user part of the kernel's chain into pcs (innermost first). */
static size_t chain_frames(const struct sample_raw_sample *s, uint64_t *pcs, bool *is_return,
			   bool *from_chain)
{
	size_t n = 0;

	for (uint64_t i = 0; i < s->nr_chain && n < MAX_FRAMES; i++) {
		if (s->chain[i] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;
		pcs[n] = s->chain[i];
		is_return[n] = n > 0;
		from_chain[n] = true;
		n++;
	}
	if (!n) {
		pcs[0] = s->ip;
		is_return[0] = false;
		from_chain[0] = true;
		n = 1;
	}
	return n;
}

static void on_sample(struct build *b, const struct sample_raw_rec *rec)
{
	uint64_t *pcs = b->pcs;
	bool *is_return = b->is_return;
	struct sample_raw_sample s;
	struct sample_unwind_note note = {0};
	struct proc *p;
	struct thr *t;
	size_t n = 0;
	uint32_t node;

	if (sample_raw_sample(b->raw, rec, &s))
		return;
	p = proc_get(b, s.pid);
	t = thr_get(b, s.pid, s.tid);
	if (s.stack_size)
		n = sample_unwind(b->unwinder, p->img, &s, b->raw->h.regs_mask, pcs, is_return,
				  b->from_chain, MAX_FRAMES, &note);
	if (!n)
		n = chain_frames(&s, pcs, is_return, b->from_chain);
	/* In fp mode the copy is short on purpose: the chain goes on where it ends. */
	b->out->truncated +=
	    note.truncated && !note.spliced && b->raw->h.callgraph == PERF_SAMPLE_CALLGRAPH_DWARF;
	b->out->spliced += note.spliced;
	node = t->root;
	while (n-- > 0) {
		uint64_t vaddr;
		uint32_t mod = place(b, p->img, pcs[n] - (is_return[n] ? 1 : 0), &vaddr);
		if (mod != NO_MODULE) {
			enum frame_source src = FROM_CHAIN;
			if (!b->from_chain[n])
				src =
				    sample_unwind_module_cfi(b->unwinder, b->modules[mod].path) == 1
					? FROM_CFI
					: FROM_NOCFI;
			b->modules[mod].frames[src]++;
		}
		node = anode_child(b, node, mod, vaddr);
	}
	b->nodes[node].samples++;
	b->nodes[node].weight += (double)s.period;
	p->samples++;
	t->samples++;
	t->weight += (double)s.period;
	b->out->samples++;
}

static void replay(struct build *b)
{
	for (size_t i = 0; i < b->raw->nr_recs; i++) {
		const struct sample_raw_rec *rec = &b->raw->recs[i];
		const struct perf_event_header *eh =
		    (const struct perf_event_header *)(b->raw->data + rec->offset);
		size_t len;
		const unsigned char *d = sample_raw_body(b->raw, rec, &len);

		switch (rec->type) {
		case PERF_RECORD_SAMPLE: on_sample(b, rec); break;
		case PERF_RECORD_MMAP2: on_mmap2(b, rec); break;
		case PERF_RECORD_COMM: on_comm(b, rec, eh->misc); break;
		case PERF_RECORD_FORK: on_fork(b, rec); break;
		case PERF_RECORD_LOST:
			if (len >= 16)
				b->out->lost += rd64(d + 8);
			break;
		case PERF_RECORD_THROTTLE: b->out->throttled++; break;
		default: break;
		}
	}
}

/* ---- naming ------------------------------------------------------------------------- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

/* A frame's name as the stack line holds it: no ';' (the separator), no line breaks. */
static void add_frame(struct strbuf *sb, const char *name)
{
	if (sb->len)
		strbuf_addch(sb, ';');
	for (; *name; name++)
		strbuf_addch(sb, *name == ';' ? ':' : *name == '\n' || *name == '\r' ? ' ' : *name);
}

/* Appends the frames of address node a (outermost first: the function, then what was
 * inlined into it). */
static void name_node(struct build *b, const struct anode *a, struct strbuf *sb)
{
	struct sym_loc loc;
	const char *path;
	char buf[64];

	if (a->module == NO_MODULE) {
		add_frame(sb, "[unknown]");
		return;
	}
	path = b->modules[a->module].path;
	if (path[0] != '/') {
		add_frame(sb, path); /* [vdso], [anon:...] */
		return;
	}
	if (!symbolizer_lookup(b->sym, path, a->addr, &loc) && loc.function) {
		add_frame(sb, loc.function);
		for (size_t i = loc.nr_inlines; i-- > 0;)
			add_frame(sb, loc.inlines[i].function);
		return;
	}
	/* No symbol: named by where its call frame information says it starts, so that
	 * every address of the function is one frame. */
	{
		uint64_t start;
		if (!symbolizer_cfi_start(b->sym, path, a->addr, &start))
			snprintf(buf, sizeof(buf), "+0x%" PRIx64, start);
		else
			snprintf(buf, sizeof(buf), "+0x%" PRIx64, a->addr);
	}
	{
		struct strbuf n = STRBUF_INIT;
		strbuf_addstr(&n, base_name(path));
		strbuf_addstr(&n, buf);
		add_frame(sb, n.buf);
		strbuf_release(&n);
	}
}

/* Where a complete stack begins: the program's or a thread's entry, or the C library's
 * start code (its local symbols are stripped on most systems). */
static bool is_entry(const char *frames)
{
	static const char *const entries[] = {
	    "_start",
	    "__libc_start_main",
	    "__libc_start_call_main",
	    "start_thread",
	    "clone",
	    "clone3",
	    "__clone",
	    "__clone3",
	    "_dl_start_user",
	};
	size_t n = strcspn(frames, ";");

	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		if (strlen(entries[i]) == n && !strncmp(frames, entries[i], n))
			return true;
	return frames[n] == ';' &&
	       (!strncmp(frames, "libc.so", 7) || !strncmp(frames, "ld-linux", 8));
}

/* The stacks of every thread with samples: names per address node, summed per stack. */
static void emit(struct build *b)
{
	struct sample_profile *out = b->out;
	struct strbuf *names = xcalloc(b->nr_nodes ? b->nr_nodes : 1, sizeof(*names));
	uint32_t *thread_no = xcalloc(b->nr_thrs ? b->nr_thrs : 1, sizeof(*thread_no));
	uint32_t *owner = xcalloc(b->nr_nodes ? b->nr_nodes : 1, sizeof(*owner));
	struct strmap stack_of;

	strmap_init(&stack_of);
	for (size_t i = 0; i < b->nr_thrs; i++) {
		const struct thr *t = &b->thrs[i];
		struct sample_thread *o;
		thread_no[i] = NO_INDEX;
		owner[t->root] = (uint32_t)i;
		if (!t->samples)
			continue;
		thread_no[i] = (uint32_t)out->nr_threads;
		ALLOC_GROW(out->threads, out->nr_threads + 1, out->alloc_threads);
		o = &out->threads[out->nr_threads++];
		o->pid = t->pid;
		o->tid = t->tid;
		o->comm = xstrdup(t->comm);
		o->samples = t->samples;
		o->weight = t->weight;
	}
	/* Parents come before their children: a node's name is its parent's plus its own. */
	for (size_t i = 0; i < b->nr_nodes; i++) {
		const struct anode *a = &b->nodes[i];
		struct sample_stack *s;
		size_t *at;
		bool added;

		strbuf_init(&names[i]);
		if (a->parent == NO_INDEX)
			continue;
		owner[i] = owner[a->parent];
		strbuf_addstr(&names[i], names[a->parent].buf);
		name_node(b, a, &names[i]);
		if (!a->samples)
			continue;
		/* Addresses that name the same frames are one stack: key "K\tframes". */
		{
			struct strbuf key = STRBUF_INIT;
			strbuf_addf(&key, "%" PRIu32 "\t%s", thread_no[owner[i]], names[i].buf);
			at = strmap_put(&stack_of, key.buf, out->nr_stacks, &added);
			strbuf_release(&key);
		}
		if (added) {
			ALLOC_GROW(out->stacks, out->nr_stacks + 1, out->alloc_stacks);
			s = &out->stacks[out->nr_stacks++];
			memset(s, 0, sizeof(*s));
			s->thread = thread_no[owner[i]];
			s->frames = xstrdup(names[i].buf);
		}
		s = &out->stacks[*at];
		s->samples += a->samples;
		s->weight += a->weight;
		if (is_entry(names[i].buf))
			out->complete += a->samples;
	}
	for (size_t i = 0; i < b->nr_nodes; i++)
		strbuf_release(&names[i]);
	free(names);
	free(owner);
	free(thread_no);
	strmap_release(&stack_of);
}

/* Each module with frames, labelled by how most of its frames were found. */
static void emit_modules(struct build *b)
{
	static const char *const label[NR_SOURCES] = {"fp", "cfi", "nocfi"};
	struct sample_profile *out = b->out;

	for (size_t i = 0; i < b->nr_modules; i++) {
		const uint64_t *f = b->modules[i].frames;
		struct sample_module *m;
		int most = FROM_CHAIN;

		if (!f[FROM_CHAIN] && !f[FROM_CFI] && !f[FROM_NOCFI])
			continue;
		for (int k = 1; k < NR_SOURCES; k++)
			if (f[k] > f[most])
				most = k;
		ALLOC_GROW(out->modules, out->nr_modules + 1, out->alloc_modules);
		m = &out->modules[out->nr_modules++];
		m->path = xstrdup(b->modules[i].path);
		m->frames = f[FROM_CHAIN] + f[FROM_CFI] + f[FROM_NOCFI];
		m->unwind = xstrdup(label[most]);
	}
}

int sample_build(const char *raw_path, const struct sample_build_options *o,
		 struct sample_profile *out)
{
	struct sample_raw raw;
	struct build b = {.out = out};
	bool own_sym = !o->sym;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = sample_raw_open(raw_path, &raw)))
		return ret;
	b.raw = &raw;
	b.sym = own_sym ? symbolizer_new() : o->sym;
	symbolizer_set_inlines(b.sym, true);
	b.unwinder = sample_unwinder_new(b.sym);
	strmap_init(&b.module_of);
	out->command = xstrdup(o->command ? o->command : "");
	out->event = xstrdup(perf_sample_event_name(raw.h.event));
	out->unit = xstrdup(raw.h.event == PERF_SAMPLE_EVENT_CPU_CLOCK ? "ns" : "cycles");
	out->callgraph = xstrdup(perf_sample_callgraph_name(raw.h.callgraph));
	out->callgraph_why = xstrdup(o->callgraph_why ? o->callgraph_why : "");
	out->frequency_hz = raw.h.frequency_hz;
	out->period = raw.h.period_ns;
	out->wall_ns = o->wall_ns;
	out->user_ns = o->user_ns;
	out->sys_ns = o->sys_ns;
	replay(&b);
	emit(&b);
	emit_modules(&b);
	{
		const struct proc *best = NULL;
		for (size_t i = 0; i < b.nr_procs; i++)
			if (b.procs[i].exe && (!best || b.procs[i].samples > best->samples))
				best = &b.procs[i];
		out->exe = xstrdup(best ? best->exe : "");
	}
	for (size_t i = 0; i < b.nr_procs; i++) {
		image_put(b.procs[i].img);
		free(b.procs[i].exe);
	}
	free(b.procs);
	free(b.thrs);
	free(b.proc_of.slots);
	free(b.thr_of.slots);
	free(b.nodes);
	free(b.node_table);
	for (size_t i = 0; i < b.nr_modules; i++)
		free(b.modules[i].path);
	free(b.modules);
	strmap_release(&b.module_of);
	sample_unwinder_free(b.unwinder);
	if (own_sym)
		symbolizer_free(b.sym);
	sample_raw_release(&raw);
	return 0;
}
