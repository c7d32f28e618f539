/* kf-ncu: Nsight Compute into a kept report, then its pages as CSV (man
 * kf-wrap(1), "The ncu chain"; ncu_chain.h says which file does what).
 *
 *   kf-ncu NCU DIR TOP SELECT [TIMING_ARG ...] -+ [DETAIL_ARG ...] -- CMD [ARG ...]
 *
 * With TOP 0, one run: NCU -o DIR/report -f --import-source yes
 * [DETAIL_ARG ...] CMD. With TOP K > 0, first a run that times every launch:
 * the program under kf's tracer (libkftrace.so beside kf-ncu, or
 * KF_TRACE_LIB), or, without it (or with KF_NCU_TIMING=ncu, or when the
 * trace holds no launch), NCU -o DIR/timing -f --metrics
 * gpu__time_duration.sum [--cache-control none] [TIMING_ARG ...] CMD; then
 * the choice of the K kernels with the most GPU time (ncu_choose.c, in this
 * process: SELECT, kf-read's path, is no longer run), and the detailed run
 * with its filter before the DETAIL_ARGs: held beside the timing run and
 * attached to, or after it (ncu_detail.c). Then the report's pages
 * (ncu_export.c) and NCU_DONE.
 *
 * Every argument is passed on as one word: nothing here is ever evaluated
 * by a shell.
 *
 * Exit status: the program's, as ncu passes it on: the detailed run's, or
 * with TOP K the timing run's (the detailed run ends the program early,
 * and ncu then exits 0); the status of the timing run or of the details
 * export when one failed (a message saying which on standard error: no
 * detailed run, no ncu_report.csv); 1 when nothing could be chosen; 2 for
 * a usage error; 128 + N when signal N stopped it. A failed export of the
 * raw or source page only leaves that file out (a message says so). */
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>

#include "buf.h"
#include "err.h"
#include "lines.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_chain.h"
#include "path.h"
#include "proc.h"
#include "record.h"

extern char **environ;

static const char usage_line[] =
	"usage: kf-ncu NCU DIR TOP SELECT [TIMING_ARG ...] -+ [DETAIL_ARG ...] -- CMD [ARG ...]\n";

/* ncu's default flush before each launch added 0.53 µs a launch to GPT-2's
 * 2,205 (H200: 9.37 ms, 8.20 with none, 6.43 traced): the timing run leaves
 * the caches as the program does, unless the user says. */
static const char *const timing_pre[] = { "--metrics", "gpu__time_duration.sum", NULL };

/* XLA's autotuner's kernels and its fusions' names, in the timing CSV. */
static const char *const xla_marks[] = { "_fusion", "RedzoneAllocatorKernel",
	"redzone_checker", "xla_fp_comparison", "xla_int_comparison", "stream_executor::", NULL };

/* With autotuning results that cannot be loaded: command buffers (CUDA
 * graphs, on which ncu crashed) and autotuning off, unless
 * KF_NCU_XLA_FLAGS says which. */
#define XLA_FALLBACK "--xla_gpu_enable_command_buffer= --xla_gpu_autotune_level=0"

static struct ncu_chain *the_chain;	/* for the exit's clean-up */

/* NAME is set (NAME or NAME=VALUE) in the program's XLA_FLAGS. */
static int
xla_set(const char *name)
{
	const char *f = getenv("XLA_FLAGS"), *p;
	size_t n = strlen(name);

	for (p = f; p && (p = strstr(p, name)) != NULL; p += n)
		if ((p == f || p[-1] == ' ') && (p[n] == '=' || p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static void
usage(void)
{
	fputs(usage_line, stderr);
	exit(2);
}

/* The files of the output directory that match pattern removed. */
static void
remove_glob(const struct ncu_chain *c, const char *pattern)
{
	struct buf b = {0};
	const char *p;
	char *pat;
	glob_t g;
	size_t j;

	/* DIR may hold glob characters: they are escaped */
	for (p = c->dir; *p; p++) {
		if (strchr("*?[\\", *p))
			buf_putc(&b, '\\');
		buf_putc(&b, *p);
	}
	buf_printf(&b, "/%s", pattern);
	pat = buf_take(&b);
	if (glob(pat, 0, NULL, &g) == 0) {
		for (j = 0; j < g.gl_pathc; j++)
			unlink(g.gl_pathv[j]);
		globfree(&g);
	}
	free(pat);
}

/* Files left by an earlier run must not pass for this one's. */
static void
remove_stale(struct ncu_chain *c)
{
	static const char *const names[] = { NCU_REPORT, NCU_RAW_PAGE, NCU_SOURCE_PAGE, NCU_TIMING,
		NCU_TIMING_MANGLED, NCU_TOP, NCU_REPORT_REP NCU_REP_EXT, NCU_TIMING_REP NCU_REP_EXT,
		NCU_REPORT_MANGLED, NCU_RANKING, NCU_DETAILED, NCU_TIMINGS, NCU_LAUNCH_LOG, NCU_GATE_LOG,
		NCU_RANGE_REQ, NCU_RANGE_ACK, NCU_TIMING_REQ, NCU_TIMING_ACK, NCU_TIMING_RANGE_REQ,
		NCU_TIMING_RANGE_ACK, NCU_XLA_RESULTS, NCU_TIMELINE, NCU_EARLY_LOG,
		NCU_EARLY_REP NCU_REP_EXT, NULL };
	static const char *const globs[] = { NCU_REPORT_REP ".[0-9]*" NCU_REP_EXT,
		"ncu_*.csv.[0-9]*", NCU_TRACE_DIR "/*", NULL };
	char *p;
	size_t i;

	for (i = 0; names[i]; i++) {
		p = ncu_out_path(c, names[i]);
		unlink(p);
		free(p);
	}
	for (i = 0; globs[i]; i++)
		remove_glob(c, globs[i]);
	p = ncu_out_path(c, NCU_TRACE_DIR);
	rmdir(p);
	free(p);
}

/* The arguments: NCU DIR TOP SELECT, then "-+", then "--" with a command. */
static void
parse(struct ncu_chain *c, int argc, char **argv)
{
	int i, plus = -1, dash = -1;
	char *end;

	if (argc < 7)
		usage();
	c->ncu = argv[1];
	c->dir = argv[2];
	c->select = argv[4];
	if (argv[3][0] == '\0' || strspn(argv[3], "0123456789") != strlen(argv[3]))
		usage();
	c->top = strtol(argv[3], &end, 10);
	for (i = 5; i < argc; i++) {
		if (plus < 0 && strcmp(argv[i], "-+") == 0)
			plus = i;
		else if (plus >= 0 && dash < 0 && strcmp(argv[i], "--") == 0)
			dash = i;
	}
	if (plus < 0 || dash < 0 || dash == argc - 1)
		usage();
	if (strchr(c->dir, '\n')) {
		fprintf(stderr, "kf-ncu: DIR may not hold a line end: %s\n", c->dir);
		exit(2);
	}
	c->targs = argv + 5;
	c->ntargs = plus - 5;
	c->dargs = argv + plus + 1;
	c->ndargs = dash - plus - 1;
	c->cmd = argv + dash + 1;
	c->ncmd = argc - dash - 1;
}

/* A TIMING_ARG sets ncu's --cache-control. */
static int
sets_cache(const struct ncu_chain *c)
{
	int i;

	for (i = 0; i < c->ntargs; i++)
		if (strcmp(c->targs[i], "--cache-control") == 0 ||
		    strncmp(c->targs[i], "--cache-control=", 16) == 0)
			return 1;
	return 0;
}

/* No DETAIL_ARG decides how ncu starts the program. */
static int
may_hold(const struct ncu_chain *c)
{
	static const char *const opts[] = { "--mode", "--port", "-p", "--max-connections",
		"--hostname", "--replay-mode", "--target-processes", NULL };
	int i, j;

	for (i = 0; i < c->ndargs; i++) {
		const char *a = c->dargs[i];

		if (strncmp(a, "--app-replay-", 13) == 0 || strncmp(a, "--range-replay-", 15) == 0)
			return 0;
		for (j = 0; opts[j]; j++) {
			size_t n = strlen(opts[j]);

			if (strncmp(a, opts[j], n) == 0 && (a[n] == '\0' || (a[n] == '=' && j != 2)))
				return 0;
		}
	}
	return 1;
}

/* The filter's lines as NUL-separated words in c->sel. */
static void
sel_words(struct ncu_chain *c)
{
	size_t i;

	while (c->sel.len && c->sel.s[c->sel.len - 1] == '\n')
		c->sel.len--;
	for (i = 0; i < c->sel.len; i++)
		if (c->sel.s[i] == '\n')
			c->sel.s[i] = '\0';
	if (c->sel.s)
		c->sel.s[c->sel.len] = '\0';
}

/* XLA's autotuning, from the timing run to the detailed run. Under ncu,
 * XLA's autotuning crashed the detailed run or never ended (a Flax CNN on
 * the H200, ncu 2025.3.1); with it off XLA chose other convolutions than
 * the timing run had. XLA writes the results of its autotuning to a file
 * (--xla_gpu_dump_autotune_results_to) and a later run loads them
 * (--xla_gpu_load_autotune_results_from): that run autotunes nothing and
 * runs the kernels the first chose. So the traced timing run dumps them
 * into DIR/xla_autotune.txt, and the held program, started before the
 * timing run tells whether it is XLA's, gets the flags that load them and
 * turn command buffers off. None when the program's own XLA_FLAGS dump or
 * load results (theirs stand), when KF_NCU_XLA_FLAGS is set, or when
 * DIR's path holds a blank, quote or backslash (XLA splits XLA_FLAGS at
 * blanks). A program that is not XLA's reads no XLA_FLAGS. */
static void
xla_plan(struct ncu_chain *c)
{
	struct buf b = {0};
	char *cwd;

	if (getenv("KF_NCU_XLA_FLAGS"))
		return;
	if (!xla_set("--xla_gpu_dump_autotune_results_to") &&
	    !xla_set("--xla_gpu_load_autotune_results_from")) {
		if (c->dir[0] == '/') {
			c->xla_res = ncu_out_path(c, NCU_XLA_RESULTS);
		} else if ((cwd = getcwd(NULL, 0)) != NULL) {
			c->xla_res = xasprintf("%s/%s/%s", cwd, c->dir, NCU_XLA_RESULTS);
			free(cwd);
		}
		if (c->xla_res && strpbrk(c->xla_res, " \t\"'\\")) {
			free(c->xla_res);
			c->xla_res = NULL;
		}
	}
	if (c->xla_res)
		buf_printf(&b, "--xla_gpu_load_autotune_results_from=%s", c->xla_res);
	if (!xla_set("--xla_gpu_enable_command_buffer"))
		buf_printf(&b, "%s--xla_gpu_enable_command_buffer=", b.len ? " " : "");
	c->held_xla = b.len ? buf_take(&b) : (buf_free(&b), NULL);
}

/* XLA_FLAGS in env: the program's own and more. */
static void
xla_flags_add(struct kf_env *env, const char *more)
{
	const char *own = getenv("XLA_FLAGS");
	char *v = own && *own ? xasprintf("%s %s", own, more) : xstrdup(more);

	kf_env_set(env, "XLA_FLAGS", v);
	free(v);
}

/* JAX's memory pool not taken whole at its start unless the program's
 * environment says: JAX takes 75% of the GPU's memory in one allocation,
 * and ncu saves and restores the memory a kernel can write for each of its
 * passes ("Backing up device memory in system memory"): the Flax CNN's held
 * detailed run on the H200 profiled two convolutions and then no more in
 * 142 s. */
static const char *
xla_memory(struct kf_env *env)
{
	if (getenv("XLA_PYTHON_CLIENT_PREALLOCATE"))
		return NULL;
	kf_env_set(env, "XLA_PYTHON_CLIENT_PREALLOCATE", "false");
	return "XLA_PYTHON_CLIENT_PREALLOCATE=false";
}

/* The timing run ran XLA's kernels (JAX, TensorFlow): its fusions or its
 * autotuner's, by name in the timing CSV. */
static int
xla_kernels(const struct ncu_chain *c)
{
	char *p = ncu_out_path(c, NCU_TIMING);
	struct kf_lines l;
	int found = 0, i;

	if (kf_lines_open(&l, p) == 0) {
		while (!found && kf_lines_next(&l) > 0)
			for (i = 0; xla_marks[i] && !found; i++)
				found = strstr(l.s, xla_marks[i]) != NULL;
		kf_lines_close(&l);
	}
	free(p);
	return found;
}

/* The detailed run of a program whose timing run ran XLA's kernels loads
 * the timing run's autotuning results with command buffers off
 * (c->held_xla: the held program was started with them), held or after
 * the timing run. Without results, a held program is let go, and the
 * detailed run alone, after the timing run, gets each of KF_NCU_XLA_FLAGS
 * (XLA_FALLBACK) that XLA_FLAGS does not set already: attached to when
 * held with autotuning on, ncu profiled no kernel in 100 s. */
static void
xla_detail(struct ncu_chain *c)
{
	const char *flags = getenv("KF_NCU_XLA_FLAGS");
	struct buf add = {0}, why = {0};
	char *words, *w, *save = NULL, *name;
	int loaded = (c->xla_res && ncu_file_nonempty(c->xla_res)) ||
	    xla_set("--xla_gpu_load_autotune_results_from");

	if (c->traced && loaded && flags == NULL) {
		c->xla_add = c->held_xla ? xstrdup(c->held_xla) : NULL;
		if (c->held < 0)
			fprintf(stderr, "kf-ncu: the timing run ran XLA's kernels: the detailed run "
			    "loads its autotuning results%s%s%s\n", c->xla_add ? " (XLA_FLAGS+=\"" : "",
			    c->xla_add ? c->xla_add : "", c->xla_add ? "\")" : "");
	} else {
		words = xstrdup(flags ? flags : XLA_FALLBACK);
		for (w = strtok_r(words, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
			if (strpbrk(w, "\"\\")) {
				fprintf(stderr, "kf-ncu: KF_NCU_XLA_FLAGS: %s holds a quote or "
				    "backslash: not used\n", w);
				continue;
			}
			if (strncmp(w, "--xla_", 6) != 0) {
				fprintf(stderr, "kf-ncu: KF_NCU_XLA_FLAGS: %s is not an XLA flag "
				    "(--xla_...): not used\n", w);
				continue;
			}
			name = xstrndup(w, strcspn(w, "="));
			if (!xla_set(name))
				buf_printf(&add, "%s%s", add.len ? " " : "", w);
			free(name);
		}
		free(words);
		c->xla_add = add.len ? buf_take(&add) : (buf_free(&add), NULL);
		buf_printf(&why, "the timing run ran XLA's kernels and left no autotuning results "
		    "to load: the detailed run comes after it%s%s%s (ncu did not profile a held "
		    "XLA program, and crashed on XLA's command buffers and autotuning)",
		    c->xla_add ? ", with XLA_FLAGS+=\"" : "", c->xla_add ? c->xla_add : "",
		    c->xla_add ? "\"" : "");
		ncu_held_stop(c, why.s);
		buf_free(&why);
	}
	if (c->xla_add)
		xla_flags_add(&c->env, c->xla_add);
	c->xla_mem = xla_memory(&c->env);
}

/* The tracer's file: KF_TRACE_LIB, else libkftrace.so beside kf-ncu. */
static char *
tracer_path(void)
{
	const char *t = getenv("KF_TRACE_LIB");

	return t && *t ? xstrdup(t) : kf_path_join(kf_exe_dir(), NCU_TRACER_LIB);
}

/* A timing run of argv under the GPU's lock, timed: its status. Under
 * kf's tracer (asks: the tracer's gate, lib/trace/inject) the lock is
 * taken when the program's first CUDA call asks for it, so that its
 * start-up before it runs beside other jobs' profiling, as the held
 * detailed run's does (asks 1); else from the start (0). With the range
 * gate too (asks 2, where ncu_range_env gives one) it is taken shared
 * there, beside other jobs' work outside their ranges, and alone while the
 * program's range runs; *unseen is set when no range asked for it (the
 * launches ran beside other jobs' work: the run is to be taken again
 * without the range gate). env gets the gates' variables. */
static int
timing_run(struct ncu_chain *c, char **argv, struct kf_env *env, int asks, int *unseen)
{
	const char *lock = getenv("KF_NCU_GPU_LOCK");
	char *req = NULL, *ack = NULL, *pid = NULL;
	double t, waited = 0, asked = 0, range_at = 0, range_wait = 0, held_wait = 0, held_at = 0;
	struct ncu_range r = {0};
	int h, got, ranged = 0;
	const char **v;

	*unseen = 0;
	c->timing_range_at = 0;
	if (lock == NULL || *lock == '\0')
		asks = 0;
	if (asks) {
		req = ncu_out_path(c, NCU_TIMING_REQ);
		ack = ncu_out_path(c, NCU_TIMING_ACK);
		pid = xasprintf("%ld", (long)getpid());
		unlink(req);
		unlink(ack);
		kf_env_set(env, "KF_TRACE_GPU_REQ", req);
		kf_env_set(env, "KF_TRACE_GPU_ACK", ack);
		kf_env_set(env, "KF_TRACE_GPU_PID", pid);
		if (asks == 2 && ncu_range_env(c, NCU_TIMING_RANGE_REQ, NCU_TIMING_RANGE_ACK, &r) == 0)
			ranged = 1;
		for (v = r.env; ranged && v[0]; v += 2)
			kf_env_set(env, v[0], v[1]);
	} else if (ncu_gpu_lock(&waited) != 0) {
		ncu_chain_stopped(c);
	}
	t = kf_now();
	h = ncu_proc_start(argv, env, STDIN_FILENO, -1, -1, 0);
	while ((got = ncu_proc_wait(h, kf_now() + (asks ? 0.01 : 1))) == 0) {
		int busy = 0;

		if (asks && asked == 0 && ncu_file_nonempty(req)) {
			asked = kf_now();
			if (ncu_gpu_grant(ack, ranged ? LOCK_SH : LOCK_EX, &waited) != 0)
				ncu_chain_stopped(c);
		}
		/* the held program attached early works before its range: the
		 * timing run's range waits until it reaches it */
		if (ranged && !r.alone && (busy = ncu_early_busy(c, &r)) < 0) {
			ncu_held_stop(c, NULL);
			busy = 0;
		}
		if (busy && held_at == 0)
			held_at = kf_now();
		else if (!busy && held_at > 0)
			held_wait += kf_now() - held_at, held_at = 0;
		if (ranged && asked > 0 && !busy &&
		    ncu_range_poll(&r, &range_at, &range_wait) != 0)
			ncu_chain_stopped(c);
		if (ranged)
			ncu_early_poll(c);
	}
	if (got < 0)
		ncu_chain_stopped(c);
	if (held_at > 0)
		held_wait += kf_now() - held_at;
	if (held_wait > 0)
		ncu_time_add(c, "early_wait_s", held_wait);
	/* the held program, attached early, may still work before its range */
	if (c->early >= 0 && c->held >= 0 && !ncu_proc_done(c->held))
		ncu_gpu_share();
	else
		ncu_gpu_unlock();
	ncu_time_add(c, "gpu_wait_s", waited + range_wait);
	if (ranged) {
		ncu_time_add(c, "range_wait_s", range_wait);
		/* of the program's time from its first CUDA call, its work
		 * before its range, beside other jobs' such work */
		if (range_at > asked && asked > 0)
			ncu_time_add(c, "timing_before_range_s", range_at - asked - waited);
		*unseen = asked > 0 && range_at == 0;
		c->timing_range_at = range_at;
		ncu_range_done(&r, 1);
	}
	/* the program's own time: a wait for the GPU at its first CUDA call
	 * is the wait's */
	if (asked == 0)
		waited = 0;
	c->timing_s = lround(kf_now() - t - waited - range_wait - held_wait);
	ncu_time_add(c, "timing_run_s", kf_now() - t - waited - range_wait - held_wait);
	/* the program's start-up, off the GPU's time */
	if (asked > 0)
		ncu_time_add(c, "timing_before_cuda_s", asked - t);
	free(req);
	free(ack);
	free(pid);
	return ncu_proc_status(h);
}

/* After a timing run that failed and left no trace (no process of it
 * started CUDA under kf's tracer): whether the held program, started
 * beside it under ncu without the tracer, ended too without reaching CUDA
 * (it never listened), looked at for up to the timing run's seconds and 5
 * more. Then the failure is the program's own, not the tracer's. */
static int
held_ended_before_cuda(struct ncu_chain *c)
{
	double until = kf_now() + (double)c->timing_s + 5;
	int port;

	while (c->held >= 0 && kf_now() < until) {
		if (ncu_ports_used(c->port, c->port + NCU_NPORTS - 1, 1, &port, 1) > 0)
			return 0;
		if (ncu_proc_done(c->held))
			return 1;
		if (ncu_proc_sleep(0.02) != 0)
			ncu_chain_stopped(c);
	}
	return 0;
}

/* The timing run under kf's tracer, the program alone: 0 with c->sel the
 * choice, -1 when the trace gave nothing to choose from (ncu times it
 * again), or -2 when the program failed where no run could time it
 * (c->timing_st its status). */
static int
timing_traced(struct ncu_chain *c, const char *tracer)
{
	const struct kf_profiler *tp = kf_profiler_find("trace");
	char *tdir = ncu_out_path(c, NCU_TRACE_DIR), **argv, *pat;
	struct kf_env env = {0};
	double t;
	glob_t g;
	int st, ok, sel, traced, unseen, gates;

	argv = ncu_argv(c, NULL, 0, 0, 1) + 1;	/* the command alone */
	for (gates = 2;;) {
		kf_env_build(&env, c->env.v, NULL);
		kf_env_set(&env, "CUDA_INJECTION64_PATH", tracer);
		kf_env_set(&env, "KF_TRACE_DIR", tdir);
		if (c->xla_res) {
			char *f = xasprintf("--xla_gpu_dump_autotune_results_to=%s", c->xla_res);

			xla_flags_add(&env, f);
			free(f);
		}
		st = timing_run(c, argv, &env, gates, &unseen);
		kf_env_free(&env);
		/* A timing run that failed before its range ran (so no range
		 * asked: unseen), while the held program, attached early, worked
		 * beside it on the GPU: where that program then reaches its range
		 * (or does not end in the timing run's seconds and 10 more), the
		 * failure may be the two at once (the GPU's memory is shared):
		 * taken again alone. Where it ends too, the failure is the
		 * program's own; one in or after the range came with the held
		 * program waiting at its own, as other jobs' programs wait at
		 * theirs. */
		if (st != 0 && c->early >= 0 && c->timing_range_at == 0) {
			int e = ncu_early_settle(c, kf_now() + (double)c->timing_s + 10);

			if (e == -2)
				ncu_chain_stopped(c);
			if (e != 0) {
				char *why = xasprintf("the timing run failed (status %d) before its "
				    "profiler range while the program held for ncu worked beside it on "
				    "the GPU, and that program %s: the timing run is taken again alone, "
				    "and the detailed run comes after it", st,
				    e == 1 ? "reached its profiler range" : "did not end");

				ncu_held_stop(c, why);
				free(why);
				/* kept shared for the held program: the run taken again
				 * asks at its first CUDA call */
				ncu_gpu_unlock();
				ncu_time_add(c, "early_retaken", 1);
				remove_glob(c, NCU_TRACE_DIR "/*");
				continue;
			}
		}
		if (!unseen)
			break;
		/* A range kf's gate cannot see (CUDA's runtime linked in
		 * statically), or none: the program's launches ran with the
		 * GPU's lock held shared, beside other jobs' work. A program
		 * that failed is not run again for that (a sweep of broken
		 * candidates would pay each twice): it is said. */
		if (st != 0) {
			fprintf(stderr, "kf-ncu: the timing run's program failed (status %d) after "
			    "it reached CUDA and before any profiler range of it asked for the GPU "
			    "(KF_NCU_RANGE): its launches ran beside other jobs' work before their "
			    "ranges, and it is not run again\n", st);
			break;
		}
		/* The held program, the same program, has no range kf sees
		 * either: held, its launches would run beside other jobs' work
		 * and be taken again for that. */
		if (c->held >= 0 && c->held_ranged)
			ncu_held_stop(c, "the program held for ncu is let go: its timing run showed no "
			    "profiler range kf can see, so the detailed run comes after the timing run, "
			    "with the GPU held throughout");
		fprintf(stderr, "kf-ncu: the timing run's program reached CUDA and no profiler "
		    "range of it asked for the GPU (KF_NCU_RANGE: a range kf cannot see, as with "
		    "CUDA's runtime linked statically, or none); the timing run is taken again "
		    "with the GPU held from its first CUDA call\n");
		ncu_time_add(c, "range_unseen", 1);
		remove_glob(c, NCU_TRACE_DIR "/*");
		gates = 1;
	}
	free(argv - 1);

	t = kf_now();
	traced = kf_is_dir(tdir);
	sel = !traced || tp == NULL || tp->select == NULL ? 1 :
	    tp->select(c->top, tdir, KF_SELECT_WRITE, &c->sel);
	ok = sel == 0;
	ncu_time_add(c, "choose_s", kf_now() - t);
	if (!ok) {
		const char *own = NULL;

		/* A failed program that no run could time: not run again. */
		if (st != 0 && sel == KF_SELECT_NONE)
			own = "under kf's tracer, which saw each of its processes to its exit and "
			    "no kernel launch";
		else if (st != 0 && !traced && held_ended_before_cuda(c))
			own = "before its first CUDA call, under kf's tracer and, beside it, "
			    "under ncu alike";
		buf_reset(&c->sel);
		free(tdir);
		if (own) {
			ncu_held_drop(c);
			fprintf(stderr, "kf-ncu: the program exited with status %d %s: there is "
			    "nothing to time or detail, so it is not run again\n", st, own);
			c->timing_st = st;
			return -2;
		}
		ncu_held_stop(c, NULL);
		fprintf(stderr, "kf-ncu: the tracer's timing run (status %d) %s; timing with "
		    "ncu\n", st, traced ? "gave no kernel to choose from" :
		    "made no CUDA call that kf's tracer saw");
		return -1;
	}
	c->traced = 1;
	c->timing_st = st;
	c->timed_by = "trace";
	pat = xasprintf("%s/trace.*", tdir);
	c->procs = 0;
	if (glob(pat, GLOB_NOESCAPE, NULL, &g) == 0) {
		c->procs = (int)g.gl_pathc;
		globfree(&g);
	}
	free(pat);
	free(tdir);
	if (c->procs > NCU_NPORTS && c->held >= 0) {
		char *why = xasprintf("the timing run traced %d processes, and kf holds at most %d "
		    "for ncu to attach to: the detailed run comes after it", c->procs, NCU_NPORTS);

		ncu_held_stop(c, why);
		free(why);
	} else if (c->procs > 1 && c->early >= 0) {
		char *why = xasprintf("the timing run traced %d processes, and the program held for "
		    "ncu was attached early in one: the detailed run comes after it", c->procs);

		ncu_held_stop(c, why);
		free(why);
	}
	return 0;
}

/* ncu's timing run, its details page exported, and the choice: 0, or the
 * status to exit with. */
static int
timing_ncu(struct ncu_chain *c)
{
	const char *pre[8] = { "-o", NULL, "-f", timing_pre[0], timing_pre[1], NULL, NULL, NULL };
	char *out = ncu_out_path(c, NCU_TIMING_REP), *rep, *csv, **argv;
	double t;
	int st, unseen;

	pre[1] = out;
	if (!sets_cache(c)) {
		pre[5] = "--cache-control";
		pre[6] = "none";
	}
	argv = ncu_argv(c, pre, 0, 't', 1);
	st = timing_run(c, argv, &c->env, 0, &unseen);
	free(argv);
	free(out);
	/* A program that fails after its kernels still leaves their times. */
	rep = ncu_out_path(c, NCU_TIMING_REP NCU_REP_EXT);
	if (!kf_is_file(rep)) {
		fprintf(stderr, "kf-ncu: timing run failed: %s --metrics gpu__time_duration.sum "
		    "exited with status %d and left no %s\n", c->ncu, st, rep);
		free(rep);
		return st ? st : 1;
	}
	free(rep);
	c->timing_st = st;
	if ((st = ncu_export_timing(c)) != 0)
		return st;
	t = kf_now();
	csv = ncu_out_path(c, NCU_TIMING);
	st = ncu_select(c->top, csv, KF_SELECT_WRITE, &c->sel);
	ncu_time_add(c, "choose_s", kf_now() - t);
	if (st != 0) {
		fprintf(stderr, "kf-ncu: no kernel to detail in %s\n", csv);
		free(csv);
		return st;
	}
	free(csv);
	return 0;
}

/* The chain's end: its account, NCU_DONE, its ports let go. */
static int
finish(struct ncu_chain *c, int st, int done)
{
	ncu_timings_write(c);
	if (done)
		ncu_out("NCU_DONE\n", 9);
	ncu_ports_release(c);
	return st;
}

static void
chain_free(struct ncu_chain *c)
{
	kf_env_free(&c->env);
	buf_free(&c->sel);
	cJSON_Delete(c->attempts);
	cJSON_Delete(c->timings);
	free(c->xla_res);
	free(c->held_xla);
	free(c->xla_add);
	free(c->port_lock);
	free(c->own_dargs);
	free(c->sections);
	ncu_range_done(&c->held_range, 1);
}

static void
release_at_exit(void)
{
	if (the_chain)
		ncu_ports_release(the_chain);
}

static int
chain(struct ncu_chain *c)
{
	const char *ov = getenv("KF_NCU_OVERLAP"), *tm = getenv("KF_NCU_TIMING");
	int overlap = ov == NULL || strcmp(ov, "0") != 0, st;
	char *tracer = tracer_path();

	remove_stale(c);
	/* Triton's autotuner keeps its results on disk (in TRITON_CACHE_DIR)
	 * and a later run loads them: the detailed run then runs the
	 * configuration the timing run chose, not the candidates. */
	if (c->top > 0 && getenv("TRITON_CACHE_AUTOTUNING") == NULL) {
		kf_env_set(&c->env, "TRITON_CACHE_AUTOTUNING", "1");
		c->triton_env = "TRITON_CACHE_AUTOTUNING=1";
	}
	if (c->top > 0 && !(tm && strcmp(tm, "ncu") == 0) && kf_is_file(tracer)) {
		xla_plan(c);
		if (overlap && ncu_ports_readable() && may_hold(c) && ncu_ports_claim(c) == 0) {
			c->held_ranged = ncu_range_env(c, NCU_RANGE_REQ, NCU_RANGE_ACK,
			    &c->held_range) == 0;
			ncu_held_start(c, 1, c->held_ranged ? c->held_range.env : NULL);
		}
		if (timing_traced(c, tracer) == -2) {
			free(tracer);
			return finish(c, c->timing_st, 0);
		}
	}
	free(tracer);
	if (c->top > 0 && !c->traced && (st = timing_ncu(c)) != 0)
		return finish(c, st, 0);
	sel_words(c);
	if (c->top > 0 && xla_kernels(c))
		xla_detail(c);

	if (ncu_sampled_sections(c) != 0)
		return finish(c, 1, 0);
	c->detail_start = kf_now();
	if (c->top > 0)
		ncu_detail_top(c);
	else if (getenv("KF_NCU_GPU_LOCK") && *getenv("KF_NCU_GPU_LOCK") && overlap &&
	    ncu_ports_readable() && may_hold(c) && ncu_held_run(c) == 0)
		;
	else
		c->st = ncu_detail_run(c, STDIN_FILENO, 0);
	if (!ncu_have_report(c)) {
		fprintf(stderr, "kf-ncu: the detailed run left no report: %s exited with status %d\n",
		    c->ncu, c->st);
		/* With --top the timing run measured every launch: its ranking
		 * is kept (kf-read), and the status is the program's own, that
		 * run's; what the detailed run did is in ncu_detailed.json. */
		if (c->top > 0)
			return finish(c, c->timing_st, 1);
		/* Without it, ncu's status (the program's, which ncu and a
		 * held program's ncu exit with): 0 for a program that ran well
		 * and launched nothing ncu profiled, as kf-read then says. */
		return finish(c, c->st, 0);
	}
	if ((st = ncu_export_report(c)) != 0)
		return finish(c, st, 0);
	/* With --top the detailed run ends the program once the chosen
	 * launches are profiled (--kill, and ncu exits 0): the timing run's
	 * status is the program's. */
	return finish(c, c->top > 0 ? c->timing_st : c->st, 1);
}

int
ncu_chain_main(int argc, char **argv)
{
	struct ncu_chain c;
	int st;

	if (argc > 1 && strcmp(argv[1], "--import") == 0)
		return ncu_import_main(argc - 1, argv + 1);
	memset(&c, 0, sizeof c);
	parse(&c, argc, argv);
	c.held = -1;
	c.early = -1;
	c.timed_by = "ncu";
	c.procs = 1;
	c.t0 = kf_now();
	c.timings = cJSON_CreateObject();
	c.attempts = cJSON_CreateArray();
	kf_env_build(&c.env, environ, NULL);
	ncu_proc_init();
	the_chain = &c;
	atexit(release_at_exit);
	st = chain(&c);
	the_chain = NULL;
	chain_free(&c);
	return st;
}
