/*
 * The files behind the database: who holds a lock on them (/proc/locks), whether they are
 * still the files the store opened (a benchmark that cleans its directory may delete or
 * overwrite them), and the integrity check at the end of a command.
 */
#include "store/store.h"
#include "store/store_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "collect/machine.h"
#include "util/common.h"

/* The WAL index's lock bytes a writer, a checkpointer or a recovery holds (SQLite's
 * WAL_WRITE_LOCK, WAL_CKPT_LOCK, WAL_RECOVER_LOCK: offsets 120 to 122 of the -shm). */
#define SHM_WRITER_FIRST 120
#define SHM_WRITER_LAST 122
/* A header read while another process rewrites it may be torn: read again. */
#define CHECK_TRIES 3
#define CHECK_RETRY_NS 10000000L

#define STATE_ADVICE                                                                               \
	"benchmarks and builds must leave revperf's state alone: keep it outside the project "     \
	"with --state-dir DIR (docs/store.md)"

struct lock_target {
	const char *suffix; /* "" the database, "-shm" its WAL index */
	unsigned maj, min;
	unsigned long ino;
	bool known;
};

static void target_stat(const struct store *st, struct lock_target *t)
{
	struct strbuf path = STRBUF_INIT;
	struct stat sb;
	strbuf_addf(&path, "%s%s", st->path, t->suffix);
	t->known = stat(path.buf, &sb) == 0;
	if (t->known) {
		t->maj = major(sb.st_dev);
		t->min = minor(sb.st_dev);
		t->ino = (unsigned long)sb.st_ino;
	}
	strbuf_release(&path);
}

/* Whether a /proc/locks line is a write lock of a writer on one of the targets; *pid. */
static bool writer_lock(const char *line, const struct lock_target *t, size_t nt, int *pid)
{
	char kind[16], mode[16], end_s[24];
	unsigned maj, min;
	unsigned long ino;
	long long start, end;
	if (strstr(line, "->")) /* a process waiting for the lock, not holding it */
		return false;
	if (sscanf(line, "%*d: %15s %*15s %15s %d %x:%x:%lu %lld %23s", kind, mode, pid, &maj, &min,
		   &ino, &start, end_s) != 8)
		return false;
	if (strcmp(mode, "WRITE") || *pid <= 0 || *pid == (int)getpid())
		return false;
	end = strcmp(end_s, "EOF") ? strtoll(end_s, NULL, 10) : INT64_MAX;
	for (size_t i = 0; i < nt; i++) {
		if (!t[i].known || t[i].maj != maj || t[i].min != min || t[i].ino != ino)
			continue;
		/* On the -shm, only the writer's bytes: readers take the read marks. */
		if (!t[i].suffix[0] || (start <= SHM_WRITER_LAST && end >= SHM_WRITER_FIRST))
			return true;
	}
	return false;
}

/* A command line without the directory of its program: "python3 hold.py". */
static const char *command_short(const char *cmd)
{
	const char *space = strchr(cmd, ' '), *slash = cmd, *p;
	for (p = cmd; *p && p != space; p++)
		if (*p == '/' && p[1] && p[1] != ' ')
			slash = p + 1;
	return slash;
}

void store_lock_owner(const struct store *st, struct strbuf *out)
{
	struct lock_target t[2] = {{"", 0, 0, 0, false}, {"-shm", 0, 0, 0, false}};
	int seen[8];
	size_t nseen = 0;
	char line[256];
	FILE *f;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		target_stat(st, &t[i]);
	f = fopen("/proc/locks", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nseen < ARRAY_SIZE(seen)) {
		char cmd[128];
		size_t k;
		int pid;
		if (!writer_lock(line, t, ARRAY_SIZE(t), &pid))
			continue;
		for (k = 0; k < nseen && seen[k] != pid; k++)
			;
		if (k < nseen)
			continue;
		seen[nseen++] = pid;
		machine_process_command(pid, cmd, sizeof(cmd));
		strbuf_addf(out, "%spid %d", nseen > 1 ? ", " : "", pid);
		if (cmd[0])
			strbuf_addf(out, " (%s)", command_short(cmd));
	}
	fclose(f);
}

static void id_set(struct store_file_id *id, const struct stat *sb)
{
	id->known = true;
	id->dev = sb->st_dev;
	id->ino = sb->st_ino;
}

static bool id_same(const struct store_file_id *id, const struct stat *sb)
{
	return id->dev == sb->st_dev && id->ino == sb->st_ino;
}

void store_files_remember(struct store *st)
{
	struct strbuf path = STRBUF_INIT;
	struct stat sb;
	if (stat(st->path, &sb) == 0) {
		id_set(&st->db_id, &sb);
		st->db_size = (int64_t)sb.st_size;
	}
	strbuf_addf(&path, "%s-wal", st->path);
	if (stat(path.buf, &sb) == 0)
		id_set(&st->wal_id, &sb);
	strbuf_reset(&path);
	strbuf_addf(&path, "%s-shm", st->path);
	if (stat(path.buf, &sb) == 0)
		id_set(&st->shm_id, &sb);
	strbuf_release(&path);
}

static uint32_t get_u32(const unsigned char *p, bool big_endian)
{
	return big_endian
		   ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/*
 * Whether the 32-byte header of a WAL file is SQLite's: its magic number, and its checksum
 * over the first 24 bytes (SQLite's WAL format: pairs of 32-bit words, s0 += x0 + s1,
 * s1 += x1 + s0, in the byte order the magic number's last bit names).
 */
static bool wal_header_ok(const unsigned char h[32])
{
	uint32_t magic = get_u32(h, true), s0 = 0, s1 = 0;
	bool big = magic & 1;
	if ((magic & ~1u) != 0x377f0682u)
		return false;
	for (int i = 0; i < 24; i += 8) {
		s0 += get_u32(h + i, big) + s1;
		s1 += get_u32(h + i + 4, big) + s0;
	}
	return s0 == get_u32(h + 24, true) && s1 == get_u32(h + 28, true);
}

/*
 * Reads the first n bytes of the -wal file at path, which stat() just found to be st->wal_id;
 * false when they cannot be read. Through a descriptor opened at the first look and kept
 * until store_close() (a check at every run then costs no open() and close()): SQLite holds
 * no lock on the -wal file (its locks are on the -shm and the database file) that closing
 * a descriptor could drop. A -wal file replaced since is found by its identity before this.
 */
static bool read_wal_head(struct store *st, const char *path, unsigned char *buf, size_t n)
{
	struct stat sb;
	if (st->wal_fd >= 0 &&
	    (st->wal_fd_id.dev != st->wal_id.dev || st->wal_fd_id.ino != st->wal_id.ino))
		store_files_forget(st); /* another -wal file, known as such (wal_id) */
	if (st->wal_fd < 0) {
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return false;
		/* Replaced between the stat() and the open(): read, not kept. */
		if (fstat(fd, &sb) < 0 || !id_same(&st->wal_id, &sb)) {
			bool ok = pread(fd, buf, n, 0) == (ssize_t)n;
			close(fd);
			return ok;
		}
		st->wal_fd = fd;
		id_set(&st->wal_fd_id, &sb);
	}
	return pread(st->wal_fd, buf, n, 0) == (ssize_t)n;
}

void store_files_forget(struct store *st)
{
	if (st->wal_fd >= 0)
		close(st->wal_fd);
	st->wal_fd = -1;
}

/*
 * One look at the files: NULL when they are fine, else what happened to which (a static
 * string; *which is set to the suffix of the file: "", "-wal" or "-shm").
 */
static const char *look(struct store *st, const char **which)
{
	struct strbuf path = STRBUF_INIT;
	const char *what = NULL;
	unsigned char head[32];
	struct stat sb;

	*which = "";
	if (stat(st->path, &sb) < 0) {
		what = errno == ENOENT ? "was deleted" : "cannot be read";
		goto out;
	}
	if (st->db_id.known && !id_same(&st->db_id, &sb)) {
		what = "was replaced by another file";
		goto out;
	}
	/*
	 * Only stat() here, never open(): closing any descriptor of the database file would
	 * drop the POSIX locks SQLite holds on it in this process (fcntl semantics), and
	 * another process would then take the database for unused and remove its log. Its
	 * content is checked by quick_check at the end (store_verify()).
	 * A checkpoint may be under way in another process: a size not yet whole is read
	 * again (CHECK_TRIES).
	 */
	if (sb.st_size % 512) {
		what = "was overwritten (its size is not a whole number of pages)";
		goto out;
	}
	/* revperf never vacuums: the file only grows (checkpoints append pages). */
	if ((int64_t)sb.st_size < st->db_size) {
		what = "was truncated";
		goto out;
	}
	st->db_size = (int64_t)sb.st_size;
	*which = "-wal";
	strbuf_addf(&path, "%s-wal", st->path);
	if (stat(path.buf, &sb) < 0) {
		if (st->wal_id.known)
			what = "was deleted";
		goto out;
	}
	if (st->wal_id.known && !id_same(&st->wal_id, &sb)) {
		what = "was replaced by another file";
		goto out;
	}
	id_set(&st->wal_id, &sb);
	if (sb.st_size > 0 && (!read_wal_head(st, path.buf, head, 32) || !wal_header_ok(head))) {
		what = "was overwritten (its header is not SQLite's)";
		goto out;
	}
	*which = "-shm";
	strbuf_reset(&path);
	strbuf_addf(&path, "%s-shm", st->path);
	if (stat(path.buf, &sb) < 0) {
		if (st->shm_id.known)
			what = "was deleted";
		goto out;
	}
	if (st->shm_id.known && !id_same(&st->shm_id, &sb))
		what = "was replaced by another file";
	else
		id_set(&st->shm_id, &sb);
out:
	strbuf_release(&path);
	return what;
}

int store_check_files(struct store *st, const char *during)
{
	const char *what = NULL, *which = "";
	if (st->db->engine != DB_SQLITE)
		return 0; /* a server's files are its own */
	st->nr_checks++;
	if (st->damaged)
		return RP_EINTERNAL;
	for (int i = 0; i < CHECK_TRIES; i++) {
		struct timespec ts = {0, CHECK_RETRY_NS};
		if (!(what = look(st, &which)))
			return 0;
		nanosleep(&ts, NULL);
	}
	st->damaged = true;
	if (!which[0])
		error(
		    "database %s %s during %s: the results of this command are lost; " STATE_ADVICE,
		    st->path, what, during);
	else
		error("database %s: its file %s%s %s during %s: %s; " STATE_ADVICE, st->path,
		      st->path, which, what, during,
		      !strcmp(which, "-wal") ? "the latest results are lost"
					     : "the database can no longer be trusted");
	return RP_EINTERNAL;
}

int store_verify(struct store *st)
{
	if (!st || st->nr_checks == st->nr_checks_verified)
		return 0; /* nothing ran since the last check (or not SQLite: none) */
	if (st->damaged || store_check_files(st, "this command"))
		return RP_EINTERNAL;
	if (store_sqlite_quick_check(st, STATE_ADVICE))
		return RP_EINTERNAL;
	st->nr_checks_verified = st->nr_checks;
	return 0;
}
