/*
 * bench/cct_diff_bench [NODES] [REPS] [K] [--no-changes]
 *
 * Times cct_diff_compute() alone on two generated calling context trees of NODES nodes each
 * (default 1000000), built in memory through the cct API, so that no text parsing is
 * measured. The shape is the one of bench/cct_diff.sh: names from a pool of 5,000 functions,
 * breadth-first growth with fan-out 1-8 (distinct names per parent), exclusive weights 1-1000;
 * the new tree doubles (2w + 1) the weight of 1% of the nodes, drops the last 500 nodes
 * (leaves) and adds 500 new leaf contexts "fresh_<k>" under random nodes. Unless
 * --no-changes, a change set is passed too so that stages 1 and 2 run: 20 functions
 * modified, 3 deleted (excised in both trees: only the cost matters here), fresh_0..99 added.
 * Options: threshold 100, K (default 20, as `revperf diff`; 0 = no limit) adjusted pairs.
 *
 * Prints per repetition the wall time (CLOCK_MONOTONIC) and CPU time of the call, and the
 * process's peak RSS after it; then the resident size before the first diff (the two trees),
 * the final peak RSS of the whole process (trees + diff), and a checksum of the result so
 * that a change of the algorithm's output is visible. Deterministic (fixed seed).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis/cct_diff.h"
#include "util/rng.h"
#include "util/common.h"

#define NR_FUNCS 5000u
#define NR_DROPPED 500u
#define NR_FRESH 500u

struct gen {
	uint32_t *parent; /* generation index of the parent, 0 = root */
	uint32_t *func;	  /* 0 .. NR_FUNCS - 1 */
	uint32_t *weight; /* old exclusive weight */
	size_t n;	  /* nodes, root included */
};

static uint32_t rand_below(struct rng *r, uint32_t n)
{
	return (uint32_t)((rng_next(r) >> 32) * n >> 32);
}

/* Breadth-first growth as in bench/cct_diff.sh: index order is creation order. */
static void generate(struct gen *g, size_t nodes, struct rng *r)
{
	uint32_t perm[NR_FUNCS];

	for (uint32_t i = 0; i < NR_FUNCS; i++)
		perm[i] = i;
	g->n = nodes + 1;
	g->parent = xmallocarray(g->n, sizeof(*g->parent));
	g->func = xmallocarray(g->n, sizeof(*g->func));
	g->weight = xmallocarray(g->n, sizeof(*g->weight));
	g->parent[0] = 0;
	g->func[0] = 0;
	g->weight[0] = 0;
	size_t nr = 1;
	for (size_t p = 0; nr < g->n; p++) {
		uint32_t k = 1 + rand_below(r, 8);
		for (uint32_t j = 0; j < k && nr < g->n; j++) {
			/* partial Fisher-Yates: distinct names under one parent */
			uint32_t s = j + rand_below(r, NR_FUNCS - j);
			uint32_t tmp = perm[j];
			perm[j] = perm[s];
			perm[s] = tmp;
			g->parent[nr] = (uint32_t)p;
			g->func[nr] = perm[j];
			g->weight[nr] = 1 + rand_below(r, 1000);
			nr++;
		}
	}
}

static void gen_release(struct gen *g)
{
	free(g->parent);
	free(g->func);
	free(g->weight);
}

static uint32_t func_id(struct cct *t, uint32_t *ids, uint32_t func)
{
	char name[32];

	if (ids[func] == CCT_NONE) {
		snprintf(name, sizeof(name), "fn_%u", (unsigned)func);
		ids[func] = cct_intern(t, name);
	}
	return ids[func];
}

/* Builds the old tree (keep = n, no weight changes) or the new one. */
static int build(struct cct *t, const struct gen *g, size_t keep, const unsigned char *doubled,
		 struct rng *r)
{
	uint32_t ids[NR_FUNCS];

	memset(ids, 0xff, sizeof(ids));
	cct_init(t);
	for (size_t i = 1; i < keep; i++) {
		uint32_t n = cct_child(t, g->parent[i], func_id(t, ids, g->func[i]), 0);
		if (n != i)
			return error("bench: node %zu created as %u", i, (unsigned)n);
		double w = g->weight[i];
		t->nodes[n].excl = doubled && doubled[i] ? 2 * w + 1 : w;
	}
	if (doubled) {
		for (uint32_t k = 0; k < NR_FRESH; k++) {
			char name[32];
			uint32_t parent = 1 + rand_below(r, (uint32_t)(g->n - 1 - NR_DROPPED));
			snprintf(name, sizeof(name), "fresh_%u", (unsigned)k);
			uint32_t n = cct_child(t, parent, cct_intern(t, name), 0);
			if (n == CCT_NONE)
				return -1;
			t->nodes[n].excl = 50;
		}
	}
	cct_compute_inclusive(t);
	return 0;
}

static void make_changes(struct cct_changes *ch)
{
	char name[32];

	cct_changes_init(ch);
	for (unsigned k = 0; k < 20; k++) {
		snprintf(name, sizeof(name), "fn_%u", k * 250 + 7);
		cct_nameset_add(&ch->modified, name);
	}
	for (unsigned k = 0; k < 3; k++) {
		snprintf(name, sizeof(name), "fn_%u", k * 1000 + 123);
		cct_nameset_add(&ch->deleted, name);
	}
	for (unsigned k = 0; k < 100; k++) {
		snprintf(name, sizeof(name), "fresh_%u", k);
		cct_nameset_add(&ch->added, name);
	}
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x100000001b3ull;
	return h ^ (h >> 31);
}

static uint64_t mix_double(uint64_t h, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	return mix(h, bits);
}

/* Everything the diff reports, hashed: equal checksums mean equal results. */
static uint64_t checksum(const struct cct_diff *d)
{
	uint64_t h = 1469598103934665603ull;

	h = mix(h, d->nr_matched);
	h = mix_double(h, d->overlap);
	h = mix_double(h, d->overlap_after);
	for (size_t i = 0; i < d->nr_topo; i++) {
		const struct cct_topo_diff *e = &d->topo[i];
		h = mix(h, (uint64_t)e->stage << 40 | (uint64_t)e->in_new << 32 | e->node);
		h = mix(h, e->caller);
		h = mix_double(h, e->pweight);
		h = mix_double(h, e->calls);
		for (size_t a = 0; a < e->nr_attr; a++)
			for (const char *s = d->attr[e->attr_first + a]; *s; s++)
				h = mix(h, (unsigned char)*s);
	}
	for (size_t i = 0; i < d->nr_pairs; i++) {
		const struct cct_weight_pair *p = &d->pairs[i];
		h = mix(h, (uint64_t)p->old_node << 32 | p->new_node);
		h = mix_double(h, p->old_pweight);
		h = mix_double(h, p->new_pweight);
	}
	return h;
}

static double now_s(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double maxrss_mb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static double rss_now_mb(void)
{
	unsigned long size = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return NAN;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-')
		return error("bench: '%s': expected a whole number", s);
	*out = (size_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	size_t nodes = 1000000, reps = 5, max_pairs = 20, pos = 0;
	bool with_changes = true;
	struct gen g;
	struct rng r;
	struct cct old_tree, new_tree;
	struct cct_changes changes;
	struct cct_diff_options opts;
	unsigned char *doubled;

	for (int i = 1; i < argc; i++) {
		size_t *dst[] = {&nodes, &reps, &max_pairs};
		if (strcmp(argv[i], "--no-changes") == 0) {
			with_changes = false;
			continue;
		}
		if (pos >= ARRAY_SIZE(dst)) {
			fprintf(stderr, "usage: %s [NODES] [REPS] [K] [--no-changes]\n", argv[0]);
			return 2;
		}
		if (parse_size(argv[i], dst[pos++]))
			return 2;
	}
	if (nodes < 2 * (NR_DROPPED + NR_FRESH) || nodes >= CCT_MAX_NODES || !reps) {
		fprintf(stderr, "cct_diff_bench: NODES in [2000, %u), REPS >= 1\n",
			(unsigned)CCT_MAX_NODES);
		return 2;
	}

	rng_seed(&r, 4);
	generate(&g, nodes, &r);
	doubled = xcalloc(g.n, 1);
	for (size_t k = 0; k < nodes / 100;) {
		uint32_t i = 1 + rand_below(&r, (uint32_t)(g.n - 1));
		if (!doubled[i]) {
			doubled[i] = 1;
			k++;
		}
	}
	if (build(&old_tree, &g, g.n, NULL, &r) ||
	    build(&new_tree, &g, g.n - NR_DROPPED, doubled, &r))
		return 3;
	free(doubled);
	gen_release(&g);
	make_changes(&changes);
	opts.threshold = 100;
	opts.max_pairs = max_pairs;

	double rss_trees = rss_now_mb();
	printf("trees: %zu and %zu nodes, %zu and %zu names; resident %.1f MB, peak so far "
	       "%.1f MB; K %zu, %s\n",
	       old_tree.nr_nodes, new_tree.nr_nodes, old_tree.nr_names, new_tree.nr_names,
	       rss_trees, maxrss_mb(), max_pairs, with_changes ? "with changes" : "no changes");
	double best = INFINITY, worst = 0;
	for (size_t rep = 0; rep < reps; rep++) {
		struct cct_diff d;
		double w0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		cct_diff_compute(&old_tree, &new_tree, with_changes ? &changes : NULL, &opts, &d);
		double wall = now_s(CLOCK_MONOTONIC) - w0;
		double cpu = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
		best = fmin(best, wall);
		worst = fmax(worst, wall);
		printf("rep %zu: cct_diff_compute %.3f s wall, %.3f s cpu; peak RSS %.1f MB; "
		       "%zu matched, %zu topo, %zu pairs, overlap %.6f -> %.6f, checksum "
		       "%016" PRIx64 "\n",
		       rep, wall, cpu, maxrss_mb(), d.nr_matched, d.nr_topo, d.nr_pairs, d.overlap,
		       d.overlap_after, checksum(&d));
		cct_diff_release(&d);
	}
	printf("cct_diff_compute: min %.3f s, max %.3f s over %zu reps; resident before the "
	       "diff %.1f MB, process peak RSS %.1f MB\n",
	       best, worst, reps, rss_trees, maxrss_mb());
	cct_changes_release(&changes);
	cct_release(&new_tree);
	cct_release(&old_tree);
	return 0;
}
