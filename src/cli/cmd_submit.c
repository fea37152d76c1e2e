/* revperf submit: work queued for the workers (docs/team.md). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "collect/cmdline.h"
#include "core/revision.h"
#include "store/store.h"
#include "store/store_jobs.h"
#include "util/common.h"
#include "util/parse.h"

static struct {
	const char *config, *state_dir, *store, *tag, *limit;
	struct cli_output out;
} o;

/* clang-format off */
static const struct option submit_options[] = {
	{ OPT_STRING, 't', "machine-tag", "TAG", "only workers started with this --machine-tag "
						 "take the jobs (default: any worker)",
	  &o.tag, NULL },
	{ OPT_STRING, 'n', "max-count", "N", "history: the newest N commits (default 20 for a "
					     "single revision, all of an A..B range)",
	  &o.limit, NULL },
	CLI_OUTPUT_OPTIONS(o.out, "text or json", "print nothing when all went well (text)"),
	CLI_PROJECT_OPTIONS(o.config, o.state_dir, o.store),
	OPT_END_MARKER,
};
/* clang-format on */
static const char *const submit_usage[] = {
    "submit [options] compare BASE TARGET [-- COMPARE-OPTIONS...]",
    "submit [options] history [RANGE] [-- HISTORY-OPTIONS...]",
    "submit [options] bisect GOOD BAD -- --bench NAME [BISECT-OPTIONS...]",
    NULL,
};
const struct command_help submit_help = {
    "submit",
    submit_usage,
    "Queues work for the workers (`revperf worker` on each benchmark machine) in the\n"
    "store (--store URL, REVPERF_STORE or [store] url; PostgreSQL for a team, or the\n"
    "SQLite file for workers on this machine). compare queues one job: the comparison of\n"
    "BASE and TARGET with all its benchmarks, so that both sides and the family of tests\n"
    "stay on one machine. history queues one job per commit of RANGE (first parents,\n"
    "oldest first), each measured against its first parent as `revperf history` does.\n"
    "bisect queues one job: the whole search, step after step on one machine. Revisions\n"
    "are resolved here, to commits every worker's clone must hold. Options after `--` go\n"
    "to the job's command as given. `revperf queue` shows the jobs. See docs/team.md.\n"
    "Exit status: 0 queued, 2 usage or input error (an unknown kind, a revision that does\n"
    "not resolve, an empty range, no store), 3 internal failure.",
    submit_options,
};

/* From this many jobs at once, the table's statistics are made again (store_jobs_analyze()). */
#define SUBMIT_ANALYZE_FROM 1000

static const char *const submit_formats[] = {"text", "json", NULL};

struct job_spec {
	const char *kind;
	struct strbuf label;
	json_t *args;
};

/* A job's arguments: the given words, then every word after "--". */
static json_t *job_args(const char *const *words, size_t n, char **extra, int nr_extra)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(words[i]));
	for (int i = 0; i < nr_extra; i++)
		json_array_append_new(a, json_string(extra[i]));
	return a;
}

/* " -- WORD..." after a job's label: the options its command gets, shown by queue. */
static void label_extra(struct strbuf *label, char **extra, int n)
{
	if (!n)
		return;
	strbuf_addstr(label, " --");
	for (int i = 0; i < n; i++) {
		bool quote = !*extra[i] || strpbrk(extra[i], " \t'\"\\;$`") != NULL;
		strbuf_addch(label, ' ');
		if (quote)
			cmdline_add_shell_quoted(label, extra[i]);
		else
			strbuf_addstr(label, extra[i]);
	}
}

static bool has_bench(char **extra, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(extra[i], "-b") || !strcmp(extra[i], "--bench") ||
		    !strncmp(extra[i], "--bench=", 8) || !strncmp(extra[i], "-b", 2))
			return true;
	return false;
}

/* The jobs the arguments ask for, into *specs. Returns 0 or an exit code. */
static int plan(struct cli_project *p, const char **args, int n, char **extra, int nr_extra,
		struct job_spec **specs, size_t *nr)
{
	const char *kind = args[0];
	size_t alloc = 0;
	int err;

	*specs = NULL;
	*nr = 0;
	if (!strcmp(kind, "compare") || !strcmp(kind, "bisect")) {
		struct revision a = {0}, b = {0};
		bool bisect = !strcmp(kind, "bisect");
		if (n != 3) {
			usage_error("submit", "%s takes two revisions (%s), got %d", kind,
				    bisect ? "GOOD BAD" : "BASE TARGET", n - 1);
			return EXIT_USAGE;
		}
		if (bisect && !has_bench(extra, nr_extra)) {
			usage_error("submit", "bisect needs the benchmark that got worse: `revperf "
					      "submit bisect GOOD BAD -- --bench NAME`");
			return EXIT_USAGE;
		}
		if ((err = repo_resolve(p->repo, args[1], &a)) ||
		    (err = repo_resolve(p->repo, args[2], &b))) {
			revision_release(&a);
			return rp_err_exit_code(err);
		}
		ALLOC_GROW(*specs, 1, alloc);
		(*specs)[0].kind = bisect ? STORE_JOB_BISECT : STORE_JOB_COMPARE;
		strbuf_init(&(*specs)[0].label);
		strbuf_addf(&(*specs)[0].label, "%s %s %s", kind, args[1], args[2]);
		label_extra(&(*specs)[0].label, extra, nr_extra);
		(*specs)[0].args =
		    job_args((const char *const[]){a.sha, b.sha}, 2, extra, nr_extra);
		*nr = 1;
		revision_release(&a);
		revision_release(&b);
		return 0;
	}
	if (!strcmp(kind, "history")) {
		const char *range = n > 1 ? args[1] : "HEAD";
		uint64_t limit = 0;
		struct revision *revs = NULL;
		size_t nrevs = 0;
		if (n > 2) {
			usage_error("submit", "history takes one RANGE, got %d", n - 1);
			return EXIT_USAGE;
		}
		if (o.limit && (parse_u64(o.limit, &limit) || limit < 1)) {
			usage_error("submit", "-n expects a whole number >= 1, got '%s'", o.limit);
			return EXIT_USAGE;
		}
		if (!o.limit && !strstr(range, ".."))
			limit = 20;
		if ((err = repo_range(p->repo, range, true, (size_t)limit, &revs, &nrevs)))
			return rp_err_exit_code(err);
		if (!nrevs) {
			revisions_free(revs, nrevs);
			error("the range %s holds no commit; nothing to queue", range);
			return EXIT_USAGE;
		}
		*specs = xcalloc(nrevs, sizeof(**specs));
		for (size_t i = 0; i < nrevs; i++) {
			struct job_spec *s = &(*specs)[i];
			s->kind = STORE_JOB_HISTORY_COMMIT;
			strbuf_init(&s->label);
			strbuf_addf(&s->label, "history %.12s", revs[i].sha);
			if (revs[i].summary)
				strbuf_addf(&s->label, " %s", revs[i].summary);
			label_extra(&s->label, extra, nr_extra);
			/* The commit measured against its first parent, as history does. */
			s->args = job_args((const char *const[]){revs[i].sha, "-n", "1"}, 3, extra,
					   nr_extra);
		}
		*nr = nrevs;
		revisions_free(revs, nrevs);
		return 0;
	}
	usage_error("submit", "unknown kind of job '%s': use compare, history or bisect", kind);
	return EXIT_USAGE;
}

static int submit_run(bool json, const char **args, int n, char **extra, int nr_extra)
{
	struct cli_project p = {0};
	struct job_spec *specs = NULL;
	size_t nr = 0, queued = 0;
	json_t *out = json_array();
	int ret, err = 0;

	if ((ret = cli_project_open(&p, CLI_WHERE(o), 0)))
		goto out;
	if ((ret = plan(&p, args, n, extra, nr_extra, &specs, &nr)))
		goto out;
	/* All the jobs of one submission, or none. */
	if ((err = store_transaction_begin(p.st)))
		goto fail;
	for (size_t i = 0; i < nr; i++) {
		char *text = json_dumps(specs[i].args, JSON_COMPACT);
		int64_t id = 0;
		err = store_job_submit(p.st, specs[i].kind, text, specs[i].label.buf, o.tag, &id);
		free(text);
		if (err)
			break;
		json_array_append_new(out,
				      json_pack("{s:I, s:s, s:s}", "id", (json_int_t)id, "kind",
						specs[i].kind, "label", specs[i].label.buf));
		queued++;
	}
	if (err || (err = store_transaction_commit(p.st))) {
		store_transaction_rollback(p.st);
		goto fail;
	}
	if (nr >= SUBMIT_ANALYZE_FROM && (err = store_jobs_analyze(p.st)))
		goto fail;
	o.out.printed = true;
	if (json) {
		json_t *root = json_object();
		json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
		json_object_set_new(root, "schema", json_string("revperf-submit/1"));
		json_object_set_new(root, "jobs", json_incref(out));
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(root);
	} else if (!o.out.quiet) {
		size_t i;
		json_t *j;
		json_array_foreach(out, i, j)
		{
			struct strbuf sb = STRBUF_INIT;
			printf(
			    "queued job %lld: %s\n",
			    (long long)json_integer_value(json_object_get(j, "id")),
			    strbuf_printable(&sb, json_string_value(json_object_get(j, "label"))));
			strbuf_release(&sb);
		}
	}
	ret = fflush(stdout) ? EXIT_INTERNAL : EXIT_OK;
	goto out;
fail:
	ret = rp_err_exit_code(err);
out:
	(void)queued;
	for (size_t i = 0; i < nr; i++) {
		strbuf_release(&specs[i].label);
		json_decref(specs[i].args);
	}
	free(specs);
	json_decref(out);
	return cli_project_close(&p, ret);
}

int cmd_submit(int argc, char **argv)
{
	const char *args[4];
	int n, format, dash = argc;

	memset(&o, 0, sizeof(o));
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dash = i;
			break;
		}
	n = parse_options(dash, argv, &submit_help, args, 4);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (n < 1) {
		usage_error("submit", "what to queue: compare BASE TARGET, history [RANGE] or "
				      "bisect GOOD BAD");
		return EXIT_USAGE;
	}
	if ((format = cli_output_begin(&o.out, "submit", submit_formats)) < 0)
		return EXIT_USAGE;
	return cli_output_end(&o.out, submit_run(format == 1, args, n, argv + dash + 1,
						 dash < argc ? argc - dash - 1 : 0));
}
