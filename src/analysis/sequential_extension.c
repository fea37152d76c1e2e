/*
 * Sequential sampling past the planned maximum (METHODS.md 2, step 8; analysis/verdict.h):
 * an alpha-spending rule that keeps the chance of any false worse/better verdict over
 * every look at or below alpha.
 */
#include <math.h>

#include "analysis/verdict.h"

void sequential_plan_extend(struct sequential_plan *plan, double alpha, double share)
{
	plan->alpha_per_look = alpha * (1 - share) / (double)plan->n_looks;
	plan->alpha_extension = alpha * share;
}

double sequential_extension_alpha(const struct sequential_plan *plan, size_t k)
{
	return plan->alpha_extension * ldexp(1.0, -(int)(k < 1000 ? k : 1000));
}

size_t sequential_extension_look(size_t n)
{
	return n + n / 4 + (n % 4 != 0);
}
