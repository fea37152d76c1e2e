#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cct_diff.h"
#include "analysis/profile_attribution.h"
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
#include "util/strmap.h"
#include "util/parse.h"

static struct {
	const char *threshold, *top, *out, *input_format, *event, *weight, *bench;
	const char *old_binary, *new_binary, *state_dir, *store, *range, *sd;
	bool plain, threads, no_bindiff, io, by_file, absent_as_outside, reads;
	struct cli_output output;
} o;

static const struct option diff_options[] = {
	{ OPT_STRING, 't', "threshold", "PCT", "stop adjusting weights at this overlap in % "
					       "(default 100; with --bench and two target runs: "
					       "their overlap)", &o.threshold, NULL },
	{ OPT_STRING, 'k', "top", "K", "report at most K weight differences, functions and call "
				       "paths (default 20 weight differences, 10 functions and "
				       "paths; 0 = all)",
	  &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "merge call sites into plain contexts first", &o.plain,
	  NULL },
	{ OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out,
	  NULL },
	{ OPT_STRING, 'i', "input-format", "FMT", "auto (default), cct, callgrind, folded, "
						 "sample or perf (perf script)",
	  &o.input_format, NULL },
	{ OPT_STRING, 0, "event", "EV", "callgrind, perf: the event to weigh by (default: the "
					"first; callgrind's is Ir)", &o.event, NULL },
	{ OPT_STRING, 'w', "weight", "W", "time (default: the profile's weight) or calls",
	  &o.weight, NULL },
	{ OPT_FLAG, 0, "threads", NULL, "CCT and sampled profiles: keep each thread's tree "
					"apart; perf: each thread name's", &o.threads, NULL },
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
	CLI_OUTPUT_OPTIONS(o.output, "text (default), json, svg (a differential flame graph) or "
				     "markdown (I/O)", CLI_QUIET_WARNINGS),
	OPT_END_MARKER,
};
static const char *const diff_usage[] = { "diff [options] OLD NEW",
					   "diff [options] OLD... -- NEW...",
					   "diff [options] --baseline OLD... --target NEW...",
					   "diff [options] --bench NAME OLD_REV NEW_REV", NULL };
const struct command_help diff_help = {
	"diff", diff_usage,
	"Differences two calling context trees (METHODS.md section 5, PARCS): the call paths\n"
	"found in one tree only, in three stages driven by the binary diff of the two programs\n"
	"(1: a subtree of an added or deleted function, attributed to its caller; 2: inside a\n"
	"modified function, attributed to it and its modified callers; 3: side effect or\n"
	"noise), the overlap of the common trees in %, and the contexts whose share of the\n"
	"total weight changed most. Beside them, the absolute change (docs/attribution.md):\n"
	"per function and per call path, the self weight per run on each side (mean ± sd over\n"
	"the runs, in the profiles' unit: time, instructions, calls or samples), the change\n"
	"± its interval, its share of the total change, ranked by absolute change, each\n"
	"marked noise when it lies within the run-to-run spread of a side (a spread needs 2\n"
	"runs or more per side: give several profiles per side as OLD... -- NEW... or\n"
	"--baseline OLD... --target NEW..., or --bench). OLD and NEW are profiles of any\n"
	"kind, recognised from their content: revperf's CCT runtime (a file, or a directory\n"
	"of one run's files, e.g. from `revperf profile --cct --dir`), valgrind callgrind\n"
	"output, folded stacks ('a;b;c 123' per line, as perf script + stackcollapse write\n"
	"them), or the output of `perf script` for a `perf record -g` or `--call-graph\n"
	"dwarf` recording (kernel frames marked ' [k]', docs/perf-script.md); '-' reads one\n"
	"of them from standard input (`perf script | revperf diff old.perf -`).\n"
	"Inputs are regular files (a FIFO or device is refused), capped in size\n"
	"(docs/limits.md); an empty or truncated profile is an error. Several profiles per\n"
	"side (each one run) are merged (mean and sd per node) for the percentages. With\n"
	"--bench, OLD and NEW are revisions whose profiled runs `compare` stored (profile =\n"
	"cct); the runs of each side are merged likewise. The binary diff is of\n"
	"--old-binary and --new-binary, or of the programs that CCT profiles name. As text,\n"
	"JSON, or a differential flame graph in SVG (the new tree's layout, as wide as the\n"
	"page; red: a larger share than in the old tree, blue: smaller, hatched: new; the 10\n"
	"largest changes listed and linked to their frames, a search box, a table of the\n"
	"vanished contexts). See docs/cct-diff.md.\n"
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
	o.output.printed = true;
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
	struct strmap kinds = STRMAP_INIT;
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
	for (int i = 0; i < 2; i++)
		io_profiles_frame_kinds(sides[i], nr[i], &kinds);
	ro.frame_kinds = &kinds;
	o.output.printed = true;
	lab.baseline = labels[0] ? labels[0] : args[0];
	lab.target = labels[1] ? labels[1] : args[1];
	if (format == DIFF_JSON) {
		json_t *root = json_object();
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-diff/2"));
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
	strmap_release(&kinds);
	for (int i = 0; i < 2; i++) {
		io_profiles_free(sides[i], nr[i]);
		free(labels[i]);
	}
	ret = cli_project_close(&p, ret);
	return ret;
}

/*
 * The absolute change beside the diff, when the two sides weigh the same thing; else a
 * note in *note (static or in *owned, freed by the caller).
 */
static int absolute(const struct stored_cct sides[2], size_t top, struct attribution *abs,
		    bool *have, char **note)
{
	const struct cct *const *runs[2];
	size_t nr[2];
	struct strbuf sb = STRBUF_INIT;

	*have = false;
	*note = NULL;
	if (!cct_same_weight(&sides[0].tree, &sides[1].tree)) {
		strbuf_addf(&sb, "OLD weighs %s%s, NEW %s%s: their values cannot be subtracted",
			    cct_weight_name(sides[0].tree.weight), sides[0].tree.weight_event,
			    cct_weight_name(sides[1].tree.weight), sides[1].tree.weight_event);
		*note = strbuf_detach(&sb);
		return 0;
	}
	for (int i = 0; i < 2; i++)
		runs[i] = stored_cct_runs(&sides[i], &nr[i]);
	if (attribution_of_runs(runs, nr, ATTRIBUTION_ALPHA, top, abs))
		return RP_EINPUT;
	*have = true;
	return 0;
}

static const char *const diff_formats[] = { "text", "json", "svg", "markdown", NULL };

static int diff(int argc, char **argv)
{
	const char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	const char *io_args[2];
	struct stored_cct sides[2];
	struct cct_diff d;
	struct cct_diff_options opts = { .threshold = 100, .max_pairs = 20 };
	struct cct_report_options ro = { 0 };
	struct profile_load_options lo = { 0 };
	struct cct_changes changes;
	struct attribution abs;
	struct cli_project p = {0};
	enum diff_format format = DIFF_TEXT;
	bool have_bindiff = false, markdown = false, have_abs = false;
	char *abs_note = NULL;
	size_t first[2], count[2], abs_top = ATTRIBUTION_TOP;
	double v;
	int n, split, err, ret = EXIT_USAGE, f;
	char **rest = NULL, **side[2] = { NULL, NULL };
	int nr_rest, nr_side[2];

	memset(&o, 0, sizeof(o));
	o.output.quiet_warnings = true;
	memset(&d, 0, sizeof(d));
	memset(&abs, 0, sizeof(abs));
	memset(sides, 0, sizeof(sides));
	cct_changes_init(&changes);
	/* --baseline OLD... --target NEW..., as `chart` takes its sides */
	options_split_sides(argc, argv, &rest, &nr_rest, side, nr_side);
	n = parse_options_split(nr_rest, rest, &diff_help, args, argc, &split);
	if (n == -2) {
		ret = EXIT_OK;
		goto out_args;
	}
	if (n < 0)
		goto out_args;
	if (nr_side[0] || nr_side[1]) {
		if (n || !nr_side[0] || !nr_side[1] || o.bench) {
			usage_error("diff", "expected --baseline PROFILE... and --target PROFILE..., "
					    "without OLD NEW or --bench");
			goto out_args;
		}
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < nr_side[i]; j++)
				args[n++] = side[i][j];
		split = nr_side[0];
	} else if (split <= 0) {
		/* OLD NEW, or OLD... -- NEW... (a "--" before both is the end of the options). */
		if (n != 2) {
			usage_error("diff", "expected OLD and NEW %s, got %d argument%s%s",
				    o.bench ? "revisions" : "profiles", n, n == 1 ? "" : "s",
				    o.bench ? "" : " (several runs per side: OLD... -- NEW...)");
			goto out_args;
		}
		split = 1;
	} else if (split >= n) {
		usage_error("diff", "no NEW profile after '--' (OLD... -- NEW...)");
		goto out_args;
	} else if (o.bench) {
		usage_error("diff", "with --bench, OLD and NEW are two revisions, without '--'");
		goto out_args;
	}
	first[0] = 0;
	count[0] = (size_t)split;
	first[1] = (size_t)split;
	count[1] = (size_t)(n - split);
	io_args[0] = args[0];
	io_args[1] = args[split];
	if (!o.bench && stdin_at_most_once("diff", args, n))
		goto out_args;
	/* diff_formats in the order of enum diff_format, then markdown */
	if ((f = cli_output_begin(&o.output, "diff", diff_formats)) < 0)
		goto out_args;
	markdown = f == 3;
	format = markdown ? DIFF_TEXT : (enum diff_format)f;
	if (o.out && !*o.out) {
		usage_error("diff", "--out needs a file name");
		goto out_args;
	}
	if (o.io || (!o.bench && (io_profile_path_is_io(args[0]) ||
				  io_profile_path_is_io(args[split])))) {
		if (count[0] > 1 || count[1] > 1) {
			usage_error("diff", "I/O profiles: OLD and NEW are one profile or one "
					    "directory of runs each, not lists");
			goto out_args;
		}
		ret = diff_io(io_args, format, markdown);
		goto out_args;
	}
	if (markdown || o.range || o.sd || o.by_file || o.absent_as_outside || o.reads) {
		usage_error("diff", "markdown, --range, --sd, --by-file, --absent-as-outside and "
				    "--reads are for I/O profiles");
		goto out_args;
	}
	if (o.threshold) {
		if (parse_double(o.threshold, 0, 100, &v) || v == 0) {
			usage_error("diff", "--threshold '%s': expected a number in (0, 100]",
				    o.threshold);
			goto out_args;
		}
		opts.threshold = v;
	}
	if (o.top) {
		if (parse_double(o.top, 0, 1e9, &v) || v != floor(v)) {
			usage_error("diff", "--top '%s': expected a whole number >= 0", o.top);
			goto out_args;
		}
		opts.max_pairs = (size_t)v;
		abs_top = (size_t)v;
	}
	if (o.input_format && profile_format_parse(o.input_format, &lo.format)) {
		usage_error("diff", "unknown input format '%s': use auto, cct, callgrind, folded, "
				    "sample or perf",
			    o.input_format);
		goto out_args;
	}
	if (o.weight) {
		if (!strcmp(o.weight, "calls")) {
			lo.weight_calls = true;
		} else if (strcmp(o.weight, "time")) {
			usage_error("diff", "unknown weight '%s': use time or calls", o.weight);
			goto out_args;
		}
	}
	if ((o.old_binary != NULL) != (o.new_binary != NULL)) {
		usage_error("diff", "--old-binary and --new-binary go together");
		goto out_args;
	}
	if (o.state_dir && !o.bench) {
		usage_error("diff", "--state-dir goes with --bench");
		goto out_args;
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
		err = o.bench ? stored_cct_load(p.st, p.repo, args[first[i]], o.bench, &lo,
						&sides[i])
			      : stored_cct_from_files(args + first[i], count[i], &lo, &sides[i]);
		if (err) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (lo.weight_calls && !cct_total(&sides[i].tree)) {
			error("%s has no call counts (folded stacks and perf script have none): "
			      "--weight calls needs CCT or callgrind profiles",
			      args[first[i]]);
			goto out;
		}
	}
	/* The noise floor: two runs of the target differ this much already. */
	if (!o.threshold && isfinite(sides[1].overlap_of_runs))
		opts.threshold = sides[1].overlap_of_runs;
	add_bindiff(sides, &changes, &have_bindiff);
	cct_diff_compute(&sides[0].tree, &sides[1].tree, have_bindiff ? &changes : NULL, &opts,
			 &d);
	if ((err = absolute(sides, abs_top, &abs, &have_abs, &abs_note))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	ro.old_label = sides[0].label ? sides[0].label : args[0];
	ro.new_label = sides[1].label ? sides[1].label : args[split];
	ro.absolute = have_abs ? &abs : NULL;
	ro.absolute_note = abs_note;
	if ((ret = output(o.out, format, &d, &ro)) != EXIT_OK)
		goto out;
	ret = d.nr_topo || d.nr_pairs ? EXIT_REGRESSION : EXIT_OK;
out:
	attribution_release(&abs);
	free(abs_note);
	cct_diff_release(&d);
	cct_changes_release(&changes);
	for (int i = 0; i < 2; i++)
		stored_cct_release(&sides[i]);
	symbolizer_free(lo.sym);
	ret = cli_project_close(&p, ret);
out_args:
	free(args);
	free(rest);
	free(side[0]);
	free(side[1]);
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	int ret = diff(argc, argv);
	return cli_output_end(&o.output, ret);
}
