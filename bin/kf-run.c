/* kf-run: run the wrapped commands of records, one or many at a time, with
 * limits, and add what happened ("run") and where ("worker").
 *
 * One poll() loop waits on everything: the input, every job's two pipes,
 * and a signalfd for SIGCHLD, SIGINT, SIGTERM and SIGHUP; deadlines are its
 * timeout. Each job is a session of its own; kf-run is a child subreaper,
 * so what a job leaves behind comes back to it to be ended. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "buf.h"
#include "env.h"
#include "err.h"
#include "job.h"
#include "map.h"
#include "mem.h"
#include "num.h"
#include "opt.h"
#include "path.h"
#include "proc.h"
#include "profiler.h"
#include "record.h"
#include "require.h"
#include "rundir.h"
#include "signame.h"
#include "worker.h"

#define CHUNK 65536

static const char usage[] =
    "[-klqu] [-j N] [-t SECONDS] [-i SECONDS] [--gpus LIST] [file ...]";
static const char help[] =
    "Run each record's argv; add \"run\" and \"worker\".\n"
    "  -t, --timeout S       end a job after S seconds (300; 0: never; 90s, 5m, 1h)\n"
    "  -i, --inactivity S    end a job after S seconds without output (100; 0: never)\n"
    "      --grace S         from SIGTERM to SIGKILL (2)\n"
    "      --marker-grace S  after a literal end marker (2)\n"
    "      --pytest-grace S  after the pytest summary line (10)\n"
    "      --drain S         after the program exits, for output still coming (1)\n"
    "  -j, --jobs N          run N jobs at once (1, or the number of --gpus)\n"
    "      --gpus LIST       one GPU per concurrent job, e.g. 0,1,2,3\n"
    "  -k, --keep-order      write records in input order\n"
    "      --tail-size SIZE  bytes of each stream kept in the record (64K)\n"
    "      --save-output     write whole streams to output_dir/stdout.log, stderr.log\n"
    "  -l, --live            show each program's output on stderr as it comes (with\n"
    "                        -j above 1, whole lines after the job's id)\n"
    "      --pass-secrets    pass *PASSWORD*, *SECRET*, *_TOKEN, *_USERNAME variables\n"
    "  -q, --quiet           no progress line on a terminal\n"
    "  -u, --unbuffered      (records are always written as each job ends)\n"
    "      --help, --version\n";

enum {
	OPT_GRACE = 0x2000, OPT_MGRACE, OPT_PGRACE, OPT_DRAIN, OPT_GPUS,
	OPT_TAIL, OPT_SAVE, OPT_SECRETS
};

static const struct option longopts[] = {
	{ "timeout", required_argument, NULL, 't' },
	{ "inactivity", required_argument, NULL, 'i' },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "marker-grace", required_argument, NULL, OPT_MGRACE },
	{ "pytest-grace", required_argument, NULL, OPT_PGRACE },
	{ "drain", required_argument, NULL, OPT_DRAIN },
	{ "jobs", required_argument, NULL, 'j' },
	{ "gpus", required_argument, NULL, OPT_GPUS },
	{ "keep-order", no_argument, NULL, 'k' },
	{ "tail-size", required_argument, NULL, OPT_TAIL },
	{ "save-output", no_argument, NULL, OPT_SAVE },
	{ "pass-secrets", no_argument, NULL, OPT_SECRETS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "live", no_argument, NULL, 'l' },
	KF_OPT_COMMON
};

static struct {
	struct kf_job_opts job;
	long jobs;
	int keep_order, secrets, quiet;
	char **gpus;
	int ngpus;
} opt = { { 300, 100, 2, 2, 10, 1, 65536, 0, 0, 0, NULL }, 0, 0, 0, 0, NULL, 0 };

struct pending {
	cJSON *rec;
	long seq, line;
	char *file;
	struct pending *next;
};

struct input {
	struct kf_operands ops;
	int fd, done;
	const char *name;
	struct buf b;
	struct kf_seq *seq;	/* the records in the lines */
};

static struct kf_jobset js;
static struct pending *qhead, *qtail;
static int nqueued;
static long nseq, ndone, next_out;
static int input_done;
static struct kf_map held;		/* --keep-order: finished, not yet written */
static char **base_env;
static cJSON *worker;
static int sfd, interrupted, out_broken, progress_on, progress_shown;
static double t0, last_draw;
static double ran_s;			/* the run time of the jobs finished */
static long nran;

/* Progress on a terminal. */

static void
progress_clear(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
}

/* The work left, from the mean run time of the jobs finished: the jobs
 * waiting take the mean each, a running one what it has left of the mean;
 * spread over the slots. Waiting jobs never make it grow. */
static double
time_left(double now)
{
	double mean = ran_s / (double)nran, work = (double)nqueued * mean;
	int i;

	for (i = 0; i < js.n; i++)
		if (js.slots[i])
			work += fmax(0, mean - (now - js.slots[i]->start));
	return work / (double)js.n;
}

static void
progress(double now, int force)
{
	double el = now - t0;

	if (!progress_on || (!force && now - last_draw < 0.5))
		return;
	last_draw = now;
	fprintf(stderr, "\r\033[Kkf-run: %ld/", ndone);
	if (input_done)
		fprintf(stderr, "%ld", nseq);
	else
		fputs("?", stderr);
	fprintf(stderr, " done, %d running, %.0fs elapsed", js.nrunning, el);
	if (input_done && nran > 0 && ndone < nseq)
		fprintf(stderr, ", about %.0fs left", time_left(now));
	progress_shown = 1;
}

/* --live: the programs' output on stderr as it comes. One job at a time:
 * the bytes as they are (a progress bar's \r too), but for the end
 * marker's line; several: whole lines, each after its job's id (and pass),
 * between progress lines. */

/* The length of b's line without its line end. */
static size_t
line_core(const struct buf *b)
{
	size_t n = b->len;

	while (n > 0 && (b->s[n - 1] == '\n' || b->s[n - 1] == '\r'))
		n--;
	return n;
}

/* The literal end marker of j, or NULL. */
static const char *
literal_marker(const struct kf_job *j)
{
	return j->marker && strcmp(j->marker, "pytest") != 0 ? j->marker : NULL;
}

static void
echo_write(const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* nowhere to show it: the record keeps it */
		s += w;
		n -= (size_t)w;
	}
}

static void
echo_line(struct kf_job *j, struct buf *b)
{
	const char *id = kf_str(j->rec, "id"), *pass = kf_str(j->rec, "pass");
	const char *mk = literal_marker(j);
	struct buf l = {0};

	if (b->len == 0)
		return;
	if (mk && line_core(b) == strlen(mk) && memcmp(b->s, mk, strlen(mk)) == 0) {
		buf_reset(b);		/* the marker's line: kf's, not the program's */
		return;
	}
	progress_clear();
	buf_printf(&l, "%s%s%s: ", id ? id : "?", pass ? "/" : "", pass ? pass : "");
	buf_add(&l, b->s, b->len);
	if (l.s[l.len - 1] != '\n')
		buf_putc(&l, '\n');
	echo_write(l.s, l.len);
	buf_free(&l);
	buf_reset(b);
}

/* One job's bytes as they come, but for the end marker's own line: it is
 * kf's (kf-wrap's helpers print it), not the program's, so it is held back
 * while a line may be it, and never shown. */
static void
echo_raw(struct kf_job *j, int k, const char *s, size_t n)
{
	const char *mk = literal_marker(j), *nl;
	struct buf *p = &j->echo[k];
	size_t ml = mk ? strlen(mk) : 0, take, core;

	if (mk == NULL) {
		echo_write(s, n);
		return;
	}
	while (n > 0) {
		nl = memchr(s, '\n', n);
		take = nl ? (size_t)(nl - s) + 1 : n;
		buf_add(p, s, take);
		s += take;
		n -= take;
		core = line_core(p);
		if (nl && core == ml && memcmp(p->s, mk, ml) == 0)
			buf_reset(p);		/* the marker's line */
		else if (nl || core > ml || memcmp(p->s, mk, core) != 0) {
			echo_write(p->s, p->len);
			buf_reset(p);
		}
	}
}

/* What echo_raw held back when the job ends: shown, unless the marker. */
static void
echo_raw_end(struct kf_job *j, struct buf *p)
{
	const char *mk = literal_marker(j);

	if (p->len > 0 && !(mk && line_core(p) == strlen(mk) && memcmp(p->s, mk, strlen(mk)) == 0))
		echo_write(p->s, p->len);
	buf_reset(p);
}

static void
echo(struct kf_job *j, int k, const char *s, size_t n)
{
	const char *nl;
	size_t take;

	if (js.n == 1) {
		echo_raw(j, k, s, n);
		return;
	}
	while (n > 0) {
		nl = memchr(s, '\n', n);
		take = nl ? (size_t)(nl - s) + 1 : n;
		buf_add(&j->echo[k], s, take);
		if (nl || j->echo[k].len >= CHUNK)
			echo_line(j, &j->echo[k]);
		s += take;
		n -= take;
	}
}

/* Output, in order of finishing or (-k) of input. */

static void
emit_now(cJSON *rec)
{
	progress_clear();
	kf_emit(rec);
	/* Output failed (no reader left, disk full): end the jobs and stop,
	 * quietly; kf_finish() says what failed and makes the status 1. */
	if (kf_flush() != 0)
		out_broken = 1;
	cJSON_Delete(rec);
}

static void
output(long seq, cJSON *rec)
{
	char key[32];

	ndone++;
	if (!opt.keep_order) {
		emit_now(rec);
		return;
	}
	snprintf(key, sizeof key, "%ld", seq);
	kf_map_slot(&held, key, NULL)->val = rec;
	for (;;) {
		snprintf(key, sizeof key, "%ld", next_out);
		if ((rec = kf_map_del(&held, key)) == NULL)
			break;
		emit_now(rec);
		next_out++;
	}
}

static void
fail_pending(struct pending *p, const char *kind, const char *msg)
{
	progress_clear();
	kf_set_where(p->file, p->line);
	kf_fail(p->rec, kind, "%s", msg);
}

/* Ending jobs: the record of a finished job, written. */

/* Write j's record with what happened ("run") and where ("worker"). */
static void
done(struct kf_job *j, cJSON *run)
{
	kf_set(j->rec, "run", run);
	kf_set(j->rec, "worker", kf_worker_for_gpu(worker, j->gpu));
	output(j->seq, j->rec);
	j->rec = NULL;
	kf_job_free(j);
}

static void
finish(struct kf_job *j, double now)
{
	if (js.n == 1) {
		echo_raw_end(j, &j->echo[0]);
		echo_raw_end(j, &j->echo[1]);
	} else {
		echo_line(j, &j->echo[0]);
		echo_line(j, &j->echo[1]);
	}
	ran_s += (j->reaped ? j->exited_at : now) - j->start;
	nran++;
	js.slots[j->slot] = NULL;
	js.nrunning--;
	done(j, kf_job_run(j, now, interrupted));
}

/* After the program exited: wait out the drain, end what it left, then
 * write the record. */
static void
settle(struct kf_job *j, double now)
{
	int open = j->c.out >= 0 || j->c.err >= 0, n;

	if (!j->reaped) {
		if (j->kill_at > 0 && now >= j->kill_at + KF_JOB_GIVE_UP)
			finish(j, now);
		return;
	}
	if (open && now < j->exited_at + opt.job.drain)
		return;
	n = kf_jobs_alive(&js, j);
	if (n == 0) {
		/* The last writer may have died a moment ago: take what it left. */
		kf_job_read(j, 0, now);
		kf_job_read(j, 1, now);
		open = j->c.out >= 0 || j->c.err >= 0;
		if (open)
			buf_puts(&j->note, "; its output pipes were still held open "
			    "by a process outside its tree and were closed");
		finish(j, now);
		return;
	}
	j->waiting = 1;
	if (j->term_at == 0) {
		j->leftovers = n;
		kf_jobs_signal(&js, j, SIGTERM, now);
	} else if (j->kill_at > 0 && now >= j->kill_at + KF_JOB_GIVE_UP) {
		buf_printf(&j->note, "; %d process%s did not end even after SIGKILL",
		    n, n == 1 ? "" : "es");
		finish(j, now);
	}
}

/* Starting jobs. */

/* The record's argv as the program gets it, each argument its own bytes
 * (kf_job_check has checked it); freed with argv_free. */
static char **
argv_of(const cJSON *rec)
{
	const cJSON *a = kf_arr(rec, "argv"), *v;
	char **argv = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *argv);
	size_t n = 0;

	cJSON_ArrayForEach(v, a)
		argv[n++] = kf_arg_bytes(v);
	return argv;
}

static void
argv_free(char **argv)
{
	char **p;

	for (p = argv; *p; p++)
		free(*p);
	free(argv);
}

/* Every profiler's GPU-pinning variable set to gpu: the record's profiler
 * may not be known to this kf, and its program may start another. */
static void
pin_gpu(struct kf_env *e, const char *gpu)
{
	size_t i;

	for (i = 0; kf_profilers[i]; i++)
		kf_env_set(e, kf_profilers[i]->gpu_env, gpu);
}

/* A job that never started leaves no empty folders: those kf-wrap made
 * for it ("output_made") go again, while they are empty. */
static void
unmake(const cJSON *rec)
{
	const char *made = kf_str(rec, "output_made"), *dir = kf_str(rec, "output_dir");

	if (made && dir)
		kf_run_dir_unmake(dir, made, kf_str(rec, "cwd"));
}

/* The job's profiler or program cannot be started (require.h): not run;
 * its record says which, and where it was looked for. */
static int
not_startable(struct pending *p, char *const *env, const char *cwd)
{
	struct buf msg = {0}, hint = {0};
	const char *role;
	char *kind;
	int code;

	if (kf_require_check(kf_obj(p->rec, "requires"), env, cwd, &role, &code, &msg,
	    &hint) == 0)
		return 0;
	kind = xasprintf("%s_%s", role, code == 127 ? "not_found" : "not_executable");
	fail_pending(p, kind, msg.s);
	kf_fail_hint(p->rec, "%s", hint.s);
	if (worker == NULL)
		worker = kf_worker_info();
	kf_set(p->rec, "run", kf_job_not_run(code, msg.s));
	kf_set(p->rec, "worker", kf_worker_for_gpu(worker, NULL));
	unmake(p->rec);
	output(p->seq, p->rec);
	free(p->file);
	free(kind);
	buf_free(&msg);
	buf_free(&hint);
	return 1;
}

static void
start(struct pending *p, int slot)
{
	const char *bad = kf_job_check(p->rec);
	const char *gpu = opt.ngpus ? opt.gpus[slot] : NULL;
	struct kf_env e = {0};
	const char *cwd = kf_str(p->rec, "cwd");
	struct kf_job *j;
	char **argv;
	int r, err;

	if (bad == NULL &&
	    (bad = kf_env_build(&e, base_env, kf_obj(p->rec, "env"))) == NULL && gpu)
		pin_gpu(&e, gpu);
	if (bad == NULL && cwd) {
		/* The program runs where it was wrapped: its relative paths and a
		 * relative output_dir mean what they meant there. */
		errno = 0;
		if (!kf_is_dir(cwd)) {
			char *msg = xasprintf("cwd %s, where the job was wrapped and "
			    "is to run, is not a directory (%s): the program was not run",
			    cwd, strerror(errno ? errno : ENOTDIR));

			fail_pending(p, "bad_cwd", msg);
			free(msg);
			kf_fail_hint(p->rec, "run it where that directory exists, or "
			    "wrap the job again with kf-wrap where it is to run");
			kf_env_free(&e);
			output(p->seq, p->rec);
			free(p->file);
			return;
		}
		kf_env_set(&e, "PWD", cwd);
	}
	if (bad == NULL && not_startable(p, e.v, cwd)) {
		kf_env_free(&e);
		return;
	}
	if (bad) {
		fail_pending(p, "bad_record", bad);
		kf_fail_hint(p->rec, "kf-run runs the \"argv\" array (of strings) "
		    "that kf-wrap adds, with \"env\" an object of strings; pipe "
		    "the records through kf-wrap first");
		kf_env_free(&e);
		output(p->seq, p->rec);
		free(p->file);
		return;
	}
	if (worker == NULL)
		worker = kf_worker_info();
	j = kf_job_new(p->rec, p->seq, p->file, p->line, slot, js.self, &opt.job);
	free(p->file);
	j->gpu = gpu;
	kf_env_set(&e, KF_JOB_TAG, j->tag);
	argv = argv_of(j->rec);
	j->start = j->last_io = kf_now();
	r = kf_spawn(argv, e.v, cwd, &j->c);
	err = errno;
	kf_env_free(&e);
	if (r == -1) {
		/* The program could not be started: said like a shell. */
		unmake(j->rec);
		done(j, kf_job_not_started(argv[0], err));
		argv_free(argv);
		return;
	}
	argv_free(argv);
	if (r == -3) {
		kf_set_where(j->file, j->line);
		progress_clear();
		kf_fail(j->rec, "bad_cwd", "cannot enter cwd %s, where the job is to run: %s: "
		    "the program was not run", cwd, strerror(err));
		kf_fail_hint(j->rec, "run it where that directory can be entered, or "
		    "wrap the job again with kf-wrap where it is to run");
		output(j->seq, j->rec);
		j->rec = NULL;
		kf_job_free(j);
		return;
	}
	if (r == -2) {
		kf_set_where(j->file, j->line);
		progress_clear();
		kf_fail(j->rec, "spawn", "cannot start a process: %s", strerror(err));
		kf_fail_hint(j->rec, "the system is out of processes or open "
		    "files; run fewer jobs at once (-j)");
		output(j->seq, j->rec);
		j->rec = NULL;
		kf_job_free(j);
		return;
	}
	js.slots[slot] = j;
	js.nrunning++;
}

static void
start_ready(void)
{
	int slot;

	while (qhead && !interrupted) {
		struct pending *p = qhead;

		if (!kf_error(p->rec)) {
			for (slot = 0; slot < js.n && js.slots[slot]; slot++)
				;
			if (slot == js.n)
				return;
		} else
			slot = -1;
		qhead = p->next;
		if (qhead == NULL)
			qtail = NULL;
		nqueued--;
		if (slot < 0) {
			output(p->seq, p->rec);	/* errors pass through */
			free(p->file);
		} else
			start(p, slot);
		free(p);
	}
}

/* Reading input without blocking the loop: whole lines only. */

static int
input_next(struct input *in)
{
	if (in->fd > 0)
		close(in->fd);
	progress_clear();
	if ((in->fd = kf_operand_next(&in->ops, &in->name)) >= 0)
		return 1;
	in->done = input_done = 1;
	return 0;
}

/* The records the lines fed so far completed, queued. */
static void
enqueue_done(struct input *in)
{
	struct pending *p;
	cJSON *rec;
	long line;

	while ((rec = kf_seq_next(in->seq, &line)) != NULL) {
		p = xcalloc(1, sizeof *p);
		p->rec = rec;
		p->seq = nseq++;
		p->file = in->name ? xstrdup(in->name) : NULL;
		p->line = line;
		if (qtail)
			qtail->next = p;
		else
			qhead = p;
		qtail = p;
		nqueued++;
	}
}

static void
enqueue(struct input *in, const char *s, size_t n)
{
	progress_clear();
	kf_seq_line(in->seq, in->name, s, n);
	enqueue_done(in);
}

static void
read_input(struct input *in)
{
	static char chunk[CHUNK];
	char *p, *nl, *end;
	size_t scanned;
	ssize_t n;

	n = read(in->fd, chunk, sizeof chunk);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0) {
		progress_clear();
		kf_warn("%s:", in->name ? in->name : "<stdin>");
		kf_set_failed();
	}
	if (n <= 0) {
		if (in->b.len)
			enqueue(in, in->b.s, in->b.len);
		kf_seq_end(in->seq);
		enqueue_done(in);
		buf_reset(&in->b);
		input_next(in);
		return;
	}
	/* What was left holds no newline: look only at the new bytes, so that
	 * a long line costs linear time. */
	scanned = in->b.len;
	buf_add(&in->b, chunk, (size_t)n);
	end = in->b.s + in->b.len;
	if ((nl = memchr(in->b.s + scanned, '\n', (size_t)n)) == NULL)
		return;
	for (p = in->b.s; nl != NULL; p = nl + 1, nl = memchr(p, '\n', (size_t)(end - p)))
		enqueue(in, p, (size_t)(nl - p));
	memmove(in->b.s, p, (size_t)(end - p));
	in->b.len = (size_t)(end - p);
	in->b.s[in->b.len] = '\0';
}

/* Interruption: end every job, write every record, then die of the signal. */

static void
interrupt(int sig, double now)
{
	char *msg;
	int i;

	static double first_at;

	/* The same signal twice at once is one interrupt, not a second one:
	 * timeout(1) signals the whole group and kf passes TERM on too. */
	if (interrupted && sig == interrupted && now - first_at < 1)
		return;
	if (interrupted) {
		/* A second signal: no more grace. */
		for (i = 0; i < js.n; i++)
			if (js.slots[i] && js.slots[i]->kill_at == 0)
				kf_jobs_signal(&js, js.slots[i], SIGKILL, now);
		return;
	}
	interrupted = sig;
	first_at = now;
	for (i = 0; i < js.n; i++)
		if (js.slots[i])
			kf_jobs_end(&js, js.slots[i], KF_END_INTERRUPTED, now);
	msg = xasprintf("not run: kf-run was stopped by %s", kf_signame(sig));
	while (qhead) {
		struct pending *p = qhead;

		qhead = p->next;
		if (out_broken) {
			/* Nowhere to write it. */
			cJSON_Delete(p->rec);
		} else {
			if (!kf_error(p->rec))
				fail_pending(p, "interrupted", msg);
			output(p->seq, p->rec);
		}
		free(p->file);
		free(p);
	}
	free(msg);
	qtail = NULL;
	nqueued = 0;
}

/* What jobs left that no job could be told the owner of. */
static void
sweep(void)
{
	double until;

	/* Zombies too: a dead orphan we do not reap lingers under init. */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	if (!kf_jobs_strays(&js) || kf_jobs_signal_tree(&js, NULL, SIGTERM) == 0)
		return;
	until = kf_now() + opt.job.grace;
	while (kf_jobs_signal_tree(&js, NULL, 0) > 0 && kf_now() < until) {
		struct pollfd pfd = {sfd, POLLIN, 0};

		poll(&pfd, 1, 50);
		kf_proc_signals(sfd);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	kf_jobs_signal_tree(&js, NULL, SIGKILL);
	until = kf_now() + KF_JOB_GIVE_UP;
	while (kf_jobs_strays(&js) && kf_now() < until) {
		struct pollfd pfd = {sfd, POLLIN, 0};

		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		poll(&pfd, 1, 50);
		kf_proc_signals(sfd);
	}
}

/* The loop. */

static int
poll_timeout(double now)
{
	double t = INFINITY, ms;
	int i;

	for (i = 0; i < js.n; i++)
		if (js.slots[i])
			t = fmin(t, kf_job_wake_at(js.slots[i], now));
	if (progress_on && js.nrunning)
		t = fmin(t, now + 1);
	if (t == INFINITY)
		return -1;
	ms = ceil((t - now) * 1000);
	return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

static void
loop(struct input *in)
{
	struct pollfd *pfd = xcalloc((size_t)js.n * 2 + 2, sizeof *pfd);
	int qmax = js.n * 2 + 16;

	for (;;) {
		double now = kf_now();
		int n = 0, i, want_input;

		if (out_broken && !interrupted)
			interrupt(SIGPIPE, now);
		start_ready();
		want_input = !in->done && !interrupted && nqueued < qmax;
		if (!want_input && js.nrunning == 0 && qhead == NULL)
			break;
		pfd[n++] = (struct pollfd){sfd, POLLIN, 0};
		pfd[n++] = (struct pollfd){want_input ? in->fd : -1, POLLIN, 0};
		for (i = 0; i < js.n; i++) {
			pfd[n++] = (struct pollfd){js.slots[i] ? js.slots[i]->c.out : -1, POLLIN, 0};
			pfd[n++] = (struct pollfd){js.slots[i] ? js.slots[i]->c.err : -1, POLLIN, 0};
		}
		if (poll(pfd, (nfds_t)n, poll_timeout(now)) < 0 && errno != EINTR)
			kf_die(1, "poll:");
		now = kf_now();
		for (i = 0; i < js.n; i++) {
			if (js.slots[i] && pfd[2 + 2 * i].revents)
				kf_job_read(js.slots[i], 0, now);
			if (js.slots[i] && pfd[3 + 2 * i].revents)
				kf_job_read(js.slots[i], 1, now);
		}
		if (pfd[0].revents) {
			uint64_t sigs = kf_proc_signals(sfd);

			if (sigs & (1ULL << SIGCHLD))
				kf_jobs_reap(&js, now);
			for (i = 1; i < 64; i++)
				if (i != SIGCHLD && (sigs >> i & 1))
					interrupt(i, now);
		}
		if (want_input && pfd[1].revents)
			read_input(in);
		for (i = 0; i < js.n; i++)
			if (js.slots[i])
				kf_jobs_timers(&js, js.slots[i], now);
		for (i = 0; i < js.n; i++)
			if (js.slots[i] && (js.slots[i]->reaped || js.slots[i]->kill_at > 0))
				settle(js.slots[i], now);
		progress(now, 0);
	}
	free(pfd);
}

static void
parse_gpus(const char *arg)
{
	char *s = xstrdup(arg), *tok, *save = NULL;

	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		tok = kf_trim(tok);
		if (!*tok)
			continue;
		opt.gpus = xrealloc(opt.gpus, (size_t)(opt.ngpus + 1) * sizeof *opt.gpus);
		opt.gpus[opt.ngpus++] = xstrdup(tok);
	}
	free(s);
	if (opt.ngpus == 0)
		kf_usage_error("--gpus: no GPU in '%s'", arg);
}

static void
options(int argc, char **argv)
{
	static const struct kf_optarg files[] = {
		{ "FILE", KF_ARG_FILE, NULL, NULL },
		{ NULL, 0, NULL, NULL }
	};
	int c;

	kf_opt_init(usage, help);
	kf_opt_complete(files, NULL);
	while ((c = kf_getopt(argc, argv, "+i:j:klqt:u", longopts)) != -1) {
		switch (c) {
		case 't':
			opt.job.timeout = kf_opt_seconds(optarg, "--timeout");
			opt.job.timeout_set = 1;
			break;
		case 'i':
			opt.job.inactivity = kf_opt_seconds(optarg, "--inactivity");
			opt.job.inactivity_set = 1;
			break;
		case OPT_GRACE: opt.job.grace = kf_opt_seconds(optarg, "--grace"); break;
		case OPT_MGRACE: opt.job.mgrace = kf_opt_seconds(optarg, "--marker-grace"); break;
		case OPT_PGRACE: opt.job.pgrace = kf_opt_seconds(optarg, "--pytest-grace"); break;
		case OPT_DRAIN: opt.job.drain = kf_opt_seconds(optarg, "--drain"); break;
		case 'j': opt.jobs = kf_opt_long(optarg, "--jobs", 1, 4096); break;
		case OPT_GPUS: parse_gpus(optarg); break;
		case 'k': opt.keep_order = 1; break;
		case OPT_TAIL: opt.job.tail = kf_opt_size(optarg, "--tail-size"); break;
		case OPT_SAVE: opt.job.save = 1; break;
		case OPT_SECRETS: opt.secrets = 1; break;
		case 'q': opt.quiet = 1; break;
		case 'l': opt.job.echo = echo; break;
		default: kf_usage();
		}
	}
	if (opt.job.tail > (size_t)1 << 30)
		kf_usage_error("--tail-size: at most 1G");
	if (opt.ngpus && opt.jobs > opt.ngpus)
		kf_usage_error("-j %ld with %d GPUs: jobs would share a GPU",
		    opt.jobs, opt.ngpus);
	if (opt.jobs == 0)
		opt.jobs = opt.ngpus ? opt.ngpus : 1;
}

int
main(int argc, char **argv)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct input in = {0};
	int status;

	kf_init(argv[0]);
	options(argc, argv);
	js.self = getpid();
	t0 = kf_now();
	js.n = (int)opt.jobs;
	js.slots = xcalloc((size_t)js.n, sizeof *js.slots);
	base_env = kf_env_base(opt.secrets);
	sfd = kf_proc_init(sigs, 3);
	/* One job's live output is the sign of life: no progress line in it. */
	progress_on = !opt.quiet && isatty(2) && !(opt.job.echo && js.n == 1);
	in.ops.v = argv + optind;
	in.ops.n = argc - optind;
	in.ops.i = -1;
	in.fd = -1;
	in.seq = kf_seq_new();
	if (input_next(&in))
		loop(&in);
	sweep();
	progress(kf_now(), 1);
	progress_clear();
	status = kf_finish();
	/* Stopped by a signal: die of it, as the shell expects. Output that
	 * failed is not a signal: the status says it. */
	if (interrupted && !out_broken)
		kf_proc_die_of(interrupted);
	cJSON_Delete(worker);
	kf_map_free(&held);
	buf_free(&in.b);
	kf_seq_free(in.seq);
	free(js.slots);
	free(base_env);
	return status;
}
