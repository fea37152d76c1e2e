#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/cct_run.h"
#include "collect/iotrace.h"
#include "collect/perf_sample.h"
#include "collect/sampler.h"
#include "import/counters_csv.h"
#include "analysis/stats.h"
#include "core/config.h"
#include "util/fsutil.h"
#include "profile/folded.h"
#include "profile/io_profile.h"
#include "profile/profile_load.h"
#include "profile/sample_build.h"
#include "report/counters_report.h"
#include "report/cct_top.h"
#include "report/io_report.h"
#include "report/sample_report.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	bool cct, io, counters, sample, reads, plain, threads;
	const char *out_dir, *top, *timeout, *out, *depth, *interval;
	const char *frequency, *event, *call_graph;
	struct cli_output output;
	int format; /* index in profile_formats */
} o;

static const struct option profile_options[] = {
	{ OPT_FLAG, 0, "cct", NULL, "a calling context tree (the program must be built with "
				    "-finstrument-functions)", &o.cct, NULL },
	{ OPT_FLAG, 0, "io", NULL, "the write system calls per stack trace and file (any "
				   "program, no rebuild)", &o.io, NULL },
	{ OPT_FLAG, 0, "counters", NULL, "counters of the process tree sampled during the run, "
					 "and the revperf-counter lines it prints", &o.counters,
	  NULL },
	{ OPT_FLAG, 0, "sample", NULL, "a calling context tree of on-CPU time sampled with "
				       "perf_event_open (any program, no rebuild)", &o.sample, NULL },
	{ OPT_STRING, 'F', "frequency", "HZ", "--sample: samples per second of CPU time (1000)",
	  &o.frequency, NULL },
	{ OPT_STRING, 0, "event", "EVENT", "--sample: cpu-clock (default) or cycles (falls back "
					   "to cpu-clock without a PMU)", &o.event, NULL },
	{ OPT_STRING, 0, "call-graph", "MODE", "--sample: auto (default), fp (frame pointers) or "
					       "dwarf (stack copies unwound afterwards)",
	  &o.call_graph, NULL },
	{ OPT_STRING, 0, "interval", "DURATION", "--counters: the sampling period (100ms)",
	  &o.interval, NULL },
	{ OPT_STRING, 'd', "dir", "DIR", "keep the run's profile files (and with --io its output "
					 "log) in DIR (default: a temporary directory, removed)",
	  &o.out_dir, NULL },
	{ OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out,
	  NULL },
	{ OPT_STRING, 'k', "top", "K", "lines per list (--cct 20, --io 10)", &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "--cct: merge call sites (a function called from two "
				      "places of its caller is one context)", &o.plain, NULL },
	{ OPT_FLAG, 0, "threads", NULL, "--cct, --sample: keep each thread's tree apart "
					"(default: merged)",
	  &o.threads, NULL },
	{ OPT_FLAG, 0, "reads", NULL, "--io: also trace the read system calls and report them",
	  &o.reads, NULL },
	{ OPT_STRING, 0, "depth", "N", "--io: frames kept per stack (64, at most 512)", &o.depth,
	  NULL },
	{ OPT_STRING, 0, "timeout", "DURATION", "kill the program after this long (default: "
						"none)", &o.timeout, NULL },
	CLI_OUTPUT_OPTIONS(o.output, "text, json, or folded (--cct, --sample: the whole tree as "
				     "folded stacks)", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const profile_usage[] = { "profile --cct [options] -- COMMAND [ARGS...]",
					      "profile --io [options] -- COMMAND [ARGS...]",
					      "profile --counters [options] -- COMMAND [ARGS...]",
					      "profile --sample [-F HZ] [options] -- COMMAND [ARGS...]",
					      NULL };
const struct command_help profile_help = {
	"profile", profile_usage,
	"Runs COMMAND once and profiles it; the program reads revperf's standard input.\n"
	"--cct preloads revperf's CCT runtime (librevperf_cct.so, built with revperf) and\n"
	"prints the calling context tree: the heaviest call paths by inclusive and by\n"
	"exclusive time, with call counts. The program (and any library to be seen) must be\n"
	"compiled with -finstrument-functions; threads, forked children and exec'd programs\n"
	"are followed (docs/cct-format.md). The program's output goes to revperf's stderr.\n"
	"--io traces every write system call of the program's whole process tree (stdio,\n"
	"static binaries and interpreters included; ptrace, no root, docs/io-tracing.md) and\n"
	"prints the test execution report: the stack traces that wrote the most bytes and\n"
	"the most bytes per call, with the file they wrote, and the files by bytes. The\n"
	"program's output goes to revperf's stderr, or to DIR/run-N.log with --dir, which\n"
	"also keeps the profile as DIR/run-N.io.json (N = the first free number, so runs\n"
	"accumulate) for `revperf diff`.\n"
	"--counters samples the process tree every 100 ms (--interval): CPU (user, system),\n"
	"RSS, bytes read and written per second, faults and context switches per second,\n"
	"threads, processes, plus the `revperf-counter NAME VALUE` lines the program prints;\n"
	"it prints each counter's summary, and with --dir keeps DIR/run-N.csv (for `revperf\n"
	"chart`) and DIR/run-N.log (docs/counters.md).\n"
	"--sample samples the on-CPU time of the program's whole process tree (threads, forked\n"
	"and exec'd children) with perf_event_open, user space only, as perf_event_paranoid 2\n"
	"allows without privileges: cpu-clock at 1000 Hz (-F, --event cycles where the PMU\n"
	"has it). Call chains come from frame pointers where the program keeps them, else\n"
	"from copies of the user stack unwound afterwards with the DWARF call frame\n"
	"information (--call-graph; the report says which, per module). It prints the\n"
	"on-CPU time per thread and summed, beside the user and system time the kernel\n"
	"counted, samples lost, then the heaviest contexts; with --dir it keeps\n"
	"DIR/run-N.sample (for `revperf diff`) and DIR/run-N.log (docs/sampling.md).\n"
	"Functions are named after the run from the ELF symbols and DWARF of the files that\n"
	"were mapped, PIE and shared libraries included.\n"
	"Exit status: 0 the program ran and exited 0, 1 it failed, crashed or timed out (its\n"
	"profile is still shown), 2 usage or input error (the program cannot be executed;\n"
	"--cct: no profile written, not instrumented?; --sample: perf_event_open refused),\n"
	"3 internal failure.",
	profile_options,
};

/* Quotes argv into one command line that proc_run() execs without a shell. */
static void quote_command(struct strbuf *sb, const char *const *argv, int argc)
{
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (i)
			strbuf_addch(sb, ' ');
		if (*a && !a[strcspn(a, " \t\n'\"\\$`|&;<>()*?[]~{}#!=%")]) {
			strbuf_addstr(sb, a);
			continue;
		}
		strbuf_addch(sb, '\'');
		for (; *a; a++) {
			if (*a == '\'')
				strbuf_addstr(sb, "'\\''");
			else
				strbuf_addch(sb, *a);
		}
		strbuf_addch(sb, '\'');
	}
}

static int profile_io(char **args, int n);
static int profile_counters(const char **args, int n);
static int profile_sample(const char **args, int n);

/* --timeout: *out = 0 when not given. Returns 0, or -1 after a usage error. */
static int parse_timeout(ns_t *out)
{
	*out = 0;
	if (o.timeout && (parse_duration(o.timeout, out) || !*out))
		return usage_error("profile", "--timeout '%s': expected a duration such as 30s",
				   o.timeout);
	return 0;
}

/* --top: *top left alone when not given. Returns 0, or -1 after a usage error. */
static int parse_top(size_t *top)
{
	uint64_t k;
	if (!o.top)
		return 0;
	if (parse_u64(o.top, &k) || k == 0 || k > 100000)
		return usage_error("profile", "--top '%s': expected a number from 1 to 100000",
				   o.top);
	*top = (size_t)k;
	return 0;
}

static const char *const profile_formats[] = { "text", "json", "folded", NULL };

static int profile(int argc, char **argv)
{
	const char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	struct strbuf command = STRBUF_INIT, dir = STRBUF_INIT;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	struct profile_load_options lo = { 0 };
	struct profile_source src;
	struct cct_top_options to = { 0 };
	struct profile_threads threads = { 0 };
	struct cct tree;
	enum { TEXT, JSON, FOLDED } format = TEXT;
	bool temp_dir = false, loaded = false;
	FILE *out = stdout;
	int n, err, ret = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	o.output.quiet_warnings = true;
	memset(&tree, 0, sizeof(tree));
	n = parse_options(argc, argv, &profile_help, args, argc);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0 || (o.format = cli_output_begin(&o.output, "profile", profile_formats)) < 0)
		goto out;
	if (o.cct + o.io + o.counters + o.sample != 1) {
		usage_error("profile", "say what to profile: --cct (a calling context tree), --sample "
				       "(a sampled one), --io (write system calls per stack trace) "
				       "or --counters");
		goto out;
	}
	if (!n) {
		usage_error("profile", "expected the command to run after --");
		goto out;
	}
	if (o.io) {
		ret = profile_io((char **)args, n);
		goto out;
	}
	/* The other kinds run the program through the spawner: is it there? */
	if (proc_spawner_check())
		goto out;
	if (o.counters) {
		ret = profile_counters(args, n);
		goto out;
	}
	if (o.sample) {
		ret = profile_sample(args, n);
		goto out;
	}
	if (o.frequency || o.event || o.call_graph) {
		usage_error("profile", "--frequency, --event and --call-graph go with --sample");
		goto out;
	}
	if (o.reads || o.depth || o.interval) {
		usage_error("profile", "--reads and --depth go with --io, --interval with --counters");
		goto out;
	}
	format = o.format == 1 ? JSON : o.format == 2 ? FOLDED : TEXT;
	if (parse_top(&to.top))
		goto out;
	if (parse_timeout(&spec.timeout_ns))
		goto out;
	if (o.out_dir) {
		strbuf_addstr(&dir, o.out_dir);
		if (mkdir_p(dir.buf))
			goto out;
	} else {
		const char *tmp = getenv("TMPDIR");
		strbuf_addf(&dir, "%s/revperf-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir.buf)) {
			error("cannot create a temporary directory %s: %s", dir.buf,
			      strerror(errno));
			ret = EXIT_INTERNAL;
			goto out;
		}
		temp_dir = true;
	}
	quote_command(&command, args, n);
	spec.command = command.buf;
	spec.pass_stdin = true; /* as the program reads it from the shell */
	/* Its output goes to revperf's stderr, as --io's and --sample's without --dir (the
	 * profile directory holds the runtime's files only). */
	spec.log_path = "/dev/stderr";
	spec.log_follow_links = true;
	if ((err = cct_run(&spec, dir.buf, &res))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (res.status != RUN_OK)
		warning("the program %s: %s", run_status_name(res.status), res.detail);
	lo.plain = o.plain;
	lo.separate_threads = o.threads;
	lo.format = PROFILE_FORMAT_CCT;
	lo.threads = &threads;
	loaded = true; /* profile_load() leaves a tree to release, also on failure */
	if ((err = profile_load(dir.buf, &lo, &tree, &src))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (tree.nr_nodes <= 1) {
		error("%s: no instrumented function ran: compile the program with "
		      "-finstrument-functions",
		      args[0]);
		goto out;
	}
	if (!(out = cli_report_open(o.out))) {
		out = stdout;
		goto out;
	}
	o.output.printed = true;
	if (src.calls_only)
		to.unit = "calls"; /* REVPERF_CCT_CLOCK=none: the weights are call counts */
	/* Each thread's time and the clock: totals a user can check against the run's. */
	to.threads = &threads;
	to.clock = src.clock;
	if (format == FOLDED) {
		struct strbuf sb = STRBUF_INIT;
		folded_write(&tree, &sb);
		fwrite(sb.buf, 1, sb.len, out);
		strbuf_release(&sb);
		err = ferror(out) ? -1 : 0;
	} else if (format == JSON) {
		/* Like the other profile documents: revperf_version and schema first. */
		json_t *root = json_object(), *body = cct_top_to_json(&tree, &to);
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-profile/1"));
		json_object_update(root, body);
		json_decref(body);
		err = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(root);
		err = err || ferror(out) ? -1 : 0;
	} else {
		fprintf_printable(out,
				  "%s: %s, %.3f s wall, %.3f s CPU (user + system, every process "
				  "and thread), %u process profile%s%s\n",
				  command.buf, res.status == RUN_OK ? "exit 0" : res.detail,
				  (double)res.m.wall_ns / 1e9,
				  (double)(res.m.user_ns + res.m.sys_ns) / 1e9, src.nr_files,
				  src.nr_files == 1 ? "" : "s",
				  o.out_dir ? "" : " (temporary: keep them with --dir)");
		if (o.out_dir)
			fprintf(out, "profiles in %s\n", dir.buf);
		err = cct_top_text(out, &tree, &to);
	}
	ret = cli_report_close(out, o.out, err, res.status == RUN_OK ? EXIT_OK : EXIT_REGRESSION);
	out = stdout;
out:
	if (out != stdout)
		fclose(out);
	if (temp_dir)
		remove_tree(dir.buf);
	if (loaded)
		cct_release(&tree);
	profile_threads_release(&threads);
	strbuf_release(&command);
	strbuf_release(&dir);
	free(args);
	return ret;
}

/* The first N for which neither DIR/run-N.<ext> nor DIR/run-N.log exists. */
static unsigned next_run_number(const char *dir, const char *ext)
{
	struct strbuf sb = STRBUF_INIT;
	unsigned k;

	for (k = 1;; k++) {
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/run-%u.%s", dir, k, ext);
		if (path_exists(sb.buf))
			continue;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s/run-%u.log", dir, k);
		if (!path_exists(sb.buf))
			break;
	}
	strbuf_release(&sb);
	return k;
}

/*
 * Where a --counters or --sample run writes: with --out-dir, LOG gets DIR/run-N.log and
 * OUT DIR/run-N.<ext> for the first free N; without, the log goes to stderr (stdout keeps
 * the report) and OUT stays empty. Returns -1 after an error if DIR cannot be created.
 */
static int run_paths(const char *ext, struct proc_spec *spec, struct strbuf *log,
		     struct strbuf *out)
{
	unsigned k;

	if (!o.out_dir) {
		strbuf_addstr(log, "/dev/stderr");
		spec->log_follow_links = true;
		return 0;
	}
	if (mkdir_p(o.out_dir))
		return -1;
	k = next_run_number(o.out_dir, ext);
	strbuf_addf(log, "%s/run-%u.log", o.out_dir, k);
	strbuf_addf(out, "%s/run-%u.%s", o.out_dir, k, ext);
	return 0;
}

/* revperf profile --io: one traced run and its test execution report. */
static int profile_io(char **args, int n)
{
	struct iotrace_options topts;
	struct iotrace_result tr = { 0 };
	struct io_profile prof = { 0 };
	struct io_profile_meta meta = { 0 };
	struct io_report_options ro = { 0 };
	struct strbuf command = STRBUF_INIT, log = STRBUF_INIT, path = STRBUF_INIT;
	bool json = false;
	FILE *out = stdout;
	int log_fd = -1, err, ret = EXIT_USAGE;
	ns_t timeout = 0;

	iotrace_options_init(&topts);
	if (o.plain || o.threads || o.frequency || o.event || o.call_graph) {
		usage_error("profile", "--plain and --threads go with --cct, --frequency, --event "
				       "and --call-graph with --sample");
		goto out;
	}
	if (o.format == 2) {
		usage_error("profile", "format folded is for --cct and --sample; --io: use text or json");
		goto out;
	}
	json = o.format == 1;
	if (parse_top(&ro.top))
		goto out;
	if (o.depth) {
		uint64_t d;
		if (parse_u64(o.depth, &d) || d == 0 || d > IOTRACE_MAX_DEPTH) {
			usage_error("profile", "--depth '%s': expected a number from 1 to %d",
				    o.depth, IOTRACE_MAX_DEPTH);
			goto out;
		}
		topts.max_depth = (unsigned)d;
	}
	if (parse_timeout(&timeout))
		goto out;
	topts.timeout_s = (double)timeout / 1e9;
	topts.reads = o.reads;
	topts.out_fd = STDERR_FILENO; /* keeps stdout for the report */
	if (o.out_dir) {
		unsigned k;
		if (mkdir_p(o.out_dir))
			goto out;
		k = next_run_number(o.out_dir, "io.json");
		strbuf_addf(&log, "%s/run-%u.log", o.out_dir, k);
		strbuf_addf(&path, "%s/run-%u.io.json", o.out_dir, k);
		log_fd = open(log.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log_fd < 0) {
			error("cannot create the log %s: %s", log.buf, strerror(errno));
			goto out;
		}
		topts.out_fd = log_fd;
	}
	quote_command(&command, (const char *const *)args, n);
	meta.command = command.buf;
	meta.log = log.len ? log.buf : NULL;
	meta.started_at = (int64_t)time(NULL);
	meta.reads = o.reads;
	interrupt_install();
	if ((err = iotrace_run(args, &topts, &tr))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	io_profile_from_trace(&tr, &meta, &prof);
	if (path.len && io_profile_write(&prof, path.buf)) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (tr.status == RUN_NOT_STARTED) {
		/* Recorded (the profile says so), but nothing ran: the command is wrong. */
		error("%s", tr.detail);
		goto out;
	}
	if (tr.status != RUN_OK)
		warning("the program %s: %s", run_status_name(tr.status), tr.detail);
	if (!(out = cli_report_open(o.out))) {
		out = stdout;
		goto out;
	}
	o.output.printed = true;
	ro.profile_path = path.len ? path.buf : NULL;
	err = 0;
	if (json) {
		json_t *root = json_object();
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-profile/1"));
		ro.dir = IOTRACE_WRITE;
		json_object_set_new(root, "writes", io_exec_report_json(&prof, &ro));
		if (o.reads) {
			ro.dir = IOTRACE_READ;
			json_object_set_new(root, "reads", io_exec_report_json(&prof, &ro));
		}
		err = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
						    JSON_REAL_PRECISION(10)) ||
		      fputc('\n', out) == EOF;
		json_decref(root);
	} else {
		ro.dir = IOTRACE_WRITE;
		err = io_exec_report_text(out, &prof, &ro);
		if (!err && o.reads) {
			fputs("\n", out);
			ro.dir = IOTRACE_READ;
			err = io_exec_report_text(out, &prof, &ro);
		}
	}
	ret = cli_report_close(out, o.out, err, tr.status == RUN_OK ? EXIT_OK : EXIT_REGRESSION);
	out = stdout;
out:
	if (out != stdout)
		fclose(out);
	if (log_fd >= 0)
		close(log_fd);
	io_profile_release(&prof);
	iotrace_result_release(&tr);
	strbuf_release(&command);
	strbuf_release(&log);
	strbuf_release(&path);
	return ret;
}

/* revperf profile --counters: one sampled run and a summary per counter. */
static int profile_counters(const char **args, int n)
{
	struct proc_spec spec = { 0 };
	struct proc_result res;
	struct run_samples rs;
	struct strbuf command = STRBUF_INIT, log = STRBUF_INIT, csv = STRBUF_INIT;
	bool json = false;
	FILE *out = stdout;
	int err, ret = EXIT_USAGE;

	run_samples_init(&rs);
	if (o.plain || o.threads || o.reads || o.depth || o.top || o.frequency || o.event ||
	    o.call_graph) {
		usage_error("profile", "--plain, --threads, --reads, --depth, --top, --frequency, "
				       "--event and --call-graph do not go with --counters");
		goto out;
	}
	if (o.format == 2) {
		usage_error("profile", "format folded is for --cct and --sample; --counters: use text or json");
		goto out;
	}
	json = o.format == 1;
	spec.sample_interval_ns = 100 * 1000000LL;
	if (o.interval && (parse_duration(o.interval, &spec.sample_interval_ns) ||
			   spec.sample_interval_ns < 10 * 1000000LL)) {
		usage_error("profile", "--interval '%s': expected a duration of at least 10ms",
			    o.interval);
		goto out;
	}
	if (parse_timeout(&spec.timeout_ns))
		goto out;
	if (run_paths("csv", &spec, &log, &csv))
		goto out;
	quote_command(&command, args, n);
	spec.command = command.buf;
	spec.pass_stdin = true;
	spec.log_path = log.buf;
	spec.samples = &rs;
	interrupt_install();
	if ((err = proc_run(&spec, &res))) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (csv.len && counters_csv_write(csv.buf, &rs)) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	if (res.status == RUN_NOT_STARTED) {
		error("%s", res.detail);
		goto out;
	}
	if (res.status != RUN_OK)
		warning("the program %s: %s", run_status_name(res.status), res.detail);
	if (res.counter_lines_malformed)
		warning("%zu malformed revperf-counter line%s ignored (expected "
			"'revperf-counter NAME VALUE')",
			res.counter_lines_malformed, res.counter_lines_malformed == 1 ? "" : "s");
	if (!(out = cli_report_open(o.out))) {
		out = stdout;
		goto out;
	}
	o.output.printed = true;
	counters_report_summary(out, &rs, &res, command.buf, csv.len ? csv.buf : NULL, json);
	ret = cli_report_close(out, o.out, false, res.status == RUN_OK ? EXIT_OK : EXIT_REGRESSION);
	out = stdout;
out:
	if (out != stdout)
		fclose(out);
	run_samples_release(&rs);
	strbuf_release(&command);
	strbuf_release(&log);
	strbuf_release(&csv);
	return ret;
}

/* --frequency, --event, --call-graph into *so. Returns 0, or -1 after a usage error. */
static int sample_options_parse(struct perf_sample_options *so)
{
	perf_sample_options_init(so);
	if (o.frequency) {
		uint64_t hz;
		if (parse_u64(o.frequency, &hz) || hz < 1 || hz > PERF_SAMPLE_MAX_HZ)
			return usage_error("profile", "--frequency '%s': expected samples per second "
						      "from 1 to %d",
					   o.frequency, PERF_SAMPLE_MAX_HZ);
		so->frequency_hz = (unsigned)hz;
	}
	if (o.event) {
		if (!strcmp(o.event, "cycles"))
			so->event = PERF_SAMPLE_EVENT_CYCLES;
		else if (strcmp(o.event, "cpu-clock"))
			return usage_error("profile", "--event '%s': expected cpu-clock or cycles",
					   o.event);
	}
	if (o.call_graph) {
		if (!strcmp(o.call_graph, "fp"))
			so->callgraph = PERF_SAMPLE_CALLGRAPH_FP;
		else if (!strcmp(o.call_graph, "dwarf"))
			so->callgraph = PERF_SAMPLE_CALLGRAPH_DWARF;
		else if (strcmp(o.call_graph, "auto"))
			return usage_error("profile", "--call-graph '%s': expected auto, fp or dwarf",
					   o.call_graph);
	}
	return 0;
}

/* revperf profile --sample: one sampled run, its on-CPU time per thread and its tree. */
static int profile_sample(const char **args, int n)
{
	struct perf_sample_options so;
	struct perf_sample_stats st;
	struct proc_spec spec = { 0 };
	struct proc_result res;
	struct sample_build_options bo = { 0 };
	struct sample_profile prof = { 0 };
	struct sample_report_run run = { 0 };
	struct cct_top_options to = { 0 };
	struct strbuf command = STRBUF_INIT, log = STRBUF_INIT, path = STRBUF_INIT,
		      raw = STRBUF_INIT, why = STRBUF_INIT, tmp = STRBUF_INIT;
	struct cct tree;
	bool json = false, folded = false, have_tree = false;
	FILE *out = stdout;
	int err, ret = EXIT_USAGE;

	memset(&tree, 0, sizeof(tree));
	if (o.plain || o.reads || o.depth || o.interval) {
		usage_error("profile", "--plain, --reads, --depth and --interval do not go with "
				       "--sample");
		goto out;
	}
	json = o.format == 1;
	folded = o.format == 2;
	if (parse_top(&to.top))
		goto out;
	if (sample_options_parse(&so) || parse_timeout(&spec.timeout_ns))
		goto out;
	quote_command(&command, args, n);
	{
		const char *t = getenv("TMPDIR");
		strbuf_addf(&tmp, "%s/revperf-sample.XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmp.buf)) {
			error("cannot create a temporary directory %s: %s", tmp.buf,
			      strerror(errno));
			ret = EXIT_INTERNAL;
			strbuf_reset(&tmp);
			goto out;
		}
		strbuf_addf(&raw, "%s/samples.raw", tmp.buf);
	}
	if (run_paths("sample", &spec, &log, &path))
		goto out;
	spec.command = command.buf;
	spec.pass_stdin = true;
	spec.log_path = log.buf;
	spec.perf_counters = false;
	if (so.callgraph == PERF_SAMPLE_CALLGRAPH_AUTO)
		so.callgraph = perf_sample_choose(command.buf, NULL, &why);
	else
		strbuf_addstr(&why, "asked for");
	interrupt_install();
	if ((err = perf_sample_run(&spec, &so, raw.buf, &res, &st))) {
		ret = err == RP_EINPUT ? EXIT_USAGE : EXIT_INTERNAL;
		goto out;
	}
	if (res.status == RUN_NOT_STARTED) {
		error("%s", res.detail);
		goto out;
	}
	if (res.status != RUN_OK)
		warning("the program %s: %s", run_status_name(res.status), res.detail);
	if (st.event_fell_back)
		warning("no PMU for cycles on this machine: sampled cpu-clock instead");
	bo.command = command.buf;
	bo.callgraph_why = why.buf;
	bo.wall_ns = (uint64_t)res.m.wall_ns;
	bo.user_ns = (uint64_t)res.m.user_ns;
	bo.sys_ns = (uint64_t)res.m.sys_ns;
	if ((err = sample_build(raw.buf, &bo, &prof))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (path.len && sample_profile_save(&prof, path.buf)) {
		ret = EXIT_INTERNAL;
		goto out;
	}
	have_tree = true;
	if ((err = sample_profile_cct(&prof, o.threads, &tree))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!(out = cli_report_open(o.out))) {
		out = stdout;
		goto out;
	}
	o.output.printed = true;
	run.status = res.status == RUN_OK ? "exit 0" : res.detail;
	run.path = path.len ? path.buf : NULL;
	if (folded) {
		struct strbuf sb = STRBUF_INIT;
		folded_write(&tree, &sb);
		err = fwrite(sb.buf, 1, sb.len, out) != sb.len;
		strbuf_release(&sb);
	} else {
		err = json ? sample_report_json(out, &prof, &tree, &to, &run)
			   : sample_report_text(out, &prof, &tree, &to, &run);
	}
	ret = cli_report_close(out, o.out, err, res.status == RUN_OK ? EXIT_OK : EXIT_REGRESSION);
	out = stdout;
out:
	if (out != stdout)
		fclose(out);
	if (tmp.len)
		remove_tree(tmp.buf);
	if (have_tree)
		cct_release(&tree);
	sample_profile_release(&prof);
	strbuf_release(&command);
	strbuf_release(&log);
	strbuf_release(&path);
	strbuf_release(&raw);
	strbuf_release(&why);
	strbuf_release(&tmp);
	return ret;
}

int cmd_profile(int argc, char **argv)
{
	int ret = profile(argc, argv);
	return cli_output_end(&o.output, ret);
}
