/*
 * A small key-value server and its load generator, on loopback only, for the control-chart
 * tests (tests/cli/chart_server.sh, docs/counters.md). One process serves, a forked child
 * drives it:
 *
 *   cc_server SECONDS CLIENTS [FAULT]
 *
 * The server keeps 20,000 records in a hash index and answers GET requests ("GET key\n" ->
 * "value\n") over TCP on 127.0.0.1 (an ephemeral port). The load generator opens CLIENTS
 * keep-alive connections and sends requests as fast as the answers come, for SECONDS. Every
 * 100 ms the server prints `revperf-counter requests_per_s R` (the load, for load scaling)
 * and at the end the total. FAULT injects one inefficiency in the spirit of the paper's
 * Table 3 (Foo et al., "Mining performance regression testing repositories"):
 *
 *   none          the good version
 *   fetch-all     each GET copies every record into a fresh array, then filters it
 *   debug-log     a debug line per request, written to cc_server.debug.log and fsync'ed
 *                 every 64 lines (left on by mistake)
 *   reopen        the records file is opened, read in part and closed for every request
 *   linear        a linear search over the records instead of the hash index
 *   leak          a 1 kB buffer per request that is never freed (and touched)
 *   reconnect     the load generator opens a new connection for every request
 *
 * Exit codes: 0 ok, 1 a runtime failure, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR_RECORDS 20000
#define MAX_CLIENTS 16
#define TABLE_SIZE 65536

enum fault { NONE, FETCH_ALL, DEBUG_LOG, REOPEN, LINEAR, LEAK, RECONNECT };
static const char *const fault_names[] = {"none",   "fetch-all", "debug-log", "reopen",
					  "linear", "leak",	 "reconnect"};

struct record {
	char key[24];
	char value[40];
};

static struct record records[NR_RECORDS];
static int32_t table[TABLE_SIZE]; /* index + 1, 0 = empty */
static enum fault fault = NONE;
static FILE *debug_log;
static volatile long sink;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void make_records(void)
{
	for (int i = 0; i < NR_RECORDS; i++) {
		snprintf(records[i].key, sizeof(records[i].key), "key%07d", i * 7919 % 1000003);
		snprintf(records[i].value, sizeof(records[i].value), "value-%d-%08x", i,
			 hash(records[i].key));
		uint32_t slot = hash(records[i].key) & (TABLE_SIZE - 1);
		while (table[slot])
			slot = (slot + 1) & (TABLE_SIZE - 1);
		table[slot] = i + 1;
	}
	FILE *f = fopen("cc_server.records", "w");
	if (f) {
		for (int i = 0; i < NR_RECORDS; i++)
			fprintf(f, "%s %s\n", records[i].key, records[i].value);
		fclose(f);
	}
}

static const struct record *lookup(const char *key)
{
	if (fault == LINEAR) {
		for (int i = 0; i < NR_RECORDS; i++)
			if (!strcmp(records[i].key, key))
				return &records[i];
		return NULL;
	}
	if (fault == FETCH_ALL) {
		struct record *all = malloc(sizeof(records));
		const struct record *found = NULL;
		if (!all)
			return NULL;
		memcpy(all, records, sizeof(records));
		for (int i = 0; i < NR_RECORDS; i++)
			if (!strcmp(all[i].key, key))
				found = &records[i];
		free(all);
		return found;
	}
	uint32_t slot = hash(key) & (TABLE_SIZE - 1);
	while (table[slot]) {
		const struct record *r = &records[table[slot] - 1];
		if (!strcmp(r->key, key))
			return r;
		slot = (slot + 1) & (TABLE_SIZE - 1);
	}
	return NULL;
}

static void handle(int fd, const char *line)
{
	char out[64];
	const struct record *r = NULL;
	static long served;

	if (!strncmp(line, "GET ", 4))
		r = lookup(line + 4);
	if (fault == DEBUG_LOG && debug_log) {
		fprintf(debug_log, "debug: request %ld for '%s' -> %s\n", served, line,
			r ? r->value : "(none)");
		fflush(debug_log);
		if (served % 64 == 0)
			fsync(fileno(debug_log));
	}
	if (fault == REOPEN) {
		char buf[4096];
		int rf = open("cc_server.records", O_RDONLY);
		if (rf >= 0) {
			sink += read(rf, buf, sizeof(buf));
			close(rf);
		}
	}
	if (fault == LEAK) {
		char *p = malloc(1024);
		if (p)
			memset(p, (int)served, 1024);
		sink += (long)(uintptr_t)p;
	}
	served++;
	int n = snprintf(out, sizeof(out), "%s\n", r ? r->value : "-");
	if (write(fd, out, (size_t)n) < 0)
		sink++;
}

/* The load generator: CLIENTS connections, requests until the deadline. */
static int load(uint16_t port, double seconds, int clients)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fds[MAX_CLIENTS];
	unsigned seed = 12345;
	double end = now_s() + seconds;
	char buf[256];

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (int c = 0; c < clients; c++)
		fds[c] = -1;
	while (now_s() < end) {
		for (int c = 0; c < clients; c++) {
			if (fds[c] < 0) {
				int one = 1;
				fds[c] = socket(AF_INET, SOCK_STREAM, 0);
				if (fds[c] < 0 || connect(fds[c], (struct sockaddr *)&a, sizeof(a)))
					return 1;
				setsockopt(fds[c], IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			}
			seed = seed * 1103515245u + 12345u;
			int n = snprintf(buf, sizeof(buf), "GET %s\n",
					 records[(seed >> 8) % NR_RECORDS].key);
			if (write(fds[c], buf, (size_t)n) != n)
				return 1;
		}
		for (int c = 0; c < clients; c++) {
			size_t got = 0;
			while (got == 0 || buf[got - 1] != '\n') {
				ssize_t r = read(fds[c], buf + got, sizeof(buf) - 1 - got);
				if (r <= 0)
					return 1;
				got += (size_t)r;
			}
			if (fault == RECONNECT) {
				close(fds[c]);
				fds[c] = -1;
			}
		}
	}
	for (int c = 0; c < clients; c++)
		if (fds[c] >= 0)
			close(fds[c]);
	return 0;
}

struct conn {
	int fd;
	char buf[512];
	size_t len;
};

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t alen = sizeof(a);
	struct pollfd pfd[MAX_CLIENTS * 4 + 1];
	struct conn conns[MAX_CLIENTS * 4];
	double seconds, start, next_report;
	long served = 0, served_at_report = 0;
	int clients, lfd, one = 1, nconns = 0, status;
	pid_t child;

	if (argc < 3 || argc > 4 || (seconds = atof(argv[1])) <= 0 ||
	    (clients = atoi(argv[2])) < 1 || clients > MAX_CLIENTS) {
		fprintf(stderr, "usage: cc_server SECONDS CLIENTS(1-%d) [FAULT]\n", MAX_CLIENTS);
		return 2;
	}
	if (argc == 4) {
		int f;
		for (f = 0; f <= RECONNECT && strcmp(argv[3], fault_names[f]); f++)
			;
		if (f > RECONNECT) {
			fprintf(stderr, "cc_server: unknown fault '%s'\n", argv[3]);
			return 2;
		}
		fault = (enum fault)f;
	}
	make_records();
	if (fault == DEBUG_LOG)
		debug_log = fopen("cc_server.debug.log", "w");
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 64) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		perror("cc_server: listen");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		close(lfd);
		_exit(load(ntohs(a.sin_port), seconds, clients));
	}
	start = now_s();
	next_report = start + 0.1;
	for (;;) {
		int n = 0, ready;
		pfd[n++] = (struct pollfd){.fd = lfd, .events = POLLIN};
		for (int c = 0; c < nconns; c++)
			pfd[n++] = (struct pollfd){.fd = conns[c].fd, .events = POLLIN};
		ready = poll(pfd, (nfds_t)n, 20);
		if (now_s() >= next_report) {
			double dt = now_s() - (next_report - 0.1);
			printf("revperf-counter requests_per_s %.1f\n",
			       (double)(served - served_at_report) / dt);
			fflush(stdout);
			served_at_report = served;
			next_report += 0.1;
		}
		if (waitpid(child, &status, WNOHANG) == child)
			break;
		if (ready <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && nconns < MAX_CLIENTS * 4) {
			int fd = accept(lfd, NULL, NULL);
			if (fd >= 0) {
				setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
				conns[nconns].fd = fd;
				conns[nconns++].len = 0;
			}
		}
		for (int c = 0, i = 1; i < n; i++) {
			struct conn *k;
			ssize_t r;
			for (c = 0; c < nconns && conns[c].fd != pfd[i].fd; c++)
				;
			if (c == nconns || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			k = &conns[c];
			r = read(k->fd, k->buf + k->len, sizeof(k->buf) - 1 - k->len);
			if (r <= 0) {
				close(k->fd);
				conns[c] = conns[--nconns];
				continue;
			}
			k->len += (size_t)r;
			char *nl;
			while ((nl = memchr(k->buf, '\n', k->len))) {
				*nl = '\0';
				handle(k->fd, k->buf);
				served++;
				k->len -= (size_t)(nl + 1 - k->buf);
				memmove(k->buf, nl + 1, k->len);
			}
			if (k->len == sizeof(k->buf) - 1)
				k->len = 0; /* a line too long: dropped */
		}
	}
	printf("served %ld requests in %.2f s (%s)\n", served, now_s() - start, fault_names[fault]);
	if (debug_log)
		fclose(debug_log);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
