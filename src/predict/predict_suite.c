/* Test suites expanded into benchmarks, and the program a benchmark runs (predict.h). */
#include "predict/predict.h"
#include "predict/predict_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collect/cmdline.h"
#include "collect/proc.h"
#include "util/fsutil.h"
#include "util/common.h"
#include "util/input.h"

/* Largest test list read from a suite's `tests` command. */
#define MAX_TESTS 100000

/* ---- test suites and binaries ---- */

/* Runs one suite's `tests` in worktree and reads the names it prints. */
static int list_tests(struct predict_ctx *ctx, const struct bench_config *b, const char *worktree,
		      const char *label, struct strbuf *list)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT, log = STRBUF_INIT;
	struct proc_spec spec = {0};
	struct proc_result res;
	int ret = RP_EINTERNAL;

	strbuf_addf(&out, "%s/tests-", ctx->sd->logs);
	fsutil_add_safe_name(&out, b->name);
	strbuf_addf(&out, "-%ld.txt", (long)getpid());
	strbuf_addf(&log, "%s.log", out.buf);
	/* stdout is the list; stderr goes to the log. */
	strbuf_addf(&cmd, "( %s ) > ", b->tests);
	cmdline_add_shell_quoted(&cmd, out.buf);
	spec.command = cmd.buf;
	spec.cwd = worktree;
	spec.log_path = log.buf;
	spec.timeout_ns = b->timeout_ns ? b->timeout_ns : 600 * 1000000000LL;
	if (proc_run(&spec, &res) || store_check_files(ctx->st, "a test suite's tests command"))
		goto out;
	if (res.status == RUN_INTERRUPTED) {
		ret = RP_EINTERRUPT;
		goto out;
	}
	if (res.status != RUN_OK) {
		error("%s: test suite '%s': its tests command failed at %s (%s); see %s", b->origin,
		      b->name, label, res.detail, log.buf);
		ret = RP_EINPUT;
		goto out;
	}
	if ((ret = input_read(list, out.buf, &input_test_list))) {
		error("%s: test suite '%s': the test list above comes from its tests command "
		      "(%s)",
		      b->origin, b->name, label);
		ret = RP_EINPUT;
		goto out;
	}
	unlink(log.buf);
	ret = 0;
out:
	unlink(out.buf);
	strbuf_release(&cmd);
	strbuf_release(&out);
	strbuf_release(&log);
	return ret;
}

int predict_expand_suites(struct predict_ctx *ctx, const char *worktree, const char *label)
{
	size_t i = 0;
	while (i < ctx->cfg->nr_benches) {
		struct bench_config *b = &ctx->cfg->benches[i];
		struct strbuf list = STRBUF_INIT;
		const char **names = NULL;
		size_t nr = 0, alloc = 0;
		char *p, *save = NULL, *name;
		int ret;
		if (!b->tests) {
			i++;
			continue;
		}
		name = xstrdup(b->name);
		ret = list_tests(ctx, b, worktree, label, &list);
		for (p = ret ? NULL : strtok_r(list.buf, "\n", &save); p;
		     p = strtok_r(NULL, "\n", &save)) {
			size_t len;
			while (*p == ' ' || *p == '\t')
				p++;
			len = strlen(p);
			while (len &&
			       (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
				p[--len] = '\0';
			if (!len)
				continue;
			if (nr == MAX_TESTS) {
				error("%s: test suite '%s' lists more than %d tests", b->origin,
				      name, MAX_TESTS);
				ret = RP_EINPUT;
				break;
			}
			ALLOC_GROW(names, nr + 1, alloc);
			names[nr++] = p;
		}
		if (!ret && !nr) {
			error(
			    "%s: test suite '%s': its tests command (%s) listed no test at %s; it "
			    "must print one test name per line",
			    b->origin, name, b->tests, label);
			ret = RP_EINPUT;
		}
		if (!ret)
			ret = config_expand_suite(ctx->cfg, name, names, nr);
		free(names);
		free(name);
		strbuf_release(&list);
		if (ret)
			return ret;
		i += nr;
	}
	return 0;
}

int predict_bench_binary(const struct bench_config *b, const char *worktree, struct strbuf *out)
{
	char **argv = NULL;
	const char *word;
	char first[4096];
	int ret = RP_EINPUT;

	if (b->binary) {
		word = b->binary;
	} else {
		argv = cmdline_split(b->command);
		if (argv && argv[0]) {
			word = argv[0];
		} else {
			/* A shell command: its first blank-separated word, if it is plain. */
			size_t len = strcspn(b->command, " \t\n");
			snprintf(first, sizeof(first), "%.*s", (int)len, b->command);
			if (strpbrk(first, "'\"$`\\=(){}<>|;&*?[]~#!") || !*first) {
				error("%s: cannot tell which program benchmark '%s' runs (its "
				      "command "
				      "starts with shell syntax); add 'binary = PATH' (relative to "
				      "the "
				      "worktree) to its section",
				      b->origin, b->name);
				goto out;
			}
			word = first;
		}
	}
	if (word[0] == '/') {
		error("%s: benchmark '%s' runs %s, which is not built per revision; add 'binary = "
		      "PATH' (relative to the worktree) naming the program the commits change",
		      b->origin, b->name, word);
		goto out;
	}
	if (!strchr(word, '/') && !b->binary) {
		error("%s: benchmark '%s' runs '%s' from PATH, not a program of the worktree; add "
		      "'binary = PATH' (relative to the worktree, e.g. build/prog) to its section",
		      b->origin, b->name, word);
		goto out;
	}
	strbuf_addf(out, "%s/%s", worktree, word);
	ret = 0;
out:
	cmdline_free(argv);
	return ret;
}

/* predict_suite_test(): see predict_impl.h. */
bool predict_suite_test(const struct bench_config *s, const char *name, const char *command,
			struct bench_config *out)
{
	size_t len = strlen(s->name);
	const char *test, *p = s->test_command, *hole;
	struct strbuf cmd = STRBUF_INIT;
	bool same;
	if (strncmp(name, s->name, len) || name[len] != '/' || !name[len + 1])
		return false;
	test = name + len + 1;
	while ((hole = strstr(p, "{test}"))) {
		strbuf_add(&cmd, p, (size_t)(hole - p));
		strbuf_addstr(&cmd, test);
		p = hole + 6;
	}
	strbuf_addstr(&cmd, p);
	same = !strcmp(cmd.buf, command);
	strbuf_release(&cmd);
	if (!same)
		return false;
	*out = *s;
	out->name = (char *)name;
	out->command = (char *)command;
	out->tests = NULL;
	out->test_command = NULL;
	return true;
}
