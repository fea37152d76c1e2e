/*
 * libFuzzer target for the sampled-profile reader (src/profile/sample_file.c): arbitrary
 * bytes through sample_profile_parse(). Any input gives a profile whose threads are
 * numbered before the stacks that name them and whose trees (merged and per thread) hold
 * the stacks' total weight, or RP_EINPUT with the profile released, never a crash or a
 * sanitizer report. A parsed profile is written back and read again: the same text.
 * Built by `make fuzz`.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/sample_file.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sample_profile p, again;
	struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
	double total = 0;

	if (sample_profile_parse((const char *)data, size, "fuzz", &p)) {
		if (p.nr_threads || p.nr_stacks || p.command)
			abort(); /* a failed parse leaves nothing */
		return 0;
	}
	for (size_t i = 0; i < p.nr_stacks; i++) {
		if (p.stacks[i].thread >= p.nr_threads || !p.stacks[i].frames[0])
			abort();
		total += p.stacks[i].weight;
	}
	for (int sep = 0; sep < 2; sep++) {
		struct cct t;
		/* The weights add up; a sampled tree knows no calls and says what it weighs. */
		if (!sample_profile_cct(&p, sep, &t) &&
		    (fabs(cct_total(&t) - total) > 1e-9 * (1 + total) || t.calls_known ||
		     t.weight == CCT_WEIGHT_UNKNOWN))
			abort();
		cct_release(&t);
	}
	sample_profile_write(&p, &sb);
	if (sample_profile_parse(sb.buf, sb.len, "fuzz (written back)", &again))
		abort();
	sample_profile_write(&again, &sb2);
	if (sb.len != sb2.len || memcmp(sb.buf, sb2.buf, sb.len))
		abort();
	sample_profile_release(&again);
	sample_profile_release(&p);
	strbuf_release(&sb);
	strbuf_release(&sb2);
	return 0;
}
