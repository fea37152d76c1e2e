/*
 * libFuzzer target for the folded-stacks reader (src/profile/folded.c): arbitrary bytes
 * through folded_parse(). Any input gives a tree whose inclusive weights are consistent, or
 * RP_EINPUT with only the root left, never a crash or a sanitizer report. A parsed tree is
 * written back as folded stacks and read again: the same number of contexts and the same
 * total (the writer's promise for trees without call sites). Built by `make fuzz`.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile/folded.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cct t, again;
	struct strbuf sb = STRBUF_INIT;

	if (folded_parse((const char *)data, size, "fuzz", &t)) {
		if (t.nr_nodes != 1)
			abort(); /* a failed parse leaves only the root */
		cct_release(&t);
		return 0;
	}
	for (size_t i = 1; i < t.nr_nodes; i++) {
		const struct cct_node *n = &t.nodes[i];
		if (n->parent >= i || n->excl < 0 || n->incl < n->excl || n->site != 0)
			abort();
	}
	folded_write(&t, &sb);
	if (folded_parse(sb.buf, sb.len, "fuzz (written back)", &again))
		abort();
	if (fabs(cct_total(&again) - cct_total(&t)) > 1e-9 * (1 + cct_total(&t)))
		abort();
	cct_release(&again);
	cct_release(&t);
	strbuf_release(&sb);
	return 0;
}
