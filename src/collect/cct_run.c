#include "collect/cct_run.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/common.h"

#define CCT_RUNTIME_NAME "librevperf_cct.so"

int cct_runtime_path(struct strbuf *out)
{
	const char *env = getenv("REVPERF_CCT_RUNTIME");
	static const char *const dirs[] = { "runtime", "../runtime" };
	char exe[PATH_MAX], *slash;
	struct strbuf try = STRBUF_INIT;
	ssize_t n;

	if (env && *env) {
		if (access(env, R_OK)) {
			error("REVPERF_CCT_RUNTIME='%s': %s; point it at librevperf_cct.so", env,
			      strerror(errno));
			return RP_EINPUT;
		}
		strbuf_addstr(out, env);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		error("cannot find the revperf executable (/proc/self/exe); set "
		      "REVPERF_CCT_RUNTIME to librevperf_cct.so");
		return RP_EINPUT;
	}
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	*slash = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		strbuf_reset(&try);
		strbuf_addf(&try, "%s/%s/" CCT_RUNTIME_NAME, exe, dirs[i]);
		if (!access(try.buf, R_OK)) {
			char real[PATH_MAX];
			strbuf_addstr(out, realpath(try.buf, real) ? real : try.buf);
			strbuf_release(&try);
			return 0;
		}
	}
	strbuf_release(&try);
	error("cannot find " CCT_RUNTIME_NAME " in %s/runtime/ (it is built with revperf); set "
	      "REVPERF_CCT_RUNTIME to its path",
	      exe);
	return RP_EINPUT;
}

int cct_run(const struct proc_spec *spec, const char *dir, struct proc_result *res)
{
	struct strbuf rt = STRBUF_INIT, preload = STRBUF_INIT, out = STRBUF_INIT;
	const char *old = getenv("LD_PRELOAD");
	struct proc_spec s = *spec;
	const char *env[3];
	int ret;

	if ((ret = cct_runtime_path(&rt)))
		goto out;
	strbuf_addf(&preload, "LD_PRELOAD=%s%s%s", rt.buf, old && *old ? ":" : "",
		    old ? old : "");
	{
		/* Absolute: the program may change its directory before it writes. */
		char real[PATH_MAX];
		if (!realpath(dir, real)) {
			error("cannot resolve the profile directory '%s': %s", dir,
			      strerror(errno));
			ret = RP_EINPUT;
			goto out;
		}
		strbuf_addf(&out, "REVPERF_CCT_OUT=%s", real);
	}
	env[0] = preload.buf;
	env[1] = out.buf;
	env[2] = NULL;
	s.env_set = env;
	ret = proc_run(&s, res);
out:
	strbuf_release(&rt);
	strbuf_release(&preload);
	strbuf_release(&out);
	return ret;
}
