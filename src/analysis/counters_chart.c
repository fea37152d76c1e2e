/* Counter series into control-chart input. */
#include "analysis/counters_chart.h"

#include "util/common.h"

int counters_input_add(struct cchart_input *in, enum cchart_side side, const char *name,
		       const struct run_samples *rs)
{
	struct cchart_run *run = cchart_input_add_run(in, side, name);
	int err = RP_OK;

	for (size_t i = 0; i < rs->nr && !err; i++) {
		const struct sample_series *s = &rs->series[i];
		struct cchart_series *cs;
		if (!(err = cchart_run_series(run, s->name, &cs)))
			err = cchart_series_add_many(cs, s->t, s->v, s->n);
	}
	return err;
}
