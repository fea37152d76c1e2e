/*
 * libFuzzer target for the perf script reader (src/profile/perf_script.c): arbitrary bytes
 * through perf_script_parse(), with and without --threads, and through the sniffer. Any
 * input gives a tree whose inclusive weights are consistent and whose children are in
 * name order, with as many samples counted as weighed, or RP_EINPUT with only the root
 * left, never a crash or a sanitizer report. Built by `make fuzz`; `make test` runs the
 * seeds (the .perf files of tests/data/perf).
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/perf_script.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t size, bool threads)
{
	struct perf_script_options o = {.separate_threads = threads};
	struct perf_script_info info;
	struct cct t;

	if (perf_script_parse(text, size, "fuzz", &o, &t, &info)) {
		if (t.nr_nodes != 1)
			abort(); /* a failed parse leaves only the root */
		cct_release(&t);
		return;
	}
	if (!info.nr_samples || !(cct_total(&t) > 0) || !isfinite(cct_total(&t)))
		abort();
	for (size_t i = 1; i < t.nr_nodes; i++) {
		const struct cct_node *n = &t.nodes[i];
		if (n->parent >= i || n->excl < 0 || n->incl < n->excl || n->site != 0 ||
		    n->calls != 0)
			abort();
		/* Siblings in name order. */
		if (n->next_sibling != CCT_NONE &&
		    strcmp(cct_name(&t, n->name), cct_name(&t, t.nodes[n->next_sibling].name)) >= 0)
			abort();
		if (threads && n->parent == CCT_ROOT &&
		    strncmp(cct_name(&t, n->name), "[thread ", 8))
			abort();
	}
	cct_release(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;

	(void)perf_script_sniff(text, size);
	check(text, size, false);
	check(text, size, true);
	return 0;
}
