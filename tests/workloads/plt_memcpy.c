/*
 * memcpy through the PLT N times (argv[1]): built with -fcf-protection -Wl,-z,ibtplt, the
 * call goes through a .plt.sec entry, which has no symbol and which callgrind names by its
 * address (tests/cli/compare_counted.sh, tests/cli/cct_diff_versions.sh).
 */
#include <stdlib.h>
#include <string.h>
static char a[64], b[64];
volatile char sink;
int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], 0, 10);
	for (unsigned long i = 0; i < n; i++) {
		memcpy(a, b, (size_t)argc * 16);
		b[i % 64]++;
	}
	sink = a[5];
	return 0;
}
