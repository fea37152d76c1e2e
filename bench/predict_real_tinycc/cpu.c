/* bench/predict_real_tinycc/cpu.c: a CPU-bound program that `tcc -run` compiles and runs
   (bench/predict_real_tinycc.sh): integer, floating-point, struct, pointer and call work,
   so that the instructions counted depend on the code TinyCC generates. No input, no
   clock, no randomness (a fixed linear congruential sequence), no libc calls in the loops;
   prints one checksum line. */
#include <stdio.h>

typedef struct { double x, y, z, vx, vy, vz, m; } body;

static unsigned lcg_state = 12345u;
static unsigned lcg(void) { lcg_state = lcg_state * 1103515245u + 12345u; return lcg_state >> 8; }

static int sieve(int n)
{
	static char comp[50001];
	int i, j, c = 0;
	for (i = 0; i <= n; i++) comp[i] = 0;
	for (i = 2; i <= n; i++) {
		if (comp[i]) continue;
		c++;
		for (j = 2 * i; j <= n; j += i) comp[j] = 1;
	}
	return c;
}

static void quicksort(int *a, int lo, int hi)
{
	while (lo < hi) {
		int p = a[(lo + hi) / 2], i = lo, j = hi, t;
		while (i <= j) {
			while (a[i] < p) i++;
			while (a[j] > p) j--;
			if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
		}
		if (j - lo < hi - i) { quicksort(a, lo, j); lo = i; }
		else { quicksort(a, i, hi); hi = j; }
	}
}

static double nbody(int steps)
{
	body b[5];
	int i, j, s;
	double e = 0;
	for (i = 0; i < 5; i++) {
		b[i].x = i; b[i].y = 2.0 * i - 3; b[i].z = 0.5 * i;
		b[i].vx = 0.01 * i; b[i].vy = -0.02 * i; b[i].vz = 0.003;
		b[i].m = 1.0 + i;
	}
	for (s = 0; s < steps; s++) {
		for (i = 0; i < 5; i++)
			for (j = i + 1; j < 5; j++) {
				double dx = b[i].x - b[j].x, dy = b[i].y - b[j].y, dz = b[i].z - b[j].z;
				double d2 = dx * dx + dy * dy + dz * dz + 0.01;
				double mag = 0.001 / (d2 * d2);
				b[i].vx -= dx * b[j].m * mag; b[i].vy -= dy * b[j].m * mag; b[i].vz -= dz * b[j].m * mag;
				b[j].vx += dx * b[i].m * mag; b[j].vy += dy * b[i].m * mag; b[j].vz += dz * b[i].m * mag;
			}
		for (i = 0; i < 5; i++) {
			b[i].x += 0.01 * b[i].vx; b[i].y += 0.01 * b[i].vy; b[i].z += 0.01 * b[i].vz;
		}
	}
	for (i = 0; i < 5; i++)
		e += 0.5 * b[i].m * (b[i].vx * b[i].vx + b[i].vy * b[i].vy + b[i].vz * b[i].vz);
	return e;
}

static unsigned long long strhash(int rounds)
{
	char buf[64];
	unsigned long long h = 1469598103934665603ull;
	int r, k;
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < 63; k++) buf[k] = 'a' + (char)((r * 7 + k * 13) % 26);
		buf[63] = 0;
		{
			const char *p;
			for (p = buf; *p; p++) { h ^= (unsigned char)*p; h *= 1099511628211ull; }
		}
	}
	return h;
}

static long matmul(int n, int reps)
{
	static long a[40][40], b[40][40], c[40][40];
	int i, j, k, r;
	long t = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) { a[i][j] = (i * 3 + j) % 17; b[i][j] = (i + j * 5) % 13; }
	for (r = 0; r < reps; r++) {
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++) {
				long s = 0;
				for (k = 0; k < n; k++) s += a[i][k] * b[k][j];
				c[i][j] = s + r;
			}
		t += c[r % n][(r * 7) % n];
	}
	return t;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int main(void)
{
	static int arr[10000];
	int i;
	long sum = 0;
	int primes = sieve(50000);
	for (i = 0; i < 10000; i++) arr[i] = (int)(lcg() % 100000);
	quicksort(arr, 0, 9999);
	for (i = 0; i < 10000; i += 97) sum += arr[i];
	printf("primes %d sorted %ld nbody %.9f hash %llx matmul %ld fib %d\n", primes, sum,
	       nbody(4000), strhash(5000), matmul(40, 12), fib(20));
	return 0;
}
