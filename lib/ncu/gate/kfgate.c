/* libkfgate.so: a gate on ncu --mode attach's connection to a held
 * program, loaded into the attach by LD_PRELOAD (kf-ncu, with
 * KF_NCU_GATE=1 under a sweep's GPU lock). The attach starts beside
 * another job's profiling, loads its libraries and finds its host; its
 * first connect(2) to a loopback port of KF_GATE_LO..KF_GATE_HI then waits
 * for the lock on the file KF_GATE_LOCK (flock, as kf-ncu and
 * pipelines/kf-gpu-lock take it), and the program runs only once the
 * attach holds it: ncu's start-up is off the GPU's time, the program's run
 * on it alone. The lock is held until the attach exits (after the
 * program's end and ncu's report). When it was had, and after how long,
 * goes to KF_GATE_LOG ("locked WAITED_S"). Any other connect is ncu's own
 * business. This file is not part of libkf.a: it sees only libc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int held = -1;		/* the lock's descriptor, once had */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* addr is a loopback port of the held program's. */
static int
gated(const struct sockaddr *addr, socklen_t len)
{
	const char *lo = getenv("KF_GATE_LO"), *hi = getenv("KF_GATE_HI");
	int port;

	if (addr == NULL || lo == NULL || hi == NULL || getenv("KF_GATE_LOCK") == NULL)
		return 0;
	if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *a = (const void *)addr;

		if ((ntohl(a->sin_addr.s_addr) >> 24) != 127)
			return 0;
		port = ntohs(a->sin_port);
	} else if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *a = (const void *)addr;

		if (!IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) && !IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
			return 0;
		port = ntohs(a->sin6_port);
	} else {
		return 0;
	}
	return port >= atoi(lo) && port <= atoi(hi);
}

static void
gate(void)
{
	const char *log = getenv("KF_GATE_LOG");
	double t = now();
	int fd;
	FILE *f;

	pthread_mutex_lock(&mu);
	if (held < 0 && (fd = open(getenv("KF_GATE_LOCK"), O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC, 0666)) >= 0) {
		while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
			;
		held = fd;
		if (log && (f = fopen(log, "a")) != NULL) {
			fprintf(f, "locked %.3f\n", now() - t);
			fclose(f);
		}
	}
	pthread_mutex_unlock(&mu);
}

int
connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static int (*real)(int, const struct sockaddr *, socklen_t);

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "connect");
	if (real == NULL) {
		errno = ENOSYS;
		return -1;
	}
	if (held < 0 && gated(addr, len))
		gate();
	return real(fd, addr, len);
}
