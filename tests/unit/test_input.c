/*
 * Unit tests of the input front door (util/input.h): regular files and standard input
 * only, never blocking on a FIFO, a cap per kind, interruptible reads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/common.h"
#include "util/input.h"
#include "util/interrupt.h"

/* A small cap makes "too large" cheap to test. */
static const struct input_kind tiny = {"thing", 10, INPUT_STDIN_OK, NULL};
static const struct input_kind tiny_no_stdin = {"thing", 10, 0, "write one"};

struct fixture {
	char dir[64];
	struct strbuf path;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof(*fx));
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/revperf-test-input-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	strbuf_init(&fx->path);
	*state = fx;
	/* A read that blocks fails the test (SIGALRM) instead of hanging it. */
	alarm(20);
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	struct strbuf cmd = STRBUF_INIT;
	alarm(0);
	strbuf_addf(&cmd, "rm -rf '%s'", fx->dir);
	assert_int_equal(system(cmd.buf), 0);
	strbuf_release(&cmd);
	strbuf_release(&fx->path);
	free(fx);
	return 0;
}

static const char *fx_path(struct fixture *fx, const char *name)
{
	strbuf_reset(&fx->path);
	strbuf_addf(&fx->path, "%s/%s", fx->dir, name);
	return fx->path.buf;
}

static void write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void test_regular_file_and_cap(void **state)
{
	struct fixture *fx = *state;
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	const char *p = fx_path(fx, "ten");

	write_file(p, "0123456789", 10);
	assert_int_equal(input_read_why(&sb, p, &tiny, &why), 0);
	assert_string_equal(sb.buf, "0123456789");
	/* One byte over the cap: refused at open, naming the file and the cap. */
	write_file(p, "0123456789A", 11);
	strbuf_reset(&sb);
	assert_int_equal(input_read_why(&sb, p, &tiny, &why), RP_EINPUT);
	assert_non_null(strstr(why.buf, "thing '"));
	assert_non_null(strstr(why.buf, "/ten' is larger than 10 bytes, the limit for a thing"));
	strbuf_release(&sb);
	strbuf_release(&why);
}

static void test_special_files_refused(void **state)
{
	struct fixture *fx = *state;
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	struct input in;
	const char *fifo = fx_path(fx, "fifo");

	/* A FIFO without a writer: opening it for reading would block forever. */
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(input_open_why(&in, fifo, &tiny, &why), RP_EINPUT);
	assert_non_null(strstr(why.buf, "/fifo' is a named pipe (FIFO), not a regular file; save "
					"it to a file first, or give '-'"));
	assert_int_equal(in.fd, -1);
	strbuf_reset(&why);
	assert_int_equal(input_read_why(&sb, "/dev/zero", &tiny, &why), RP_EINPUT);
	assert_string_equal(why.buf, "thing '/dev/zero' is a character device, not a regular file; "
				     "save it to a file first, or give '-' and redirect standard "
				     "input from it");
	strbuf_reset(&why);
	assert_int_equal(input_read_why(&sb, "/dev/null", &tiny_no_stdin, &why), RP_EINPUT);
	assert_string_equal(why.buf, "thing '/dev/null' is a character device, not a regular "
				     "file; save it to a file first");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
	strbuf_release(&why);
}

static void test_directories_and_missing(void **state)
{
	struct fixture *fx = *state;
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	struct input in;

	assert_int_equal(input_read_why(&sb, fx->dir, &tiny_no_stdin, &why), RP_EINPUT);
	assert_non_null(strstr(why.buf, "' is a directory, not a file; write one"));
	/* Where the kind takes one (a directory of profiles), it is opened for listing... */
	assert_int_equal(input_open(&in, fx->dir, &input_profile), 0);
	assert_true(in.is_dir);
	input_close(&in);
	/* ...but never read as a file. */
	strbuf_reset(&why);
	assert_int_equal(input_read_why(&sb, fx->dir, &input_profile, &why), RP_EINPUT);
	assert_non_null(strstr(why.buf, "is a directory, not a file"));
	strbuf_reset(&why);
	assert_int_equal(input_read_why(&sb, fx_path(fx, "none"), &tiny_no_stdin, &why), RP_EINPUT);
	assert_non_null(strstr(why.buf, "cannot read thing '"));
	assert_non_null(strstr(why.buf, "/none': No such file or directory; write one"));
	strbuf_release(&sb);
	strbuf_release(&why);
}

/* Runs fn with standard input from a pipe that `writer` fills (then closes). */
static int with_stdin_pipe(const char *data, size_t len, bool keep_open,
			   int (*fn)(struct strbuf *sb, struct strbuf *why), struct strbuf *sb,
			   struct strbuf *why, pid_t *writer_out)
{
	int p[2], saved = dup(0), ret;
	pid_t writer;

	assert_int_equal(pipe(p), 0);
	writer = fork();
	assert_true(writer >= 0);
	if (!writer) {
		close(p[0]);
		if (len && write(p[1], data, len) != (ssize_t)len)
			_exit(1);
		if (keep_open)
			pause();
		_exit(0);
	}
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	*writer_out = writer;
	ret = fn(sb, why);
	dup2(saved, 0);
	close(saved);
	return ret;
}

static int read_stdin_tiny(struct strbuf *sb, struct strbuf *why)
{
	return input_read_why(sb, "-", &tiny, why);
}

static void test_stdin(void **state)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	pid_t w;
	UNUSED(state);

	assert_int_equal(with_stdin_pipe("a;b 1\n", 6, false, read_stdin_tiny, &sb, &why, &w), 0);
	waitpid(w, NULL, 0);
	assert_string_equal(sb.buf, "a;b 1\n");
	/* The cap holds for a pipe, whose size is not known in advance. */
	strbuf_reset(&sb);
	assert_int_equal(with_stdin_pipe("0123456789AB", 12, false, read_stdin_tiny, &sb, &why, &w),
			 RP_EINPUT);
	waitpid(w, NULL, 0);
	assert_string_equal(why.buf, "thing '-' (standard input) is larger than 10 bytes, the "
				     "limit for a thing (docs/limits.md); is it the right file?");
	/* Kinds that must be files say so. */
	strbuf_reset(&why);
	assert_int_equal(input_read_why(&sb, "-", &tiny_no_stdin, &why), RP_EINPUT);
	assert_string_equal(why.buf, "a thing cannot come from standard input ('-'): name a file");
	strbuf_release(&sb);
	strbuf_release(&why);
}

static void test_interrupted_read(void **state)
{
	struct strbuf sb = STRBUF_INIT, why = STRBUF_INIT;
	pid_t w, killer;
	UNUSED(state);

	/* A writer that never finishes; SIGINT arrives during the read. */
	interrupt_install();
	killer = fork();
	assert_true(killer >= 0);
	if (!killer) {
		usleep(200 * 1000);
		kill(getppid(), SIGINT);
		_exit(0);
	}
	assert_int_equal(with_stdin_pipe("partial", 7, true, read_stdin_tiny, &sb, &why, &w),
			 RP_EINTERRUPT);
	assert_string_equal(why.buf, "interrupted while reading thing '-'");
	kill(w, SIGKILL);
	waitpid(w, NULL, 0);
	waitpid(killer, NULL, 0);
	interrupt_reset();
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	strbuf_release(&sb);
	strbuf_release(&why);
}

static void test_add_size(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	UNUSED(state);
	input_add_size(&sb, (uint64_t)2 << 30);
	strbuf_addch(&sb, ',');
	input_add_size(&sb, (uint64_t)256 << 20);
	strbuf_addch(&sb, ',');
	input_add_size(&sb, 1536);
	strbuf_addch(&sb, ',');
	input_add_size(&sb, 1000);
	assert_string_equal(sb.buf, "2 GiB,256 MiB,1536 bytes,1000 bytes");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_regular_file_and_cap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_special_files_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_directories_and_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted_read, setup, teardown),
	    cmocka_unit_test(test_add_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
