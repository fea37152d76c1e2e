/*
 * libFuzzer target for the JSON importers (src/import/import.c): arbitrary bytes through
 * import_parse() (format detection, hyperfine and Google Benchmark readers, NaN/Infinity
 * rewriting, size caps). Any input must give a well-formed import set or RP_EINPUT (with
 * an empty set), never a crash or a sanitizer report; a parsed set then goes through the
 * verdict against itself, which must never be worse or better.
 * Built by `make fuzz` (clang, -fsanitize=fuzzer,address,undefined); see
 * tests/fuzz/run_import.sh.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/verdict.h"
#include "import/import.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The invariants import.h promises for one bench; aborts (a finding) when one is broken. */
static void check_bench(const struct import_bench *b)
{
	size_t j, k;
	if (!b->name[0])
		abort();
	for (k = 0; b->name[k]; k++)
		if ((unsigned char)b->name[k] < 0x20)
			abort(); /* names are one line */
	for (j = 0; j < b->nr_metrics; j++) {
		const struct import_metric *m = &b->metrics[j];
		if (m->n != b->nr_samples || !m->def || !m->def->name[0])
			abort(); /* every metric has one value (or NAN) per sample */
		for (k = 0; k < m->n; k++)
			if (isinf(m->values[k]) ||
			    (m->def->unit == UNIT_SECONDS && m->values[k] < 0))
				abort(); /* times are finite and >= 0 */
	}
}

/* The primary metric judged against itself: never worse or better. */
static void self_verdict(const struct import_bench *b)
{
	const struct import_metric *m;
	double *v;
	size_t n = 0, k;
	struct verdict_opts opts = { 0.01, 0.02, LOWER_IS_BETTER };
	struct verdict_result r;
	if (!b->nr_metrics)
		return;
	m = &b->metrics[0];
	v = xmallocarray(m->n ? m->n : 1, sizeof(*v));
	for (k = 0; k < m->n; k++)
		if (isfinite(m->values[k]))
			v[n++] = m->values[k];
	if (n >= 2 && verdict_decide(v, n, v, n, &opts, &r) == 0 &&
	    (r.verdict == VERDICT_WORSE || r.verdict == VERDICT_BETTER))
		abort();
	free(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct import_set s;
	size_t i;
	int ret = import_parse((const char *)data, size, "fuzz-input", &s);
	if (ret) {
		if (ret != RP_EINPUT || s.nr_benches || s.benches || s.source || s.origin)
			abort(); /* bad input is reported as such and leaves nothing behind */
		return 0;
	}
	if (!s.nr_benches || !s.source || !s.origin ||
	    (strcmp(s.source, "hyperfine") && strcmp(s.source, "gbench")))
		abort();
	for (i = 0; i < s.nr_benches; i++) {
		check_bench(&s.benches[i]);
		self_verdict(&s.benches[i]);
		if (import_set_find(&s, s.benches[i].name) != &s.benches[i])
			abort(); /* names are unique */
	}
	import_set_release(&s);
	return 0;
}
