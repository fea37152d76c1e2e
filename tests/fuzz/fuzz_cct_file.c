/*
 * libFuzzer target for the CCT runtime's profile reader (src/profile/cct_file.c): arbitrary
 * bytes through cct_file_parse() (records, their order, numbers, addresses, maps lines,
 * caps). Any input must give a profile that keeps the promises of cct_file.h, or RP_EINPUT
 * with nothing left behind, never a crash or a sanitizer report. A parsed profile is then
 * converted into a tree without a symbolizer (no file is opened), threads merged and apart.
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); see
 * tests/fuzz/run_cct_file.sh.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "profile/cct_file.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariants cct_file.h promises; aborts (a finding) when one is broken. */
static void check_profile(const struct cct_profile *p)
{
	if (p->pid < 1 || p->ppid < 0 || !p->reason || !p->origin)
		abort();
	if (strcmp(p->reason, "signal") ? p->signal != 0 : (p->signal < 1 || p->signal > 64))
		abort();
	for (size_t i = 1; i < p->maps.nr; i++)
		if (p->maps.maps[i - 1].start > p->maps.maps[i].start)
			abort(); /* sorted */
	for (size_t i = 0; i < p->maps.nr; i++)
		if (p->maps.maps[i].start >= p->maps.maps[i].end)
			abort();
	for (size_t i = 0; i < p->nr_threads; i++) {
		const struct cct_file_thread *t = &p->threads[i];
		if (!t->nr_nodes || t->nr_nodes > CCT_FILE_MAX_THREAD_NODES || t->tid < 1)
			abort();
		if (t->nodes[0].parent || t->nodes[0].fn || t->nodes[0].site || t->nodes[0].calls)
			abort(); /* node 0 is the root */
		for (size_t j = 0; j < t->nr_nodes; j++) {
			const struct cct_file_node *n = &t->nodes[j];
			if ((j && (n->parent >= j || !n->fn)) || n->incl_ns < n->excl_ns)
				abort();
		}
	}
}

static void check_tree(const struct cct *t, size_t raw_nodes)
{
	if (!t->nr_nodes || t->nr_nodes > raw_nodes + 1 + 64)
		abort();
	for (size_t i = 1; i < t->nr_nodes; i++)
		if (t->nodes[i].parent >= i || t->nodes[i].incl < t->nodes[i].excl)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cct_profile p;
	const struct cct_profile *one[] = {&p};
	struct cct t;
	size_t raw = 0;
	int ret = cct_file_parse((const char *)data, size, "fuzz-input", &p);
	if (ret) {
		if (ret != RP_EINPUT || p.threads || p.maps.maps || p.origin || p.exe || p.reason)
			abort(); /* bad input is reported as such and leaves nothing behind */
		return 0;
	}
	check_profile(&p);
	for (size_t i = 0; i < p.nr_threads; i++)
		raw += p.threads[i].nr_nodes;
	for (int merge = 0; merge < 2; merge++) {
		if (cct_profile_to_cct(one, 1, NULL, merge, &t))
			abort(); /* a small valid profile always converts */
		check_tree(&t, raw + p.nr_threads);
		cct_release(&t);
	}
	cct_profile_release(&p);
	return 0;
}
