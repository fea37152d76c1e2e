#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cct_diff.h"
#include "cli/commands.h"
#include "profile/folded.h"
#include "util/common.h"

static struct {
	const char *threshold, *top;
	bool plain;
} o;

static const struct option diff_options[] = {
	{ OPT_STRING, 't', "threshold", "PCT",
	  "stop adjusting weights at this overlap in % (default 100)", &o.threshold, NULL },
	{ OPT_STRING, 'k', "top", "K", "report at most K weight differences (default 20; 0 = all)",
	  &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "merge call sites into plain contexts first", &o.plain,
	  NULL },
	OPT_END_MARKER,
};
static const char *const diff_usage[] = { "diff [options] OLD NEW", NULL };
const struct command_help diff_help = {
	"diff", diff_usage,
	"Differences two calling context trees given as folded stacks ('a;b;c 123' per line,\n"
	"as perf script + stackcollapse write them): the call paths found in one tree only\n"
	"(topological differences, stage 3 without a binary diff), the overlap of the common\n"
	"trees in %, and the contexts whose share of the total weight changed most. See\n"
	"docs/cct-diff.md.\n"
	"Exit status: 0 no difference, 1 different, 2 usage or input error (a missing file, a\n"
	"line without a count, named by file:line), 3 internal failure.",
	diff_options,
};

static int print_diff(FILE *f, const struct cct_diff *d)
{
	struct strbuf sb = STRBUF_INIT;

	fprintf(f, "overlap %.2f%% of the common trees (%zu matched contexts)\n", d->overlap,
		d->nr_matched);
	if (d->nr_topo)
		fprintf(f, "\ncontexts in one tree only:\n");
	for (size_t i = 0; i < d->nr_topo; i++) {
		const struct cct_topo_diff *e = &d->topo[i];
		const struct cct *t = e->in_new ? d->new_tree : d->old_tree;
		strbuf_reset(&sb);
		cct_path(t, e->node, &sb);
		fprintf(f, "  %s %-13s %6.2f%%  %s\n", e->in_new ? "+" : "-",
			cct_diff_stage_name(e->stage), e->pweight, sb.buf);
	}
	if (d->nr_pairs)
		fprintf(f, "\nweight differences (%% of total, old -> new):\n");
	for (size_t i = 0; i < d->nr_pairs; i++) {
		const struct cct_weight_pair *p = &d->pairs[i];
		strbuf_reset(&sb);
		cct_path(d->old_tree, p->old_node, &sb);
		fprintf(f, "  %6.2f%% -> %6.2f%%  %s\n", p->old_pweight, p->new_pweight, sb.buf);
	}
	strbuf_release(&sb);
	return ferror(f) ? -1 : 0;
}

static bool parse_number(const char *s, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int cmd_diff(int argc, char **argv)
{
	const char *args[2];
	struct cct trees[2], plain;
	struct cct_diff d;
	struct cct_diff_options opts = { .threshold = 100, .max_pairs = 20 };
	double v;
	int n, err, ret = EXIT_USAGE;
	size_t loaded = 0;

	memset(&o, 0, sizeof(o));
	memset(&d, 0, sizeof(d));
	n = parse_options(argc, argv, &diff_help, args, 2);
	if (n == -2)
		return EXIT_OK;
	if (n < 0)
		return EXIT_USAGE;
	if (n != 2) {
		usage_error("diff", "expected OLD and NEW profiles, got %d argument%s", n,
			    n == 1 ? "" : "s");
		return EXIT_USAGE;
	}
	if (o.threshold) {
		if (!parse_number(o.threshold, 0, 100, &v) || v == 0) {
			usage_error("diff", "--threshold '%s': expected a number in (0, 100]",
				    o.threshold);
			return EXIT_USAGE;
		}
		opts.threshold = v;
	}
	if (o.top) {
		if (!parse_number(o.top, 0, 1e9, &v) || v != floor(v)) {
			usage_error("diff", "--top '%s': expected a whole number >= 0", o.top);
			return EXIT_USAGE;
		}
		opts.max_pairs = (size_t)v;
	}
	for (; loaded < 2; loaded++) {
		if ((err = folded_read(args[loaded], &trees[loaded]))) {
			cct_release(&trees[loaded]);
			ret = rp_err_exit_code(err);
			goto out;
		}
		if (o.plain) {
			cct_plain(&trees[loaded], &plain);
			cct_release(&trees[loaded]);
			trees[loaded] = plain;
		}
	}
	cct_diff_compute(&trees[0], &trees[1], NULL, &opts, &d);
	if (print_diff(stdout, &d)) {
		error("cannot write the report: %s", strerror(errno));
		ret = EXIT_INTERNAL;
		goto out;
	}
	ret = d.nr_topo || d.nr_pairs ? EXIT_REGRESSION : EXIT_OK;
out:
	cct_diff_release(&d);
	while (loaded-- > 0)
		cct_release(&trees[loaded]);
	return ret;
}
