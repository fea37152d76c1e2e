#ifndef REVPERF_COLLECT_HELPER_PATH_H
#define REVPERF_COLLECT_HELPER_PATH_H

#include <stdbool.h>

struct strbuf;

/*
 * Where revperf finds its own helper files (docs/install.md): the process spawner
 * (revperf-spawn) and the runtimes preloaded into programs (librevperf_cct.so). revperf
 * looks relative to its own executable (/proc/self/exe), so that a build tree and an
 * installation under any prefix work without configuration:
 *
 *   build tree        build/revperf, build/revperf-spawn, build/runtime/librevperf_cct.so
 *   installed         PREFIX/bin/revperf, PREFIX/libexec/revperf/revperf-spawn,
 *                     PREFIX/lib/revperf/librevperf_cct.so
 *
 * An environment variable names the file instead (only there, when set and not empty).
 */
struct helper_file {
	const char *name;	 /* "revperf-spawn" */
	const char *what;	 /* "the process spawner", for the message */
	const char *env;	 /* "REVPERF_SPAWN" */
	const char *const *dirs; /* relative to the executable's directory, NULL-terminated */
	bool executable;	 /* X_OK rather than R_OK */
};

/* The process spawner and the CCT runtime (and its no-op build). */
extern const struct helper_file helper_spawner;
extern const struct helper_file helper_cct_runtime;

/*
 * Appends the path of h to path: $h->env when set, else the first of h->dirs (relative to
 * the directory of the running executable) that holds it, as an absolute path. Returns 0,
 * or RP_EINPUT after one error() line that names the file, every place looked at, and
 * what to do (install revperf, or set h->env).
 */
int helper_find(const struct helper_file *h, struct strbuf *path);

#endif
