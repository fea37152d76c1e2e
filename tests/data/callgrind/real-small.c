/*
 * The program behind real-small.callgrind.out (gcc 12 -O0 -g, valgrind 3.19):
 *   cc -O0 -g real-small.c -o real-small
 *   valgrind --tool=callgrind --toggle-collect=main \
 *            --callgrind-out-file=real-small.callgrind.out ./real-small
 * main calls leaf 1000 times, mid twice (each calls leaf 3 times) and rec(5), which
 * recurses 5 more times (callgrind names the inner levels rec'2).
 */
#include <stdio.h>

static int leaf(int x)
{
	return x * 3 + 1;
}

static int mid(int x)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += leaf(x + i);
	return s;
}

static int rec(int n)
{
	return n <= 0 ? 0 : 1 + rec(n - 1);
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += leaf(i);
	s += mid(2) + mid(5);
	s += rec(5);
	printf("%d\n", s);
	return 0;
}
