#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "util/common.h"

/* Markdown table cells must not contain '|' or newlines. */
static void md_cell(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
}

static const char *verdict_mark(const struct metric_outcome *m)
{
	if (!m->measured)
		return "unmeasured";
	switch (m->r.verdict) {
	case VERDICT_WORSE: return ":red_circle: **worse**";
	case VERDICT_BETTER: return ":green_circle: better";
	case VERDICT_EQUAL: return "equal";
	default: return ":yellow_circle: undecided";
	}
}

int report_compare_markdown(FILE *f, const struct compare_result *res)
{
	size_t i, j;
	fputs("## revperf: ", f);
	md_cell(f, res->target_label);
	fputs(" vs ", f);
	md_cell(f, res->base_label);
	fputs("\n\n", f);
	if (res->base_sha[0])
		fprintf(f, "Baseline `%.12s`, target `%.12s`. ", res->base_sha, res->target_sha);
	fprintf(f, "Machine: %s, %d cores, kernel %s. Alpha %g, seed %llu.\n\n",
		res->machine.cpu_model, res->machine.cores, res->machine.kernel, res->alpha,
		(unsigned long long)res->seed);
	fputs("| benchmark | metric | verdict | ratio B/A | CI | baseline | target | runs | q (BH) |\n"
	      "|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			char ma[32], mb[32], sa[32], sb[32];
			fputs("| ", f);
			md_cell(f, b->name);
			fprintf(f, " | %s%s | %s | ", m->def->name, m->primary ? " (primary)" : "",
				verdict_mark(m));
			if (!m->measured) {
				fputs("- | - | - | - | - | - |\n", f);
				continue;
			}
			metric_format(m->def, m->r.mean_a, ma, sizeof(ma));
			metric_format(m->def, m->r.mean_b, mb, sizeof(mb));
			metric_format(m->def, m->r.sd_a, sa, sizeof(sa));
			metric_format(m->def, m->r.sd_b, sb, sizeof(sb));
			fprintf(f, "%.3f | [%.3f, %.3f] (%.2f%%, %s) | %s ± %s | %s ± %s | %zu + %zu | ",
				m->r.ratio, m->r.ci_lo, m->r.ci_hi, 100.0 * (1.0 - b->ci_alpha),
				verdict_method_name(m->r.method), ma, sa, mb, sb, m->r.n_a, m->r.n_b);
			if (isfinite(m->q_bh))
				fprintf(f, "%.3g |\n", m->q_bh);
			else
				fputs("- |\n", f);
		}
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (b->error) {
			fputs("\n**", f);
			md_cell(f, b->name);
			fprintf(f, "**: %s: ", b->target_broken ? "target broken" : "error");
			md_cell(f, b->error);
			fputc('\n', f);
		}
		for (j = 0; j < b->nr_metrics; j++) {
			const struct metric_outcome *m = &b->metrics[j];
			if (!m->measured || !m->r.reason)
				continue;
			fputs("\n> note: ", f);
			md_cell(f, b->name);
			fprintf(f, " %s: %s\n", m->def->name, m->r.reason);
		}
		for (j = 0; j < b->nr_issues; j++) {
			struct strbuf sb = STRBUF_INIT;
			report_failed_run(&sb, &b->issues[j]);
			fputs("\n> warning: ", f);
			md_cell(f, b->name);
			fputs(b->issues[j].status == RUN_OK ? ": " : ": excluded ", f);
			md_cell(f, sb.buf);
			fputc('\n', f);
			strbuf_release(&sb);
		}
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->cct)
			continue;
		/* A fenced block: names from the program need no escaping there. */
		fputs("\n<details><summary>Attribution: ", f);
		md_cell(f, b->name);
		fputs("</summary>\n\n```\n", f);
		report_attribution_text(f, b->cct, 10, "");
		fputs("```\n\n</details>\n", f);
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->io)
			continue;
		fputs("\n<details><summary>I/O: ", f);
		md_cell(f, b->name);
		fputs("</summary>\n\n", f);
		report_io_markdown(f, b->io, 10);
		fputs("\n</details>\n", f);
	}
	for (i = 0; i < res->nr_benches; i++) {
		const struct bench_outcome *b = &res->benches[i];
		if (!b->counters)
			continue;
		fputs("\n<details><summary>Counters: ", f);
		md_cell(f, b->name);
		fputs("</summary>\n\n", f);
		report_counters_markdown(f, b->counters);
		fputs("\n</details>\n", f);
	}
	if (res->interrupted)
		fputs("\n> interrupted: finished runs are stored; run again to continue.\n", f);
	return 0;
}
