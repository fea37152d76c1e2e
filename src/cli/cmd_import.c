#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/machine.h"
#include "core/build.h"
#include "import/import.h"
#include "import/import_store.h"
#include "core/revision.h"
#include "store/store.h"
#include "util/common.h"

#define MAX_FILES 64

static struct {
	const char *rev, *state_dir, *store;
	struct cli_output out;
} o;

static const struct option import_options[] = {
	{ OPT_STRING, 'r', "rev", "REV", "the revision the results belong to (any expression git "
					 "accepts; required)", &o.rev, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "where results live (default .revperf/ at the "
					     "repository root)", &o.state_dir, NULL },
	CLI_STORE_OPTION(o.store),
	CLI_OUTPUT_OPTIONS(o.out, "text or json", "no summary (text)"),
	OPT_END_MARKER,
};
static const char *const import_usage[] = {
	"import --rev REV FILE...",
	NULL,
};
const struct command_help import_help = {
	"import", import_usage,
	"Stores results measured by another tool as results of the revision REV in\n"
	".revperf/revperf.db: hyperfine exports (--export-json, per-run times) and Google\n"
	"Benchmark JSON (--benchmark_format=json, with --benchmark_repetitions). Each file is\n"
	"stored in one transaction, as a build \"import:FORMAT:FILE\" of the revision with a\n"
	"run per sample; importing a file of the same name again replaces it. The results\n"
	"were measured elsewhere: the machine recorded is the one that imports them. To judge\n"
	"two files directly, see `revperf compare --import`. Details: docs/import.md.\n"
	"Exit status: 0 stored, 2 usage or input error (nothing stored), 3 internal failure.",
	import_options,
};

/* -f json: one object per file stored. */
static json_t *summary_json(const struct import_set *set, const struct import_store_summary *s)
{
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:b}", "file", set->origin, "source",
			 set->source, "benchmarks", (json_int_t)s->nr_benches, "runs",
			 (json_int_t)s->nr_runs, "excluded", (json_int_t)s->nr_excluded,
			 "replaced", s->replaced);
}

static void print_summary(const struct import_set *set, const struct revision *rev,
			  const struct import_store_summary *s)
{
	fprintf_printable(stdout,
			  "imported %s (%s): %zu benchmark%s, %zu run%s as results of %.12s (%s)",
			  set->origin, set->source, s->nr_benches, s->nr_benches == 1 ? "" : "s",
			  s->nr_runs, s->nr_runs == 1 ? "" : "s", rev->sha, rev->expr);
	if (s->nr_excluded)
		printf("; %zu run%s excluded", s->nr_excluded, s->nr_excluded == 1 ? "" : "s");
	if (s->replaced)
		printf("; replaces the earlier import of this file");
	putchar('\n');
}

static const char *const import_formats[] = { "text", "json", NULL };

static int import(int argc, char **argv)
{
	const char *files[MAX_FILES];
	struct import_set sets[MAX_FILES];
	struct cli_project p = {0};
	struct revision rev = { 0 };
	struct machine_info machine;
	int n, i, ret = EXIT_USAGE, err;
	json_t *files_json = NULL;

	memset(&o, 0, sizeof(o));
	memset(sets, 0, sizeof(sets));
	n = parse_options(argc, argv, &import_help, files, MAX_FILES);
	if (n == -2) {
		ret = EXIT_OK;
		goto out;
	}
	if (n < 0 || (i = cli_output_begin(&o.out, "import", import_formats)) < 0)
		goto out;
	if (i == 1)
		files_json = json_array();
	if (!o.rev) {
		usage_error("import", "--rev REV is required: the revision the results belong to");
		goto out;
	}
	if (n == 0) {
		usage_error("import",
			    "expected a result FILE (hyperfine or Google Benchmark JSON)");
		goto out;
	}
	if (stdin_at_most_once("import", files, n))
		goto out;
	/* Every file is read before anything is stored: a bad one stores nothing. */
	for (i = 0; i < n; i++)
		if ((err = import_read_file(files[i], &sets[i]))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
	if ((err = cli_project_open(&p, &(struct cli_where){ NULL, o.state_dir, o.store }, 0))) {
		ret = err;
		goto out;
	}
	if ((err = repo_resolve(p.repo, o.rev, &rev))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	machine_info_read(&machine);
	for (i = 0; i < n; i++) {
		struct import_store_summary summary;
		if ((err = import_store(p.st, &rev, &sets[i], &machine, &summary))) {
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (files_json)
			json_array_append_new(files_json, summary_json(&sets[i], &summary));
		else if (!o.out.quiet)
			print_summary(&sets[i], &rev, &summary);
	}
	ret = EXIT_OK;
	if (files_json) {
		json_t *root = json_pack("{s:s, s:s, s:{s:s, s:s}, s:O}", "revperf_version",
					 REVPERF_VERSION, "schema", "revperf-import/1", "revision",
					 "ref", rev.expr, "sha", rev.sha, "files", files_json);
		o.out.printed = true;
		if (!root || json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ||
		    fputc('\n', stdout) == EOF)
			ret = EXIT_INTERNAL;
		json_decref(root);
	}
	if (fflush(stdout)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
	}
out:
	json_decref(files_json);
	for (i = 0; i < MAX_FILES; i++)
		import_set_release(&sets[i]);
	revision_release(&rev);
	ret = cli_project_close(&p, ret);
	return ret;
}

int cmd_import(int argc, char **argv)
{
	int ret = import(argc, argv);
	return cli_output_end(&o.out, ret);
}
