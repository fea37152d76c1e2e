/*
 * A shared library that io_modes loads with dlopen() after its first traced write, so that
 * the I/O tracer must learn of a module mapped after its session began
 * (tests/unit/test_iotrace.c, test_dlopen_module).
 */
#include <unistd.h>

long lib_writer(int fd, long n);

__attribute__((noinline)) long lib_writer(int fd, long n)
{
	long total = 0;

	for (long i = 0; i < n; i++)
		total += write(fd, "from-lib", 8);
	return total + 1;
}
