/* revperf push: a local store's results copied into the shared store (docs/store.md). */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/commands.h"
#include "store/store.h"
#include "util/common.h"

static struct {
	const char *config, *state_dir, *store, *from, *format;
	bool quiet, no_color;
} o;

/* clang-format off */
static const struct option push_options[] = {
	{ OPT_STRING, 0, "store", "URL", "the shared store to push into: postgresql://USER@HOST/DB "
					 "or libpq's key=value pairs (default: REVPERF_STORE, "
					 "[store] url)", &o.store, NULL },
	{ OPT_STRING, 0, "from", "FILE", "the store to push (default: revperf.db in the state "
					 "directory)", &o.from, NULL },
	{ OPT_STRING, 'c', "config", "FILE", "configuration file, for [store] url (default: "
					     "revperf.ini at the repository root)", &o.config, NULL },
	{ OPT_STRING, 0, "state-dir", "DIR", "where the local results are (default .revperf/ at "
					     "the root)", &o.state_dir, NULL },
	{ OPT_STRING, 'f', "format", "FMT", "text (default) or json", &o.format, NULL },
	{ OPT_FLAG, 'q', "quiet", NULL, "no summary line", &o.quiet, NULL },
	{ OPT_FLAG, 0, "no-color", NULL, "no colors (push prints none; also NO_COLOR)",
	  &o.no_color, NULL },
	OPT_END_MARKER,
};
/* clang-format on */
static const char *const push_usage[] = {
	"push --store URL [--from FILE]",
	NULL,
};
const struct command_help push_help = {
	"push", push_usage,
	"Copies the results of a local store (the state directory's revperf.db, or --from\n"
	"FILE) into the shared store (--store URL, REVPERF_STORE or [store] url), so that a\n"
	"developer's measurements join the team's history: machines, revisions, builds,\n"
	"benchmarks, finished comparisons with their runs, values, counter series and\n"
	"verdicts, profiled runs, dynamic data (not the predictors: train on the shared store).\n"
	"Idempotent: the shared store records what each pushed store sent, and a second push\n"
	"adds nothing. Comparisons still running are left for the next push. One transaction:\n"
	"all lands or nothing. See docs/store.md.\n"
	"Exit status: 0 pushed, 2 usage or input error (no local results, no shared store, the\n"
	"same store twice, a store that cannot be reached), 3 internal failure.",
	push_options,
};

static void print_text(const char *from, const char *to, const struct store_push_stats *s)
{
	printf("pushed %s to %s: %zu comparison%s, %zu run%s, %zu profiled run%s, %zu build%s, "
	       "%zu dynamic data added",
	       from, to, s->comparisons_added, s->comparisons_added == 1 ? "" : "s", s->runs_added,
	       s->runs_added == 1 ? "" : "s", s->profiles_added, s->profiles_added == 1 ? "" : "s",
	       s->builds_added, s->builds_added == 1 ? "" : "s", s->dynamic_added);
	printf("; %zu comparison%s, %zu run%s already there", s->comparisons_present,
	       s->comparisons_present == 1 ? "" : "s", s->runs_present,
	       s->runs_present == 1 ? "" : "s");
	if (s->comparisons_running)
		printf("; %zu comparison%s still running, left for the next push",
		       s->comparisons_running, s->comparisons_running == 1 ? "" : "s");
	putchar('\n');
}

static void print_json(const char *from, const char *to, const struct store_push_stats *s)
{
	json_t *root = json_object();
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-push/1"));
	json_object_set_new(root, "from", json_string(from));
	json_object_set_new(root, "to", json_string(to));
	json_object_set_new(
	    root, "added",
	    json_pack("{s:I, s:I, s:I, s:I, s:I}", "comparisons", (json_int_t)s->comparisons_added,
		      "runs", (json_int_t)s->runs_added, "profiles", (json_int_t)s->profiles_added,
		      "builds", (json_int_t)s->builds_added, "dynamic", (json_int_t)s->dynamic_added));
	json_object_set_new(
	    root, "present",
	    json_pack("{s:I, s:I, s:I, s:I, s:I}", "comparisons",
		      (json_int_t)s->comparisons_present, "runs", (json_int_t)s->runs_present,
		      "profiles", (json_int_t)s->profiles_present, "builds",
		      (json_int_t)s->builds_present, "dynamic", (json_int_t)s->dynamic_present));
	json_object_set_new(root, "running", json_integer((json_int_t)s->comparisons_running));
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(root);
}

/* Whether a and b name the same store: the same string, or the same file. */
static bool same_store(const char *a, const char *b)
{
	struct stat sa, sb;
	if (!strcmp(a, b))
		return true;
	if (store_location_is_postgres(a) || store_location_is_postgres(b))
		return false;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int cmd_push(int argc, char **argv)
{
	const char *args[1];
	struct cli_project p = { 0 };
	struct store *from = NULL;
	struct store_push_stats stats;
	struct strbuf to_name = STRBUF_INIT;
	const char *from_path;
	bool json = false;
	struct stat sb;
	int n, ret = EXIT_USAGE, err;

	memset(&o, 0, sizeof(o));
	n = parse_options(argc, argv, &push_help, args, 0);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (o.format && strcmp(o.format, "text") && !(json = !strcmp(o.format, "json"))) {
		usage_error("push", "unknown format '%s': use text or json", o.format);
		return EXIT_USAGE;
	}
	if ((ret = cli_project_open(&p, CLI_WHERE(o), CLI_PROJECT_STORE_GIVEN)))
		goto out;
	ret = EXIT_USAGE;
	from_path = o.from ? o.from : p.sd.db_path;
	if (!store_location_is_postgres(from_path) && stat(from_path, &sb)) {
		error("no local results at %s; run `revperf compare BASE TARGET` first, or name the "
		      "store to push with --from FILE",
		      from_path);
		goto out;
	}
	if (same_store(from_path, p.store_location)) {
		error("%s is the shared store itself; push copies another store into it", from_path);
		goto out;
	}
	if ((err = store_open(from_path, STORE_OPEN_EXISTING, &from))) {
		ret = rp_err_exit_code(err);
		goto out;
	}
	if ((err = store_push(from, p.st, &stats))) {
		ret = store_unreachable(p.st) ? EXIT_USAGE : rp_err_exit_code(err);
		goto out;
	}
	store_location_display(p.store_location, &to_name);
	if (json)
		print_json(store_name(from), to_name.buf, &stats);
	else if (!o.quiet)
		print_text(store_name(from), to_name.buf, &stats);
	ret = fflush(stdout) ? EXIT_INTERNAL : EXIT_OK;
out:
	strbuf_release(&to_name);
	store_close(from);
	return cli_project_close(&p, ret);
}
