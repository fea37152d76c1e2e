#ifndef REVPERF_TESTS_CAPTURE_STDERR_H
#define REVPERF_TESTS_CAPTURE_STDERR_H

/*
 * What the code under test prints on stderr, for a unit test to check its messages:
 * capture_stderr_begin() sends file descriptor 2 (and so stderr and error()) to a fresh
 * temporary file under /tmp, capture_stderr_end() restores it and returns everything
 * printed in between as a NUL-terminated string the caller frees. The file is gone by
 * then. One capture at a time per struct; stdio's buffer is flushed at both ends. Include
 * after <cmocka.h> and "util/common.h", like tmp_db.h.
 *
 *	struct stderr_capture cap;
 *	capture_stderr_begin(&cap);
 *	ret = parse(...);
 *	err = capture_stderr_end(&cap);
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct stderr_capture {
	int fd;	   /* the temporary file, read back at the end */
	int saved; /* the stderr to restore */
};

static inline void capture_stderr_begin(struct stderr_capture *c)
{
	char path[] = "/tmp/revperf-test-stderr-XXXXXX";

	c->fd = mkstemp(path);
	assert_true(c->fd >= 0);
	/* Unlinked at once: the open descriptor keeps the file, nothing is left behind. */
	unlink(path);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_int_equal(dup2(c->fd, STDERR_FILENO), STDERR_FILENO);
}

/* Restores stderr; returns what was printed since capture_stderr_begin() (caller frees). */
static inline char *capture_stderr_end(struct stderr_capture *c)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	ssize_t n;
	off_t off = 0;

	fflush(stderr);
	assert_int_equal(dup2(c->saved, STDERR_FILENO), STDERR_FILENO);
	close(c->saved);
	while ((n = pread(c->fd, buf, sizeof(buf), off)) > 0) {
		strbuf_add(&sb, buf, (size_t)n);
		off += n;
	}
	assert_true(n == 0);
	close(c->fd);
	c->fd = c->saved = -1;
	return strbuf_detach(&sb);
}

#endif
