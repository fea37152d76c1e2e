/*
 * The measured history (history/history_data.h): the rows of store_history.c made into
 * commits, series of points with their change points, bytes written, and the comparison
 * shown on each commit's page. Definitions: docs/report.md.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/changepoint.h"
#include "analysis/stats.h"
#include "history/history_data.h"
#include "store/store.h"
#include "analysis/io_spectra.h"
#include "profile/io_profile.h"
#include "util/common.h"
#include "util/strmap.h"

/* A build of a commit, for the build id -> commit index lookups. */
struct build_ix {
	int64_t build_id;
	size_t commit;
};

/* One value of a series while loading: (benchmark, metric, commit) -> value. */
struct value_ent {
	uint32_t bench, metric, commit;
	double value;
	int64_t benchmark_id; /* the command (benchmarks row) that measured it */
};

/* A failed non-warm-up run while loading. */
struct fail_ent {
	uint32_t bench, commit;
	enum run_status status;
	int64_t benchmark_id;
};

/* Per benchmark name and commit: the command measured last (benchmarks row, run time). */
struct command_ent {
	uint32_t bench, commit;
	int64_t benchmark_id, started_at;
	size_t dropped; /* values of other commands left out */
};

struct load_ctx {
	struct history *h;
	struct history_bench_id *ids;
	size_t nr_ids;
	struct build_ix *builds;
	char **metrics; /* metric names met, in order of appearance */
	size_t nr_metrics, alloc_metrics;
	size_t *metric_rank; /* the order of series of a benchmark */
	size_t last_metric;
	struct value_ent *vals;
	size_t nr_vals, alloc_vals;
	struct command_ent *cmds; /* one per value or failure row, then one per (bench, commit) */
	size_t nr_cmds, alloc_cmds;
	bool *multi; /* per benchmark name: stored with two commands or more (NULL: none is) */
	struct fail_ent *fails;
	size_t nr_fails, alloc_fails;
};

/* qsort(), which must not be given NULL even for no element. */
static void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_build_ix(const void *a, const void *b)
{
	const struct build_ix *x = a, *y = b;
	return (x->build_id > y->build_id) - (x->build_id < y->build_id);
}

static size_t commit_of_build(const struct load_ctx *c, int64_t build_id)
{
	struct build_ix key = {build_id, 0}, *f;
	f = bsearch(&key, c->builds, c->h->nr_commits, sizeof(key), cmp_build_ix);
	return f ? f->commit : HISTORY_NONE;
}

static size_t bench_of_id(const struct load_ctx *c, int64_t id)
{
	size_t lo = 0, hi = c->nr_ids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->ids[mid].id == id)
			return c->ids[mid].bench;
		if (c->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return HISTORY_NONE;
}

static size_t metric_index(struct load_ctx *c, const char *name)
{
	if (c->last_metric < c->nr_metrics && !strcmp(c->metrics[c->last_metric], name))
		return c->last_metric;
	for (size_t i = 0; i < c->nr_metrics; i++)
		if (!strcmp(c->metrics[i], name))
			return c->last_metric = i;
	ALLOC_GROW(c->metrics, c->nr_metrics + 1, c->alloc_metrics);
	c->metrics[c->nr_metrics] = xstrdup(name);
	return c->last_metric = c->nr_metrics++;
}

static int on_value(void *ctx, const struct history_value_row *row)
{
	struct load_ctx *c = ctx;
	size_t commit = commit_of_build(c, row->build_id);
	size_t bench = bench_of_id(c, row->benchmark_id);

	if (commit == HISTORY_NONE || bench == HISTORY_NONE)
		return 0; /* a build that is not a commit's main build */
	if (!row->metric) {
		ALLOC_GROW(c->fails, c->nr_fails + 1, c->alloc_fails);
		c->fails[c->nr_fails++] = (struct fail_ent){(uint32_t)bench, (uint32_t)commit,
							    row->status, row->benchmark_id};
	} else if (isfinite(row->value)) {
		ALLOC_GROW(c->vals, c->nr_vals + 1, c->alloc_vals);
		c->vals[c->nr_vals++] =
		    (struct value_ent){(uint32_t)bench, (uint32_t)metric_index(c, row->metric),
				       (uint32_t)commit, row->value, row->benchmark_id};
	} else {
		return 0;
	}
	if (!c->multi || !c->multi[bench])
		return 0; /* one command of that name: nothing to choose */
	ALLOC_GROW(c->cmds, c->nr_cmds + 1, c->alloc_cmds);
	c->cmds[c->nr_cmds++] = (struct command_ent){(uint32_t)bench, (uint32_t)commit,
						     row->benchmark_id, row->started_at, 0};
	return 0;
}

/* Position of a metric in revperf's table (wall first...); unknown metrics after, by name. */
static size_t builtin_pos(const char *name)
{
	for (size_t i = 0; i < metric_count(); i++)
		if (!strcmp(metric_at(i)->name, name))
			return i;
	return SIZE_MAX;
}

static const char *const *sort_names; /* qsort has no context argument */

static int cmp_metric_order(const void *a, const void *b)
{
	const char *x = sort_names[*(const size_t *)a], *y = sort_names[*(const size_t *)b];
	size_t px = builtin_pos(x), py = builtin_pos(y);
	if (px != py)
		return (px > py) - (px < py);
	return strcmp(x, y);
}

static void rank_metrics(struct load_ctx *c)
{
	size_t *order = xmallocarray(c->nr_metrics ? c->nr_metrics : 1, sizeof(*order));
	for (size_t i = 0; i < c->nr_metrics; i++)
		order[i] = i;
	sort_names = (const char *const *)c->metrics;
	sort_array(order, c->nr_metrics, sizeof(*order), cmp_metric_order);
	sort_names = NULL;
	c->metric_rank = xmallocarray(c->nr_metrics ? c->nr_metrics : 1, sizeof(size_t));
	for (size_t i = 0; i < c->nr_metrics; i++)
		c->metric_rank[order[i]] = i;
	free(order);
}

static const size_t *sort_rank;

static int cmp_value(const void *a, const void *b)
{
	const struct value_ent *x = a, *y = b;
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	if (x->metric != y->metric) {
		size_t rx = sort_rank[x->metric], ry = sort_rank[y->metric];
		return (rx > ry) - (rx < ry);
	}
	if (x->commit != y->commit)
		return (x->commit > y->commit) - (x->commit < y->commit);
	return (x->value > y->value) - (x->value < y->value);
}

static int cmp_fail(const void *a, const void *b)
{
	const struct fail_ent *x = a, *y = b;
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	return (x->commit > y->commit) - (x->commit < y->commit);
}

static void count_failure(struct history_failures *f, enum run_status s)
{
	if (s == RUN_FAILED)
		f->failed++;
	else if (s == RUN_CRASHED)
		f->crashed++;
	else if (s == RUN_TIMEOUT)
		f->timeout++;
	else
		f->other++;
}

static struct history_series *series_new(struct history *h, size_t bench, const char *metric)
{
	struct history_series *s;
	ALLOC_GROW(h->series, h->nr_series + 1, h->alloc_series);
	s = &h->series[h->nr_series++];
	memset(s, 0, sizeof(*s));
	s->bench = bench;
	s->metric = xstrdup(metric);
	s->def = metric_find(metric);
	if (!h->benches[bench].nr_series)
		h->benches[bench].first_series = h->nr_series - 1;
	h->benches[bench].nr_series++;
	return s;
}

/* The points of one series: its values [v, v_end) and the failures [f, f_end) of its bench. */
static int series_points(struct history_series *s, const struct value_ent *v, size_t nv,
			 const struct fail_ent *f, size_t nf)
{
	size_t i = 0, j = 0, alloc = 0;
	while (i < nv || j < nf) {
		size_t commit = i < nv ? v[i].commit : SIZE_MAX;
		struct history_point *p;
		if (j < nf && f[j].commit < commit)
			commit = f[j].commit;
		ALLOC_GROW(s->points, s->nr_points + 1, alloc);
		p = &s->points[s->nr_points++];
		memset(p, 0, sizeof(*p));
		p->commit = commit;
		p->median = p->ci_lo = p->ci_hi = NAN;
		for (; j < nf && f[j].commit == commit; j++)
			count_failure(&p->fail, f[j].status);
		if (i < nv && v[i].commit == commit) {
			size_t k = i;
			double *x;
			struct stats_median_ci ci;
			while (k < nv && v[k].commit == commit)
				k++;
			x = xmallocarray(k - i, sizeof(*x));
			for (size_t m = i; m < k; m++)
				x[m - i] = v[m].value;
			if (stats_median_ci(x, k - i, HISTORY_CI_LEVEL, &ci)) {
				free(x);
				return RP_EINTERNAL;
			}
			free(x);
			p->n = k - i;
			p->median = ci.median;
			p->ci_lo = ci.lo;
			p->ci_hi = ci.hi;
			p->ci_coverage = ci.coverage;
			p->ci_minmax = ci.minmax;
			i = k;
		}
	}
	return 0;
}

static int cmp_command(const void *a, const void *b)
{
	const struct command_ent *x = a, *y = b;
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	if (x->commit != y->commit)
		return (x->commit > y->commit) - (x->commit < y->commit);
	/* the last measured first */
	if (x->started_at != y->started_at)
		return (x->started_at < y->started_at) - (x->started_at > y->started_at);
	return (x->benchmark_id < y->benchmark_id) - (x->benchmark_id > y->benchmark_id);
}

static struct command_ent *command_of(const struct load_ctx *c, uint32_t bench,
				      uint32_t commit)
{
	size_t lo = 0, hi = c->nr_cmds;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct command_ent *e = &c->cmds[mid];
		if (e->bench == bench && e->commit == commit)
			return e;
		if (e->bench < bench || (e->bench == bench && e->commit < commit))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * A benchmark's name is the benchmark (its command may change along the history), but
 * within one commit the runs of two commands are two programs: their median is a number
 * nobody measured (zlib trial: 290 M and 1.57 G instructions gave 932 M). Per name and
 * commit only the command measured last is kept; what is left out is said once per name.
 */
static void keep_last_command(struct load_ctx *c)
{
	size_t n = 0, kept;

	if (!c->nr_cmds)
		return;
	sort_array(c->cmds, c->nr_cmds, sizeof(*c->cmds), cmp_command);
	for (size_t i = 0; i < c->nr_cmds; i++)
		if (!n || c->cmds[n - 1].bench != c->cmds[i].bench ||
		    c->cmds[n - 1].commit != c->cmds[i].commit)
			c->cmds[n++] = c->cmds[i];
	c->nr_cmds = n;
	kept = 0;
	for (size_t i = 0; i < c->nr_vals; i++) {
		struct command_ent *e = c->multi[c->vals[i].bench]
					    ? command_of(c, c->vals[i].bench, c->vals[i].commit)
					    : NULL;
		if (!e || e->benchmark_id == c->vals[i].benchmark_id)
			c->vals[kept++] = c->vals[i];
		else
			e->dropped++;
	}
	c->nr_vals = kept;
	for (size_t i = 0; i < c->nr_cmds;) { /* by benchmark: one line each */
		size_t dropped = 0, commits = 0, b = c->cmds[i].bench;
		for (; i < c->nr_cmds && c->cmds[i].bench == b; i++) {
			dropped += c->cmds[i].dropped;
			commits += c->cmds[i].dropped > 0;
		}
		if (dropped)
			warning("%s: %zu value%s of another command of the benchmark left out at "
				"%zu commit%s measured with two commands (each commit keeps the "
				"command it was measured with last)",
				c->h->benches[b].name, dropped, dropped == 1 ? "" : "s", commits,
				commits == 1 ? "" : "s");
	}
	kept = 0;
	for (size_t i = 0; i < c->nr_fails; i++) {
		const struct command_ent *e =
		    c->multi[c->fails[i].bench]
			? command_of(c, c->fails[i].bench, c->fails[i].commit)
			: NULL;
		if (!e || e->benchmark_id == c->fails[i].benchmark_id)
			c->fails[kept++] = c->fails[i];
	}
	c->nr_fails = kept;
}

static int build_series(struct load_ctx *c)
{
	struct history *h = c->h;
	size_t i = 0, j = 0;

	keep_last_command(c);
	rank_metrics(c);
	sort_rank = c->metric_rank;
	sort_array(c->vals, c->nr_vals, sizeof(*c->vals), cmp_value);
	sort_rank = NULL;
	sort_array(c->fails, c->nr_fails, sizeof(*c->fails), cmp_fail);
	for (size_t b = 0; b < h->nr_benches; b++) {
		size_t f0 = j, b_end;
		while (j < c->nr_fails && c->fails[j].bench == b)
			j++;
		b_end = i;
		while (b_end < c->nr_vals && c->vals[b_end].bench == b)
			b_end++;
		if (i == b_end && f0 < j) {
			/* Only failed runs: a wall-time series of failures, so that they show. */
			struct history_series *s = series_new(h, b, "wall");
			if (series_points(s, NULL, 0, c->fails + f0, j - f0))
				return RP_EINTERNAL;
		}
		while (i < b_end) {
			size_t k = i;
			struct history_series *s;
			while (k < b_end && c->vals[k].metric == c->vals[i].metric)
				k++;
			s = series_new(h, b, c->metrics[c->vals[i].metric]);
			if (series_points(s, c->vals + i, k - i, c->fails + f0, j - f0))
				return RP_EINTERNAL;
			i = k;
		}
	}
	return 0;
}

/* Change points of one series, over its points that have a value. */
static int series_changes(struct history *h, struct history_series *s, const struct history_opts *o)
{
	struct changepoint_opts co;
	struct changepoint_result res;
	struct strbuf name = STRBUF_INIT;
	double *x = xmallocarray(s->nr_points ? s->nr_points : 1, sizeof(*x));
	size_t *at = xmallocarray(s->nr_points ? s->nr_points : 1, sizeof(*at));
	size_t n = 0;
	int ret;

	/* Along the followed history only: other branches' commits are no trend of it. */
	for (size_t i = 0; i < s->nr_line_points; i++)
		if (s->points[i].n) {
			at[n] = i;
			x[n++] = s->points[i].median;
		}
	changepoint_opts_init(&co);
	if (o && o->min_segment)
		co.min_size = o->min_segment;
	if (o && o->seed)
		co.seed = o->seed;
	co.min_rel_change = history_min_change(o ? o->cfg : NULL, h->benches[s->bench].name,
					       s->metric);
	if (o && o->cfg)
		co.ci_alpha = o->cfg->alpha; /* the verdicts' confidence */
	strbuf_addf(&name, "%s/%s", h->benches[s->bench].name, s->metric);
	co.name = name.buf;
	ret = changepoint_detect(x, n, &co, &res);
	if (!ret && res.nr_points) {
		s->changes = xcalloc(res.nr_points, sizeof(*s->changes));
		for (size_t i = 0; i < res.nr_points; i++) {
			struct history_change *ch = &s->changes[s->nr_changes++];
			ch->point = at[res.points[i].index];
			ch->commit = s->points[ch->point].commit;
			ch->median_before = res.points[i].median_before;
			ch->median_after = res.points[i].median_after;
			ch->rel_change = res.points[i].rel_change;
			ch->rel_change_lo = res.points[i].rel_change_lo;
			ch->rel_change_hi = res.points[i].rel_change_hi;
			ch->ci_alpha = co.ci_alpha;
			ch->n_before = res.points[i].n_before;
			ch->n_after = res.points[i].n_after;
			ch->p_value = res.points[i].p_value;
		}
	}
	changepoint_result_release(&res);
	strbuf_release(&name);
	free(x);
	free(at);
	return ret;
}

/* The change points of every series, series taken in turn by up to 4 threads. */
struct changes_work {
	struct history *h;
	const struct history_opts *o;
	pthread_mutex_t lock;
	size_t next;
	int ret;
};

static void *changes_thread(void *arg)
{
	struct changes_work *w = arg;
	for (;;) {
		size_t i;
		int ret;
		pthread_mutex_lock(&w->lock);
		i = w->ret ? w->h->nr_series : w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i >= w->h->nr_series)
			return NULL;
		/* each series is its own: changepoint_detect() shares nothing */
		if ((ret = series_changes(w->h, &w->h->series[i], w->o))) {
			pthread_mutex_lock(&w->lock);
			if (!w->ret)
				w->ret = ret;
			pthread_mutex_unlock(&w->lock);
		}
	}
}

static int all_changes(struct history *h, const struct history_opts *o)
{
	struct changes_work w = {h, o, PTHREAD_MUTEX_INITIALIZER, 0, 0};
	pthread_t t[3];
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	size_t helpers = cores > 4 ? 3 : cores > 1 ? (size_t)cores - 1 : 0, started = 0;

	if (helpers + 1 > h->nr_series)
		helpers = h->nr_series ? h->nr_series - 1 : 0;
	for (size_t k = 0; k < helpers; k++)
		if (!pthread_create(&t[started], NULL, changes_thread, &w))
			started++;
	changes_thread(&w); /* this thread works too (alone if none could start) */
	for (size_t k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	pthread_mutex_destroy(&w.lock);
	return w.ret;
}

static int cmp_io(const void *a, const void *b)
{
	const struct history_io_profile *x = a, *y = b;
	if (x->build_id != y->build_id)
		return (x->build_id > y->build_id) - (x->build_id < y->build_id);
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	return strcmp(x->path, y->path);
}

/* Sum of the bytes written (write family) of a profile. */
static double profile_bytes_written(const struct io_profile *p)
{
	double t = 0;
	for (size_t e = 0; e < p->nr_entries; e++)
		if (p->entries[e].dir == IOTRACE_WRITE)
			t += (double)p->entries[e].bytes;
	return t;
}

static int cmp_bytes(const void *a, const void *b)
{
	const struct history_bytes *x = a, *y = b;
	return (x->commit > y->commit) - (x->commit < y->commit);
}

/* The bytes series: per (commit build, benchmark) on the machine, mean over its profiles. */
static void build_bytes(struct load_ctx *c)
{
	struct history *h = c->h;
	size_t i = 0;
	while (i < h->nr_io) {
		size_t k = i, commit = commit_of_build(c, h->io[i].build_id), ok = 0;
		size_t bench = h->io[i].bench;
		double sum = 0;
		while (k < h->nr_io && h->io[k].build_id == h->io[i].build_id &&
		       h->io[k].bench == bench)
			k++;
		for (size_t m = i; commit != HISTORY_NONE && bench != HISTORY_NONE && m < k; m++) {
			struct io_profile p;
			if (h->io[m].machine_id != h->machine.id)
				continue;
			if (io_profile_read(h->io[m].path, &p)) {
				warning("I/O profile %s left out of the bytes written (see above)",
					h->io[m].path);
			} else {
				sum += profile_bytes_written(&p);
				ok++;
			}
			io_profile_release(&p);
		}
		if (ok) {
			struct history_bench *b = &h->benches[bench];
			b->bytes = xrealloc(b->bytes, (b->nr_bytes + 1) * sizeof(*b->bytes));
			b->bytes[b->nr_bytes++] =
			    (struct history_bytes){commit, sum / (double)ok, ok};
		}
		i = k;
	}
	for (size_t b = 0; b < h->nr_benches; b++)
		if (h->benches[b].nr_bytes > 1)
			sort_array(h->benches[b].bytes, h->benches[b].nr_bytes,
				   sizeof(*h->benches[b].bytes), cmp_bytes);
}

static int cmp_verdict(const void *a, const void *b)
{
	const struct history_verdict *x = a, *y = b;
	int r;
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	if (x->primary != y->primary)
		return y->primary - x->primary;
	r = (int)builtin_pos(x->metric) - (int)builtin_pos(y->metric);
	return r ? (r > 0) - (r < 0) : strcmp(x->metric, y->metric);
}

static int cmp_run(const void *a, const void *b)
{
	const struct history_run *x = a, *y = b;
	if (x->bench != y->bench)
		return (x->bench > y->bench) - (x->bench < y->bench);
	if (x->side != y->side)
		return x->side - y->side;
	return (x->id > y->id) - (x->id < y->id);
}

static int cmp_comparison(const void *a, const void *b)
{
	const struct history_comparison *x = a, *y = b;
	return (x->commit > y->commit) - (x->commit < y->commit);
}

static void comparison_release(struct history_comparison *c)
{
	for (size_t i = 0; i < c->nr_verdicts; i++) {
		free(c->verdicts[i].metric);
		free(c->verdicts[i].verdict);
	}
	free(c->verdicts);
	for (size_t i = 0; i < c->nr_runs; i++)
		free(c->runs[i].detail);
	free(c->runs);
	free(c->base_label);
	free(c->target_label);
	free(c->base_sha);
}

/* A commit's place: on the followed history by its position there, then the others. */
struct commit_key {
	size_t line_pos; /* SIZE_MAX: not on it */
	size_t index;	 /* in commit-time order */
};

static int cmp_commit_key(const void *a, const void *b)
{
	const struct commit_key *x = a, *y = b;
	if (x->line_pos != y->line_pos)
		return x->line_pos < y->line_pos ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* Orders the commits: those of the followed history first, in its order (history_opts). */
static void order_by_line(struct history *h, const struct history_opts *o)
{
	struct strmap pos = STRMAP_INIT;
	struct commit_key *keys;
	struct history_commit *sorted;

	h->nr_line = 0;
	if (!o || !o->line) {
		for (size_t i = 0; i < h->nr_commits; i++)
			h->commits[i].on_line = true;
		h->nr_line = h->nr_commits;
		return;
	}
	h->line_name = xstrdup(o->line_name ? o->line_name : "HEAD");
	for (size_t i = 0; i < o->nr_line; i++)
		strmap_put(&pos, o->line[i], i, NULL);
	keys = xmallocarray(h->nr_commits, sizeof(*keys));
	for (size_t i = 0; i < h->nr_commits; i++) {
		const size_t *p = strmap_get(&pos, h->commits[i].sha);
		keys[i] = (struct commit_key){p ? *p : SIZE_MAX, i};
		h->nr_line += p != NULL;
	}
	sort_array(keys, h->nr_commits, sizeof(*keys), cmp_commit_key);
	sorted = xmallocarray(h->nr_commits, sizeof(*sorted));
	for (size_t i = 0; i < h->nr_commits; i++) {
		sorted[i] = h->commits[keys[i].index];
		sorted[i].on_line = keys[i].line_pos != SIZE_MAX;
	}
	memcpy(h->commits, sorted, h->nr_commits * sizeof(*sorted));
	free(sorted);
	free(keys);
	strmap_release(&pos);
}

/*
 * Takes the failed builds at either end of the followed history off it (after it, in their
 * order): the charts span the measured commits, from the first to the last. A failed build
 * of an old commit (a configuration tried once) would stretch every axis over years and be
 * counted with the measured commits. None measured on it: it is empty.
 */
static void trim_line(struct history *h)
{
	size_t first = 0, last = h->nr_line, kept;
	struct history_commit *sorted;

	while (first < h->nr_line && !history_measured(&h->commits[first]))
		first++;
	while (last > first && !history_measured(&h->commits[last - 1]))
		last--;
	if (first == 0 && last == h->nr_line)
		return;
	kept = last - first;
	sorted = xmallocarray(h->nr_commits, sizeof(*sorted));
	memcpy(sorted, h->commits + first, kept * sizeof(*sorted));
	memcpy(sorted + kept, h->commits, first * sizeof(*sorted));
	memcpy(sorted + kept + first, h->commits + last, (h->nr_commits - last) * sizeof(*sorted));
	for (size_t i = kept; i < h->nr_line; i++)
		sorted[i].on_line = false;
	memcpy(h->commits, sorted, h->nr_commits * sizeof(*sorted));
	free(sorted);
	h->nr_line = kept;
}

/* How many points (and bytes) of each series (and benchmark) are on the followed history. */
static void count_line(struct history *h)
{
	for (size_t i = 0; i < h->nr_series; i++) {
		struct history_series *s = &h->series[i];
		s->nr_line_points = 0;
		while (s->nr_line_points < s->nr_points &&
		       s->points[s->nr_line_points].commit < h->nr_line)
			s->nr_line_points++;
	}
	for (size_t b = 0; b < h->nr_benches; b++) {
		struct history_bench *hb = &h->benches[b];
		hb->nr_line_bytes = 0;
		while (hb->nr_line_bytes < hb->nr_bytes &&
		       hb->bytes[hb->nr_line_bytes].commit < h->nr_line)
			hb->nr_line_bytes++;
	}
}

/* Keeps the comparisons whose target is a commit, indexes them, links the commits. */
static void link_comparisons(struct load_ctx *c)
{
	struct history *h = c->h;
	size_t kept = 0;
	int64_t latest = 0;

	for (size_t i = 0; i < h->nr_comparisons; i++) {
		struct history_comparison *cmp = &h->comparisons[i];
		cmp->commit = commit_of_build(c, cmp->target_build);
		if (cmp->commit == HISTORY_NONE) {
			comparison_release(cmp);
			continue;
		}
		cmp->base_commit = commit_of_build(c, cmp->base_build);
		for (size_t v = 0; v < cmp->nr_verdicts; v++)
			cmp->verdicts[v].bench = bench_of_id(c, cmp->verdicts[v].benchmark_id);
		for (size_t r = 0; r < cmp->nr_runs; r++)
			cmp->runs[r].bench = bench_of_id(c, cmp->runs[r].benchmark_id);
		sort_array(cmp->verdicts, cmp->nr_verdicts, sizeof(*cmp->verdicts), cmp_verdict);
		sort_array(cmp->runs, cmp->nr_runs, sizeof(*cmp->runs), cmp_run);
		h->comparisons[kept++] = *cmp;
	}
	h->nr_comparisons = kept;
	sort_array(h->comparisons, kept, sizeof(*h->comparisons), cmp_comparison);
	h->latest_comparison = HISTORY_NONE;
	for (size_t i = 0; i < kept; i++) {
		h->commits[h->comparisons[i].commit].comparison = i;
		if (h->comparisons[i].id > latest) {
			latest = h->comparisons[i].id;
			h->latest_comparison = i;
		}
	}
}

int history_load(struct store *st, const struct history_opts *o, struct history *h)
{
	struct load_ctx c;
	int ret;

	memset(h, 0, sizeof(*h));
	memset(&c, 0, sizeof(c));
	h->latest_comparison = HISTORY_NONE;
	c.h = h;
	if (o && o->min_segment == 1) {
		error("--min-segment 1: a segment needs at least 2 commits");
		return RP_EINPUT;
	}
	store_history_prefetch(st);
	if ((ret = store_history_benches(st, h, &c.ids, &c.nr_ids)) ||
	    (ret = store_history_machine(st, h, o ? o->machine : NULL)) || (ret = store_history_commits(st, h)))
		goto out;
	if (!h->nr_commits)
		goto out;
	order_by_line(h, o);
	trim_line(h);
	c.builds = xmallocarray(h->nr_commits, sizeof(*c.builds));
	for (size_t i = 0; i < h->nr_commits; i++)
		c.builds[i] = (struct build_ix){h->commits[i].build_id, i};
	sort_array(c.builds, h->nr_commits, sizeof(*c.builds), cmp_build_ix);
	/* the names stored with two commands or more (ids sorted by id: count per name) */
	{
		size_t *count = xcalloc(h->nr_benches ? h->nr_benches : 1, sizeof(*count));
		for (size_t i = 0; i < c.nr_ids; i++)
			if (++count[c.ids[i].bench] == 2) {
				if (!c.multi)
					c.multi = xcalloc(h->nr_benches, sizeof(*c.multi));
				c.multi[c.ids[i].bench] = true;
			}
		free(count);
	}
	if ((ret = store_history_values(st, h, on_value, &c)) || (ret = build_series(&c)))
		goto out;
	count_line(h);
	if ((ret = all_changes(h, o)))
		goto out;
	if ((ret = store_history_io(st, h)))
		goto out;
	for (size_t i = 0; i < h->nr_io; i++)
		h->io[i].bench = bench_of_id(&c, h->io[i].benchmark_id);
	/* definitions of one name are one benchmark: regroup them */
	sort_array(h->io, h->nr_io, sizeof(*h->io), cmp_io);
	build_bytes(&c);
	count_line(h);
	if ((ret = store_history_comparisons(st, h)))
		goto out;
	link_comparisons(&c);
out:
	store_history_prefetch_end(st); /* those not taken: no query left running */
	for (size_t i = 0; i < c.nr_metrics; i++)
		free(c.metrics[i]);
	free(c.metrics);
	free(c.metric_rank);
	free(c.vals);
	free(c.fails);
	free(c.cmds);
	free(c.multi);
	free(c.builds);
	free(c.ids);
	return ret;
}

void history_release(struct history *h)
{
	if (!h)
		return;
	free(h->line_name);
	free(h->machine.hostname);
	free(h->machine.cpu_model);
	free(h->machine.kernel);
	free(h->machine.governor);
	for (size_t i = 0; i < h->nr_commits; i++) {
		free(h->commits[i].sha);
		free(h->commits[i].summary);
		free(h->commits[i].build_command);
		free(h->commits[i].build_log);
	}
	free(h->commits);
	for (size_t i = 0; i < h->nr_benches; i++) {
		free(h->benches[i].name);
		free(h->benches[i].bytes);
	}
	free(h->benches);
	for (size_t i = 0; i < h->nr_series; i++) {
		free(h->series[i].metric);
		free(h->series[i].points);
		free(h->series[i].changes);
	}
	free(h->series);
	for (size_t i = 0; i < h->nr_comparisons; i++)
		comparison_release(&h->comparisons[i]);
	free(h->comparisons);
	for (size_t i = 0; i < h->nr_io; i++)
		free(h->io[i].path);
	free(h->io);
	for (size_t i = 0; i < h->nr_strings; i++)
		free(h->strings[i]);
	free(h->strings);
	memset(h, 0, sizeof(*h));
}

/* Reads the profiles of one build, benchmark and machine (machine 0: any). */
static int read_side(const struct history *h, int64_t build, size_t bench, int64_t machine,
		     struct io_profile **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < h->nr_io; i++) {
		const struct history_io_profile *p = &h->io[i];
		if (p->build_id != build || p->bench != bench ||
		    (machine && p->machine_id != machine))
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		if (io_profile_read(p->path, &(*out)[(*n)++]))
			return RP_EINPUT;
	}
	return 0;
}

int history_io_compare(const struct history *h, size_t cmp, size_t bench,
		       struct spectra_report *out, size_t used[2], struct strmap *frame_kinds)
{
	const struct history_comparison *c = &h->comparisons[cmp];
	struct io_profile *p[2] = {NULL, NULL};
	size_t n[2] = {0, 0}, excluded[2];
	int ret;

	memset(out, 0, sizeof(*out));
	used[0] = used[1] = 0;
	if ((ret = read_side(h, c->base_build, bench, c->machine_id, &p[0], &n[0])) ||
	    (ret = read_side(h, c->target_build, bench, c->machine_id, &p[1], &n[1])))
		goto out;
	if (!n[0] || !n[1])
		goto out;
	if ((ret = io_profiles_compare(p[0], n[0], p[1], n[1], IOTRACE_WRITE, NULL, out, used,
				       excluded)))
		goto out;
	for (int s = 0; frame_kinds && s < 2; s++)
		io_profiles_frame_kinds(p[s], n[s], frame_kinds);
	ret = 1;
out:
	for (int s = 0; s < 2; s++)
		if (p[s])
			io_profiles_free(p[s], n[s]);
	return ret;
}
