#ifndef REVPERF_REPORT_IO_REPORT_H
#define REVPERF_REPORT_IO_REPORT_H

/*
 * Reports of the I/O spectrum analysis (METHODS.md section 3, docs/io-analysis.md): the
 * test execution report of one traced run (top stack traces by bytes and by bytes per
 * call, top files, duration, exit status, log) and the similarity report of a target
 * revision against a baseline profile, in text, JSON and Markdown.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/io_spectra.h"
#include "analysis/spectra.h"
#include "profile/io_profile.h"

struct io_report_options {
	size_t top;   /* lines per list; 0 = 10 */
	size_t width; /* stack traces longer than this are shortened in the middle; 0 = 160 */
	enum iotrace_dir dir;
	const char *profile_path; /* where the profile is kept, NULL if it is not */
	/* which frames are the program's, to shorten stacks around them (io_report_stack());
	 * NULL: shortened by width only */
	const struct strmap *frame_kinds;
};

/* The test execution report of one run. Returns 0, or -1 on a write error. */
int io_exec_report_text(FILE *f, const struct io_profile *p, const struct io_report_options *o);
/* The same as JSON (a new reference); NULL after error() for records the analysis refuses. */
json_t *io_exec_report_json(const struct io_profile *p, const struct io_report_options *o);

/* What a similarity report compares, for its heading. */
struct io_similarity_labels {
	const char *baseline, *target; /* "old", "new"; revision names in compare */
};

/*
 * The similarity report: the changed rows (SC < 1 or new) ranked, then how many rows were
 * unchanged, then the stack traces that stopped writing. `indent` prefixes every line.
 */
void io_similarity_text(FILE *f, const struct spectra_report *r,
			const struct io_similarity_labels *l, const struct io_report_options *o,
			const char *indent);
/* The rows that changed: SC < 1, or new (no baseline range). */
size_t io_similarity_changed(const struct spectra_report *r);
/* Every row and stopped stack trace, ranked, as JSON (a new reference). */
json_t *io_similarity_json(const struct spectra_report *r, const struct io_report_options *o);
/* The changed rows as a Markdown table, and the stopped stack traces. */
void io_similarity_markdown(FILE *f, const struct spectra_report *r,
			    const struct io_report_options *o);

/* The meaning of the similarity report's columns SC, Impact and TotalImpact, one line
 * each (static strings), for the legend under every table of them. */
#define IO_REPORT_LEGEND_LINES 3
void io_report_legend_lines(const char *lines[IO_REPORT_LEGEND_LINES]);

/* Appends a range of bytes per call, "100.0..120.0", or one number when it is a point. */
struct strbuf;
void io_report_range(struct strbuf *sb, double lo, double hi);

/*
 * Appends a stack key ("a;b;c", outermost frame first) as a person reads it. With
 * `frame_kinds` (profile/io_profile.h: io_profiles_frame_kinds(); NULL: not shortened so),
 * around the program's own frames: they are kept, and of each run of library frames below
 * them only the first, where the program enters the library, followed by "..." for the
 * rest; the start-up frames above the program's first function (`_start` and the C
 * library that calls main(), or the library frames that start a thread) become one "...". A frame
 * missing from the map counts as the program's. Then, when still longer than `width` bytes (0 =
 * never), shortened in the middle: the first frame, "...", and as many of the last frames as fit
 * (at least the last one).
 *   _start;__libc_start_main;libc.so.6+0x27249;main;save;fflush;_IO_file_sync;__write
 *   -> ...;main;save;fflush;...
 */
struct strmap;
void io_report_stack(struct strbuf *sb, const char *stack, const struct strmap *frame_kinds,
		     size_t width);

#endif
