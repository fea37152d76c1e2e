/*
 * Runs one program under the I/O tracer (collect/iotrace.h) and prints what it cost and
 * saw, for bench/io_trace.sh:
 *
 *   iotrace_bench [--depth N] [--reads] [--verify] -- PROGRAM [ARGS...]
 *
 * prints "wall_s calls bytes entries tracer_cpu_s fast_unwinds libdw_unwinds" on one line,
 * then the three biggest entries with their stacks (module+address) on stderr.
 * --verify unwinds every stack both ways and fails when they differ.
 */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "collect/iotrace.h"
#include "util/common.h"

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	struct iotrace_options opts;
	struct iotrace_result res;
	struct rusage ru;
	uint64_t calls = 0;
	int i = 1, ret;

	iotrace_options_init(&opts);
	for (; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--reads"))
			opts.reads = true;
		else if (!strcmp(argv[i], "--verify"))
			opts.verify_unwind = true;
		else if (!strcmp(argv[i], "--depth") && i + 1 < argc)
			opts.max_depth = (unsigned)strtoul(argv[++i], NULL, 10);
	}
	if (i + 1 >= argc) {
		fprintf(
		    stderr,
		    "usage: iotrace_bench [--depth N] [--reads] [--verify] -- PROGRAM [ARGS...]\n");
		return 2;
	}
	ret = iotrace_run(argv + i + 1, &opts, &res);
	if (ret) {
		iotrace_result_release(&res);
		return 3;
	}
	getrusage(RUSAGE_SELF, &ru);
	for (size_t e = 0; e < res.nr_entries; e++)
		calls += res.entries[e].calls;
	printf("%.3f %llu %llu %zu %.3f %llu %llu\n", (double)res.wall_ns / 1e9,
	       (unsigned long long)calls,
	       (unsigned long long)iotrace_total_bytes(&res, IOTRACE_WRITE), res.nr_entries,
	       tv_s(ru.ru_utime) + tv_s(ru.ru_stime), (unsigned long long)res.unwinds_fast,
	       (unsigned long long)res.unwinds_libdw);
	for (size_t e = 0; e < res.nr_entries && e < 3; e++) {
		const struct iotrace_entry *en = &res.entries[e];

		fprintf(stderr, "%s %s: %llu calls, %llu bytes\n", en->syscall, en->file,
			(unsigned long long)en->calls, (unsigned long long)en->bytes);
		for (size_t f = 0; f < en->nr_frames; f++)
			fprintf(stderr, "    %s+%#llx\n", en->frames[f].module,
				(unsigned long long)en->frames[f].file_vaddr);
	}
	if (res.status != RUN_OK)
		fprintf(stderr, "iotrace_bench: %s: %s\n", run_status_name(res.status), res.detail);
	if (res.unwind_mismatches)
		fprintf(stderr,
			"iotrace_bench: %llu stacks unwound differently by the two unwinders\n",
			(unsigned long long)res.unwind_mismatches);
	ret = res.status == RUN_OK && !res.unwind_mismatches ? 0 : 1;
	iotrace_result_release(&res);
	return ret;
}
