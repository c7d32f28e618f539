/* A program that profiles its own range (tests/sweep-overlap.bats): its
 * work before the range (RANGE_PRE seconds, default 0.6), the range
 * started through CUDA's runtime, shared (tests/progs/fakecudart.c), its
 * work in the range (RANGE_IN seconds, default 0.4), the range stopped,
 * then its work after the range (RANGE_POST seconds, default 0), and with
 * RANGE_AGAIN=1 a second range as the first and no work after it.
 * The range is started and stopped by librangecall.so beside the program
 * (tests/progs/rangecall.c), loaded RTLD_GLOBAL, or with RANGE_LOCAL=1
 * RTLD_LOCAL as Python loads an extension. Each part goes to BENCH_LOG as
 * "pre|range|post START_NS END_NS GPU ID" (wall-clock nanoseconds, as date
 * +%s%N), then "range ID done" to standard output. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

static long long
ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void
work(const char *var, double dflt)
{
	const char *v = getenv(var);
	double s = v && *v ? atof(v) : dflt;
	struct timespec t = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	nanosleep(&t, NULL);
}

static void
put(const char *part, long long s, long long e, const char *id)
{
	const char *log = getenv("BENCH_LOG"), *gpu = getenv("CUDA_VISIBLE_DEVICES");
	FILE *f;

	if (log && (f = fopen(log, "a")) != NULL) {
		fprintf(f, "%s %lld %lld %s %s\n", part, s, e, gpu ? gpu : "none", id);
		fclose(f);
	}
}

/* A range: started, its work, stopped; 0, or -1 where it did not start. */
static int
range(int (*start)(void), int (*stop)(void), const char *id)
{
	long long s, e;

	if (start() != 0)
		return -1;
	s = ns();
	work("RANGE_IN", 0.4);
	e = ns();
	stop();
	put("range", s, e, id);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *id = argc > 1 ? argv[1] : "?", *local = getenv("RANGE_LOCAL");
	int (*start)(void), (*stop)(void);
	char path[4096], *slash;
	long long s, e;
	void *h;

	snprintf(path, sizeof path - 20, "%s", argv[0]);
	slash = strrchr(path, '/');
	strcpy(slash ? slash + 1 : path, "librangecall.so");
	if ((h = dlopen(path, RTLD_NOW | (local && strcmp(local, "1") == 0 ? RTLD_LOCAL :
	    RTLD_GLOBAL))) == NULL) {
		fprintf(stderr, "rangeprog: %s\n", dlerror());
		return 1;
	}
	*(void **)&start = dlsym(h, "range_start");
	*(void **)&stop = dlsym(h, "range_stop");
	if (start == NULL || stop == NULL)
		return 1;
	s = ns();
	work("RANGE_PRE", 0.6);
	e = ns();
	put("pre", s, e, id);
	if (range(start, stop, id) != 0)
		return 1;
	s = ns();
	work("RANGE_POST", 0);
	e = ns();
	if (e - s > 1000000)
		put("post", s, e, id);
	if ((local = getenv("RANGE_AGAIN")) && strcmp(local, "1") == 0 &&
	    range(start, stop, id) != 0)
		return 1;
	printf("range %s done\n", id);
	return 0;
}
