#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cct_diff.h"
#include "cli/commands.h"
#include "profile/folded.h"
#include "report/cct_report.h"
#include "util/common.h"

static struct {
	const char *threshold, *top, *format, *out;
	bool plain;
} o;

static const struct option diff_options[] = {
	{ OPT_STRING, 't', "threshold", "PCT",
	  "stop adjusting weights at this overlap in % (default 100)", &o.threshold, NULL },
	{ OPT_STRING, 'k', "top", "K", "report at most K weight differences (default 20; 0 = all)",
	  &o.top, NULL },
	{ OPT_FLAG, 0, "plain", NULL, "merge call sites into plain contexts first", &o.plain,
	  NULL },
	{ OPT_STRING, 'f', "format", "FMT",
	  "text (default), json, or svg: a differential flame graph", &o.format, NULL },
	{ OPT_STRING, 'o', "out", "FILE", "write the report to FILE instead of stdout", &o.out,
	  NULL },
	OPT_END_MARKER,
};
static const char *const diff_usage[] = { "diff [options] OLD NEW", NULL };
const struct command_help diff_help = {
	"diff", diff_usage,
	"Differences two calling context trees given as folded stacks ('a;b;c 123' per line,\n"
	"as perf script + stackcollapse write them): the call paths found in one tree only\n"
	"(topological differences, stage 3 without a binary diff), the overlap of the common\n"
	"trees in %, and the contexts whose share of the total weight changed most. As JSON,\n"
	"or as a differential flame graph in SVG (the new tree's layout; red: a larger share\n"
	"than in the old tree, blue: smaller, hatched: new; a table of the vanished contexts).\n"
	"See docs/cct-diff.md.\n"
	"Exit status: 0 no difference, 1 different, 2 usage or input error (a missing file, a\n"
	"line without a count, named by file:line), 3 internal failure.",
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
	FILE *f = stdout;
	int err;
	if (path && !(f = fopen(path, "w"))) {
		error("cannot create %s: %s", path, strerror(errno));
		return EXIT_USAGE;
	}
	err = write_report(f, format, d, ro);
	if (path && fclose(f))
		err = -1;
	if (err) {
		error("cannot write the report to %s: %s", path ? path : "stdout", strerror(errno));
		if (path)
			remove(path);
		return EXIT_INTERNAL;
	}
	return EXIT_OK;
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
	struct cct_report_options ro = { 0 };
	enum diff_format format = DIFF_TEXT;
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
	if (o.format) {
		if (!strcmp(o.format, "json")) {
			format = DIFF_JSON;
		} else if (!strcmp(o.format, "svg")) {
			format = DIFF_SVG;
		} else if (strcmp(o.format, "text")) {
			usage_error("diff", "unknown format '%s': use text, json or svg", o.format);
			return EXIT_USAGE;
		}
	}
	if (o.out && !*o.out) {
		usage_error("diff", "--out needs a file name");
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
	ro.old_label = args[0];
	ro.new_label = args[1];
	if ((ret = output(o.out, format, &d, &ro)) != EXIT_OK)
		goto out;
	ret = d.nr_topo || d.nr_pairs ? EXIT_REGRESSION : EXIT_OK;
out:
	cct_diff_release(&d);
	while (loaded-- > 0)
		cct_release(&trees[loaded]);
	return ret;
}
