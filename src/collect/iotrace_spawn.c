/*
 * The start of a traced program (collect/iotrace.h, docs/io-tracing.md): the table of
 * traced system calls, the seccomp filter made of it, and the forked child that becomes a
 * tracee, installs the filter and execs the program.
 */
#include "collect/iotrace_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/common.h"

/* The write family first: the read family is the tail, traced on request. */
static const struct iotrace_call traced_calls[] = {
    {SYS_write, "write", IOTRACE_WRITE},       {SYS_pwrite64, "pwrite64", IOTRACE_WRITE},
    {SYS_writev, "writev", IOTRACE_WRITE},     {SYS_pwritev, "pwritev", IOTRACE_WRITE},
    {SYS_pwritev2, "pwritev2", IOTRACE_WRITE}, {SYS_sendfile, "sendfile", IOTRACE_WRITE},
    {SYS_sendto, "sendto", IOTRACE_WRITE},     {SYS_sendmsg, "sendmsg", IOTRACE_WRITE},
    {SYS_read, "read", IOTRACE_READ},	       {SYS_pread64, "pread64", IOTRACE_READ},
    {SYS_readv, "readv", IOTRACE_READ},	       {SYS_preadv, "preadv", IOTRACE_READ},
    {SYS_preadv2, "preadv2", IOTRACE_READ},    {SYS_recvfrom, "recvfrom", IOTRACE_READ},
    {SYS_recvmsg, "recvmsg", IOTRACE_READ},
};
#define NR_WRITE_CALLS 8

_Static_assert(IOTRACE_FILTER_MAX >= 4 + ARRAY_SIZE(traced_calls) + 2, "filter size");

static size_t nr_traced(bool reads)
{
	return reads ? ARRAY_SIZE(traced_calls) : NR_WRITE_CALLS;
}

const struct iotrace_call *iotrace_call_of(long nr, bool reads)
{
	for (size_t i = 0; i < nr_traced(reads); i++)
		if (traced_calls[i].nr == nr)
			return &traced_calls[i];
	return NULL;
}

void iotrace_filter_build(bool reads, struct sock_filter prog[IOTRACE_FILTER_MAX],
			  struct sock_fprog *out)
{
	size_t nr = nr_traced(reads), n = 0;

	/* Another ABI (i386, x32 numbers do not match either): allowed, not traced. */
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, arch));
	prog[n++] =
	    (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IOTRACE_AUDIT_ARCH, 1, 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
						 offsetof(struct seccomp_data, nr));
	/* Call i jumps over the nr - 1 - i remaining tests and the ALLOW to the TRACE. */
	for (size_t i = 0; i < nr; i++)
		prog[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)traced_calls[i].nr, (uint8_t)(nr - i), 0);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE);
	out->len = (unsigned short)n;
	out->filter = prog;
}

_Noreturn static void child_fail(int fd, enum iotrace_stage stage)
{
	struct iotrace_child_report rep = {.stage = (int)stage, .err = errno};
	ssize_t n;

	/* Traced (a seccomp stop the tracer lets pass) once the filter is in. */
	do
		n = write(fd, &rep, sizeof(rep));
	while (n < 0 && errno == EINTR);
	_exit(127);
}

void iotrace_child_main(char *const argv[], const struct iotrace_options *opts,
			const struct sock_fprog *filter, int report_fd)
{
	setpgid(0, 0);
	if (opts->stdin_fd >= 0 && dup2(opts->stdin_fd, STDIN_FILENO) < 0)
		child_fail(report_fd, IOTRACE_STAGE_STDIO);
	if (opts->out_fd >= 0 &&
	    (dup2(opts->out_fd, STDOUT_FILENO) < 0 || dup2(opts->out_fd, STDERR_FILENO) < 0))
		child_fail(report_fd, IOTRACE_STAGE_STDIO);
	if (opts->discard_stdout) {
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			child_fail(report_fd, IOTRACE_STAGE_STDIO);
		if (null != STDOUT_FILENO)
			close(null);
	}
	if (opts->cwd && chdir(opts->cwd) < 0)
		child_fail(report_fd, IOTRACE_STAGE_CWD);
	/* Until the tracer set PTRACE_O_EXITKILL. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
		child_fail(report_fd, IOTRACE_STAGE_PTRACE);
	raise(SIGSTOP);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, filter, 0, 0) < 0)
		child_fail(report_fd, IOTRACE_STAGE_SECCOMP);
	execvp(argv[0], argv);
	child_fail(report_fd, IOTRACE_STAGE_EXEC);
}

bool iotrace_child_report_read(int fd, struct iotrace_child_report *rep)
{
	ssize_t n;

	do
		n = read(fd, rep, sizeof(*rep));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*rep);
}
