// C++ workload for the CCT runtime tests: an exception thrown through instrumented frames.
#include <cstdio>
#include <stdexcept>

static volatile long sink;

__attribute__((noinline)) void thrower_inner(int n)
{
	if (n == 0)
		throw std::runtime_error("boom");
	thrower_inner(n - 1);
	sink++;
}

__attribute__((noinline)) void thrower_outer() { thrower_inner(10); }
__attribute__((noinline)) void after_catch() { sink++; }

int main()
{
	for (int i = 0; i < 3; i++) {
		try {
			thrower_outer();
		} catch (const std::exception &) {
			sink++;
		}
	}
	after_catch();
	return 0;
}
