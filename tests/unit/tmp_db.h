#ifndef REVPERF_TESTS_TMP_DB_H
#define REVPERF_TESTS_TMP_DB_H

/*
 * A database for a unit test: tmp_db_path() gives a fresh path under /tmp (no file
 * created; the caller frees it through tmp_db_remove()), tmp_db_remove() deletes the
 * database with its WAL and shared-memory files and frees the path. Include after
 * <cmocka.h> and "util/common.h".
 */
#include <stdlib.h>
#include <unistd.h>

static inline char *tmp_db_path(void)
{
	char *path = xstrdup("/tmp/revperf-test-db-XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	return path;
}

static inline void tmp_db_remove(char *path)
{
	struct strbuf sb = STRBUF_INIT;
	unlink(path);
	strbuf_addf(&sb, "%s-wal", path);
	unlink(sb.buf);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "%s-shm", path);
	unlink(sb.buf);
	strbuf_release(&sb);
	free(path);
}

#endif
