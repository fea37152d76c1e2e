/* The benchmarks of a stored comparison as it measured them (replay_config.h). */
#include "compare/replay_config.h"

#include <stdio.h>
#include <string.h>

#include "compare/run_output.h"
#include "util/common.h"

/* What run_output_identity() adds to a command whose stdout is discarded. */
static const char discard_tail[] = " [output = discard]";

/* A stored identity back into the command and output setting of b. */
static void set_identity(struct bench_config *b, const char *identity)
{
	size_t len = strlen(identity), tail = sizeof(discard_tail) - 1;
	b->discard_stdout = len > tail && !strcmp(identity + len - tail, discard_tail);
	free(b->command);
	b->command = xstrndup(identity, b->discard_stdout ? len - tail : len);
}

/* Whether name is a test of a suite or a case of a Google Benchmark binary cfg configures
 * ("SUITE/TEST", "BINARY/CASE"): those are expanded from the configuration, not stored. */
static bool expanded_case(const struct config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_benches; i++) {
		const struct bench_config *b = &cfg->benches[i];
		size_t len = strlen(b->name);
		if ((b->tests || b->format == BENCH_GBENCH) && !strncmp(name, b->name, len) &&
		    name[len] == '/')
			return true;
	}
	return false;
}

/* One benchmark d of the comparison in cfg as it was measured; what changed into changed. */
static int restore_bench(struct config *cfg, const struct store_benchmark_def *d,
			 const char *origin, struct strbuf *changed, bool *added)
{
	struct strbuf ident = STRBUF_INIT;
	struct bench_config *b = config_bench(cfg, d->name);
	int ret = 0;
	if (b && (b->tests || b->format == BENCH_GBENCH))
		return 0;
	if (!b && expanded_case(cfg, d->name))
		return 0;
	if (b && !strcmp(run_output_identity(&ident, b), d->command))
		goto out;
	strbuf_addstr(changed, changed->len ? ", " : "");
	if (b) {
		strbuf_addf(changed, "the command of %s", d->name);
	} else {
		struct strbuf section = STRBUF_INIT;
		strbuf_addf(&section, "benchmark \"%s\"", d->name);
		/* any command: set_identity() sets the stored one, with its output setting */
		ret = config_set(cfg, section.buf, "command", d->command, origin);
		strbuf_release(&section);
		if (ret)
			goto out;
		b = config_bench(cfg, d->name);
		strbuf_addf(changed, "%s no longer configured", d->name);
		*added = true;
	}
	set_identity(b, d->command);
out:
	strbuf_release(&ident);
	return ret;
}

int replay_config_restore(struct store *st, const struct store_comparison_info *c,
			  struct config *cfg)
{
	struct store_benchmark_def *defs = NULL;
	struct strbuf changed = STRBUF_INIT, origin = STRBUF_INIT;
	const char *now = cfg->build_command ? cfg->build_command : "";
	size_t n = 0;
	bool added = false;
	int ret;

	if ((ret = store_comparison_benchmarks(st, c->id, &defs, &n)))
		goto out;
	if (c->build_command && strcmp(c->build_command, now))
		strbuf_addf(&changed, "the build command `%s`", c->build_command);
	strbuf_addf(&origin, "comparison %lld", (long long)c->id);
	for (size_t i = 0; i < n && !ret; i++)
		ret = restore_bench(cfg, &defs[i], origin.buf, &changed, &added);
	/* The flags' overrides and the checks of a benchmark defined again; said once. */
	if (!ret && added) {
		bool quiet = cfg->no_warnings;
		cfg->no_warnings = true;
		ret = config_finish(cfg);
		cfg->no_warnings = quiet;
	}
	if (!ret && changed.len)
		warning("comparison %lld was measured with another configuration (%s): shown as it "
			"was measured, from its stored runs",
			(long long)c->id, changed.buf);
out:
	store_benchmark_defs_free(defs, n);
	strbuf_release(&changed);
	strbuf_release(&origin);
	return ret;
}
