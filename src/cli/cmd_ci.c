/* revperf ci: the merge base against HEAD, for a CI job (docs/ci.md). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "util/fsutil.h"
#include "compare/revcompare.h"
#include "report/report.h"
#include "util/common.h"

static struct {
	const char *base, *head, *summary, *junit, *config, *state_dir, *store, *bench, *select;
	bool fresh;
	struct cli_output out;
	struct opt_overrides overrides;
} o;

static const struct option ci_options[] = {
    {OPT_STRING, 0, "base", "REF",
     "the branch merged into (default: origin/HEAD, "
     "origin/main, origin/master, main or master, the first "
     "that exists)",
     &o.base, NULL},
    {OPT_STRING, 0, "head", "REF", "the revision under test (HEAD)", &o.head, NULL},
    {OPT_STRING, 0, "summary", "FILE",
     "the Markdown summary (default: appended to "
     "$GITHUB_STEP_SUMMARY when set, else STATE/ci/"
     "summary.md)",
     &o.summary, NULL},
    {OPT_STRING, 0, "junit", "FILE", "the JUnit XML (default: STATE/ci/junit.xml)", &o.junit, NULL},
    {OPT_STRING, 'b', "bench", "NAMES", "only these benchmarks (comma-separated)", &o.bench, NULL},
    {OPT_OPTARG, 0, "select", "MODE",
     "only the benchmarks HEAD needs: perphecy (a bare "
     "--select) or tests",
     &o.select, "perphecy"},
    {OPT_FLAG, 0, "fresh", NULL, "ignore stored runs; measure anew", &o.fresh, NULL},
    CLI_OUTPUT_OPTIONS(o.out, "text, json or markdown (the report on stdout)",
		       "no progress; with text, no report on stdout"),
    CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
    CLI_METRIC_OPTIONS(o.overrides),
    CLI_RUN_OPTIONS(o.overrides),
    OPT_END_MARKER,
};
static const char *const ci_usage[] = {
    "ci [options] [--base REF] [--summary FILE] [--junit FILE]",
    NULL,
};
const struct command_help ci_help = {
    "ci",
    ci_usage,
    "Compares the merge base of REF and HEAD with HEAD, as compare does, for a CI job:\n"
    "the text report on stdout, a Markdown summary for a pull-request comment or a step\n"
    "summary (GitHub Actions: $GITHUB_STEP_SUMMARY), and JUnit XML with one test case\n"
    "per benchmark and metric and a failure for each worse one. When HEAD is the merge\n"
    "base (nothing to compare), both files say so and the exit status is 0. With -f json,\n"
    "stdout holds one document: the revisions, the files written and the comparison as\n"
    "compare -f json prints it (docs/json-schema.md).\n"
    "Exit status: as compare: 0 no regression, 1 a primary metric worse, 2 usage or\n"
    "input error, 3 internal failure, 128 + N stopped by signal N (130 SIGINT, 143\n"
    "SIGTERM, 129 SIGHUP).",
    ci_options,
};

/* The default base: the first of the usual names of the main branch that resolves. */
static int default_base(struct repo *repo, struct revision *out)
{
	static const char *const names[] = {"origin/HEAD", "origin/main", "origin/master", "main",
					    "master"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct strbuf ref = STRBUF_INIT;
		int found;
		strbuf_addf(&ref, "refs/%s/%s",
			    strncmp(names[i], "origin/", 7) ? "heads" : "remotes", names[i]);
		found = repo_ref_exists(repo, ref.buf);
		strbuf_release(&ref);
		if (found)
			return repo_resolve(repo, names[i], out);
	}
	error("no base branch: none of origin/HEAD, origin/main, origin/master, main, master "
	      "exists; give --base REF");
	return RP_EINPUT;
}

/*
 * Writes the summary and the JUnit file (--summary, --junit NULL: their defaults under
 * STATE/ci/), their paths left in summary and junit.
 */
static int write_outputs(const struct state_dir *sd, const struct compare_result *res,
			 const char *nothing, struct strbuf *summary_out, struct strbuf *junit_out)
{
	struct strbuf dir = STRBUF_INIT, summary = STRBUF_INIT, junit = STRBUF_INIT;
	const char *step = getenv("GITHUB_STEP_SUMMARY");
	bool append = !o.summary && step && *step;
	FILE *f;
	int ret = EXIT_INTERNAL;

	strbuf_addf(&dir, "%s/ci", sd->root);
	if ((!o.summary || !o.junit) && mkdir_own(sd->root, dir.buf)) {
		ret = EXIT_USAGE; /* the state directory's problem, said by mkdir_own */
		goto out;
	}
	strbuf_addstr(&summary, o.summary ? o.summary : append ? step : "");
	if (!summary.len)
		strbuf_addf(&summary, "%s/summary.md", dir.buf);
	strbuf_addstr(&junit, o.junit ? o.junit : "");
	if (!junit.len)
		strbuf_addf(&junit, "%s/junit.xml", dir.buf);

	/* The defaults under STATE/ci/ are revperf's own files: a link planted there is not
	 * followed. A --summary or --junit FILE, and $GITHUB_STEP_SUMMARY, are the user's. */
	f = o.summary || append ? fopen(summary.buf, append ? "a" : "w")
				: fopen_own(summary.buf, "w");
	if (!f) {
		error("cannot write the summary %s: %s; give a writable --summary FILE",
		      summary.buf, fs_strerror(errno));
		ret = EXIT_USAGE;
		goto out;
	}
	if (nothing) {
		struct strbuf md = STRBUF_INIT;
		strbuf_add_md_escaped(&md, nothing); /* it names the revisions given */
		fprintf(f, "### revperf\n\n%s\n", md.buf);
		strbuf_release(&md);
	}
	if (cli_report_close(f, summary.buf, !nothing && report_compare_markdown(f, res), 0))
		goto out;
	if (!(f = o.junit ? fopen(junit.buf, "w") : fopen_own(junit.buf, "w"))) {
		error("cannot write the JUnit file %s: %s; give a writable --junit FILE", junit.buf,
		      fs_strerror(errno));
		ret = EXIT_USAGE;
		goto out;
	}
	if (nothing)
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"revperf\" "
		      "tests=\"0\" failures=\"0\" errors=\"0\"/>\n",
		      f);
	if (cli_report_close(f, junit.buf, !nothing && report_compare_junit(f, res), 0))
		goto out;
	if (!o.out.quiet)
		fprintf(stderr, "revperf: ci: wrote %s and %s\n", summary.buf, junit.buf);
	strbuf_add(summary_out, summary.buf, summary.len);
	strbuf_add(junit_out, junit.buf, junit.len);
	ret = 0;
out:
	strbuf_release(&dir);
	strbuf_release(&summary);
	strbuf_release(&junit);
	return ret;
}

static const char *const ci_formats[] = {"text", "json", "markdown", NULL};

/* The report on stdout in the format asked for; res NULL: nothing was compared (note). */
static int print_report(int format, const char *merge_base, const struct revision *base,
			const struct revision *head, const struct compare_result *res,
			const char *note, const struct strbuf *summary, const struct strbuf *junit)
{
	json_t *root;
	int ret;
	o.out.printed = true;
	if (format == 0) {
		if (o.out.quiet)
			return 0;
		if (!res) {
			fputs_printable(note, stdout);
			return fputc('\n', stdout) == EOF ? -1 : 0;
		}
		return report_compare_text(stdout, res, cli_output_color(&o.out));
	}
	if (format == 2) {
		if (res)
			return report_compare_markdown(stdout, res);
		struct strbuf md = STRBUF_INIT;
		strbuf_add_md_escaped(&md, note);
		ret = printf("### revperf\n\n%s\n", md.buf) < 0 ? -1 : 0;
		strbuf_release(&md);
		return ret;
	}
	root = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s}, s:s?, s:s?, s:s, s:s}",
			 "revperf_version", REVPERF_VERSION, "schema", "revperf-ci/2", "base",
			 "ref", base->expr, "sha", base->sha, "head", "ref", head->expr, "sha",
			 head->sha, "merge_base", merge_base, "note", note, "summary", summary->buf,
			 "junit", junit->buf);
	if (!root)
		return -1;
	json_object_set_new(root, "comparison",
			    res ? report_compare_json_object(res) : json_null());
	ret = json_dumpf(root, stdout,
			 JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	return ret || fputc('\n', stdout) == EOF ? -1 : 0;
}

static int ci(int format);

int cmd_ci(int argc, char **argv)
{
	const char *args[1];
	int n, format;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &ci_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if ((format = cli_output_begin(&o.out, "ci", ci_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, ci(format));
}

/* The merge base against HEAD, as an exit status. */
static int ci(int format)
{
	struct cli_project p;
	struct cli_config_source src = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
	struct revcompare_ctx ctx;
	struct revcompare rc;
	struct revision base, head;
	struct strbuf note = STRBUF_INIT, summary = STRBUF_INIT, junit = STRBUF_INIT;
	char merge_base[41];
	int ret = EXIT_USAGE, err, code;

	memset(&p, 0, sizeof(p));
	memset(&rc, 0, sizeof(rc));
	memset(&base, 0, sizeof(base));
	memset(&head, 0, sizeof(head));
	if (o.select && strcmp(o.select, "perphecy") && strcmp(o.select, "tests")) {
		usage_error("ci", "unknown --select mode '%s': use perphecy or tests", o.select);
		return EXIT_USAGE;
	}
	/* Before any build, run or report: can runs start at all (docs/install.md)? */
	if (proc_spawner_check())
		return EXIT_USAGE;
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_CONFIG)))
		goto out;
	if ((err = o.base ? repo_resolve(p.repo, o.base, &base) : default_base(p.repo, &base)) ||
	    (err = repo_resolve(p.repo, o.head ? o.head : "HEAD", &head)) ||
	    (err = repo_merge_base(p.repo, base.sha, head.sha, merge_base))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!strcmp(merge_base, head.sha)) {
		strbuf_addf(&note, "%s (%.12s) is the merge base with %s: nothing to compare.",
			    o.head ? o.head : "HEAD", head.sha, base.expr);
		if (!(ret = write_outputs(&p.sd, NULL, note.buf, &summary, &junit)) &&
		    print_report(format, merge_base, &base, &head, NULL, note.buf, &summary,
				 &junit))
			ret = EXIT_INTERNAL;
		goto out;
	}
	src.config = o.config;
	src.bench = o.bench;
	src.overrides = &o.overrides;
	cli_revcompare_ctx(&ctx, &p, &src, o.select, o.fresh, o.out.quiet);
	interrupt_install();
	if (!o.out.quiet) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
		fprintf(stderr, "revperf: ci: merge base %.12s of %s and %s\n", merge_base,
			strbuf_printable(&a, base.expr), strbuf_printable(&b, head.expr));
		strbuf_release(&a);
		strbuf_release(&b);
	}
	{
		char label[13]; /* the label of the baseline in the reports */
		snprintf(label, sizeof(label), "%.12s", merge_base);
		err = revcompare_run(&ctx, label, o.head ? o.head : "HEAD", &rc);
	}
	if (err && !rc.res.nr_benches) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if (!rc.executed) {
		strbuf_addf(&note, "--select: %.12s needs none of the %zu benchmarks.", head.sha,
			    rc.configured);
		if (!(ret = write_outputs(&p.sd, NULL, note.buf, &summary, &junit)) &&
		    print_report(format, merge_base, &base, &head, NULL, note.buf, &summary,
				 &junit))
			ret = EXIT_INTERNAL;
		goto out;
	}
	/* Before any report: the JSON's exit_code is the process's (cli_compare_exit). */
	code = cli_compare_exit(&p, err, &rc.res);
	if ((ret = write_outputs(&p.sd, &rc.res, NULL, &summary, &junit)))
		goto out;
	if (print_report(format, merge_base, &base, &head, &rc.res, NULL, &summary, &junit)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = code;
out:
	strbuf_release(&note);
	strbuf_release(&summary);
	strbuf_release(&junit);
	revcompare_release(&rc);
	revision_release(&base);
	revision_release(&head);
	ret = cli_project_close(&p, ret);
	return ret;
}
