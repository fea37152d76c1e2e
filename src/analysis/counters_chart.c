/* Counter series into control-chart input. */
#include "analysis/counters_chart.h"

#include "util/common.h"

int counters_input_add(struct cchart_input *in, enum cchart_side side, const char *name,
		       const struct run_samples *rs)
{
	struct cchart_run *run;
	int err = RP_OK;

	/* The selection of the limits needs memory that grows with the square of the runs
	 * (analysis/control_chart_select.c): beyond this it would not fit. */
	if (in->side[side == CCHART_TARGET ? 1 : 0].nr >= COUNTERS_MAX_RUNS) {
		error("%s: more than %d runs on the %s side, the limit of a control chart "
		      "(docs/limits.md); chart fewer runs",
		      name ? name : "input", COUNTERS_MAX_RUNS,
		      side == CCHART_TARGET ? "target" : "baseline");
		return RP_EINPUT;
	}
	run = cchart_input_add_run(in, side, name);

	for (size_t i = 0; i < rs->nr && !err; i++) {
		const struct sample_series *s = &rs->series[i];
		struct cchart_series *cs;
		if (!(err = cchart_run_series(run, s->name, &cs)))
			err = cchart_series_add_many(cs, s->t, s->v, s->n);
	}
	return err;
}
