/* revperf worker: claims the queue's jobs and runs them on this machine (docs/team.md). */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/machine.h"
#include "core/config.h"
#include "queue/worker.h"
#include "store/store.h"
#include "util/common.h"
#include "util/interrupt.h"
#include "util/parse.h"

static struct {
	const char *config, *state_dir, *store, *tag, *machine, *lease, *idle;
	bool once, fetch;
	struct cli_output out;
} o;

/* clang-format off */
static const struct option worker_options[] = {
	{ OPT_STRING, 't', "machine-tag", "TAG", "also take the jobs submitted for this tag "
						 "(default: only untagged jobs)", &o.tag, NULL },
	{ OPT_STRING, 0, "machine", "NAME", "this machine's name in the store (default: its "
					    "host name)", &o.machine, NULL },
	{ OPT_FLAG, 0, "once", NULL, "run one job (or none when the queue is empty), then exit",
	  &o.once, NULL },
	{ OPT_FLAG, 0, "fetch", NULL, "git fetch --tags in this clone before each job, so that "
				       "commits submitted since are there", &o.fetch, NULL },
	{ OPT_STRING, 0, "lease", "SECONDS", "how long a claimed job stays this worker's "
					     "without a renewal (default 60; renewed every "
					     "third of it)", &o.lease, NULL },
	{ OPT_STRING, 0, "idle", "SECONDS", "the wait between looks at an empty queue "
					    "(default 2)", &o.idle, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json (the summary at the end)",
			   "no line per job on stderr"),
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	OPT_END_MARKER,
};
/* clang-format on */
static const char *const worker_usage[] = {
    "worker [--machine-tag TAG] [--machine NAME] [--once] [options]",
    NULL,
};
const struct command_help worker_help = {
    "worker",
    worker_usage,
    "Runs the queue's jobs (`revperf submit`) on this machine, from a clone of the\n"
    "project that holds the submitted commits (--fetch: git fetch before each job):\n"
    "claims the oldest job it may take (on PostgreSQL with SELECT ... FOR UPDATE SKIP\n"
    "LOCKED, so that workers never wait for one another), runs it as `revperf compare`,\n"
    "`history` or `bisect` would here (builds in this clone's state directory, every run\n"
    "stored as it ends, tagged with this machine), and renews the job's lease on the\n"
    "database's clock while it runs. A worker that dies loses its lease; the job goes\n"
    "back to the queue and the next worker resumes it, reusing the runs already stored. A\n"
    "job whose command fails (a build that fails) is marked failed with its error, and\n"
    "the worker goes on. SIGINT or SIGTERM stops the running job and gives it back. Each\n"
    "job's output: STATE-DIR/worker/job-ID.log. See docs/team.md.\n"
    "A configuration that does not load (revperf.ini, --config) stops the worker before\n"
    "it claims anything; broken while it runs, the worker claims nothing until it loads.\n"
    "Exit status: 0 stopped after --once, 2 usage or input error (no store, a store of a\n"
    "newer schema, a configuration that does not load), 3 internal failure, 128 + N\n"
    "stopped by signal N (130 SIGINT, 143 SIGTERM).",
    worker_options,
};

static const char *const worker_formats[] = {"text", "json", NULL};

static int seconds(const char *flag, const char *s, double lo, double hi, double *out)
{
	if (parse_double(s, lo, hi, out)) {
		usage_error("worker", "%s expects seconds from %g to %g, got '%s'", flag, lo, hi,
			    s);
		return -1;
	}
	return 0;
}

/*
 * Whether the configuration that every job's command reads loads (revperf.ini or
 * --config, as compare reads it): checked before the worker starts and before each claim,
 * so that a clone whose configuration is broken claims no job, instead of failing every
 * job of the queue in turn with the same error line. 0 or RP_EINPUT after the error.
 */
static int config_loads(void *arg)
{
	struct config cfg;
	int ret;
	config_init(&cfg);
	ret = cli_load_config(&cfg, arg);
	config_release(&cfg);
	return ret;
}

static int worker_main(bool json)
{
	struct cli_config_source src = {0};
	struct cli_project p = {0};
	struct worker_opts wo = {0};
	struct worker_stats stats = {0};
	struct machine_info mi;
	struct strbuf log_dir = STRBUF_INIT;
	const char *pass[5];
	char exe[PATH_MAX];
	double lease = 60, idle = 2;
	size_t npass = 0;
	ssize_t len;
	int ret, err;

	if ((o.lease && seconds("--lease", o.lease, 2, 86400, &lease)) ||
	    (o.idle && seconds("--idle", o.idle, 0, 3600, &idle)))
		return EXIT_USAGE;
	if (o.machine && (!*o.machine || strlen(o.machine) >= sizeof(mi.hostname))) {
		usage_error("worker", "--machine expects a name of 1 to %zu characters",
			    sizeof(mi.hostname) - 1);
		return EXIT_USAGE;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0) {
		error("cannot find revperf's own executable (/proc/self/exe): %s", strerror(errno));
		return EXIT_INTERNAL;
	}
	exe[len] = '\0';
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	src.root = repo_workdir(p.repo);
	src.config = o.config;
	if (config_loads(&src)) {
		error("the worker takes no job while its configuration does not load (every job "
		      "would fail with it); fix it and start the worker again");
		ret = EXIT_USAGE;
		goto out;
	}
	machine_info_read(&mi);
	strbuf_addf(&log_dir, "%s/worker", p.sd.root);
	if (o.config) {
		pass[npass++] = "--config";
		pass[npass++] = o.config;
	}
	if (o.state_dir) {
		pass[npass++] = "--state-dir";
		pass[npass++] = o.state_dir;
	}
	pass[npass] = NULL;
	wo.exe = exe;
	wo.store_location = p.store_location;
	wo.machine = o.machine ? o.machine : mi.hostname;
	wo.machine_tag = o.tag;
	wo.log_dir = log_dir.buf;
	wo.pass_args = pass;
	wo.lease_s = (int64_t)(lease + 0.5);
	wo.max_attempts = 3;
	wo.idle_s = idle;
	wo.once = o.once;
	wo.fetch = o.fetch;
	wo.quiet = o.out.quiet;
	wo.ready = config_loads;
	wo.ready_arg = &src;
	if (!o.out.quiet)
		fprintf(stderr, "revperf worker: machine %s%s%s, lease %lld s; waiting for jobs\n",
			wo.machine, o.tag ? ", tag " : "", o.tag ? o.tag : "",
			(long long)wo.lease_s);
	err = worker_run(&p.st, &wo, &stats);
	ret = err ? rp_err_exit_code(err) : EXIT_OK;
	o.out.printed = true;
	if (json) {
		json_t *root =
		    json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:i}", "revperf_version",
			      REVPERF_VERSION, "schema", "revperf-worker/1", "machine", wo.machine,
			      "done", (json_int_t)stats.done, "failed", (json_int_t)stats.failed,
			      "lost", (json_int_t)stats.lost, "exit_code", ret);
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	} else if (!o.out.quiet) {
		printf("worker %s: %zu job%s done, %zu failed, %zu lost\n", wo.machine, stats.done,
		       stats.done == 1 ? "" : "s", stats.failed, stats.lost);
	}
out:
	strbuf_release(&log_dir);
	return cli_project_close(&p, ret);
}

int cmd_worker(int argc, char **argv)
{
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &worker_help, NULL, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "worker", worker_formats)) < 0)
		return EXIT_USAGE;
	interrupt_install();
	return cli_output_end(&o.out, worker_main(format == 1));
}
