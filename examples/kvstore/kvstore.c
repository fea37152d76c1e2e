/*
 * kvstore: a small key-value store with an append-only log, used as the
 * example program of revperf (the demo, the CLI tests and the benchmarks).
 *
 * One run is one benchmark:
 *   1. ingest: generate N records from a seeded PRNG, insert them into an
 *      open-addressing hash table and append each one, encoded with a CRC,
 *      to a log file; the log is written with one write() and one fsync()
 *      per batch of BATCH_RECORDS records;
 *   2. query: answer M point lookups, about half of them for keys that
 *      exist and half for keys that do not;
 *   3. scan: count the records whose score falls in a few ranges;
 *   4. print one line with the counts and a checksum of every answer, so
 *      that no work can be optimised away and two builds can be compared.
 *
 * The key hash, kv_hash(), is the largest single cost of a lookup (about
 * 30% of a run); it is kept out of line so that profilers attribute its
 * time to it, and a change to it shows in the whole-run time.
 *
 * Usage: kvstore [--records N] [--queries M] [--log PATH] [--seed S]
 * Exit codes: 0 ok, 1 I/O error, 2 usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* Out of line and not cloned, so that profiles name it plainly. */
#if defined(__GNUC__) && !defined(__clang__)
#define KV_NOINLINE __attribute__((noinline, noclone))
#elif defined(__GNUC__)
#define KV_NOINLINE __attribute__((noinline))
#else
#define KV_NOINLINE
#endif

#define DEFAULT_RECORDS 4096u
#define DEFAULT_QUERIES 2000000u
#define DEFAULT_SEED 42u
#define DEFAULT_LOG "kvstore.log"

/* Bounds keep sizes far from overflow and 2 * records within prng_below(). */
#define MAX_RECORDS (1u << 22)
#define MAX_QUERIES (1ull << 40)

#define BATCH_RECORDS 256
#define SCAN_COUNT 64
#define SCORE_RANGE 1000000u

/* Keys are 56 bytes, no NUL: "accounts/eu-west-1/users/<16 hex digits>/profile/avatar". */
#define KEY_PREFIX "accounts/eu-west-1/users/"
#define KEY_SUFFIX "/profile/avatar"
#define KEY_BYTES 56
#define VALUE_BYTES 40

/* On-disk record: u32 length, u64 id, u32 score, key, value, u32 crc. */
#define ENCODED_BYTES (4 + 8 + 4 + KEY_BYTES + VALUE_BYTES + 4)

#define PRIME1 0x9e3779b185ebca87ull
#define PRIME2 0xc2b2ae3d27d4eb4full
#define PRIME3 0x165667b19e3779f9ull

struct record {
	uint64_t id;
	uint32_t score;
	char key[KEY_BYTES];
	unsigned char value[VALUE_BYTES];
};

/* index == 0 marks an empty slot; otherwise the record is records[index - 1]. */
struct slot {
	uint64_t hash;
	uint32_t index;
};

struct store {
	struct record *records;
	size_t nr_records;
	struct slot *slots;
	size_t slot_mask;
};

struct log_writer {
	int fd;
	const char *path;
	unsigned char *buf;
	size_t len;
	size_t pending;
	uint64_t bytes_written;
	uint64_t nr_syncs;
};

struct options {
	uint64_t records;
	uint64_t queries;
	uint64_t seed;
	const char *log_path;
};

static uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/* splitmix64 finaliser: a bijection on 64 bits, so distinct ids stay distinct. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

/* xorshift64*: the workload generator; the state must never be zero. */
static uint64_t prng_next(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* A value in [0, bound) for bound <= 2^32, by multiply-shift instead of a division. */
static uint64_t prng_below(uint64_t *state, uint64_t bound)
{
	return ((prng_next(state) >> 32) * bound) >> 32;
}

/*
 * kv_hash: hash len bytes of key. Each 8-byte block is mixed into the state
 * with a multiply-rotate-multiply round; the tail bytes one at a time; the
 * result goes through the splitmix finaliser.
 */
static KV_NOINLINE uint64_t kv_hash(const char *key, size_t len)
{
	uint64_t h = PRIME3 ^ (len * PRIME1);
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t k;

		memcpy(&k, key + i, 8);
		k *= PRIME2;
		k = rotl64(k, 31);
		k *= PRIME1;
		h ^= k;
		h = rotl64(h, 27) * PRIME1 + PRIME3;
	}
	for (; i < len; i++) {
		h ^= (unsigned char)key[i] * PRIME3;
		h = rotl64(h, 11) * PRIME1;
	}
	return mix64(h);
}

/* Writes the key of user id into key[KEY_BYTES]. */
static void key_format(char *key, uint64_t id)
{
	static const char hex[] = "0123456789abcdef";
	size_t prefix = sizeof(KEY_PREFIX) - 1;
	int i;

	memcpy(key, KEY_PREFIX, prefix);
	for (i = 0; i < 16; i++)
		key[prefix + (size_t)i] = hex[(id >> (60 - 4 * i)) & 0xf];
	memcpy(key + prefix + 16, KEY_SUFFIX, sizeof(KEY_SUFFIX) - 1);
}

/* Record number n has user id mix64(n ^ salt): unique, and unpredictable. */
static uint64_t user_id(uint64_t n, uint64_t seed)
{
	return mix64(n ^ (seed * PRIME2));
}

/* Bitwise CRC-32 (IEEE, reflected); records are small, so no table. */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t len)
{
	size_t i;
	int bit;

	crc = ~crc;
	for (i = 0; i < len; i++) {
		crc ^= p[i];
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Encodes rec little-endian into out[ENCODED_BYTES]; returns ENCODED_BYTES. */
static size_t record_encode(const struct record *rec, unsigned char *out)
{
	unsigned char *p = out;

	put_u32(p, ENCODED_BYTES);
	p += 4;
	put_u64(p, rec->id);
	p += 8;
	put_u32(p, rec->score);
	p += 4;
	memcpy(p, rec->key, KEY_BYTES);
	p += KEY_BYTES;
	memcpy(p, rec->value, VALUE_BYTES);
	p += VALUE_BYTES;
	put_u32(p, crc32_update(0, out, (size_t)(p - out)));
	return ENCODED_BYTES;
}

/* Creates every missing directory above path ("mkdir -p" of its dirname). */
static int make_parent_dirs(const char *path)
{
	char dir[4096];
	size_t len = strlen(path);
	size_t i;

	if (len >= sizeof(dir)) {
		fprintf(stderr, "kvstore: log path too long: %s\n", path);
		return -1;
	}
	memcpy(dir, path, len + 1);
	for (i = 1; i < len; i++) {
		if (dir[i] != '/')
			continue;
		dir[i] = '\0';
		if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
			fprintf(stderr, "kvstore: cannot create directory '%s': %s\n", dir,
				strerror(errno));
			return -1;
		}
		dir[i] = '/';
	}
	return 0;
}

/* Opens the log, truncated so that repeated runs do not grow it. */
static int log_open(struct log_writer *log, const char *path)
{
	memset(log, 0, sizeof(*log));
	log->fd = -1;
	log->path = path;
	if (make_parent_dirs(path) != 0)
		return -1;
	log->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (log->fd < 0) {
		fprintf(stderr, "kvstore: cannot open log '%s': %s\n", path, strerror(errno));
		return -1;
	}
	log->buf = malloc((size_t)BATCH_RECORDS * ENCODED_BYTES);
	if (!log->buf) {
		fprintf(stderr, "kvstore: out of memory\n");
		return -1;
	}
	return 0;
}

/* Writes the pending records with one write() and makes them durable. */
static int log_flush(struct log_writer *log)
{
	size_t done = 0;

	if (log->len == 0)
		return 0;
	while (done < log->len) {
		ssize_t n = write(log->fd, log->buf + done, log->len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "kvstore: cannot write log '%s': %s\n", log->path,
				n < 0 ? strerror(errno) : "short write");
			return -1;
		}
		done += (size_t)n;
	}
	if (fsync(log->fd) != 0) {
		fprintf(stderr, "kvstore: cannot sync log '%s': %s\n", log->path, strerror(errno));
		return -1;
	}
	log->bytes_written += log->len;
	log->nr_syncs++;
	log->len = 0;
	log->pending = 0;
	return 0;
}

/* Appends rec to the current batch; a full batch goes to disk. */
static int log_append(struct log_writer *log, const struct record *rec)
{
	log->len += record_encode(rec, log->buf + log->len);
	log->pending++;
	if (log->pending == BATCH_RECORDS)
		return log_flush(log);
	return 0;
}

/* Flushes what is left and closes the log; safe on a half-opened writer. */
static int log_close(struct log_writer *log)
{
	int ret = 0;

	if (log->fd >= 0 && log_flush(log) != 0)
		ret = -1;
	if (log->fd >= 0 && close(log->fd) != 0) {
		fprintf(stderr, "kvstore: cannot close log '%s': %s\n", log->path, strerror(errno));
		ret = -1;
	}
	log->fd = -1;
	free(log->buf);
	log->buf = NULL;
	return ret;
}

/* Sizes the table for nr records at a load factor of at most 1/2. */
static int store_init(struct store *st, size_t nr)
{
	size_t cap = 16;

	while (cap < 2 * nr)
		cap *= 2;
	st->records = calloc(nr ? nr : 1, sizeof(*st->records));
	st->slots = calloc(cap, sizeof(*st->slots));
	st->nr_records = 0;
	st->slot_mask = cap - 1;
	if (!st->records || !st->slots) {
		fprintf(stderr, "kvstore: out of memory\n");
		return -1;
	}
	return 0;
}

static void store_release(struct store *st)
{
	free(st->records);
	free(st->slots);
	st->records = NULL;
	st->slots = NULL;
}

/* Looks key up; returns its record or NULL. */
static const struct record *store_get(const struct store *st, const char *key)
{
	uint64_t h = kv_hash(key, KEY_BYTES);
	size_t i = (size_t)h & st->slot_mask;

	for (;; i = (i + 1) & st->slot_mask) {
		const struct slot *s = &st->slots[i];
		const struct record *rec;

		if (s->index == 0)
			return NULL;
		if (s->hash != h)
			continue;
		rec = &st->records[s->index - 1];
		if (memcmp(rec->key, key, KEY_BYTES) == 0)
			return rec;
	}
}

/* Inserts a copy of rec, or overwrites the record with the same key. */
static const struct record *store_put(struct store *st, const struct record *rec)
{
	uint64_t h = kv_hash(rec->key, KEY_BYTES);
	size_t i = (size_t)h & st->slot_mask;

	for (;; i = (i + 1) & st->slot_mask) {
		struct slot *s = &st->slots[i];

		if (s->index == 0) {
			st->records[st->nr_records] = *rec;
			s->hash = h;
			s->index = (uint32_t)++st->nr_records;
			return &st->records[s->index - 1];
		}
		if (s->hash == h &&
		    memcmp(st->records[s->index - 1].key, rec->key, KEY_BYTES) == 0) {
			st->records[s->index - 1] = *rec;
			return &st->records[s->index - 1];
		}
	}
}

static void checksum_add(uint64_t *sum, uint64_t v)
{
	*sum = (*sum ^ v) * PRIME1;
	*sum = rotl64(*sum, 29);
}

static int ingest(struct store *st, struct log_writer *log, uint64_t nr, uint64_t seed,
		  uint64_t *sum)
{
	uint64_t rng = seed * PRIME1 + 1;
	uint64_t n;

	for (n = 0; n < nr; n++) {
		struct record rec;
		size_t j;

		rec.id = user_id(n, seed);
		rec.score = (uint32_t)prng_below(&rng, SCORE_RANGE);
		key_format(rec.key, rec.id);
		for (j = 0; j < VALUE_BYTES; j += 8)
			put_u64(rec.value + j, prng_next(&rng));
		store_put(st, &rec);
		if (log_append(log, &rec) != 0)
			return -1;
	}
	checksum_add(sum, st->nr_records);
	return 0;
}

/* Draws user numbers from [0, 2 * nr_records): the upper half never exists. */
static uint64_t query(const struct store *st, uint64_t nr_queries, uint64_t seed, uint64_t *sum)
{
	uint64_t rng = seed * PRIME2 + 1;
	uint64_t space = 2 * (uint64_t)st->nr_records;
	uint64_t hits = 0;
	uint64_t q;
	char key[KEY_BYTES];

	if (space == 0)
		return 0;
	for (q = 0; q < nr_queries; q++) {
		const struct record *rec;

		key_format(key, user_id(prng_below(&rng, space), seed));
		rec = store_get(st, key);
		if (rec) {
			hits++;
			checksum_add(sum, rec->id + rec->score + rec->value[q % VALUE_BYTES]);
		}
	}
	checksum_add(sum, hits);
	return hits;
}

/* Counts the records with lo <= score < hi, one full pass per range. */
static uint64_t scan(const struct store *st, uint64_t seed, uint64_t *sum)
{
	uint64_t rng = seed * PRIME3 + 1;
	uint64_t matched = 0;
	int s;

	for (s = 0; s < SCAN_COUNT; s++) {
		uint32_t lo = (uint32_t)prng_below(&rng, SCORE_RANGE);
		uint32_t hi = lo + SCORE_RANGE / 20;
		uint64_t count = 0;
		size_t i;

		for (i = 0; i < st->nr_records; i++) {
			const struct record *rec = &st->records[i];

			if (rec->score >= lo && rec->score < hi)
				count++;
		}
		checksum_add(sum, count);
		matched += count;
	}
	return matched;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: kvstore [--records N] [--queries M] [--log PATH] [--seed S]\n"
		"  --records N  records to ingest (default %u, at most %u)\n"
		"  --queries M  point lookups to answer (default %u)\n"
		"  --log PATH   append-only log, truncated at start (default %s)\n"
		"  --seed S     workload seed (default %u)\n",
		DEFAULT_RECORDS, MAX_RECORDS, DEFAULT_QUERIES, DEFAULT_LOG, DEFAULT_SEED);
}

/* Parses a decimal number in [0, max]; returns -1 on anything else. */
static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *opt)
{
	int i;

	opt->records = DEFAULT_RECORDS;
	opt->queries = DEFAULT_QUERIES;
	opt->seed = DEFAULT_SEED;
	opt->log_path = DEFAULT_LOG;
	for (i = 1; i < argc; i += 2) {
		const char *name = argv[i];
		const char *val = i + 1 < argc ? argv[i + 1] : NULL;
		int bad = 0;

		if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			usage(stdout);
			exit(0);
		}
		if (!val) {
			fprintf(stderr, "kvstore: missing value for '%s'\n", name);
			return -1;
		}
		if (strcmp(name, "--records") == 0)
			bad = parse_u64(val, MAX_RECORDS, &opt->records);
		else if (strcmp(name, "--queries") == 0)
			bad = parse_u64(val, MAX_QUERIES, &opt->queries);
		else if (strcmp(name, "--seed") == 0)
			bad = parse_u64(val, UINT64_MAX, &opt->seed);
		else if (strcmp(name, "--log") == 0)
			opt->log_path = val;
		else {
			fprintf(stderr, "kvstore: unknown option '%s'\n", name);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "kvstore: bad value for '%s': %s\n", name, val);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct store st = {0};
	struct log_writer log = {.fd = -1};
	uint64_t sum = 0;
	uint64_t hits;
	uint64_t matched;
	int ret = 1;

	if (parse_options(argc, argv, &opt) != 0) {
		usage(stderr);
		return 2;
	}
	if (store_init(&st, (size_t)opt.records) != 0 || log_open(&log, opt.log_path) != 0)
		goto out;
	if (ingest(&st, &log, opt.records, opt.seed, &sum) != 0)
		goto out;
	if (log_close(&log) != 0)
		goto out;
	hits = query(&st, opt.queries, opt.seed, &sum);
	matched = scan(&st, opt.seed, &sum);
	printf("records=%zu queries=%llu hits=%llu scanned=%llu log_bytes=%llu syncs=%llu "
	       "checksum=%016llx\n",
	       st.nr_records, (unsigned long long)opt.queries, (unsigned long long)hits,
	       (unsigned long long)matched, (unsigned long long)log.bytes_written,
	       (unsigned long long)log.nr_syncs, (unsigned long long)sum);
	ret = 0;
out:
	log_close(&log);
	store_release(&st);
	return ret;
}
