#ifndef REVPERF_REPORT_COMPARE_GRAPHICS_H
#define REVPERF_REPORT_COMPARE_GRAPHICS_H

/*
 * The graphics under a comparison's verdicts, written after compare_execute() from the
 * data in its result: the differential flame graph of each benchmark with a CCT
 * attribution (profile = cct), the absolute change as ATTRIBUTION_FILE (JSON, beside the
 * flame graph, and in the counted runs' directory for ir and sim-cycles) and the control
 * charts of each benchmark with counters (profile = counters), into the directories the
 * comparison named under the state directory. Not thread-safe for the same result.
 */
#include "compare/compare.h"

/* The absolute change a comparison leaves beside its profiles, for the site. */
#define ATTRIBUTION_FILE "attribution.json"

/*
 * Writes every graphic of res and records where (cct->svg_path, counters->svg_dir). A
 * graphic that cannot be written is a warning and stays NULL; the verdicts do not depend
 * on them. Returns the number of graphics that could not be written.
 */
size_t compare_render_graphics(struct compare_result *res);

#endif
