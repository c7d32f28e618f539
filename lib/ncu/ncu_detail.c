/* kf-ncu's detailed run. Most of a run under ncu is the program's start
 * before its first CUDA call (ResNet-50 on the H200: 11.5 s of 17.7). ncu
 * --mode launch starts the program and holds it at that call, with no GPU
 * work, until ncu --mode attach connects to it on its port. So with the
 * tracer the detailed run is launched as the timing run starts, and ncu
 * attaches with the chosen filters when it ends, once to each process the
 * timing run traced: ncu holds each process of the program at its first
 * CUDA call on its own port (two workers on the H200: 22.4 s against 9.6 s
 * alone, and 34.2 s with the detailed run after the timing run; one attach
 * for both found one process). It is run after the timing run, as without
 * the tracer, when the timing run traced more than NCU_NPORTS processes,
 * when the held program ends or fails to reach CUDA in time, when ncu
 * cannot attach, with KF_NCU_OVERLAP=0, where /proc/net/tcp does not say
 * which ports listen, and with DETAIL_ARGs that decide how ncu starts the
 * program (--replay-mode, --target-processes, --mode, ports). The held
 * program has no standard input (the timing run has it), and its output is
 * printed once it ends.
 *
 * With --top the detailed run is bounded (KF_NCU_DETAIL_TIMEOUT, else twice
 * the timing run's seconds plus 120): a run that hangs (XLA's autotuning
 * under ncu printed "Failed to prepare kernel for profiling" and never
 * ended) must not take the timing run with it.
 *
 * Under a sweep's late GPU lock (KF_NCU_GPU_LOCK, the lock file of the
 * job's GPU, set by pipelines/kf-gpu-lock -l) each profiled run holds it,
 * from its start, or its attach, to the end of the program: not the held
 * program's start-up, nor ncu's writing of the report, nor the exports.
 * With the range gate (KF_NCU_RANGE=1, or unset with --top, and ncu's
 * --profile-from-start off: the program profiles only its own profiler
 * range) it is held shared from the program's first CUDA call, beside
 * other jobs' work outside their ranges, and exclusive while a range runs
 * (lib/ncu/gate). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_chain.h"
#include "num.h"
#include "path.h"
#include "proc.h"
#include "record.h"

#define POLL 0.02		/* seconds between looks at the ports */
#define KILL_WAIT 10.0		/* for the program ncu ends after --kill */
#define LINGER_WAIT 10.0	/* for an attach whose program has ended and
				 * whose report is written */
#define HELD_END_S 5.0		/* for a held program once its attach has ended */
#define EARLY_CONNECT_MAX 30.0	/* for the detailing attach to connect, after an early one */


int
ncu_have_report(const struct ncu_chain *c)
{
	char *p = ncu_out_path(c, NCU_REPORT_REP NCU_REP_EXT);
	int ok = kf_is_file(p) || c->parts > 0;

	free(p);
	return ok;
}

int
ncu_held_start(struct ncu_chain *c, int top_path, const char *const *extra)
{
	char port[16], maxc[16], *log = ncu_out_path(c, NCU_LAUNCH_LOG), **argv;
	const char *pre[] = { "--mode", "launch", "--port", port, "--max-connections", maxc,
		top_path ? "--target-processes" : NULL, "all", NULL };
	struct kf_env env = {0};
	int fd;

	snprintf(port, sizeof port, "%d", c->port);
	snprintf(maxc, sizeof maxc, "%s", top_path ? "8" : NCU_HELD_MAXC);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		kf_warn("cannot write %s:", log);
		free(log);
		ncu_ports_release(c);
		return -1;
	}
	kf_env_build(&env, c->env.v, NULL);
	if (top_path) {
		const char *own = getenv("XLA_FLAGS");

		if (c->held_xla) {
			char *v = own && *own ? xasprintf("%s %s", own, c->held_xla) :
			    xstrdup(c->held_xla);

			kf_env_set(&env, "XLA_FLAGS", v);
			free(v);
		}
		if (!getenv("XLA_PYTHON_CLIENT_PREALLOCATE"))
			kf_env_set(&env, "XLA_PYTHON_CLIENT_PREALLOCATE", "false");
	}
	for (; extra && extra[0] && extra[1]; extra += 2)
		kf_env_set(&env, extra[0], extra[1]);
	argv = ncu_argv(c, pre, 0, 0, 1);
	c->held = ncu_proc_start(argv, &env, -1, fd, fd, 0);
	close(fd);
	free(argv);
	kf_env_free(&env);
	free(log);
	return 0;
}

void
ncu_held_stop(struct ncu_chain *c, const char *why)
{
	char *log;

	if (c->held < 0)
		return;
	ncu_proc_end(c->held);
	c->held = -1;
	ncu_early_end(c);
	log = ncu_out_path(c, NCU_LAUNCH_LOG);
	ncu_out_file(log);
	unlink(log);
	free(log);
	ncu_ports_release(c);
	if (why && *why)
		fprintf(stderr, "kf-ncu: %s\n", why);
}

void
ncu_held_drop(struct ncu_chain *c)
{
	char *p;

	if (c->held >= 0)
		ncu_proc_end(c->held);
	c->held = -1;
	ncu_early_end(c);
	ncu_gpu_unlock();
	p = ncu_out_path(c, NCU_LAUNCH_LOG);
	unlink(p);
	free(p);
	p = ncu_out_path(c, NCU_REPORT_REP NCU_REP_EXT);
	unlink(p);
	free(p);
	ncu_ports_release(c);
}

static void
attempt_failed(struct ncu_chain *c, const char *status, int code)
{
	cJSON *a = cJSON_CreateObject();

	cJSON_AddBoolToObject(a, "overlapped", 1);
	cJSON_AddStringToObject(a, "status", status);
	cJSON_AddNumberToObject(a, "exit_code", code);
	cJSON_AddNumberToObject(a, "seconds", (double)lround(kf_now() - c->detail_start));
	cJSON_AddItemToArray(c->attempts, a);
}

void
ncu_detail_account(struct ncu_chain *c, const char *status, int code)
{
	cJSON *o = cJSON_CreateObject();
	const char *xa = NULL;
	char *p = ncu_out_path(c, NCU_DETAILED), *text;
	FILE *f;

	if (c->xla_add && strstr(c->xla_add, "--xla_gpu_load_autotune_results_from="))
		xa = "loaded";
	else if (c->xla_add && (strcmp(c->xla_add, "--xla_gpu_autotune_level=0") == 0 ||
	    strstr(c->xla_add, "--xla_gpu_autotune_level=0 ") ||
	    kf_endswith(c->xla_add, " --xla_gpu_autotune_level=0")))
		xa = "off";
	cJSON_AddStringToObject(o, "status", status);
	cJSON_AddNumberToObject(o, "exit_code", code);
	cJSON_AddNumberToObject(o, "seconds", (double)lround(kf_now() - c->detail_start));
	cJSON_AddNumberToObject(o, "limit_s", (double)c->limit);
	cJSON_AddNumberToObject(o, "timing_s", (double)c->timing_s);
	cJSON_AddBoolToObject(o, "report", ncu_have_report(c));
	cJSON_AddBoolToObject(o, "overlapped", c->attached);
	cJSON_AddNumberToObject(o, "attached_processes", c->attached_procs);
	cJSON_AddNumberToObject(o, "timing_exit_code", c->timing_st);
	cJSON_AddStringToObject(o, "timing", c->timed_by);
	cJSON_AddItemToObject(o, "attempts", cJSON_Duplicate(c->attempts, 1));
	cJSON_AddItemToObject(o, "xla_flags_added", c->xla_add ?
	    cJSON_CreateString(c->xla_add) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "xla_autotune", xa ? cJSON_CreateString(xa) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "xla_env_added", c->xla_mem ?
	    cJSON_CreateString(c->xla_mem) : cJSON_CreateNull());
	cJSON_AddItemToObject(o, "triton_env_added", c->triton_env ?
	    cJSON_CreateString(c->triton_env) : cJSON_CreateNull());
	text = cJSON_PrintUnformatted(o);
	if ((f = fopen(p, "w")) == NULL || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0)
		kf_warn("cannot write %s:", p);
	free(text);
	free(p);
	cJSON_Delete(o);
}

int
ncu_detail_run(struct ncu_chain *c, int stdin_fd, long limit)
{
	char *out = ncu_out_path(c, NCU_REPORT_REP), **argv;
	const char *pre[] = { "-o", out, "-f", "--import-source", "yes", NULL };
	double t, waited;
	int h, got;

	argv = ncu_argv(c, pre, 1, 'd', 1);
	if (ncu_gpu_lock(&waited) != 0)
		ncu_chain_stopped(c);
	ncu_time_add(c, "gpu_wait_s", waited);
	t = c->detail_at = kf_now();
	ncu_proc_marks_reset();
	h = ncu_proc_start(argv, &c->env, stdin_fd, -1, -1, 1);
	got = ncu_proc_wait(h, limit > 0 ? t + (double)limit : INFINITY);
	c->program_end = kf_now();
	if (got < 0)
		ncu_chain_stopped(c);
	if (got == 0) {
		c->timed_out = 1;
		ncu_proc_end(h);
	}
	ncu_gpu_unlock();
	ncu_time_add(c, "detailed_s", kf_now() - t);
	free(argv);
	free(out);
	return ncu_proc_status(h);
}

/* The choice for one process at a time: one launch of each chosen kernel
 * (ncu_top.json's ranking, NCU_RANKING). 0, or -1. */
static int
per_process_sel(struct ncu_chain *c, struct buf *asel)
{
	char *rk = ncu_out_path(c, NCU_RANKING);
	size_t i;
	int st = ncu_select(c->top, rk, KF_SELECT_PER_PROCESS, asel);

	free(rk);
	if (st != 0)
		return -1;
	while (asel->len && asel->s[asel->len - 1] == '\n')
		asel->len--;
	for (i = 0; i < asel->len; i++)
		if (asel->s[i] == '\n')
			asel->s[i] = '\0';
	if (asel->s)
		asel->s[asel->len] = '\0';
	return 0;
}

/* The report of the attach to the i-th process (from 0) that listened. */
static char *
attach_report(const struct ncu_chain *c, int i)
{
	return c->procs <= 1 ? ncu_out_path(c, NCU_REPORT_REP NCU_REP_EXT) :
	    xasprintf("%s/%s.%d%s", c->dir, NCU_REPORT_REP, i + 1, NCU_REP_EXT);
}

/* Whether the held program's range may be had: at once, or, where it was
 * attached early and waits at its range's start, once the detailing
 * attach (handle a, started at first) has connected (or ended, or had
 * EARLY_CONNECT_MAX s): its range must not run unprofiled. */
static int
range_may(int early, int a, double first)
{
	double connected, dt;

	if (!early)
		return 1;
	if (a < 0)
		return 0;
	ncu_proc_marks(&connected, &dt, &dt);
	return connected > 0 || ncu_proc_done(a) || kf_now() - first >= EARLY_CONNECT_MAX;
}

/* The detailed run on the held program: one attach for each of the
 * c->procs processes the timing run traced, each started once its process
 * listens on its port (it may still be starting: up to the timing run's
 * seconds plus 30 more), all under the detailed run's limit and the GPU's
 * lock. One process's attach writes DIR/report; with several, each writes
 * DIR/report.K (K from 1, in the order their processes reached CUDA) with
 * per-process filters, and c->parts is set to their number: their pages
 * are joined (ncu_export.c). c->attached is set for an attached run that
 * left a report or was stopped at the limit; else the program is let go,
 * and the detailed run comes after. */
static void
attach_detail(struct ncu_chain *c)
{
	int hs[NCU_NPORTS], ports[NCU_NPORTS], n = 0, np, i, j, reports = 0, st = 0, fst = 0;
	long wmax = c->timing_s + 30 < c->limit ? c->timing_s + 30 : c->limit;
	struct buf asel = {0};
	char why[160] = "", *out;
	double start, deadline, waited, first = 0, held_end = 0, range_at = 0, range_wait = 0;
	double connected, dt;
	int seen[NCU_NPORTS] = {0}, lingered[NCU_NPORTS] = {0}, ok_sel = 1;
	int ranged = c->held_ranged, early = c->early >= 0, e;
	double lstart;

	/* with the range gate, held shared to the program's range */
	if (ncu_gpu_lock_as(ranged ? LOCK_SH : LOCK_EX, &waited) != 0)
		ncu_chain_stopped(c);
	ncu_time_add(c, "gpu_wait_s", waited);
	c->attached = 1;
	start = kf_now();
	deadline = start + (double)c->limit;
	if (c->procs > 1) {
		if (per_process_sel(c, &asel) != 0) {
			snprintf(why, sizeof why, "the choice for one process of the program "
			    "(--per-process) chose nothing");
			ok_sel = 0;
		}
	} else if (c->sel.len) {
		buf_add(&asel, c->sel.s, c->sel.len + 1);
		asel.len = c->sel.len;
	}
	/* attached early: that attach ends once the program waits at its
	 * range, and the port listens again for the detailing one */
	if (early && ok_sel && (e = ncu_early_switch(c, deadline, why, sizeof why)) != 0) {
		if (e == -2)
			ncu_chain_stopped(c);
		ok_sel = 0;
		if (ncu_proc_done(c->held) && c->timing_st != 0) {
			/* the program failed in the timing run too: its own failure */
			fprintf(stderr, "kf-ncu: the program failed in the timing run (status %d) and "
			    "ended with status %d in the detailed run held for ncu, before its profiler "
			    "range; it is not run again\n", c->timing_st, ncu_proc_status(c->held));
			c->st = ncu_proc_status(c->held);
			ncu_held_stop(c, NULL);
			ncu_gpu_unlock();
			buf_free(&asel);
			return;
		}
	}
	lstart = kf_now();
	while (ok_sel) {
		np = ncu_ports_used(c->port, c->port + NCU_NPORTS - 1, 1, ports, NCU_NPORTS);
		for (i = 0; i < np && i < NCU_NPORTS; i++) {
			j = ports[i] - c->port;
			if (seen[j])
				continue;
			seen[j] = 1;
			out = n == 0 && c->procs <= 1 ? ncu_out_path(c, NCU_REPORT_REP) :
			    xasprintf("%s/%s.%d", c->dir, NCU_REPORT_REP, n + 1);
			if (n == 0) {
				first = c->detail_at = kf_now();
				ncu_proc_marks_reset();
			}
			hs[n++] = ncu_attach_start(c, ports[i], out, &asel, NULL, -1);
			free(out);
		}
		if (ranged && range_may(early, n ? hs[0] : -1, first) &&
		    ncu_range_poll(&c->held_range, &range_at, &range_wait) != 0)
			ncu_chain_stopped(c);
		if (n >= c->procs || n >= NCU_NPORTS)
			break;
		if (ncu_proc_done(c->held)) {
			snprintf(why, sizeof why, "the held program ended first");
			break;
		}
		if (kf_now() - lstart >= (double)wmax) {
			snprintf(why, sizeof why, "no other listened within %ld s of the timing "
			    "run's end", wmax);
			break;
		}
		if (kf_now() >= deadline)
			break;
		if (ncu_proc_sleep(POLL) != 0)
			ncu_chain_stopped(c);
	}
	if (n > 0)
		ncu_time_add(c, "listen_wait_s", first - lstart);
	/* The attaches, to their end or the limit; the GPU is let go once the
	 * program has ended. An attach that has written its report and lives
	 * on LINGER_WAIT s after the program's end is ended: on an H100 ncu's
	 * attach to a JAX program waited on after a process the program
	 * started at its exit crashed, and its report was whole. */
	for (i = 0; i < n; i++) {
		char *rep = attach_report(c, i);

		while (!ncu_proc_done(hs[i]) && kf_now() < deadline) {
			double nap = ranged ? 0.01 : 0.1;
			int got = ncu_proc_wait(hs[i], kf_now() + nap < deadline ? kf_now() + nap : deadline);

			if (got < 0)
				ncu_chain_stopped(c);
			if (ranged && range_may(early, hs[0], first) &&
			    ncu_range_poll(&c->held_range, &range_at, &range_wait) != 0)
				ncu_chain_stopped(c);
			if (held_end == 0 && ncu_proc_done(c->held)) {
				held_end = kf_now();
				ncu_gpu_unlock();
			}
			if (held_end > 0 && kf_now() - held_end >= LINGER_WAIT && kf_is_file(rep) &&
			    !ncu_proc_done(hs[i])) {
				fprintf(stderr, "kf-ncu: ncu's attach had written its report and "
				    "still ran %.0f s after the program's end; it was ended\n",
				    kf_now() - held_end);
				ncu_proc_end(hs[i]);
				lingered[i] = 1;
			}
		}
		free(rep);
		if (!ncu_proc_done(hs[i]))
			c->timed_out = 1;
	}
	if (ncu_proc_done(c->held) && held_end == 0)
		held_end = kf_now();
	c->program_end = held_end;
	if (n == 0 && ok_sel && kf_now() >= deadline)
		c->timed_out = 1;
	if (c->timed_out) {
		for (i = 0; i < n; i++)
			ncu_proc_end(hs[i]);
		ncu_proc_end(c->held);
	}
	ncu_gpu_unlock();
	buf_free(&asel);
	/* A launch profiled before the program's range asked for the GPU ran
	 * beside other jobs' work: the detailed run comes after, the GPU held
	 * throughout. */
	if (ranged && n > 0 && !c->timed_out &&
	    ncu_range_early(c, range_at, "the detailed run")) {
		for (i = 0; i < n; i++) {
			char *rep = attach_report(c, i);

			unlink(rep);
			free(rep);
		}
		ncu_held_drop(c);
		ncu_range_done(&c->held_range, 0);
		c->attached = 0;
		return;
	}
	if (n > 0) {
		ncu_time_add(c, "gpu_wait_s", range_wait);
		if (ranged) {
			ncu_time_add(c, "range_wait_s", range_wait);
			/* the program's own work before its range, beside other jobs
			 * (attached early: before this attach, early_before_range_s) */
			if (range_at > first && !early)
				ncu_time_add(c, "before_range_s", range_at - first);
		}
		ncu_time_add(c, "detailed_s", kf_now() - first - range_wait);
		if (held_end > 0)
			ncu_time_add(c, "program_under_ncu_s", held_end - first - range_wait);
	}
	ncu_range_done(&c->held_range, 1);
	/* st: the first attach's status of those that left a report; fst: of
	 * those that did not */
	for (i = 0; i < n; i++) {
		int k = lingered[i] ? 0 : ncu_proc_done(hs[i]) ? ncu_proc_status(hs[i]) : 143;
		char *rep = attach_report(c, i);

		if (kf_is_file(rep)) {
			reports++;
			if (st == 0)
				st = k;
		} else if (fst == 0) {
			fst = k;
		}
		free(rep);
	}
	c->st = st;
	ncu_proc_marks(&connected, &dt, &dt);
	if (n == 0 && !c->timed_out) {
		struct buf b = {0};

		c->attached = 0;
		if (early)
			buf_printf(&b, "%s; the detailed run comes after the timing run", why);
		else if (strstr(why, "ended"))
			buf_puts(&b, "the program held for ncu ended before it reached CUDA; the "
			    "detailed run comes after the timing run");
		else if (strstr(why, "chose"))
			buf_printf(&b, "%s; the detailed run comes after the timing run", why);
		else
			buf_printf(&b, "the program held for ncu did not reach CUDA within %ld s of "
			    "the timing run's end; the detailed run comes after it", wmax);
		ncu_held_stop(c, b.s);
		buf_free(&b);
		return;
	}
	c->attached_procs = reports;
	if (c->procs > 1 && reports > 0)
		c->parts = n;
	if (c->timed_out) {
		ncu_held_stop(c, NULL);
	} else if (reports > 0) {
		/* ncu ends the program once the chosen launches are profiled
		 * (--kill): it is given 10 s to go. */
		if (ncu_proc_wait(c->held, kf_now() + KILL_WAIT) < 0)
			ncu_chain_stopped(c);
		ncu_held_stop(c, NULL);
		if (n < c->procs)
			fprintf(stderr, "kf-ncu: %d of the %d processes the timing run traced reached "
			    "CUDA in the held run (%s); the details are of those\n", n, c->procs, why);
		if (reports < n)
			fprintf(stderr, "kf-ncu: ncu's attach to %d of the %d processes held for it "
			    "left no report; the details are of the other %d\n", n - reports, n,
			    reports);
	} else if (c->timing_st != 0 && connected > 0 &&
	    ncu_proc_wait(c->held, kf_now() + HELD_END_S) == 1) {
		/* The program failed in the timing run too: its own failure, which
		 * a run again would repeat (a held run that fails after a clean
		 * timing run may be ncu's attach's doing, and is run again). */
		int held_st = ncu_proc_status(c->held);

		c->st = fst;
		c->attached_procs = 0;
		ncu_held_stop(c, NULL);
		fprintf(stderr, "kf-ncu: the program failed in the timing run (status %d) and "
		    "ended with status %d in the detailed run held for ncu, which profiled no "
		    "kernel; it is not run again\n", c->timing_st, held_st);
	} else {
		char *w = xasprintf("ncu's detailed run of the program held for it failed (status "
		    "%d) and left no report; it is run again after the timing run", fst);

		c->attached = 0;
		c->attached_procs = 0;
		c->parts = 0;
		attempt_failed(c, "failed", fst);
		ncu_held_stop(c, w);
		free(w);
	}
}

void
ncu_detail_top(struct ncu_chain *c)
{
	const char *lim = getenv("KF_NCU_DETAIL_TIMEOUT");

	c->limit = 2 * c->timing_s + 120;
	if (lim && *lim && strspn(lim, "0123456789") == strlen(lim))
		c->limit = strtol(lim, NULL, 10);
	c->phase_detail = 1;
	if (c->held >= 0)
		attach_detail(c);
	if (!c->attached && !c->timed_out)
		c->st = ncu_detail_run(c, -1, c->limit);
	c->phase_detail = 0;
	if (c->timed_out) {
		fprintf(stderr, "kf-ncu: the detailed run was stopped after %ld s "
		    "(KF_NCU_DETAIL_TIMEOUT): the timing run's ranking is kept\n", c->limit);
		ncu_detail_account(c, "timeout", c->st);
	} else if (c->st != 0 || !ncu_have_report(c)) {
		ncu_detail_account(c, "failed", c->st);
	} else {
		ncu_detail_account(c, "ok", 0);
	}
}

/* The gate (lib/ncu/gate, KF_NCU_GATE=1 under a sweep's lock): the attach
 * is started at once and takes the GPU's lock itself, at its connection to
 * the program: its start-up runs beside another job's profiling. Fills env
 * (c->env and the gate's variables); 0, or -1 when there is no gate. */
static int
gate_env(struct ncu_chain *c, struct kf_env *env)
{
	const char *on = getenv("KF_NCU_GATE"), *lock = getenv("KF_NCU_GPU_LOCK");
	const char *pre = getenv("LD_PRELOAD");
	char *lib = kf_path_join(kf_exe_dir(), NCU_GATE_LIB), *v, port[16];

	if (on == NULL || strcmp(on, "1") != 0 || lock == NULL || *lock == '\0' ||
	    !kf_is_file(lib)) {
		free(lib);
		return -1;
	}
	kf_env_build(env, c->env.v, NULL);
	v = pre && *pre ? xasprintf("%s:%s", lib, pre) : xstrdup(lib);
	kf_env_set(env, "LD_PRELOAD", v);
	free(v);
	kf_env_set(env, "KF_GATE_LOCK", lock);
	snprintf(port, sizeof port, "%d", c->port);
	kf_env_set(env, "KF_GATE_LO", port);
	snprintf(port, sizeof port, "%d", c->port + 1);
	kf_env_set(env, "KF_GATE_HI", port);
	v = ncu_out_path(c, NCU_GATE_LOG);
	kf_env_set(env, "KF_GATE_LOG", v);
	free(v);
	free(lib);
	return 0;
}

/* The seconds the gate waited for the GPU (NCU_GATE_LOG), or 0. */
static double
gate_waited(struct ncu_chain *c)
{
	char *p = ncu_out_path(c, NCU_GATE_LOG);
	FILE *f = fopen(p, "r");
	double w = 0;

	if (f && fscanf(f, "locked %lf", &w) != 1)
		w = 0;
	if (f)
		fclose(f);
	free(p);
	return w;
}

void
ncu_range_done(struct ncu_range *r, int kept)
{
	int i;

	if (r->keep[2])
		unlink(r->keep[2]);
	if (r->keep[1] && !kept)
		unlink(r->keep[1]);
	for (i = 0; i < 4; i++)
		free(r->keep[i]), r->keep[i] = NULL;
	r->env[0] = NULL;
}

/* ncu profiles only the program's own profiler range: the detailed run's
 * --profile-from-start is off (no, 0, false). */
static int
from_range(const struct ncu_chain *c)
{
	const char *v = NULL;
	int i;

	for (i = 0; i < c->ndargs; i++) {
		if (strcmp(c->dargs[i], "--profile-from-start") == 0 && i + 1 < c->ndargs)
			v = c->dargs[++i];
		else if (strncmp(c->dargs[i], "--profile-from-start=", 21) == 0)
			v = c->dargs[i] + 21;
	}
	return v && (strcmp(v, "off") == 0 || strcmp(v, "no") == 0 || strcmp(v, "0") == 0 ||
	    strcmp(v, "false") == 0);
}

/* KF_NCU_RANGE: 1 on, 0 off; unset (or auto) on for --top only. With
 * --top 1 a sweep of six fused problems at -j3 took 11-16% less wall time
 * gated than not, in four H100 calls, with the same findings; a sweep
 * of every launch detailed gained from -4% to 6% (PERFORMANCE.md). */
static int
range_wanted(const struct ncu_chain *c)
{
	const char *on = getenv("KF_NCU_RANGE");

	if (on == NULL || *on == '\0' || strcmp(on, "auto") == 0)
		return c->top > 0;
	return strcmp(on, "1") == 0;
}

int
ncu_range_env(const struct ncu_chain *c, const char *req, const char *ack, struct ncu_range *r)
{
	const char *lock = getenv("KF_NCU_GPU_LOCK"), *pre = getenv("LD_PRELOAD");
	char *lib;

	memset(r, 0, sizeof *r);
	if (!range_wanted(c) || lock == NULL || *lock == '\0' || !from_range(c))
		return -1;
	lib = kf_path_join(kf_exe_dir(), NCU_GATE_LIB);
	if (!kf_is_file(lib)) {
		free(lib);
		return -1;
	}
	r->keep[0] = pre && *pre ? xasprintf("%s:%s", lib, pre) : xstrdup(lib);
	r->keep[1] = ncu_out_path(c, req);
	r->keep[2] = ncu_out_path(c, ack);
	r->keep[3] = xasprintf("%ld", (long)getpid());
	unlink(r->keep[1]);
	unlink(r->keep[2]);
	r->env[0] = "LD_PRELOAD", r->env[1] = r->keep[0];
	r->env[2] = "KF_RANGE_REQ", r->env[3] = r->keep[1];
	r->env[4] = "KF_RANGE_ACK", r->env[5] = r->keep[2];
	r->env[6] = "KF_RANGE_PID", r->env[7] = r->keep[3];
	r->env[8] = r->env[9] = NULL;
	free(lib);
	return 0;
}

/* kf-ncu's answer to the range gate: the GPU had alone for the first
 * r->lines lines of its requests ("locked WAITED LINES"), written whole
 * (renamed into place) so that the gate never reads half of it. */
static void
range_answer(const struct ncu_range *r, double waited)
{
	char *tmp = xasprintf("%s.tmp", r->keep[2]);
	FILE *f = fopen(tmp, "w");

	if (f == NULL || fprintf(f, "locked %.3f %ld\n", waited, r->lines) < 0 ||
	    fclose(f) != 0 || rename(tmp, r->keep[2]) != 0)
		kf_warn("cannot write %s:", r->keep[2]);
	free(tmp);
}

int
ncu_range_poll(struct ncu_range *r, double *at, double *waited)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	struct stat st;
	FILE *f;
	long pid;
	double w = 0;
	int i, seen = 0, rc = 0;

	if (r->keep[1] == NULL || stat(r->keep[1], &st) != 0 || st.st_size <= r->off ||
	    (f = fopen(r->keep[1], "r")) == NULL)
		return 0;
	if (fseek(f, r->off, SEEK_SET) != 0) {
		fclose(f);
		return 0;
	}
	while (rc == 0 && (got = getline(&line, &cap, f)) > 0) {
		/* a line still being written is read at the next look; one
		 * that is neither request is passed over */
		if (line[got - 1] != '\n')
			break;
		r->off += (long)got;
		r->lines++;
		seen = 1;
		if (sscanf(line, "start %ld", &pid) == 1) {
			for (i = 0; i < r->nin && r->in[i] != pid; i++)
				;
			if (i == r->nin && r->nin < NCU_RANGE_PROCS)
				r->in[r->nin++] = pid;
			if (!r->alone) {
				if (*at == 0)
					*at = kf_now();
				if (ncu_gpu_lock_as(LOCK_EX, &w) != 0)
					rc = -1;
				*waited += w;
				r->alone = rc == 0;
			}
		} else if (sscanf(line, "stop %ld", &pid) == 1) {
			for (i = 0; i < r->nin && r->in[i] != pid; i++)
				;
			if (i == r->nin)
				continue;
			r->in[i] = r->in[--r->nin];
			if (r->nin == 0 && r->alone) {
				rc = ncu_gpu_share();
				r->alone = 0;
				unlink(r->keep[2]);
			}
		}
	}
	free(line);
	fclose(f);
	if (seen && r->alone)
		range_answer(r, w);
	return rc;
}

int
ncu_range_early(struct ncu_chain *c, double range_at, const char *what)
{
	long launches, passes;
	double conn, first, last;

	ncu_proc_passes(&launches, &passes);
	ncu_proc_marks(&conn, &first, &last);
	if (launches == 0 || (range_at > 0 && !(first > 0 && first < range_at)))
		return 0;
	fprintf(stderr, "kf-ncu: ncu profiled the program before its profiler range asked for "
	    "the GPU (KF_NCU_RANGE: a range kf cannot see, as with CUDA's runtime linked "
	    "statically); %s is taken again with the GPU held throughout\n", what);
	ncu_time_add(c, "range_unseen", 1);
	return 1;
}

int
ncu_held_run(struct ncu_chain *c)
{
	char *out, *rep;
	struct ncu_range r;
	double t, waited = 0, attach_at, held_end = 0, range_at = 0, range_wait = 0;
	double connected, dummy_t;
	struct kf_env genv = {0};
	int a, got, dummy, gated, range;

	if (ncu_ports_claim(c) != 0)
		return -1;
	range = ncu_range_env(c, NCU_RANGE_REQ, NCU_RANGE_ACK, &r) == 0;
	t = kf_now();
	if (ncu_held_start(c, 0, range ? r.env : NULL) != 0)
		goto none;
	while (ncu_ports_used(c->port, c->port + 1, 1, &dummy, 1) <= 0) {
		if (ncu_proc_done(c->held)) {
			ncu_held_drop(c);
			goto none;
		}
		if (ncu_proc_sleep(POLL) != 0)
			ncu_chain_stopped(c);
	}
	ncu_time_add(c, "startup_s", kf_now() - t);
	gated = !range && gate_env(c, &genv) == 0;
	if (!gated && ncu_gpu_lock_as(range ? LOCK_SH : LOCK_EX, &waited) != 0)
		ncu_chain_stopped(c);
	if (!gated)
		ncu_time_add(c, "gpu_wait_s", waited);
	out = ncu_out_path(c, NCU_REPORT_REP);
	attach_at = c->detail_at = kf_now();
	ncu_proc_marks_reset();
	a = ncu_attach_start(c, c->port, out, &c->sel, gated ? &genv : NULL, -1);
	if (gated)
		kf_env_free(&genv);
	free(out);
	/* The GPU is let go once the program has ended: ncu's writing of the
	 * report runs beside the next job's profiling. */
	while ((got = ncu_proc_wait(a, kf_now() + (range ? 0.01 : 0.1))) == 0) {
		if (range && ncu_range_poll(&r, &range_at, &range_wait) != 0)
			ncu_chain_stopped(c);
		if (held_end == 0 && ncu_proc_done(c->held)) {
			held_end = kf_now();
			ncu_gpu_unlock();
		}
	}
	if (got < 0)
		ncu_chain_stopped(c);
	rep = ncu_out_path(c, NCU_REPORT_REP NCU_REP_EXT);
	ncu_proc_marks(&connected, &dummy_t, &dummy_t);
	/* No report: where ncu never connected, the attach failed and the
	 * program runs again under ncu. Where it did, said it profiled no
	 * kernel, and the program then exited (not killed by a signal, which
	 * may be the attach's doing), the program ran to its end and launched
	 * nothing ncu could profile (it failed before its range, or its range
	 * launched no kernel): a run again would do the same, so its status is
	 * the answer (kf-read says which). */
	if (!kf_is_file(rep) && (connected == 0 || !ncu_proc_said_none() ||
	    ncu_proc_wait(c->held, kf_now() + HELD_END_S) != 1 ||
	    ncu_proc_status(c->held) >= 128)) {
		free(rep);
		ncu_held_drop(c);
		fprintf(stderr, "kf-ncu: ncu could not attach to the program held for it; it runs "
		    "again under ncu\n");
		goto none;
	}
	if (ncu_proc_wait(c->held, INFINITY) < 0)
		ncu_chain_stopped(c);
	if (!kf_is_file(rep))
		fprintf(stderr, "kf-ncu: the program held for ncu ended with status %d and ncu "
		    "profiled no kernel\n", ncu_proc_status(c->held));
	if (held_end == 0)
		held_end = kf_now();
	c->program_end = held_end;
	ncu_gpu_unlock();
	/* A launch profiled before the program asked for the GPU ran beside
	 * other jobs' work: its numbers are not the program's alone. */
	if (range && ncu_range_early(c, range_at, "the detailed run")) {
		unlink(rep);
		free(rep);
		ncu_held_drop(c);
		goto none;
	}
	free(rep);
	/* with the gate, the attach's wait for the GPU is not the detailed run's */
	waited = gated ? gate_waited(c) : 0;
	ncu_time_add(c, "gpu_wait_s", waited + range_wait);
	if (range) {
		ncu_time_add(c, "range_wait_s", range_wait);
		/* the program's own work before its range, beside other jobs */
		if (range_at > attach_at)
			ncu_time_add(c, "before_range_s", range_at - attach_at);
	}
	/* the GPU had alone by the gate in ncu's attach (kf-ncu's own lock
	 * is accounted as it is let go: ncu_gpu_alone) */
	if (gated)
		ncu_time_add(c, "gpu_held_s", held_end - attach_at - waited);
	ncu_time_add(c, "program_under_ncu_s", held_end - attach_at - waited - range_wait);
	ncu_time_add(c, "detailed_s", kf_now() - attach_at - waited - range_wait);
	c->st = ncu_proc_status(c->held);
	ncu_held_stop(c, NULL);
	ncu_range_done(&r, 1);
	return 0;
none:
	ncu_range_done(&r, 0);
	return -1;
}

void
ncu_chain_stopped(struct ncu_chain *c)
{
	int sig = ncu_proc_stopped() ? ncu_proc_stopped() : SIGTERM, code = 128 + sig;
	int said = c->phase_detail || c->held >= 0;
	char *log;

	/* kf-run's timeout or an interrupt ends kf-ncu: said for kf-read. */
	if (c->phase_detail)
		ncu_detail_account(c, "stopped", code);
	ncu_proc_end_all();
	ncu_gpu_unlock();
	if (c->held >= 0) {
		log = ncu_out_path(c, NCU_LAUNCH_LOG);
		ncu_out_file(log);
		unlink(log);
		free(log);
	}
	ncu_ports_release(c);
	ncu_timings_write(c);
	/* With a held program or in the detailed run kf-ncu ends with the
	 * status 128 + N; before, the signal ends it, as it ends a program. */
	if (said)
		exit(code);
	kf_proc_die_of(sig);
	exit(code);
}
