/* The smallest change point kept along a series (history/min_change.h). */
#include "history/min_change.h"

#include <stdlib.h>
#include <string.h>

#include "util/common.h"

double history_min_change(struct config *cfg, const char *bench, const char *metric)
{
	const struct metric_def *def = metric_find(metric);
	const struct bench_config *b;
	const char *slash;

	bool counted = def && (def->flags & METRIC_COUNTED);

	if (!cfg)
		return counted ? CONFIG_DEFAULT_COUNT_TOLERANCE : CONFIG_DEFAULT_TOLERANCE;
	b = config_bench(cfg, bench);
	if (!b && (slash = strrchr(bench, '/'))) {
		char *parent = xstrndup(bench, (size_t)(slash - bench));
		b = config_bench(cfg, parent);
		free(parent);
	}
	if (!b)
		b = &cfg->defaults;
	return counted ? b->count_tolerance : b->tolerance;
}
