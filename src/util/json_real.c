/* A double as a JSON number, or null when it is none (util/json_real.h). */
#include "util/json_real.h"

#include <math.h>

json_t *json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}
