#include "profile/sample_raw.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"

/* Bytes of sample_id (TID and TIME) at the end of every other record. */
#define SAMPLE_ID_BYTES 16

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

const unsigned char *sample_raw_body(const struct sample_raw *r, const struct sample_raw_rec *rec,
				     size_t *len)
{
	*len = rec->size - sizeof(struct perf_event_header);
	return r->data + rec->offset + sizeof(struct perf_event_header);
}

/* The time of a record: a sample's TIME field, or the sample_id at the end of the rest. */
static uint64_t record_time(const struct sample_raw *r, const struct sample_raw_rec *rec)
{
	size_t len;
	const unsigned char *b = sample_raw_body(r, rec, &len);

	if (rec->type == PERF_RECORD_SAMPLE)
		return len >= 24 ? rd64(b + 16) : 0; /* after IP and TID */
	return len >= SAMPLE_ID_BYTES ? rd64(b + len - 8) : 0;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct sample_raw_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* Stable: the file order within one time stamp. */
	return (x->offset > y->offset) - (x->offset < y->offset);
}

static int check_header(const char *path, struct sample_raw *r)
{
	const struct perf_sample_raw_header *h = &r->h;
	const uint64_t need = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			      PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	const uint64_t known = need | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;

	if (r->size < sizeof(r->h) ||
	    memcmp(r->data, PERF_SAMPLE_RAW_MAGIC, sizeof(PERF_SAMPLE_RAW_MAGIC))) {
		error("%s: not a raw sample file of revperf (no '" PERF_SAMPLE_RAW_MAGIC
		      "' header)",
		      path);
		return RP_EINPUT;
	}
	memcpy(&r->h, r->data, sizeof(r->h));
	if (h->header_size != sizeof(r->h) || (h->sample_type & need) != need ||
	    (h->sample_type & ~known) || h->frequency_hz == 0 ||
	    (h->event != PERF_SAMPLE_EVENT_CPU_CLOCK && h->event != PERF_SAMPLE_EVENT_CYCLES) ||
	    (h->callgraph != PERF_SAMPLE_CALLGRAPH_FP &&
	     h->callgraph != PERF_SAMPLE_CALLGRAPH_DWARF) ||
	    __builtin_popcountll(h->regs_mask) > 64) {
		error("%s: the raw sample file's header is incomplete or from another version "
		      "(was the run interrupted?)",
		      path);
		return RP_EINPUT;
	}
	return 0;
}

int sample_raw_open(const char *path, struct sample_raw *out)
{
	struct stat st;
	size_t alloc = 0, off;
	int fd, ret = RP_EINPUT;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		error("cannot read the raw samples %s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(out->h)) {
		error("%s: not a raw sample file of revperf (%lld bytes)", path,
		      (long long)st.st_size);
		goto out;
	}
	out->size = (size_t)st.st_size;
	out->data = mmap(NULL, out->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (out->data == MAP_FAILED) {
		out->data = NULL;
		error("cannot map %s: %s", path, strerror(errno));
		goto out;
	}
	if ((ret = check_header(path, out)))
		goto out;
	ret = RP_EINPUT;
	for (off = sizeof(out->h); off < out->size;) {
		struct perf_event_header eh;
		struct sample_raw_rec *rec;

		if (out->size - off < sizeof(eh)) {
			warning("%s: %zu bytes at the end are not a whole record (the disk was "
				"full?); dropped",
				path, out->size - off);
			break;
		}
		memcpy(&eh, out->data + off, sizeof(eh));
		if (eh.size < sizeof(eh) || eh.size % 8) {
			error("%s: byte %zu: a record of %u bytes (type %u): the raw file is "
			      "corrupt",
			      path, off, (unsigned)eh.size, (unsigned)eh.type);
			goto out;
		}
		if (eh.size > out->size - off) {
			warning("%s: the last record is cut off at byte %zu (the disk was full?); "
				"dropped",
				path, off);
			break;
		}
		ALLOC_GROW(out->recs, out->nr_recs + 1, alloc);
		rec = &out->recs[out->nr_recs++];
		rec->offset = off;
		rec->size = eh.size;
		rec->type = eh.type;
		rec->time = record_time(out, rec);
		off += eh.size;
	}
	/* Each ring is in time order; the rings interleave. */
	qsort(out->recs, out->nr_recs, sizeof(*out->recs), cmp_rec);
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	if (ret)
		sample_raw_release(out);
	return ret;
}

void sample_raw_release(struct sample_raw *r)
{
	if (r->data)
		munmap((void *)r->data, r->size);
	free(r->recs);
	memset(r, 0, sizeof(*r));
}

int sample_raw_sample(const struct sample_raw *r, const struct sample_raw_rec *rec,
		      struct sample_raw_sample *s)
{
	size_t len, pos = 0;
	const unsigned char *b = sample_raw_body(r, rec, &len);
	uint64_t t = r->h.sample_type;

	memset(s, 0, sizeof(*s));
#define NEED(n)                                                                                    \
	do {                                                                                       \
		if ((n) > len - pos)                                                               \
			return -1;                                                                 \
	} while (0)
	NEED(40);
	s->ip = rd64(b);
	s->pid = rd32(b + 8);
	s->tid = rd32(b + 12);
	s->time = rd64(b + 16);
	s->period = rd64(b + 24);
	s->nr_chain = rd64(b + 32);
	pos = 40;
	if (s->nr_chain > (len - pos) / 8)
		return -1;
	s->chain = (const uint64_t *)(b + pos); /* records are 8-byte aligned in the map */
	pos += s->nr_chain * 8;
	if (t & PERF_SAMPLE_REGS_USER) {
		NEED(8);
		s->abi = rd64(b + pos);
		pos += 8;
		if (s->abi) {
			s->nr_regs = (unsigned)__builtin_popcountll(r->h.regs_mask);
			NEED((size_t)s->nr_regs * 8);
			s->regs = (const uint64_t *)(b + pos);
			pos += (size_t)s->nr_regs * 8;
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		uint64_t size, dyn;

		NEED(8);
		size = rd64(b + pos);
		pos += 8;
		if (size) {
			if (size > len - pos || len - pos - size < 8)
				return -1;
			s->stack = b + pos;
			dyn = rd64(b + pos + size);
			s->stack_size = dyn < size ? dyn : size;
			pos += size + 8;
		}
	}
#undef NEED
	return 0;
}
