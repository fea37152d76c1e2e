/*
 * What the commands that compare revisions (compare, history, bisect, ci) share: the
 * configuration with its flag overrides, loaded anew for each comparison (commands.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "collect/proc.h"
#include "compare/compare.h"
#include "core/config.h"
#include "compare/revcompare.h"
#include "report/compare_graphics.h"
#include "store/store.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/units.h"

int cli_apply_overrides(struct config *cfg, const struct opt_overrides *ov)
{
	for (size_t i = 0; i < ov->nr; i++) {
		char flag[64];
		const char *key = ov->items[i].key;
		snprintf(flag, sizeof(flag), "--%s", ov->items[i].flag);
		if (!strncmp(key, "build.", 6)) {
			if (config_set(cfg, "build", key + 6, ov->items[i].value, flag))
				return RP_EINPUT;
		} else if (!strcmp(key, "metric.*")) {
			/* NAME=SPEC becomes the key metric.NAME */
			const char *v = ov->items[i].value, *eq = strchr(v, '=');
			struct strbuf k = STRBUF_INIT;
			int bad;
			if (!eq || eq == v) {
				error("--metric: expected NAME=/REGEX/ [options], got '%s'", v);
				return RP_EINPUT;
			}
			strbuf_addf(&k, "metric.%.*s", (int)(eq - v), v);
			bad = config_set(cfg, NULL, k.buf, eq + 1, flag);
			strbuf_release(&k);
			if (bad)
				return RP_EINPUT;
		} else if (config_set(cfg, NULL, key, ov->items[i].value, flag)) {
			return RP_EINPUT;
		}
	}
	return 0;
}

int cli_load_config(struct config *cfg, void *arg)
{
	struct cli_config_source *src = arg;
	struct strbuf path = STRBUF_INIT;
	int ret = RP_EINPUT;

	cfg->no_warnings = src->loads++ > 0;
	if (src->config)
		strbuf_addstr(&path, src->config);
	else
		strbuf_addf(&path, "%s/revperf.ini", src->root);
	if (config_read(cfg, path.buf))
		goto out;
	if (!cfg->nr_benches) {
		error("%s defines no benchmark; add a [benchmark \"NAME\"] section with a command",
		      path.buf);
		goto out;
	}
	if (src->overrides && cli_apply_overrides(cfg, src->overrides))
		goto out;
	if (src->bench && config_select(cfg, src->bench))
		goto out;
	if (src->extra && src->extra(cfg, src->extra_arg))
		goto out;
	if (config_finish(cfg))
		goto out;
	ret = 0;
out:
	strbuf_release(&path);
	return ret;
}

/* Before the state directory is created: the configuration a comparison will read exists. */
static int config_present(const char *root, const char *config)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	int ret = 0;
	if (config)
		strbuf_addstr(&path, config);
	else
		strbuf_addf(&path, "%s/revperf.ini", root);
	if (stat(path.buf, &st)) {
		/* the words the configuration's reader uses (util/input.c) */
		error("cannot read configuration '%s': %s; run `revperf init` to write one, or "
		      "pass --config FILE",
		      path.buf, strerror(errno));
		ret = EXIT_USAGE;
	}
	strbuf_release(&path);
	return ret;
}

int cli_store_location(const struct cli_where *where, const char *root, char **out)
{
	const char *env = getenv("REVPERF_STORE");
	struct strbuf ini = STRBUF_INIT;
	struct config cfg;
	int ret = 0;

	*out = NULL;
	if (where->store) {
		if (!*where->store) {
			error("--store is empty; give a PostgreSQL connection string "
			      "(postgresql://USER@HOST/DBNAME) or an SQLite file");
			return EXIT_USAGE;
		}
		*out = xstrdup(where->store);
		return 0;
	}
	if (env && *env) {
		*out = xstrdup(env);
		return 0;
	}
	if (where->config)
		strbuf_addstr(&ini, where->config);
	else
		strbuf_addf(&ini, "%s/revperf.ini", root);
	if (!where->config && !path_exists(ini.buf)) {
		strbuf_release(&ini);
		return 0;
	}
	config_init(&cfg);
	cfg.no_warnings = true; /* read again for the command, which warns */
	if (config_read(&cfg, ini.buf)) {
		ret = EXIT_USAGE;
	} else if (cfg.store_url) {
		/* A file named in the configuration is relative to the root, not to where
		 * the command runs. */
		struct strbuf path = STRBUF_INIT;
		if (!store_location_is_postgres(cfg.store_url) && cfg.store_url[0] != '/')
			strbuf_addf(&path, "%s/", root);
		strbuf_addstr(&path, cfg.store_url);
		*out = strbuf_detach(&path);
	}
	config_release(&cfg);
	strbuf_release(&ini);
	return ret;
}

int cli_project_open(struct cli_project *p, const struct cli_where *where, unsigned flags)
{
	static const struct cli_where none = { NULL, NULL, NULL };
	char cwd[4096];
	const char *root = cwd;
	int err;
	memset(p, 0, sizeof(*p));
	if (!where)
		where = &none;
	if (!getcwd(cwd, sizeof(cwd))) {
		error("cannot read the current directory: %s", strerror(errno));
		return EXIT_USAGE;
	}
	if (!(flags & CLI_PROJECT_NO_REPO)) {
		if ((err = repo_open(cwd, &p->repo)))
			return rp_err_exit_code(err);
		root = repo_workdir(p->repo);
	}
	if ((flags & CLI_PROJECT_CONFIG) && (err = config_present(root, where->config)))
		return err;
	if ((err = cli_store_location(where, root, &p->store_location)))
		return err;
	if ((flags & CLI_PROJECT_STORE_GIVEN) && !p->store_location) {
		error("no store named: give the shared store with --store URL, REVPERF_STORE or "
		      "[store] url in revperf.ini");
		return EXIT_USAGE;
	}
	if (flags & CLI_PROJECT_EXISTING) {
		/* Only read: the state directory is neither created nor written to. */
		struct stat st;
		state_dir_locate(root, where->state_dir, &p->sd);
		if (!p->store_location && stat(p->sd.db_path, &st)) {
			error("no results database at %s; run `revperf %s` first", p->sd.db_path,
			      flags & CLI_PROJECT_NO_REPO && !where->state_dir
				  ? "compare --cmd-a CMD --cmd-b CMD"
				  : "compare BASE TARGET` or `revperf history");
			return EXIT_USAGE;
		}
	} else if ((err = state_dir_open(root, where->state_dir, &p->sd))) {
		return rp_err_exit_code(err);
	}
	if (!p->store_location)
		p->store_location = xstrdup(p->sd.db_path);
	if ((err = store_open(p->store_location,
			      flags & CLI_PROJECT_EXISTING ? STORE_OPEN_EXISTING : 0, &p->st)) ||
	    (err = state_dir_bind_store(&p->sd, p->st, p->store_location,
					flags & CLI_PROJECT_EXISTING)))
		return rp_err_exit_code(err);
	return 0;
}

int cli_project_verify(struct cli_project *p)
{
	return p->st && store_verify(p->st) ? EXIT_INTERNAL : 0;
}

int cli_project_close(struct cli_project *p, int code)
{
	if (cli_project_verify(p))
		code = EXIT_INTERNAL;
	else if (code == EXIT_INTERNAL && (store_lock_failed(p->st) || store_unreachable(p->st)))
		code = EXIT_USAGE;
	store_close(p->st);
	free(p->store_location);
	state_dir_release(&p->sd);
	repo_close(p->repo);
	memset(p, 0, sizeof(*p));
	return code;
}

void cli_revcompare_ctx(struct revcompare_ctx *ctx, struct cli_project *p,
			struct cli_config_source *src, const char *select, bool fresh, bool quiet)
{
	memset(ctx, 0, sizeof(*ctx));
	src->root = repo_workdir(p->repo);
	ctx->repo = p->repo;
	ctx->st = p->st;
	ctx->sd = &p->sd;
	ctx->load_config = cli_load_config;
	ctx->config_arg = src;
	ctx->select = select;
	ctx->fresh = fresh;
	ctx->quiet = quiet;
	ctx->progress = cli_compare_progress(quiet);
	ctx->executed = cli_compare_executed;
}

/* compare's progress line: one line on stderr, redrawn in place. */
static void progress_line(void *arg, const struct compare_progress *ev)
{
	(void)arg;
	fputs("\r\033[K", stderr);
	switch (ev->phase) {
	case COMPARE_WARMUP:
		fprintf_printable(stderr, "%s  %c  warm-up  %.1fs", ev->bench, ev->side,
				  ev->elapsed_s);
		break;
	case COMPARE_RUN:
		fprintf_printable(stderr, "%s  %c  run %zu of max %zu  %.1fs", ev->bench, ev->side,
				  ev->run, ev->max_runs, ev->elapsed_s);
		if (ev->eta_s >= 0)
			fprintf(stderr, "  ETA <= %.0fs", ev->eta_s);
		break;
	case COMPARE_PROFILING:
		fprintf_printable(stderr, "%s  profiling (%zu %s per side)", ev->bench,
				  ev->max_runs, units_noun(ev->max_runs, "run", "runs"));
		break;
	case COMPARE_TRACING:
		fprintf_printable(stderr, "%s  tracing I/O (%zu %s per side)", ev->bench,
				  ev->max_runs, units_noun(ev->max_runs, "run", "runs"));
		break;
	case COMPARE_COUNTING:
		fprintf(stderr, "%s  counting under valgrind (%zu %s per side)", ev->bench,
			ev->max_runs, units_noun(ev->max_runs, "run", "runs"));
		break;
	case COMPARE_BENCH_DONE:
		break;
	}
	fflush(stderr);
}

compare_progress_fn cli_compare_progress(bool quiet)
{
	return !quiet && isatty(STDERR_FILENO) ? progress_line : NULL;
}

void cli_compare_executed(struct compare_result *res, void *arg)
{
	(void)arg;
	compare_render_graphics(res);
}

int cli_compare_exit(struct cli_project *p, int err, struct compare_result *res)
{
	int code = err ? rp_err_exit_code(err) : compare_exit_code(res);
	if (cli_project_verify(p))
		code = EXIT_INTERNAL;
	else if (code == EXIT_INTERNAL && (store_lock_failed(p->st) || store_unreachable(p->st)))
		code = EXIT_USAGE;
	res->exit_code = code;
	return code;
}

int cli_commands_bench(struct config *cfg, const char *cmd_a, const char *cmd_b)
{
	struct strbuf def = STRBUF_INIT;
	int ret;
	strbuf_addf(&def, "A: %s\nB: %s", cmd_a, cmd_b);
	ret = config_set(cfg, "benchmark \"command\"", "command", def.buf, "--cmd-a/--cmd-b");
	strbuf_release(&def);
	if (!ret)
		config_bench(cfg, "command")->origin[0] = '\0';
	return ret;
}
