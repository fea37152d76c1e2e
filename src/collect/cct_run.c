#include "collect/cct_run.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collect/helper_path.h"
#include "util/common.h"

int cct_runtime_path(struct strbuf *out)
{
	return helper_find(&helper_cct_runtime, out);
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
