/*
 * The I/O tracer's benchmark workload (bench/io_trace.sh): N write-family calls, half
 * through stdio (fprintf + fflush: glibc's internal write) and half direct write(), to FILE.
 *
 *   io_writes FILE [N]     N defaults to 200000
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))

static volatile long sink;

NOINLINE static void stdio_half(FILE *f, long n)
{
	for (long i = 0; i < n; i++) {
		fprintf(f, "stdio %ld\n", i);
		fflush(f);
	}
	sink += n;
}

NOINLINE static void direct_half(int fd, long n)
{
	static const char line[] = "direct write line\n";

	for (long i = 0; i < n; i++)
		sink += write(fd, line, sizeof(line) - 1);
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 200000;
	FILE *f;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: io_writes FILE [N]\n");
		return 2;
	}
	f = fopen(argv[1], "w");
	if (!f)
		return 1;
	stdio_half(f, n / 2);
	direct_half(fileno(f), n - n / 2);
	return fclose(f) != 0;
}
