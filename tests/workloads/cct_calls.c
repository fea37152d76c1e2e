/* Workload with a known call structure for the CCT runtime tests
 * (tests/cli/cct_runtime_*.sh), built with -finstrument-functions at -O0 and -O2.
 * Usage: cct_calls MODE [N]. Every function is kept out of line so that the tree is the
 * same at every optimisation level. */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__clang__)
#define KEEP __attribute__((noinline, optnone))
#else
#define KEEP __attribute__((noinline, noipa))
#endif

static volatile long sink;
static jmp_buf jump_target;

KEEP void b(long i);
KEEP void a(long n);
KEEP void c(void);
KEEP void deep(int n);
KEEP void jumper(void);
KEEP void after_jump(void);
KEEP void leaf(void);
KEEP void *worker_one(void *arg);
KEEP void *worker_two(void *arg);
KEEP void child_work(void);
KEEP void parent_work(void);
KEEP void rec(long n);
KEEP void crash(void);
KEEP void quit_deep(int n);
KEEP void before_exec(const char *self);

void b(long i) { sink += i; }

/* b from two call sites: two nodes under a. */
void a(long n)
{
	for (long i = 0; i < n; i++)
		b(i);
	b(-1);
}

void c(void) { sink++; }
void leaf(void) { sink++; }
void after_jump(void) { leaf(); }

void deep(int n)
{
	if (n == 0)
		longjmp(jump_target, 1);
	deep(n - 1);
	sink++;
}

void jumper(void)
{
	if (setjmp(jump_target) == 0)
		deep(20);
	after_jump();
}

void *worker_one(void *arg) { a(10); return arg; }
void *worker_two(void *arg) { c(); return arg; }
void child_work(void) { leaf(); }
void parent_work(void) { leaf(); }

void rec(long n)
{
	if (n > 0)
		rec(n - 1);
	sink++;
}

void crash(void) { *(volatile int *)(sink + 1 - sink - 1) = 1; }

void quit_deep(int n)
{
	if (n == 0)
		exit(0);
	quit_deep(n - 1);
}

void before_exec(const char *self)
{
	char *argv[] = {(char *)self, (char *)"calls", (char *)"3", NULL};
	execv(self, argv);
	perror("execv");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
	if (strcmp(mode, "calls") == 0) {
		a(n);
		c();
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t1, t2;
		pthread_create(&t1, NULL, worker_one, NULL);
		pthread_join(t1, NULL);
		pthread_create(&t2, NULL, worker_two, NULL);
		pthread_join(t2, NULL);
		c();
	} else if (strcmp(mode, "fork") == 0) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			child_work();
			return 0;
		}
		waitpid(pid, NULL, 0);
		parent_work();
	} else if (strcmp(mode, "longjmp") == 0) {
		jumper();
		c();
	} else if (strcmp(mode, "recurse") == 0) {
		rec(n);
		c();
	} else if (strcmp(mode, "segv") == 0) {
		crash();
	} else if (strcmp(mode, "exit") == 0) {
		quit_deep(5);
	} else if (strcmp(mode, "exec") == 0) {
		before_exec(argv[0]);
		return 1;
	} else {
		return 2;
	}
	return 0;
}
