#ifndef REVPERF_PROFILE_SAMPLE_RAW_H
#define REVPERF_PROFILE_SAMPLE_RAW_H

/*
 * The sampling recorder's raw file (collect/perf_sample.h): the kernel's records, checked
 * and put in time order. The file is mapped, not read: with stack copies it holds 8 KiB
 * per sample.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "collect/perf_sample.h"

/* One record of the file, in the time order of sample_raw_open()'s index. */
struct sample_raw_rec {
	uint64_t time;
	uint64_t offset; /* of its struct perf_event_header in the file */
	uint32_t size;
	uint32_t type; /* PERF_RECORD_* */
};

struct sample_raw {
	struct perf_sample_raw_header h;
	const unsigned char *data; /* the mapped file */
	size_t size;
	struct sample_raw_rec *recs;
	size_t nr_recs;
};

/* A sample record's fields; pointers into the mapped file. */
struct sample_raw_sample {
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time, period;
	uint64_t nr_chain; /* the call chain with its context markers (PERF_CONTEXT_*) */
	const uint64_t *chain;
	uint64_t abi;	      /* PERF_SAMPLE_REGS_ABI_*: 0 when no user registers */
	const uint64_t *regs; /* in the order of the header's regs_mask bits */
	unsigned nr_regs;
	uint64_t stack_size; /* bytes of user stack copied, from the sampled stack pointer */
	const unsigned char *stack;
};

/*
 * Maps `path` and checks it: the header, then every record's size inside the file (a
 * truncated last record, written when the disk filled up, is dropped with a warning).
 * Returns 0, or RP_EINPUT after one error() naming the file and the byte offset. Release
 * with sample_raw_release().
 */
int sample_raw_open(const char *path, struct sample_raw *out);

/* Unmaps and frees; accepts a zeroed or released struct. */
void sample_raw_release(struct sample_raw *r);

/* The fields of sample record `rec`. Returns 0, or -1 when the record is malformed. */
int sample_raw_sample(const struct sample_raw *r, const struct sample_raw_rec *rec,
		      struct sample_raw_sample *s);

/* The bytes of a record after its struct perf_event_header, and their number. */
const unsigned char *sample_raw_body(const struct sample_raw *r, const struct sample_raw_rec *rec,
				     size_t *len);

#endif
