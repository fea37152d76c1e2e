/*
 * libFuzzer target for the callgrind reader (src/profile/callgrind.c): arbitrary bytes
 * through callgrind_sniff() and callgrind_parse() (header and body lines, name and
 * subposition compression, calls, parts, concatenated files, the context expansion with
 * recursion and folding). Any input must give a tree or RP_EINPUT with only the root left,
 * never a crash or a sanitizer report; a tree's weights and calls are finite and >= 0, and
 * a node's inclusive weight is its exclusive weight plus its children's.
 * Built with clang -DREVPERF_FUZZ=ON; run as in docs/callgrind.md ("Fuzzing").
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/callgrind.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool finite_nonneg(double v)
{
	return isfinite(v) && v >= 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct cct t;
	size_t i;

	(void)callgrind_sniff(text, size);
	int ret = callgrind_parse(text, size, "fuzz-input", NULL, &t);
	if (ret) {
		if (ret != RP_EINPUT || t.nr_nodes != 1)
			abort(); /* bad input is reported as such and leaves only the root */
		cct_release(&t);
		return 0;
	}
	if (t.nr_nodes > CALLGRIND_MAX_NODES)
		abort();
	for (i = 0; i < t.nr_nodes; i++) {
		const struct cct_node *n = &t.nodes[i];
		if (!finite_nonneg(n->calls) || !finite_nonneg(n->incl) || !finite_nonneg(n->excl))
			abort();
	}
	for (i = 0; i < t.nr_nodes; i++) {
		double children = 0;
		for (uint32_t c = t.nodes[i].first_child; c != CCT_NONE;
		     c = t.nodes[c].next_sibling)
			children += t.nodes[c].incl;
		double want = t.nodes[i].excl + children;
		if (fabs(t.nodes[i].incl - want) > 1e-9 * (want > 1 ? want : 1))
			abort();
	}
	cct_release(&t);
	return 0;
}
