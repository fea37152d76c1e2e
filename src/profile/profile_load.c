#include "profile/profile_load.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "binary/symbolize.h"
#include "profile/callgrind.h"
#include "profile/callgrind_plt.h"
#include "profile/cct_file.h"
#include "profile/folded.h"
#include "profile/sample_file.h"
#include "util/common.h"
#include "util/input.h"

static const char *const format_names[] = {
	[PROFILE_FORMAT_AUTO] = "auto",
	[PROFILE_FORMAT_CCT] = "cct",
	[PROFILE_FORMAT_CALLGRIND] = "callgrind",
	[PROFILE_FORMAT_FOLDED] = "folded",
	[PROFILE_FORMAT_SAMPLE] = "sample",
	[PROFILE_FORMAT_PERF] = "perf",
};

int profile_format_parse(const char *s, enum profile_format *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(format_names); i++)
		if (!strcmp(s, format_names[i])) {
			*out = (enum profile_format)i;
			return 0;
		}
	return -1;
}

const char *profile_format_name(enum profile_format f)
{
	return (size_t)f < ARRAY_SIZE(format_names) ? format_names[f] : "unknown";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !strcmp(s + n - m, suffix);
}

/* Converts parsed CCT profiles with the caller's symbolizer or one of its own. */
void profile_threads_release(struct profile_threads *t)
{
	if (!t)
		return;
	free(t->t);
	memset(t, 0, sizeof(*t));
}

/* The main thread first, then by tid. */
static int cmp_thread_total(const void *x, const void *y)
{
	const struct profile_thread *a = x, *b = y;
	bool ma = a->tid == a->pid, mb = b->tid == b->pid;
	if (ma != mb)
		return ma ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

static void thread_totals(const struct cct_profile *const *profiles, size_t nr,
			  struct profile_threads *out)
{
	for (size_t i = 0; i < nr; i++) {
		size_t first = out->nr;
		for (size_t j = 0; j < profiles[i]->nr_threads; j++) {
			const struct cct_file_thread *t = &profiles[i]->threads[j];
			ALLOC_GROW(out->t, out->nr + 1, out->alloc);
			out->t[out->nr].pid = profiles[i]->pid;
			out->t[out->nr].tid = t->tid;
			out->t[out->nr++].ns = t->nr_nodes ? (double)t->nodes[0].incl_ns : 0;
		}
		if (out->nr > first) /* a process may have no instrumented thread */
			qsort(out->t + first, out->nr - first, sizeof(*out->t), cmp_thread_total);
	}
}

static int convert(const struct cct_profile *const *profiles, size_t nr,
		   const struct profile_load_options *o, struct cct *out)
{
	struct symbolizer *own = o->sym ? NULL : symbolizer_new();
	int ret = cct_profile_to_cct(profiles, nr, o->sym ? o->sym : own, !o->separate_threads,
				     out);
	symbolizer_free(own);
	if (!ret && o->threads)
		thread_totals(profiles, nr, o->threads);
	return ret;
}

static const char *clock_of(const struct cct_profile *p)
{
	switch (p->clock) {
	case CCT_CLOCK_TSC: return "tsc";
	case CCT_CLOCK_MONOTONIC: return "monotonic";
	case CCT_CLOCK_NONE: break;
	}
	return "none";
}

/* A directory of one run's CCT profiles: every complete *.cct file, in name order. */
static int load_cct_dir(const char *dir, const struct profile_load_options *o, struct cct *out,
			struct profile_source *src)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	struct cct_profile *profiles = NULL;
	const struct cct_profile **ptrs = NULL;
	size_t nr = 0, alloc = 0, parsed = 0, i;
	struct strbuf path = STRBUF_INIT;
	int ret = RP_EINPUT;

	if (!d) {
		error("cannot read the profile directory '%s': %s", dir, strerror(errno));
		cct_init(out);
		return RP_EINPUT;
	}
	while ((de = readdir(d))) {
		if (has_suffix(de->d_name, ".cct.tmp")) {
			src->nr_skipped++;
			continue;
		}
		if (!has_suffix(de->d_name, ".cct"))
			continue;
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!nr) {
		error("'%s' holds no complete CCT profile (*.cct)%s; was the program built with "
		      "-finstrument-functions and run with librevperf_cct.so preloaded?",
		      dir, src->nr_skipped ? " (only incomplete *.cct.tmp files of killed "
					     "processes)" : "");
		cct_init(out);
		goto out;
	}
	if (src->nr_skipped)
		warning("%s: %u process profile(s) incomplete (*.cct.tmp: the process was "
			"killed before it could finish writing); they are left out",
			dir, src->nr_skipped);
	qsort(names, nr, sizeof(*names), by_name);
	profiles = xcalloc(nr, sizeof(*profiles));
	ptrs = xcalloc(nr, sizeof(*ptrs));
	for (parsed = 0; parsed < nr; parsed++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, names[parsed]);
		if (cct_file_read(path.buf, &profiles[parsed])) {
			cct_init(out);
			goto out;
		}
		ptrs[parsed] = &profiles[parsed];
	}
	src->nr_files = (unsigned)nr;
	src->calls_only = profiles[0].clock == CCT_CLOCK_NONE;
	src->clock = clock_of(&profiles[0]);
	/* The program: that of the process with the largest tree (a shell that started the
	 * instrumented program writes a profile of its own, with no calls in it). */
	{
		size_t best = 0, best_nodes = 0;
		for (i = 0; i < nr; i++) {
			size_t nodes = 0;
			for (size_t t = 0; t < profiles[i].nr_threads; t++)
				nodes += profiles[i].threads[t].nr_nodes;
			if (nodes > best_nodes) {
				best_nodes = nodes;
				best = i;
			}
		}
		if (profiles[best].exe)
			snprintf(src->exe, sizeof(src->exe), "%s", profiles[best].exe);
	}
	ret = convert(ptrs, nr, o, out);
out:
	for (i = 0; i < parsed; i++)
		cct_profile_release(&profiles[i]);
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(profiles);
	free(ptrs);
	strbuf_release(&path);
	return ret;
}

/* Below this many samples a share is too uncertain to go unmentioned. */
#define PERF_FEW_SAMPLES 100

/* What a reader of the diff must know about a perf script profile: what was left out. */
static void perf_warnings(const char *path, const struct perf_script_info *info)
{
	if (info->nr_other_events)
		warning("%s: %zu sample%s of other events left out: the profile weighs %s (--event "
			"chooses another)",
			path, info->nr_other_events, info->nr_other_events == 1 ? "" : "s",
			info->event);
	if (info->nr_no_callchain == info->nr_samples)
		warning("%s: no call chains, only the sampled functions: record with `perf record "
			"-g` or `--call-graph dwarf`",
			path);
	else if (info->nr_no_callchain)
		warning("%s: %zu of %zu samples without a call chain (under their function alone)",
			path, info->nr_no_callchain, info->nr_samples);
	/* The binomial sd of a share p from n samples is sqrt(p(1-p)/n): 50/sqrt(n) points
	 * at p = 50%, the largest. */
	if (info->nr_samples < PERF_FEW_SAMPLES)
		warning("%s: only %zu sample%s: a share of the profile is uncertain by up to "
			"+/-%.0f points (one sd); record longer or at a higher frequency (-F)",
			path, info->nr_samples, info->nr_samples == 1 ? "" : "s",
			50.0 / sqrt((double)info->nr_samples));
}

static int load_text(const char *path, const char *text, size_t len,
		     const struct profile_load_options *o, struct cct *out,
		     struct profile_source *src)
{
	enum profile_format f = o->format;
	int ret;

	if (f == PROFILE_FORMAT_AUTO) {
		if (cct_file_sniff(text, len))
			f = PROFILE_FORMAT_CCT;
		else if (sample_profile_sniff(text, len))
			f = PROFILE_FORMAT_SAMPLE;
		else if (callgrind_sniff(text, len))
			f = PROFILE_FORMAT_CALLGRIND;
		else if (perf_script_sniff(text, len))
			f = PROFILE_FORMAT_PERF;
		else
			f = PROFILE_FORMAT_FOLDED;
	}
	src->format = f;
	switch (f) {
	case PROFILE_FORMAT_CCT: {
		struct cct_profile p;
		const struct cct_profile *one = &p;
		if ((ret = cct_file_parse(text, len, path, &p))) {
			cct_init(out);
			return ret;
		}
		src->nr_files = 1;
		src->calls_only = p.clock == CCT_CLOCK_NONE;
		src->clock = clock_of(&p);
		if (p.exe)
			snprintf(src->exe, sizeof(src->exe), "%s", p.exe);
		ret = convert(&one, 1, o, out);
		cct_profile_release(&p);
		return ret;
	}
	case PROFILE_FORMAT_CALLGRIND: {
		/* PLT entries and symbols of size 0 by name, as in compare's attribution */
		struct callgrind_plt plt = CALLGRIND_PLT_INIT;
		ret = callgrind_parse_renamed(text, len, path, o->event, callgrind_plt_rename, &plt,
					      out);
		callgrind_plt_release(&plt);
		return ret;
	}
	case PROFILE_FORMAT_SAMPLE: {
		struct sample_profile p;
		if ((ret = sample_profile_parse(text, len, path, &p))) {
			cct_init(out);
			return ret;
		}
		src->nr_files = 1;
		snprintf(src->exe, sizeof(src->exe), "%s", p.exe);
		if (o->weight_calls) {
			error("%s: a sampled profile counts no calls: it cannot be weighed by calls",
			      path);
			ret = RP_EINPUT;
			cct_init(out);
		} else if (!p.samples) {
			error("%s: the profile holds no sample (the program ran less than one "
			      "sampling period)",
			      path);
			ret = RP_EINPUT;
			cct_init(out);
		} else {
			ret = sample_profile_cct(&p, o->separate_threads, out);
		}
		sample_profile_release(&p);
		return ret;
	}
	case PROFILE_FORMAT_PERF: {
		struct perf_script_options po = { .event = o->event,
						  .separate_threads = o->separate_threads };
		if ((ret = perf_script_parse(text, len, path, &po, out, &src->perf)))
			return ret;
		perf_warnings(path, &src->perf);
		return 0;
	}
	default:
		return folded_parse(text, len, path, out);
	}
}

int profile_load(const char *path, const struct profile_load_options *o, struct cct *out,
		 struct profile_source *src)
{
	static const struct profile_load_options defaults;
	struct profile_source scratch;
	struct strbuf sb = STRBUF_INIT;
	struct input in;
	int ret;

	if (!o)
		o = &defaults;
	if (!src)
		src = &scratch;
	memset(src, 0, sizeof(*src));
	if ((ret = input_open(&in, path, &input_profile))) {
		cct_init(out);
		return ret;
	}
	if (in.is_dir) {
		input_close(&in);
		if (o->format != PROFILE_FORMAT_AUTO && o->format != PROFILE_FORMAT_CCT) {
			error("'%s' is a directory: only CCT profiles come as a directory (one "
			      "run's *.cct files), not %s",
			      path, profile_format_name(o->format));
			cct_init(out);
			return RP_EINPUT;
		}
		src->format = PROFILE_FORMAT_CCT;
		ret = load_cct_dir(path, o, out, src);
	} else if ((ret = input_read_all(&in, &sb))) {
		input_close(&in);
		cct_init(out);
	} else {
		input_close(&in);
		ret = load_text(path, sb.buf, sb.len, o, out, src);
	}
	strbuf_release(&sb);
	if (!ret && o->weight_calls) {
		/* Calls are deterministic where time is not: two runs of one program must
		 * match (almost) exactly when weighed by calls. */
		for (size_t i = 0; i < out->nr_nodes; i++)
			out->nodes[i].excl = out->nodes[i].calls;
		cct_compute_inclusive(out);
		cct_set_weight(out, CCT_WEIGHT_CALLS, NULL);
	}
	if (!ret && o->plain) {
		struct cct plain;
		cct_plain(out, &plain);
		cct_release(out);
		*out = plain;
	}
	return ret;
}
