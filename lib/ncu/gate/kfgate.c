/* libkfgate.so: kf-ncu's two gates on the GPU's lock of a sweep, loaded by
 * LD_PRELOAD, each active only where its variables are set. This file is
 * not part of libkf.a: it sees only libc.
 *
 * The attach's gate (KF_NCU_GATE=1): loaded into ncu --mode attach. The
 * attach starts beside another job's profiling, loads its libraries and
 * finds its host; its first connect(2) to a loopback port of
 * KF_GATE_LO..KF_GATE_HI then waits for the lock on the file KF_GATE_LOCK
 * (flock, as kf-ncu and pipelines/kf-gpu-lock take it), and the program
 * runs only once the attach holds it: ncu's start-up is off the GPU's
 * time, the program's run on it alone. The lock is held until the attach
 * exits (after the program's end and ncu's report). When it was had, and
 * after how long, goes to KF_GATE_LOG ("locked WAITED_S"). Any other
 * connect is ncu's own business.
 *
 * The range gate (KF_NCU_RANGE=1, or unset with --top; ncu's
 * --profile-from-start off): loaded into the held program. kf-ncu holds
 * the GPU's lock shared while the program does its own work outside its
 * profiler ranges, beside other jobs' such work, and exclusive while a
 * range runs. A process's cudaProfilerStart (or the driver's
 * cuProfilerStart) outside a range waits for its GPU work so far to end,
 * asks kf-ncu for the GPU (a line "start PID" appended to KF_RANGE_REQ, its
 * Nth line) and waits until kf-ncu holds it alone for the first N lines
 * (KF_RANGE_ACK reads "locked WAITED LINES", LINES >= N), then starts the
 * range. Its cudaProfilerStop (cuProfilerStop) stops the range, waits for
 * the range's GPU work to end and says so (a line "stop PID"): once no
 * process is in a range, kf-ncu holds the GPU shared again (and removes
 * the answer) until the program's next range or its end, so that the
 * program's work after its range (its end, its other steps) runs beside
 * other jobs' work before theirs, never beside a range. Were kf-ncu (its
 * pid is KF_RANGE_PID) gone, the program goes on. A range this cannot see
 * (a program that links CUDA's runtime statically) is found by kf-ncu
 * afterwards: ncu profiled a launch before the request, and the run is
 * taken again with the GPU held throughout. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
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

/* The objects loaded in this process, by name (none for the program). */
struct objs {
	char **name;
	size_t n, cap;
};

static int
each_obj(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct objs *o = arg;
	char **v;

	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
		return 0;
	if (o->n == o->cap) {
		if ((v = realloc(o->name, (o->cap * 2 + 8) * sizeof *v)) == NULL)
			return 1;
		o->name = v;
		o->cap = o->cap * 2 + 8;
	}
	if ((o->name[o->n] = strdup(info->dlpi_name)) != NULL)
		o->n++;
	return 0;
}

/* The definition of name that self stands before. RTLD_NEXT finds it only
 * among the objects loaded at start and their own; CUDA's runtime is most
 * often loaded later with RTLD_LOCAL, as a Python extension's dependency
 * (PyTorch, CuPy): then each loaded object is asked for it in its own
 * scope (itself and what it needs, never this preloaded file). */
static void *
real_sym(const char *name, void *self)
{
	struct objs o = {0};
	void *p = dlsym(RTLD_NEXT, name), *h;
	size_t i;

	if (p != NULL && p != self)
		return p;
	p = NULL;
	dl_iterate_phdr(each_obj, &o);
	for (i = 0; i < o.n; i++) {
		if (p == NULL && (h = dlopen(o.name[i], RTLD_LAZY | RTLD_NOLOAD)) != NULL) {
			void *q = dlsym(h, name);

			if (q != NULL && q != self)
				p = q;
			dlclose(h);
		}
		free(o.name[i]);
	}
	free(o.name);
	return p;
}

static int in_range;		/* this process's range has the GPU alone */

/* A line "WORD PID" appended to path in one write. */
static int
say(const char *path, const char *word)
{
	char line[64];
	int fd, n, ok;

	n = snprintf(line, sizeof line, "%s %ld\n", word, (long)getpid());
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0)
		return -1;
	ok = write(fd, line, (size_t)n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/* The lines of path so far. */
static long
lines_of(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int ch;

	if (f == NULL)
		return 0;
	while ((ch = getc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

/* kf-ncu's answer at ack has the GPU alone for the first n lines of the
 * requests. */
static int
answered(const char *ack, long n)
{
	FILE *f = fopen(ack, "r");
	double waited;
	long lines;
	int k;

	if (f == NULL)
		return 0;
	k = fscanf(f, "locked %lf %ld", &waited, &lines);
	fclose(f);
	return k == 2 && lines >= n;
}

/* The work the process queued on the GPU so far ends: sync is the API's
 * wait (cudaDeviceSynchronize or cuCtxSynchronize), where it has it. */
static void
drain(const char *sync)
{
	int (*wait)(void);

	if ((*(void **)&wait = real_sym(sync, NULL)) != NULL)
		wait();
}

/* The range gate, at a range's start outside a range. */
static void
range_gate(const char *sync)
{
	const char *req = getenv("KF_RANGE_REQ"), *ack = getenv("KF_RANGE_ACK");
	const char *pid = getenv("KF_RANGE_PID");
	struct timespec nap = { 0, 2000000 };
	pid_t kf;
	long n;

	pthread_mutex_lock(&mu);
	if (in_range || req == NULL || ack == NULL || pid == NULL || (kf = atoi(pid)) <= 0) {
		pthread_mutex_unlock(&mu);
		return;
	}
	/* the work queued before the range ends before the GPU is let go */
	drain(sync);
	if (say(req, "start") == 0) {
		n = lines_of(req);
		while (!answered(ack, n) && kill(kf, 0) == 0)
			nanosleep(&nap, NULL);
	}
	in_range = 1;
	pthread_mutex_unlock(&mu);
}

/* At a range's stop: its work ends, then kf-ncu is told. */
static void
range_end(const char *sync)
{
	const char *req = getenv("KF_RANGE_REQ");

	pthread_mutex_lock(&mu);
	if (in_range && req != NULL) {
		drain(sync);
		say(req, "stop");
	}
	in_range = 0;
	pthread_mutex_unlock(&mu);
}

/* A range's start: the gate, then the call it stands before (*real, found
 * once by name), whose status it returns (an enum, 0 for success);
 * without one (it cannot be: the program called it), 0. */
static int
start(int (**real)(void), const char *name, void *self, const char *sync)
{
	if (*real == NULL)
		*(void **)real = real_sym(name, self);
	range_gate(sync);
	return *real ? (*real)() : 0;
}

/* A range's stop: the call, then the gate told. */
static int
stop(int (**real)(void), const char *name, void *self, const char *sync)
{
	int st;

	if (*real == NULL)
		*(void **)real = real_sym(name, self);
	st = *real ? (*real)() : 0;
	range_end(sync);
	return st;
}

int cudaProfilerStart(void);
int cuProfilerStart(void);
int cudaProfilerStop(void);
int cuProfilerStop(void);

int
cudaProfilerStart(void)
{
	static int (*real)(void);

	return start(&real, "cudaProfilerStart", (void *)cudaProfilerStart,
	    "cudaDeviceSynchronize");
}

int
cuProfilerStart(void)
{
	static int (*real)(void);

	return start(&real, "cuProfilerStart", (void *)cuProfilerStart, "cuCtxSynchronize");
}

int
cudaProfilerStop(void)
{
	static int (*real)(void);

	return stop(&real, "cudaProfilerStop", (void *)cudaProfilerStop,
	    "cudaDeviceSynchronize");
}

int
cuProfilerStop(void)
{
	static int (*real)(void);

	return stop(&real, "cuProfilerStop", (void *)cuProfilerStop, "cuCtxSynchronize");
}
