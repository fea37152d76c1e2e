#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cct_diff.h"
#include "cli/commands.h"
#include "binary/bindiff.h"
#include "binary/symbolize.h"
#include "core/build.h"
#include "core/config.h"
#include "compare/stored_profiles.h"
#include "core/revision.h"
#include "store/store.h"
#include "analysis/io_spectra.h"
#include "profile/io_profile.h"
#include "profile/profile_load.h"
#include "report/cct_report.h"
#include "report/io_report.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	const char *threshold, *top, *format, *out, *input_format, *event, *weight, *bench;
	const char *old_binary, *new_binary, *state_dir, *store, *range, *sd;
	bool plain, threads, no_bindiff, io, by_file, absent_as_outside, reads;
} o;

static const struct option diff_options[] = {
	{ OPT_STRING, 't', "threshold", "PCT", "stop adjusting weights at this overlap in % "
					       "(default 100; with --bench and two target runs: "
					       "their overlap)", &o.threshold, NULL },
	{ OPT_STRING, 'k', "top", "K", "report at most K weight differences (default 20; 0 = all)",
	  &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "merge call sites into plain contexts first", &o.plain,
	  NULL },
	{ OPT_STRING, 'f', "format", "FMT",
	  "text (default), json, or svg: a differential flame graph", &o.format, NULL },
	{ OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out,
	  NULL },
	{ OPT_STRING, 'i', "input-format", "FMT", "auto (default), cct, callgrind or folded",
	  &o.input_format, NULL },
	{ OPT_STRING, 0, "event", "EV", "callgrind: the event to weigh by (default: the first, "
					"Ir)", &o.event, NULL },
	{ OPT_STRING, 'w', "weight", "W", "time (default: the profile's weight) or calls",
	  &o.weight, NULL },
	{ OPT_FLAG, 0, "threads", NULL, "CCT profiles: keep each thread's tree apart",
	  &o.threads, NULL },
	{ OPT_STRING, 'b', "bench", "NAME", "OLD and NEW are revisions: diff the profiles "
					   "`compare` stored for this benchmark", &o.bench, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "with --bench: where the results are (default "
					     ".revperf/ at the repository root)", &o.state_dir,
	  NULL },
	CLI_STORE_OPTION(o.store),
	{ OPT_STRING, 0, "old-binary", "FILE", "the old program, for the binary diff that "
					       "drives stages 1 and 2", &o.old_binary, NULL },
	{ OPT_STRING, 0, "new-binary", "FILE", "the new program (default for both: the "
					       "programs CCT profiles name)", &o.new_binary, NULL },
	{ OPT_FLAG, 0, "no-bindiff", NULL, "no binary diff: every difference is stage 3",
	  &o.no_bindiff, NULL },
	{ OPT_FLAG, 0, "io", NULL, "I/O profiles (default when OLD or NEW holds some; with "
				   "--bench: the stored I/O profiles)", &o.io, NULL },
	{ OPT_STRING, 0, "range", "R", "I/O: the accepted range of bytes per call, minmax "
				       "(default) or sd (mean +/- K sd)", &o.range, NULL },
	{ OPT_STRING, 0, "sd", "K", "I/O: K for --range sd (default 2)", &o.sd, NULL },
	{ OPT_FLAG, 0, "by-file", NULL, "I/O: one row per stack trace and file (default: per "
					"stack trace)", &o.by_file, NULL },
	{ OPT_FLAG, 0, "absent-as-outside", NULL, "I/O: a target run where a stack trace did not "
						  "write counts against its SC", &o.absent_as_outside,
	  NULL },
	{ OPT_FLAG, 0, "reads", NULL, "I/O: compare the read system calls (profiles taken with "
				      "--reads)", &o.reads, NULL },
	OPT_END_MARKER,
};
static const char *const diff_usage[] = { "diff [options] OLD NEW",
					   "diff [options] --bench NAME OLD_REV NEW_REV", NULL };
const struct command_help diff_help = {
	"diff", diff_usage,
	"Differences two calling context trees (METHODS.md section 5, PARCS): the call paths\n"
	"found in one tree only, in three stages driven by the binary diff of the two programs\n"
	"(1: a subtree of an added or deleted function, attributed to its caller; 2: inside a\n"
	"modified function, attributed to it and its modified callers; 3: side effect or\n"
	"noise), the overlap of the common trees in %, and the contexts whose share of the\n"
	"total weight changed most. OLD and NEW are profiles of any kind, recognised from\n"
	"their content: revperf's CCT runtime (a file, or a directory of one run's files,\n"
	"e.g. from `revperf profile --cct --dir`), valgrind callgrind output, or folded\n"
	"stacks ('a;b;c 123' per line, as perf script + stackcollapse write them); '-' reads\n"
	"one of them from standard input (`... | stackcollapse-perf.pl | revperf diff - NEW`).\n"
	"Inputs are regular files (a FIFO or device is refused), capped in size\n"
	"(docs/limits.md); an empty or truncated profile is an error. With\n"
	"--bench, OLD and NEW are revisions whose profiled runs `compare` stored (profile =\n"
	"cct); the runs of each side are merged (mean and sd per node). The binary diff is of\n"
	"--old-binary and --new-binary, or of the programs that CCT profiles name. As text,\n"
	"JSON, or a differential flame graph in SVG (the new tree's layout; red: a larger\n"
	"share than in the old tree, blue: smaller, hatched: new; a table of the vanished\n"
	"contexts). See docs/cct-diff.md.\n"
	"With I/O profiles (`revperf profile --io -d DIR`: OLD and NEW are profiles or\n"
	"directories of runs; with --bench --io the runs `compare` stored for profile = io),\n"
	"the similarity report of METHODS.md section 3 (SPECTRAPERF): the accepted range of\n"
	"bytes per call of each stack trace over the OLD runs, and per stack trace of NEW its\n"
	"SC, Impact, TotalImpact, RangeDiff, Runs and CallsDiff, ranked; the stack traces\n"
	"that stopped writing. Text, JSON or Markdown (-f markdown). Runs that crashed,\n"
	"failed or timed out are left out and counted. See docs/io-analysis.md.\n"
	"Exit status: 0 no difference (I/O: no stack trace changed or stopped), 1 different,\n"
	"2 usage or input error (a missing file, a line without a count, named by\n"
	"file:line), 3 internal failure.",
	diff_options,
};

enum diff_format { DIFF_TEXT, DIFF_JSON, DIFF_SVG };

static int write_report(FILE *f, enum diff_format format, const struct cct_diff *d,
			const struct cct_report_options *ro)
{
	switch (format) {
	case DIFF_JSON: return cct_diff_report_json(f, d, ro);
	case DIFF_SVG: return cct_diff_report_svg(f, d, ro);
	default: return cct_diff_report_text(f, d, ro);
	}
}

/* The report to stdout or to `path`, which is removed again when it could not be written. */
static int output(const char *path, enum diff_format format, const struct cct_diff *d,
		  const struct cct_report_options *ro)
{
	FILE *f = cli_report_open(path);
	if (!f)
		return EXIT_USAGE;
	return cli_report_close(f, path, write_report(f, format, d, ro) != 0, EXIT_OK);
}


/* Stages 1 and 2: the binary diff of the two programs, when they are known. */
static void add_bindiff(const struct stored_cct sides[2], struct cct_changes *changes, bool *have)
{
	const char *old_bin = o.old_binary ? o.old_binary : sides[0].src.exe;
	const char *new_bin = o.new_binary ? o.new_binary : sides[1].src.exe;
	struct bindiff bd;
	*have = false;
	if (o.no_bindiff || !*old_bin || !*new_bin)
		return;
	memset(&bd, 0, sizeof(bd));
	if (bindiff_files(old_bin, new_bin, 0, &bd)) {
		warning("no binary diff of %s and %s (see above): every difference is stage 3",
			old_bin, new_bin);
		return;
	}
	cct_diff_changes_from_bindiff(&bd, changes);
	bindiff_release(&bd);
	*have = true;
}

/* revperf diff with I/O profiles: the similarity report. */
static int diff_io(const char *args[2], enum diff_format format, bool markdown)
{
	struct io_profile *sides[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 }, used[2], excluded[2];
	char *labels[2] = { NULL, NULL };
	struct spectra_opts so;
	struct spectra_report rep = { 0 };
	struct io_report_options ro = { 0 };
	struct io_similarity_labels lab;
	struct cli_project p = {0};
	FILE *f = stdout;
	double v;
	int err, ret = EXIT_USAGE;

	spectra_opts_init(&so);
	if (o.threshold || o.input_format || o.event || o.weight || o.plain || o.threads ||
	    o.old_binary || o.no_bindiff || format == DIFF_SVG) {
		usage_error("diff", "--threshold, --input-format, --event, --weight, --plain, "
				    "--threads, the binaries and svg are for calling context trees, "
				    "not I/O profiles");
		return EXIT_USAGE;
	}
	if (o.range && !strcmp(o.range, "sd")) {
		so.range = SPECTRA_RANGE_SD;
	} else if (o.range && strcmp(o.range, "minmax")) {
		usage_error("diff", "--range '%s': use minmax or sd", o.range);
		return EXIT_USAGE;
	}
	if (o.sd) {
		if (so.range != SPECTRA_RANGE_SD || parse_double(o.sd, 0, 1e6, &v)) {
			usage_error("diff", "--sd '%s': expected a number >= 0, with --range sd", o.sd);
			return EXIT_USAGE;
		}
		so.k = v;
	}
	if (o.top) {
		if (parse_double(o.top, 1, 1e9, &v) || v != floor(v)) {
			usage_error("diff", "--top '%s': expected a whole number >= 1", o.top);
			return EXIT_USAGE;
		}
		ro.top = (size_t)v;
	}
	so.group = o.by_file ? SPECTRA_BY_STACK_FILE : SPECTRA_BY_STACK;
	so.absent_as_outside = o.absent_as_outside;
	ro.dir = o.reads ? IOTRACE_READ : IOTRACE_WRITE;
	if (o.bench && (err = cli_project_open(&p, &(struct cli_where){ NULL, o.state_dir, o.store },
						 CLI_PROJECT_EXISTING))) {
		ret = err;
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		err = o.bench ? stored_io_load(p.st, p.repo, args[i], o.bench, &sides[i], &nr[i],
					       &labels[i])
			      : io_profile_load_runs(args[i], &sides[i], &nr[i]);
		if (err) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	}
	if (o.reads && (!sides[0][0].reads || !sides[1][0].reads)) {
		error("%s has no reads: take the profiles with `revperf profile --io --reads`",
		      sides[0][0].reads ? args[1] : args[0]);
		goto out;
	}
	if ((err = io_profiles_compare(sides[0], nr[0], sides[1], nr[1], ro.dir, &so, &rep, used,
				       excluded))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	for (int i = 0; i < 2; i++)
		if (excluded[i])
			warning("%s: %zu run%s left out (crashed, failed or timed out)", args[i],
				excluded[i], excluded[i] == 1 ? "" : "s");
	if (!(f = cli_report_open(o.out))) {
		f = stdout;
		goto out;
	}
	lab.baseline = labels[0] ? labels[0] : args[0];
	lab.target = labels[1] ? labels[1] : args[1];
	if (format == DIFF_JSON) {
		json_t *root = json_object();
		json_object_set_new(root, "baseline", json_string(lab.baseline));
		json_object_set_new(root, "target", json_string(lab.target));
		json_object_set_new(root, "baseline_runs_excluded",
				    json_integer((json_int_t)excluded[0]));
		json_object_set_new(root, "target_runs_excluded",
				    json_integer((json_int_t)excluded[1]));
		json_object_set_new(root, "similarity", io_similarity_json(&rep, &ro));
		err = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
						  JSON_REAL_PRECISION(10));
		fputc('\n', f);
		json_decref(root);
	} else if (markdown) {
		io_similarity_markdown(f, &rep, &ro);
	} else {
		io_similarity_text(f, &rep, &lab, &ro, "");
	}
	ret = cli_report_close(f, o.out, err,
			       rep.nr_stopped || io_similarity_changed(&rep) ? EXIT_REGRESSION
									     : EXIT_OK);
	f = stdout;
out:
	if (f != stdout)
		fclose(f);
	spectra_report_release(&rep);
	for (int i = 0; i < 2; i++) {
		io_profiles_free(sides[i], nr[i]);
		free(labels[i]);
	}
	ret = cli_project_close(&p, ret);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	const char *args[2];
	struct stored_cct sides[2];
	struct cct_diff d;
	struct cct_diff_options opts = { .threshold = 100, .max_pairs = 20 };
	struct cct_report_options ro = { 0 };
	struct profile_load_options lo = { 0 };
	struct cct_changes changes;
	struct cli_project p = {0};
	enum diff_format format = DIFF_TEXT;
	bool have_bindiff = false, markdown = false;
	double v;
	int n, err, ret = EXIT_USAGE;

	memset(&o, 0, sizeof(o));
	memset(&d, 0, sizeof(d));
	memset(sides, 0, sizeof(sides));
	cct_changes_init(&changes);
	n = parse_options(argc, argv, &diff_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (n != 2) {
		usage_error("diff", "expected OLD and NEW %s, got %d argument%s",
			    o.bench ? "revisions" : "profiles", n, n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (!o.bench && stdin_at_most_once("diff", args, 2))
		return EXIT_USAGE;
	if (o.format) {
		if (!strcmp(o.format, "json")) {
			format = DIFF_JSON;
		} else if (!strcmp(o.format, "svg")) {
			format = DIFF_SVG;
		} else if (!strcmp(o.format, "markdown")) {
			markdown = true;
		} else if (strcmp(o.format, "text")) {
			usage_error("diff", "unknown format '%s': use text, json, svg or markdown "
					    "(I/O)",
				    o.format);
			return EXIT_USAGE;
		}
	}
	if (o.out && !*o.out) {
		usage_error("diff", "--out needs a file name");
		return EXIT_USAGE;
	}
	if (o.io || (!o.bench && (io_profile_path_is_io(args[0]) ||
				  io_profile_path_is_io(args[1]))))
		return diff_io(args, format, markdown);
	if (markdown || o.range || o.sd || o.by_file || o.absent_as_outside || o.reads) {
		usage_error("diff", "markdown, --range, --sd, --by-file, --absent-as-outside and "
				    "--reads are for I/O profiles");
		return EXIT_USAGE;
	}
	if (o.out && !*o.out) {
		usage_error("diff", "--out needs a file name");
		return EXIT_USAGE;
	}
	if (o.threshold) {
		if (parse_double(o.threshold, 0, 100, &v) || v == 0) {
			usage_error("diff", "--threshold '%s': expected a number in (0, 100]",
				    o.threshold);
			return EXIT_USAGE;
		}
		opts.threshold = v;
	}
	if (o.top) {
		if (parse_double(o.top, 0, 1e9, &v) || v != floor(v)) {
			usage_error("diff", "--top '%s': expected a whole number >= 0", o.top);
			return EXIT_USAGE;
		}
		opts.max_pairs = (size_t)v;
	}
	if (o.input_format && profile_format_parse(o.input_format, &lo.format)) {
		usage_error("diff", "unknown input format '%s': use auto, cct, callgrind or folded",
			    o.input_format);
		return EXIT_USAGE;
	}
	if (o.weight) {
		if (!strcmp(o.weight, "calls")) {
			lo.weight_calls = true;
		} else if (strcmp(o.weight, "time")) {
			usage_error("diff", "unknown weight '%s': use time or calls", o.weight);
			return EXIT_USAGE;
		}
	}
	if ((o.old_binary != NULL) != (o.new_binary != NULL)) {
		usage_error("diff", "--old-binary and --new-binary go together");
		return EXIT_USAGE;
	}
	if (o.state_dir && !o.bench) {
		usage_error("diff", "--state-dir goes with --bench");
		return EXIT_USAGE;
	}
	lo.event = o.event;
	lo.plain = o.plain;
	lo.separate_threads = o.threads;
	lo.sym = symbolizer_new();
	if (o.bench && (err = cli_project_open(&p, &(struct cli_where){ NULL, o.state_dir, o.store },
						 CLI_PROJECT_EXISTING))) {
		ret = err;
		goto out;
	}
	for (int i = 0; i < 2; i++) {
		sides[i].overlap_of_runs = NAN;
		if (o.bench) {
			err = stored_cct_load(p.st, p.repo, args[i], o.bench, &lo, &sides[i]);
		} else {
			sides[i].loaded = true; /* a tree to release, also on failure */
			err = profile_load(args[i], &lo, &sides[i].tree, &sides[i].src);
		}
		if (err) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (lo.weight_calls && !cct_total(&sides[i].tree)) {
			error("%s has no call counts (folded stacks have none): --weight calls "
			      "needs CCT or callgrind profiles",
			      args[i]);
			goto out;
		}
	}
	/* The noise floor: two runs of the target differ this much already. */
	if (!o.threshold && isfinite(sides[1].overlap_of_runs))
		opts.threshold = sides[1].overlap_of_runs;
	add_bindiff(sides, &changes, &have_bindiff);
	cct_diff_compute(&sides[0].tree, &sides[1].tree, have_bindiff ? &changes : NULL, &opts,
			 &d);
	ro.old_label = sides[0].label ? sides[0].label : args[0];
	ro.new_label = sides[1].label ? sides[1].label : args[1];
	if ((ret = output(o.out, format, &d, &ro)) != EXIT_OK)
		goto out;
	ret = d.nr_topo || d.nr_pairs ? EXIT_REGRESSION : EXIT_OK;
out:
	cct_diff_release(&d);
	cct_changes_release(&changes);
	for (int i = 0; i < 2; i++) {
		if (sides[i].loaded)
			cct_release(&sides[i].tree);
		free(sides[i].label);
	}
	symbolizer_free(lo.sym);
	ret = cli_project_close(&p, ret);
	return ret;
}
