/* Where revperf's helper files are: relative to its own executable (helper_path.h). */
#include "collect/helper_path.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

/*
 * Where `make install` puts the helpers, relative to the directory of bin/revperf; CMake
 * passes the values of its install directories (CMakeLists.txt), so that both agree.
 */
#ifndef REVPERF_BIN_TO_LIBEXEC
#define REVPERF_BIN_TO_LIBEXEC "../libexec/revperf"
#endif
#ifndef REVPERF_BIN_TO_RUNTIME
#define REVPERF_BIN_TO_RUNTIME "../lib/revperf"
#endif

static const char *const spawner_dirs[] = {".", REVPERF_BIN_TO_LIBEXEC, NULL};
static const char *const runtime_dirs[] = {"runtime", "../runtime", REVPERF_BIN_TO_RUNTIME, NULL};

const struct helper_file helper_spawner = {"revperf-spawn", "the process spawner", "REVPERF_SPAWN",
					   spawner_dirs, true};
const struct helper_file helper_cct_runtime = {"librevperf_cct.so", "the CCT runtime",
					       "REVPERF_CCT_RUNTIME", runtime_dirs, false};

/* Cuts sb (not empty) to its first len bytes. */
static void cut(struct strbuf *sb, size_t len)
{
	sb->len = len;
	sb->buf[len] = '\0';
}

/* dir (absolute) + "/" + rel + "/" + name into sb, "." and ".." resolved as text. */
static void add_joined(struct strbuf *sb, const char *dir, const char *rel, const char *name)
{
	struct strbuf rest = STRBUF_INIT;
	const char *p;
	strbuf_addstr(sb, dir);
	strbuf_addf(&rest, "%s/", rel);
	for (p = rest.buf; *p;) {
		const char *slash = strchr(p, '/');
		size_t len = (size_t)(slash - p);
		if (len == 2 && !strncmp(p, "..", 2)) {
			char *last = strrchr(sb->buf, '/');
			if (last && last != sb->buf)
				cut(sb, (size_t)(last - sb->buf));
			else
				cut(sb, 1); /* "/" */
		} else if (len && !(len == 1 && *p == '.')) {
			if (sb->len > 1 || sb->buf[0] != '/')
				strbuf_addch(sb, '/');
			strbuf_add(sb, p, len);
		}
		p = slash + 1;
	}
	if (sb->len > 1 || sb->buf[0] != '/')
		strbuf_addch(sb, '/');
	strbuf_addstr(sb, name);
	strbuf_release(&rest);
}

int helper_find(const struct helper_file *h, struct strbuf *path)
{
	const char *env = getenv(h->env);
	int mode = h->executable ? X_OK : R_OK;
	struct strbuf tried = STRBUF_INIT, one = STRBUF_INIT;
	char exe[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (env && *env) {
		if (!access(env, mode)) {
			strbuf_addstr(path, env);
			return 0;
		}
		error("cannot use %s %s='%s': %s; point %s at %s", h->what, h->env, env,
		      strerror(errno), h->env, h->name);
		return RP_EINPUT;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || exe[0] != '/') {
		error("cannot find %s %s: the revperf executable is unknown (/proc/self/exe: %s); "
		      "set %s to its path",
		      h->what, h->name, n < 0 ? strerror(errno) : "not a path", h->env);
		return RP_EINPUT;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	for (i = 0; h->dirs[i]; i++) {
		strbuf_reset(&one);
		add_joined(&one, *exe ? exe : "/", h->dirs[i], h->name);
		if (!access(one.buf, mode)) {
			strbuf_add(path, one.buf, one.len);
			strbuf_release(&one);
			strbuf_release(&tried);
			return 0;
		}
		strbuf_addf(&tried, "%s%s", i ? ", " : "", one.buf);
	}
	*slash = '/';
	error("cannot find %s %s: looked at %s (relative to the revperf executable %s); "
	      "install revperf with 'make install' (it installs the helpers beside bin/revperf), "
	      "or set %s to its path",
	      h->what, h->name, tried.buf, exe, h->env);
	strbuf_release(&one);
	strbuf_release(&tried);
	return RP_EINPUT;
}
