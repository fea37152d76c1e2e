/* The graphics under a comparison's verdicts (report/compare_graphics.h). */
#include "report/compare_graphics.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_counted.h"
#include "compare/compare_counters.h"
#include "compare/compare_profile.h"
#include "report/attribution_report.h"
#include "report/cct_report.h"
#include "report/chart_report.h"
#include "util/fsutil.h"
#include "util/common.h"

static int write_flamegraph(const struct bench_outcome *b, struct cct_attribution *a)
{
	struct cct_report_options ro = {0};
	struct strbuf sb = STRBUF_INIT;
	FILE *f;
	int err = 0;

	strbuf_addf(&sb, "%s/flamegraph.svg", a->dir);
	ro.old_label = a->labels[0];
	ro.new_label = a->labels[1];
	ro.title = b->name;
	f = fopen_own(sb.buf, "w");
	if (f && !cct_diff_report_svg(f, &a->diff, &ro) && !fclose(f)) {
		a->svg_path = strbuf_detach(&sb);
	} else {
		warning("cannot write %s: %s", sb.buf, fs_strerror(errno));
		if (f)
			fclose(f);
		err = -1;
	}
	strbuf_release(&sb);
	return err;
}

/* The absolute change as dir/attribution.json, for the site (report/site.h). */
static int write_absolute(const char *dir, const struct attribution *a)
{
	struct strbuf sb = STRBUF_INIT;
	int err;
	strbuf_addf(&sb, "%s/" ATTRIBUTION_FILE, dir);
	err = attribution_write_json(sb.buf, a);
	strbuf_release(&sb);
	return err;
}

size_t compare_render_graphics(struct compare_result *res)
{
	size_t failed = 0;

	for (size_t i = 0; i < res->nr_benches; i++) {
		struct bench_outcome *b = &res->benches[i];
		struct cct_attribution *cct = b->cct;
		struct counters_attribution *cc = b->counters;
		struct counted_attribution *ca = b->counted;
		if (cct && cct->diffed && cct->dir && !cct->svg_path && write_flamegraph(b, cct))
			failed++;
		if (cct && cct->have_absolute && cct->dir && write_absolute(cct->dir, &cct->absolute))
			failed++;
		if (ca && ca->have_abs && ca->dir && write_absolute(ca->dir, &ca->abs))
			failed++;
		if (cc && !cc->error && cc->chart_dir && !cc->svg_dir) {
			struct chart_labels lab = {cc->labels[0], cc->labels[1], NULL};
			if (!chart_report_svg_dir(cc->chart_dir, &cc->in, &cc->res, &lab))
				cc->svg_dir = xstrdup(cc->chart_dir);
			else
				failed++;
		}
	}
	return failed;
}
