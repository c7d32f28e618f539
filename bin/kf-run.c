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

#include "env.h"
#include "map.h"
#include "marker.h"
#include "opt.h"
#include "proc.h"
#include "ptree.h"
#include "record.h"
#include "text.h"
#include "worker.h"

#define CHUNK 65536
#define READS_PER_WAKE 16	/* 1 MiB per stream before others get a turn */
#define GIVE_UP 5.0		/* after SIGKILL, seconds before a job is let go */
#define RECHECK 0.1		/* while leftovers die, look again this often */
#define TAG_VAR "KF_RUN_JOB"

static const char usage[] =
    "[-kqu] [-j N] [-t SECONDS] [-i SECONDS] [--gpus LIST] [file ...]";
static const char help[] =
    "Run each record's argv; add \"run\" and \"worker\".\n"
    "  -t, --timeout S       end a job after S seconds (300; 0: never)\n"
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
	KF_OPT_COMMON
};

enum ended { E_NONE, E_EXIT, E_TIMEOUT, E_INACTIVITY, E_MARKER, E_INTERRUPTED };
static const char *const ended_names[] = {
	NULL, "exit", "timeout", "inactivity", "end_marker", "interrupted"
};

static struct {
	double timeout, inactivity, grace, mgrace, pgrace, drain;
	long jobs;
	size_t tail;
	int keep_order, save, secrets, quiet;
	char **gpus;
	int ngpus;
} opt = { 300, 100, 2, 2, 10, 1, 0, 65536, 0, 0, 0, 0, NULL, 0 };

struct stream {
	int *fd;		/* into the job's kf_child */
	struct kf_tail tail;
	int log;		/* --save-output file, or -1 */
	struct kf_marker marker;
};

struct job {
	cJSON *rec;
	long seq, line;
	char *file;
	char tag[48];		/* TAG_VAR's value: finds its orphans */
	int slot;
	struct kf_child c;
	struct stream s[2];
	const char *marker;	/* NULL, "pytest" or a literal */
	double timeout, inactivity;
	double start, last_io, marker_at, term_at, kill_at, exited_at;
	enum ended ended;
	int status, reaped, waiting, leftovers;
	const struct kf_marker *hit;	/* the stream's that saw the marker */
	struct buf note;
};

struct pending {
	cJSON *rec;
	long seq, line;
	char *file;
	struct pending *next;
};

struct input {
	char **ops;
	int nops, i, fd, done;
	const char *name;
	long line;
	struct buf b;
};

static struct job **slots;
static int nslots, nrunning;
static struct pending *qhead, *qtail;
static int nqueued;
static long nseq, ndone, next_out;
static int input_done;
static struct kf_map held;		/* --keep-order: finished, not yet written */
static char **base_env;
static cJSON *worker;
static int sfd, interrupted, out_broken, progress_on, progress_shown;
static double t0, last_draw;
static pid_t self;

/* Progress on a terminal. */

static void
progress_clear(void)
{
	if (progress_shown) {
		fputs("\r\033[K", stderr);
		progress_shown = 0;
	}
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
	fprintf(stderr, " done, %d running, %.0fs elapsed", nrunning, el);
	if (input_done && ndone > 0 && ndone < nseq)
		fprintf(stderr, ", about %.0fs left", el / (double)ndone * (double)(nseq - ndone));
	progress_shown = 1;
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

/* Reading a job's output. */

static void
save(struct job *j, struct stream *s, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(s->log, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			buf_printf(&j->note, "; writing %s.log failed (%s): the saved "
			    "output is cut short", s == &j->s[0] ? "stdout" : "stderr",
			    strerror(errno));
			close(s->log);
			s->log = -1;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void
read_stream(struct job *j, struct stream *s, double now)
{
	static char chunk[CHUNK];
	int i;

	for (i = 0; i < READS_PER_WAKE && *s->fd >= 0; i++) {
		ssize_t n = read(*s->fd, chunk, sizeof chunk);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(*s->fd);
			*s->fd = -1;
			return;
		}
		j->last_io = now;
		kf_tail_add(&s->tail, chunk, (size_t)n);
		if (s->log >= 0)
			save(j, s, chunk, (size_t)n);
		if (!j->marker_at && kf_marker_feed(&s->marker, chunk, (size_t)n)) {
			j->marker_at = now;
			j->hit = &s->marker;
		}
	}
}

/* Ending jobs and what they leave behind. */

static int
is_running_main(pid_t pid)
{
	int i;

	for (i = 0; i < nslots; i++)
		if (slots[i] && !slots[i]->reaped && slots[i]->c.pid == pid)
			return 1;
	return 0;
}

struct owner {
	const struct job *j;	/* NULL: anyone's left behind */
	int adopt;
};

/* Is p, one of our descendants, one of o->j's? Its session or group, or an
 * orphan of ours carrying j's tag; an orphan without one of our tags goes
 * with j when o->adopt. */
static int
belongs(const struct kf_pinfo *p, void *arg)
{
	const struct owner *o = arg;
	char prefix[32], *v;
	int r;

	if (o->j && (p->sid == o->j->c.pid || p->pgid == o->j->c.pid))
		return 1;
	if (p->ppid != self || is_running_main(p->pid))
		return 0;
	if (o->j == NULL)
		return 1;
	v = kf_environ_get(p->pid, TAG_VAR);
	snprintf(prefix, sizeof prefix, "%d.", (int)self);
	if (v && strncmp(v, prefix, strlen(prefix)) == 0)
		r = strcmp(v, o->j->tag) == 0;
	else
		r = o->adopt;
	free(v);
	return r;
}

/* Signal (sig != 0) and count the living processes of j (NULL: every
 * orphan of ours), descendants included. An orphan without our tag is
 * taken for j's only while j is the one job running. */
static int
signal_tree(const struct job *j, int sig)
{
	struct owner o = { j, nrunning <= 1 };

	return kf_ptree_signal(belongs, &o, sig);
}

/* Any child of ours that is not a running job's program? */
static int
strays(void)
{
	pid_t *kids = NULL;
	size_t n, i;
	int r = 0;

	if (kf_children(&kids, &n) != 0)
		return 1;
	for (i = 0; i < n && !r; i++)
		r = !is_running_main(kids[i]);
	free(kids);
	return r;
}

static int
job_alive(const struct job *j)
{
	/* The common case, nothing left, costs two system calls. */
	if (killpg(j->c.pid, 0) != 0 && errno == ESRCH && !strays())
		return 0;
	return signal_tree(j, 0);
}

static void
signal_job(struct job *j, int sig, double now)
{
	if (sig == SIGTERM)
		j->term_at = now;
	else
		j->kill_at = now;
	/* Until reaped, the program holds its group id: it cannot be reused. */
	if (!j->reaped) {
		killpg(j->c.pid, sig);
		if (sig == SIGTERM)
			killpg(j->c.pid, SIGCONT);
	}
	signal_tree(j, sig);
}

static void
end_job(struct job *j, enum ended why, double now)
{
	if (j->ended != E_NONE)
		return;
	j->ended = why;
	signal_job(j, SIGTERM, now);
}

static double
marker_grace(const struct job *j)
{
	return strcmp(j->marker, "pytest") == 0 ? opt.pgrace : opt.mgrace;
}

static void
timers(struct job *j, double now)
{
	if (j->ended == E_NONE && !j->reaped) {
		if (j->timeout > 0 && now >= j->start + j->timeout)
			end_job(j, E_TIMEOUT, now);
		else if (j->inactivity > 0 && now >= j->last_io + j->inactivity)
			end_job(j, E_INACTIVITY, now);
		else if (j->marker_at > 0 && now >= j->marker_at + marker_grace(j))
			end_job(j, E_MARKER, now);
	}
	if (j->term_at > 0 && j->kill_at == 0 && now >= j->term_at + opt.grace)
		signal_job(j, SIGKILL, now);
}

/* When next to look at j, or INFINITY. */
static double
wake_at(const struct job *j, double now)
{
	double t = INFINITY;

	if (j->ended == E_NONE && !j->reaped) {
		if (j->timeout > 0)
			t = fmin(t, j->start + j->timeout);
		if (j->inactivity > 0)
			t = fmin(t, j->last_io + j->inactivity);
		if (j->marker_at > 0)
			t = fmin(t, j->marker_at + marker_grace(j));
	}
	if (j->term_at > 0 && j->kill_at == 0)
		t = fmin(t, j->term_at + opt.grace);
	if (j->reaped && (j->c.out >= 0 || j->c.err >= 0) &&
	    now < j->exited_at + opt.drain)
		t = j->exited_at + opt.drain < t ? j->exited_at + opt.drain : t;
	if (j->waiting)
		t = fmin(t, now + RECHECK);
	if (j->kill_at > 0 && !j->reaped)
		t = fmin(t, j->kill_at + GIVE_UP);
	return t;
}

/* The record of a finished job. */

static void
add_status(cJSON *run, struct job *j)
{
	int st = j->status;

	if (j->reaped && WIFEXITED(st)) {
		cJSON_AddNumberToObject(run, "exit_code", WEXITSTATUS(st));
		cJSON_AddNullToObject(run, "signal");
	} else if (j->reaped && WIFSIGNALED(st)) {
		const char *name = kf_signame(WTERMSIG(st));

		cJSON_AddNullToObject(run, "exit_code");
		if (name)
			cJSON_AddStringToObject(run, "signal", name);
		else
			cJSON_AddNumberToObject(run, "signal", WTERMSIG(st));
	} else {
		cJSON_AddNullToObject(run, "exit_code");
		cJSON_AddNullToObject(run, "signal");
	}
}

static void
how_ended(struct buf *m, const struct job *j)
{
	int st = j->status;

	if (!j->reaped)
		buf_puts(m, "the program did not end, even after SIGKILL");
	else if (WIFEXITED(st))
		buf_printf(m, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		buf_printf(m, "killed by %s%s", kf_signame(WTERMSIG(st)) ?
		    kf_signame(WTERMSIG(st)) : "a signal",
		    WCOREDUMP(st) ? " (core dumped)" : "");
}

static char *
message(const struct job *j)
{
	struct buf m = {0};
	const char *pytest = j->marker && strcmp(j->marker, "pytest") == 0 ?
	    "the pytest summary" : "the end marker";

	switch (j->ended) {
	case E_TIMEOUT:
		buf_printf(&m, "timed out after %g s", j->timeout);
		break;
	case E_INACTIVITY:
		buf_printf(&m, "no output for %g s", j->inactivity);
		break;
	case E_MARKER:
		buf_printf(&m, "%s appeared (\"%s\") but the program was still "
		    "running %g s later", pytest, kf_marker_text(j->hit),
		    marker_grace(j));
		break;
	case E_INTERRUPTED:
		buf_printf(&m, "kf-run was stopped by %s", kf_signame(interrupted));
		break;
	default:
		how_ended(&m, j);
		if (j->marker_at)
			buf_printf(&m, " after %s appeared", pytest);
	}
	if (j->ended != E_EXIT) {
		buf_printf(&m, ": ended with SIGTERM%s; ", j->kill_at ?
		    " and, after the grace period, SIGKILL" : "");
		how_ended(&m, j);
	}
	if (j->ended == E_MARKER && kf_marker_all_passed(j->hit))
		buf_puts(&m, ". All tests passed but the process did not exit "
		    "cleanly and had to be terminated");
	if (j->leftovers)
		buf_printf(&m, "; %d process%s left running after it exited %s ended",
		    j->leftovers, j->leftovers == 1 ? "" : "es",
		    j->leftovers == 1 ? "was" : "were");
	if (j->note.len)
		buf_puts(&m, j->note.s);
	return buf_take(&m);
}

static cJSON *
worker_for(const struct job *j)
{
	cJSON *w = cJSON_Duplicate(worker, 1);
	const cJSON *names = kf_arr(worker, "gpus");
	const char *g;
	char *end;
	long k;

	/* With --gpus the job's GPU is the one named, where we can tell. */
	if (j->slot < 0 || opt.ngpus == 0)
		return w;
	g = opt.gpus[j->slot];
	k = strtol(g, &end, 10);
	if (*g && !*end && k >= 0 && k < cJSON_GetArraySize(names))
		kf_set(w, "gpu_name", cJSON_Duplicate(cJSON_GetArrayItem(names, (int)k), 1));
	return w;
}

static void
add_stream(cJSON *run, const char *key, struct stream *s)
{
	char bytes[32], *t = kf_tail_str(&s->tail);

	cJSON_AddStringToObject(run, key, t);
	snprintf(bytes, sizeof bytes, "%s_bytes", key);
	cJSON_AddNumberToObject(run, bytes, (double)s->tail.total);
	free(t);
}

static void
free_job(struct job *j)
{
	int k;

	kf_child_close(&j->c);
	for (k = 0; k < 2; k++) {
		kf_tail_free(&j->s[k].tail);
		if (j->s[k].log >= 0)
			close(j->s[k].log);
		kf_marker_free(&j->s[k].marker);
	}
	buf_free(&j->note);
	free(j->file);
	free(j);
}

static void
finish(struct job *j, double now)
{
	double end = j->reaped ? j->exited_at : now;
	cJSON *run = cJSON_CreateObject();
	char *msg = message(j);

	add_status(run, j);
	cJSON_AddStringToObject(run, "ended_by", ended_names[j->ended]);
	if (j->ended == E_TIMEOUT || j->ended == E_INACTIVITY)
		cJSON_AddNumberToObject(run, "limit_s", j->ended == E_TIMEOUT ? j->timeout :
		    j->inactivity);
	cJSON_AddNumberToObject(run, "elapsed_s", round((end - j->start) * 1000) / 1000);
	add_stream(run, "stdout", &j->s[0]);
	add_stream(run, "stderr", &j->s[1]);
	cJSON_AddStringToObject(run, "message", msg);
	cJSON_AddNumberToObject(run, "pid", j->c.pid);
	cJSON_AddTrueToObject(run, "started");
	cJSON_AddNumberToObject(run, "leftovers", j->leftovers);
	if (j->slot >= 0 && opt.ngpus)
		cJSON_AddStringToObject(run, "gpu", opt.gpus[j->slot]);
	free(msg);
	kf_set(j->rec, "run", run);
	kf_set(j->rec, "worker", worker_for(j));
	slots[j->slot] = NULL;
	nrunning--;
	output(j->seq, j->rec);
	j->rec = NULL;
	free_job(j);
}

/* After the program exited: wait out the drain, end what it left, then
 * write the record. */
static void
settle(struct job *j, double now)
{
	int open = j->c.out >= 0 || j->c.err >= 0, n;

	if (!j->reaped) {
		if (j->kill_at > 0 && now >= j->kill_at + GIVE_UP)
			finish(j, now);
		return;
	}
	if (open && now < j->exited_at + opt.drain)
		return;
	n = job_alive(j);
	if (n == 0) {
		/* The last writer may have died a moment ago: take what it left. */
		read_stream(j, &j->s[0], now);
		read_stream(j, &j->s[1], now);
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
		signal_job(j, SIGTERM, now);
	} else if (j->kill_at > 0 && now >= j->kill_at + GIVE_UP) {
		buf_printf(&j->note, "; %d process%s did not end even after SIGKILL",
		    n, n == 1 ? "" : "es");
		finish(j, now);
	}
}

static void
reap(double now)
{
	int st, i;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < nslots; i++)
			if (slots[i] && !slots[i]->reaped && slots[i]->c.pid == pid) {
				struct job *j = slots[i];

				j->reaped = 1;
				j->status = st;
				j->exited_at = now;
				if (j->ended == E_NONE)
					j->ended = E_EXIT;
				break;
			}
}

/* Starting jobs. */

static const char *
check_record(const cJSON *rec)
{
	const cJSON *argv = kf_arr(rec, "argv"), *a, *v;
	static const char *const limits[] = {"timeout", "inactivity"};
	size_t i;

	if (argv == NULL)
		return cJSON_GetObjectItemCaseSensitive(rec, "argv") ?
		    "argv is not an array of strings" : "no argv";
	if (cJSON_GetArraySize(argv) == 0)
		return "argv is empty";
	cJSON_ArrayForEach(a, argv)
		if (!cJSON_IsString(a))
			return "argv is not an array of strings";
	if (!cJSON_IsString(cJSON_GetArrayItem(argv, 0)) ||
	    !*cJSON_GetArrayItem(argv, 0)->valuestring)
		return "argv[0] is empty";
	v = cJSON_GetObjectItemCaseSensitive(rec, "env");
	if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
		return "env is not an object";
	v = cJSON_GetObjectItemCaseSensitive(rec, "end_marker");
	if (v && !cJSON_IsNull(v) && !cJSON_IsString(v))
		return "end_marker is not a string or null";
	for (i = 0; i < 2; i++) {
		v = cJSON_GetObjectItemCaseSensitive(rec, limits[i]);
		if (v && !cJSON_IsNull(v) && !(cJSON_IsNumber(v) && v->valuedouble >= 0))
			return i ? "inactivity is not a number of seconds" :
			    "timeout is not a number of seconds";
	}
	return NULL;
}

static int
open_log(struct job *j, int k)
{
	const char *dir = kf_str(j->rec, "output_dir");
	char *path;
	int fd;

	if (dir == NULL) {
		if (k == 0)
			buf_puts(&j->note, "; --save-output: the record has no "
			    "output_dir, the output was not saved");
		return -1;
	}
	if (kf_mkdirs(dir, 0777) != 0) {
		if (k == 0)
			buf_printf(&j->note, "; --save-output: cannot make %s (%s)",
			    dir, strerror(errno));
		return -1;
	}
	path = kf_path_join(dir, k ? "stderr.log" : "stdout.log");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		buf_printf(&j->note, "; --save-output: cannot write %s (%s)",
		    path, strerror(errno));
	free(path);
	return fd;
}

static double
limit(const cJSON *rec, const char *key, double def)
{
	return kf_num(rec, key, def);
}

static struct job *
new_job(struct pending *p, int slot)
{
	struct job *j = xcalloc(1, sizeof *j);
	const char *m = kf_str(p->rec, "end_marker");
	int k;

	j->rec = p->rec;
	j->seq = p->seq;
	j->file = p->file;
	j->line = p->line;
	j->slot = slot;
	j->marker = m && *m ? m : NULL;
	j->timeout = limit(p->rec, "timeout", opt.timeout);
	j->inactivity = limit(p->rec, "inactivity", opt.inactivity);
	snprintf(j->tag, sizeof j->tag, "%d.%ld", (int)self, p->seq);
	j->c.pid = -1;
	j->c.out = j->c.err = -1;
	j->s[0].fd = &j->c.out;
	j->s[1].fd = &j->c.err;
	for (k = 0; k < 2; k++) {
		kf_tail_init(&j->s[k].tail, opt.tail);
		kf_marker_init(&j->s[k].marker, j->marker);
		j->s[k].log = opt.save ? open_log(j, k) : -1;
	}
	return j;
}

/* A program that could not be started: the record says so, like a shell. */
static void
not_started(struct job *j, int err)
{
	const char *argv0 = cJSON_GetArrayItem(kf_arr(j->rec, "argv"), 0)->valuestring;
	int code = err == ENOENT || err == ENOTDIR ? 127 : 126;
	cJSON *run = cJSON_CreateObject();
	char *msg;

	if (code == 127 && strchr(argv0, '/') == NULL)
		msg = xasprintf("cannot run '%s': command not found in PATH", argv0);
	else if (code == 127)
		msg = xasprintf("cannot run '%s': %s", argv0, strerror(err));
	else
		msg = xasprintf("cannot run '%s': not executable (%s)", argv0, strerror(err));
	cJSON_AddNumberToObject(run, "exit_code", code);
	cJSON_AddNullToObject(run, "signal");
	cJSON_AddStringToObject(run, "ended_by", "exit");
	cJSON_AddNumberToObject(run, "elapsed_s", 0);
	cJSON_AddStringToObject(run, "stdout", "");
	cJSON_AddStringToObject(run, "stderr", "");
	cJSON_AddStringToObject(run, "message", msg);
	cJSON_AddNullToObject(run, "pid");
	cJSON_AddFalseToObject(run, "started");
	cJSON_AddNumberToObject(run, "leftovers", 0);
	free(msg);
	kf_set(j->rec, "run", run);
	kf_set(j->rec, "worker", worker_for(j));
	output(j->seq, j->rec);
	j->rec = NULL;
	free_job(j);
}

static char **
argv_of(const cJSON *rec)
{
	const cJSON *a = kf_arr(rec, "argv"), *v;
	char **argv = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *argv);
	size_t n = 0;

	cJSON_ArrayForEach(v, a)
		argv[n++] = v->valuestring;
	return argv;
}

static void
start(struct pending *p, int slot)
{
	const char *bad = check_record(p->rec);
	struct kf_env e = {0};
	struct job *j;
	char **argv;
	int r, err;

	if (bad == NULL &&
	    (bad = kf_env_build(&e, base_env, kf_obj(p->rec, "env"))) == NULL) {
		if (opt.ngpus) {
			kf_env_set(&e, "CUDA_VISIBLE_DEVICES", opt.gpus[slot]);
			kf_env_set(&e, "ZE_AFFINITY_MASK", opt.gpus[slot]);
		}
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
	j = new_job(p, slot);
	kf_env_set(&e, TAG_VAR, j->tag);
	argv = argv_of(j->rec);
	j->start = j->last_io = kf_now();
	r = kf_spawn(argv, e.v, &j->c);
	err = errno;
	free(argv);
	kf_env_free(&e);
	if (r == -1) {
		not_started(j, err);
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
		free_job(j);
		return;
	}
	slots[slot] = j;
	nrunning++;
}

static void
start_ready(void)
{
	int slot;

	while (qhead && !interrupted) {
		struct pending *p = qhead;

		if (!kf_error(p->rec)) {
			for (slot = 0; slot < nslots && slots[slot]; slot++)
				;
			if (slot == nslots)
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
	for (;;) {
		const char *op;

		if (in->fd > 0)
			close(in->fd);
		in->fd = -1;
		in->i++;
		if (in->nops == 0 && in->i == 0)
			op = "-";
		else if (in->i < in->nops)
			op = in->ops[in->i];
		else {
			in->done = input_done = 1;
			return 0;
		}
		in->line = 0;
		if (strcmp(op, "-") == 0) {
			in->fd = 0;
			in->name = NULL;
			return 1;
		}
		in->name = op;
		if ((in->fd = open(op, O_RDONLY | O_CLOEXEC)) >= 0)
			return 1;
		progress_clear();
		kf_warn("%s:", op);
		kf_set_failed();
	}
}

static void
enqueue(struct input *in, const char *s, size_t n)
{
	struct pending *p;
	cJSON *rec;

	in->line++;
	progress_clear();
	if ((rec = kf_parse_line(s, n, in->name, in->line)) == NULL)
		return;
	p = xcalloc(1, sizeof *p);
	p->rec = rec;
	p->seq = nseq++;
	p->file = in->name ? xstrdup(in->name) : NULL;
	p->line = in->line;
	if (qtail)
		qtail->next = p;
	else
		qhead = p;
	qtail = p;
	nqueued++;
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

	if (interrupted) {
		/* A second signal: no more grace. */
		for (i = 0; i < nslots; i++)
			if (slots[i] && slots[i]->kill_at == 0)
				signal_job(slots[i], SIGKILL, now);
		return;
	}
	interrupted = sig;
	for (i = 0; i < nslots; i++)
		if (slots[i])
			end_job(slots[i], E_INTERRUPTED, now);
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
	if (!strays() || signal_tree(NULL, SIGTERM) == 0)
		return;
	until = kf_now() + opt.grace;
	while (signal_tree(NULL, 0) > 0 && kf_now() < until) {
		struct pollfd pfd = {sfd, POLLIN, 0};

		poll(&pfd, 1, 50);
		kf_proc_signals(sfd);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	signal_tree(NULL, SIGKILL);
	until = kf_now() + GIVE_UP;
	while (strays() && kf_now() < until) {
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

	for (i = 0; i < nslots; i++)
		if (slots[i])
			t = fmin(t, wake_at(slots[i], now));
	if (progress_on && nrunning)
		t = fmin(t, now + 1);
	if (t == INFINITY)
		return -1;
	ms = ceil((t - now) * 1000);
	return ms < 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

static void
loop(struct input *in)
{
	struct pollfd *pfd = xcalloc((size_t)nslots * 2 + 2, sizeof *pfd);
	int qmax = nslots * 2 + 16;

	for (;;) {
		double now = kf_now();
		int n = 0, i, want_input;

		if (out_broken && !interrupted)
			interrupt(SIGPIPE, now);
		start_ready();
		want_input = !in->done && !interrupted && nqueued < qmax;
		if (!want_input && nrunning == 0 && qhead == NULL)
			break;
		pfd[n++] = (struct pollfd){sfd, POLLIN, 0};
		pfd[n++] = (struct pollfd){want_input ? in->fd : -1, POLLIN, 0};
		for (i = 0; i < nslots; i++) {
			pfd[n++] = (struct pollfd){slots[i] ? slots[i]->c.out : -1, POLLIN, 0};
			pfd[n++] = (struct pollfd){slots[i] ? slots[i]->c.err : -1, POLLIN, 0};
		}
		if (poll(pfd, (nfds_t)n, poll_timeout(now)) < 0 && errno != EINTR)
			kf_die(1, "poll:");
		now = kf_now();
		for (i = 0; i < nslots; i++) {
			if (slots[i] && pfd[2 + 2 * i].revents)
				read_stream(slots[i], &slots[i]->s[0], now);
			if (slots[i] && pfd[3 + 2 * i].revents)
				read_stream(slots[i], &slots[i]->s[1], now);
		}
		if (pfd[0].revents) {
			uint64_t sigs = kf_proc_signals(sfd);

			if (sigs & (1ULL << SIGCHLD))
				reap(now);
			for (i = 1; i < 64; i++)
				if (i != SIGCHLD && (sigs >> i & 1))
					interrupt(i, now);
		}
		if (want_input && pfd[1].revents)
			read_input(in);
		for (i = 0; i < nslots; i++)
			if (slots[i])
				timers(slots[i], now);
		for (i = 0; i < nslots; i++)
			if (slots[i] && (slots[i]->reaped || slots[i]->kill_at > 0))
				settle(slots[i], now);
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
	int c;

	kf_opt_init(usage, help);
	while ((c = kf_getopt(argc, argv, "+i:j:kqt:u", longopts)) != -1) {
		switch (c) {
		case 't': opt.timeout = kf_opt_seconds(optarg, "--timeout"); break;
		case 'i': opt.inactivity = kf_opt_seconds(optarg, "--inactivity"); break;
		case OPT_GRACE: opt.grace = kf_opt_seconds(optarg, "--grace"); break;
		case OPT_MGRACE: opt.mgrace = kf_opt_seconds(optarg, "--marker-grace"); break;
		case OPT_PGRACE: opt.pgrace = kf_opt_seconds(optarg, "--pytest-grace"); break;
		case OPT_DRAIN: opt.drain = kf_opt_seconds(optarg, "--drain"); break;
		case 'j': opt.jobs = kf_opt_long(optarg, "--jobs", 1, 4096); break;
		case OPT_GPUS: parse_gpus(optarg); break;
		case 'k': opt.keep_order = 1; break;
		case OPT_TAIL: opt.tail = kf_opt_size(optarg, "--tail-size"); break;
		case OPT_SAVE: opt.save = 1; break;
		case OPT_SECRETS: opt.secrets = 1; break;
		case 'q': opt.quiet = 1; break;
		default: kf_usage();
		}
	}
	if (opt.tail > (size_t)1 << 30)
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
	self = getpid();
	t0 = kf_now();
	nslots = (int)opt.jobs;
	slots = xcalloc((size_t)nslots, sizeof *slots);
	base_env = kf_env_base(opt.secrets);
	sfd = kf_proc_init(sigs, 3);
	progress_on = !opt.quiet && isatty(2);
	in.ops = argv + optind;
	in.nops = argc - optind;
	in.i = -1;
	in.fd = -1;
	if (input_next(&in))
		loop(&in);
	sweep();
	progress(kf_now(), 1);
	progress_clear();
	status = kf_finish();
	/* Stopped by a signal: die of it, as the shell expects. Output that
	 * failed is not a signal: the status says it. */
	if (interrupted && !out_broken) {
		sigset_t set;

		signal(interrupted, SIG_DFL);
		sigemptyset(&set);
		sigaddset(&set, interrupted);
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		raise(interrupted);
	}
	cJSON_Delete(worker);
	kf_map_free(&held);
	buf_free(&in.b);
	free(slots);
	free(base_env);
	return status;
}
