#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare_profile.h"
#include "report/attribution_report.h"
#include "report/report.h"
#include "util/common.h"
#include "util/units.h"

/*
 * Names, labels, errors and run details come from the repository, the configuration and
 * the benchmarks' output: as literal Markdown text (no HTML, links, images or extra table
 * cells), or inside the raw HTML of a <summary>, as HTML text.
 */
static void md_text(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_md_escaped(&sb, s ? s : "");
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

/* md_text() of s after other text on its line: a "6." there opens no list. */
static void md_inline(FILE *f, const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_md_escaped_inline(&sb, s ? s : "");
	fputs(sb.buf, f);
	strbuf_release(&sb);
}

static void html_text(FILE *f, const char *s)
{
	struct strbuf line = STRBUF_INIT, sb = STRBUF_INIT;
	strbuf_add_xml_escaped(&sb, strbuf_printable(&line, s));
	fputs(sb.buf, f);
	strbuf_release(&line);
	strbuf_release(&sb);
}

/* "<what><text>.", the text escaped, as a paragraph. */
static void md_line(FILE *f, const char *what, const char *text)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_md_escaped(&sb, text);
	fprintf(f, "\n%s%s.\n", what, sb.buf);
	strbuf_release(&sb);
}

/* The attribution as a fenced block, the fence longer than any run of backticks in it. */
static void attribution_block(FILE *f, const struct cct_attribution *a)
{
	char *text = NULL;
	size_t len = 0, run = 0, longest = 2;
	FILE *mem = open_memstream(&text, &len);
	struct strbuf sb = STRBUF_INIT;
	if (!mem)
		return;
	report_attribution_text(mem, a, 10, "", false);
	if (fclose(mem) == 0) {
		strbuf_add_printable_lines(&sb, text, len);
		for (size_t i = 0; i < sb.len; i++) {
			run = sb.buf[i] == '`' ? run + 1 : 0;
			longest = run > longest ? run : longest;
		}
		for (int fence = 0; fence < 2; fence++) {
			for (size_t i = 0; i <= longest; i++)
				fputc('`', f);
			fputc('\n', f);
			if (!fence)
				fputs(sb.buf, f);
		}
	}
	free(text);
	strbuf_release(&sb);
}

/* The functions that differ between the builds of the benchmark's program, all of them. */
static void changed_markdown(FILE *f, const struct bench_outcome *b)
{
	struct strbuf sb = STRBUF_INIT;
	fputs("\n<details><summary>Binary diff: ", f);
	html_text(f, b->name);
	fputs(" (", f);
	html_text(f, b->program);
	fprintf(f, ": %zu of %zu functions differ between the builds)</summary>\n\n",
		b->functions_changed, b->functions_total);
	fputs("| class | function | instructions | note |\n|---|---|---|---|\n", f);
	for (size_t i = 0; i < b->nr_changed; i++) {
		const struct changed_fn *c = &b->changed[i];
		fprintf(f, "| %s | ", c->cls);
		strbuf_reset(&sb);
		report_changed_fn_name(&sb, c);
		md_text(f, sb.buf);
		strbuf_reset(&sb);
		report_changed_fn_insns(&sb, c);
		fprintf(f, " | %s | %s%s |\n", sb.buf, c->only ? "only " : "",
			c->only ? c->only : "");
	}
	fputs("\n</details>\n", f);
	strbuf_release(&sb);
}

static const char *verdict_mark(const struct metric_outcome *m)
{
	if (!m->measured)
		return "unmeasured";
	switch (m->r.verdict) {
	case VERDICT_WORSE: return ":red_circle: **worse**";
	case VERDICT_BETTER: return ":green_circle: better";
	case VERDICT_EQUAL: return ":white_circle: equal";
	default: return ":yellow_circle: undecided";
	}
}

int report_compare_markdown(FILE *f, const struct compare_result *res)
{
	struct strbuf ci = STRBUF_INIT, counts = STRBUF_INIT;
	char level[32];
	size_t i, j;
	int dec;
	/* The first line says it all: a pull-request comment is read from its top. */
	report_headline(&ci, res);
	fprintf(f, "## revperf: %s\n\n", ci.buf);
	md_text(f, res->target_label);
	fputs(" against ", f);
	md_inline(f, res->base_label);
	fputs(". ", f);
	if (res->base_sha[0])
		fprintf(f, "Baseline `%.12s`, target `%.12s`. ", res->base_sha, res->target_sha);
	fputs("Machine: ", f);
	md_inline(f, res->machine.cpu_model);
	fprintf(f, ", %d cores, kernel ", res->machine.cores);
	md_inline(f, res->machine.kernel);
	fprintf(f, ". Alpha %g, seed %llu%s.\n\n", res->alpha, (unsigned long long)res->seed,
		report_reused_runs(res) ? " (of its new runs; the reused ones kept their own "
					  "comparisons' order)"
					: "");
	fputs("| benchmark | metric | verdict | ratio B/A | CI | baseline | target | runs | q (BH) |\n"
	      "|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			struct metric_mean_sd side[2];
			fputs("| ", f);
			md_text(f, b->name);
			fputs(" | ", f);
			md_text(f, m->def->name);
			fprintf(f, "%s | %s", m->primary ? " (primary)" : "", verdict_mark(m));
			if (report_known_direction(m))
				fprintf(f, " (%s)", report_known_direction(m));
			fputs(" | ", f);
			if (!m->measured) {
				fprintf(f, "- | %s | - | - | - | - |\n", report_unmeasured_reason(m));
				continue;
			}
			metric_format_mean_sd(m->def, 2, (const double[]){m->r.mean_a, m->r.mean_b},
					      (const double[]){m->r.sd_a, m->r.sd_b}, side);
			strbuf_reset(&ci);
			strbuf_reset(&counts);
			report_verdict_counts(&counts, m);
			dec = units_ratio_decimals(m->r.ratio, m->r.ci_lo, m->r.ci_hi);
			units_range_addf(&ci, NAN, m->r.ci_lo, m->r.ci_hi, dec, UNITS_RANGE_BRACKETS);
			/* an exact interval (counts: min and max of the runs) has no level */
			if (m->r.exact)
				fprintf(f, "%.*f | %s (%s) | %s ± %s | %s ± %s | %s | ", dec,
					m->r.ratio, ci.buf, verdict_method_name(m->r.method),
					side[0].mean, side[0].sd, side[1].mean, side[1].sd,
					counts.buf);
			else
				fprintf(f, "%.*f | %s (%s, %s) | %s ± %s | %s ± %s | %s | ", dec,
					m->r.ratio, ci.buf, report_ci_level(level, b->ci_alpha),
					verdict_method_name(m->r.method), side[0].mean, side[0].sd,
					side[1].mean, side[1].sd, counts.buf);
			if (isfinite(m->q_bh))
				fprintf(f, "%.3g |\n", m->q_bh);
			else
				fputs("- |\n", f);
		}
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		const char *changed;
		if (b->error) {
			fputs("\n**", f);
			md_text(f, b->name);
			fprintf(f, "**: %s: ", b->target_broken ? "target broken" : "error");
			md_inline(f, b->error);
			fputc('\n', f);
		}
		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			if (!m->measured || !m->r.reason)
				continue;
			fputs("\n> note: ", f);
			md_text(f, b->name);
			fputc(' ', f);
			md_inline(f, m->def->name);
			fprintf(f, ": %s\n", m->r.reason);
		}
		if ((changed = report_same_code_changed(b))) {
			fputs("\n> note: ", f);
			md_text(f, b->name);
			fputc(' ', f);
			md_inline(f, changed);
			fputs(" changed although the code of ", f);
			md_inline(f, b->program);
			fputs(" is the same in both builds: the change comes from its inputs, the "
			      "libraries or scripts it runs, or the machine\n",
			      f);
		}
		for (j = 0; j < b->nr_issues; j++) {
			struct strbuf sb = STRBUF_INIT;
			report_failed_run(&sb, &b->issues[j]);
			fputs("\n> warning: ", f);
			md_text(f, b->name);
			fputs(b->issues[j].status == RUN_OK ? ": " : ": excluded ", f);
			md_inline(f, sb.buf);
			fputc('\n', f);
			strbuf_release(&sb);
		}
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->cct)
			continue;
		/* A fenced block: names from the program are literal there. */
		fputs("\n<details><summary>Attribution: ", f);
		html_text(f, b->name);
		fputs("</summary>\n", f);
		if (b->cct->have_absolute)
			attribution_markdown(f, &b->cct->absolute, ATTRIBUTION_TOP);
		else if (b->cct->absolute_note)
			md_line(f, "No absolute change: ", b->cct->absolute_note);
		fputs("\n", f);
		attribution_block(f, b->cct);
		fputs("\n</details>\n", f);
	}
	for (i = 0; i < res->nr_benches; i++)
		if (res->benches[i].same_code == SAME_CODE_DIFFERS)
			changed_markdown(f, &res->benches[i]);
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->io)
			continue;
		fputs("\n<details><summary>I/O: ", f);
		html_text(f, b->name);
		fputs("</summary>\n\n", f);
		report_io_markdown(f, b->io, 10);
		fputs("\n</details>\n", f);
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->counters)
			continue;
		fputs("\n<details><summary>Counters: ", f);
		html_text(f, b->name);
		fputs("</summary>\n\n", f);
		report_counters_markdown(f, b->counters);
		fputs("\n</details>\n", f);
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->counted)
			continue;
		fputs("\n<details><summary>Counted: ", f);
		html_text(f, b->name);
		fputs("</summary>\n", f);
		report_counted_markdown(f, b);
		fputs("\n</details>\n", f);
	}
	if (res->interrupted)
		fprintf(f, "\n> interrupted: the runs that finished are stored%s.\n",
			res->resumable ? "; run again to continue" : "");
	strbuf_release(&ci);
	strbuf_release(&counts);
	return 0;
}
