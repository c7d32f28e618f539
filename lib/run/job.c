/* kf: one job of kf-run: its record checked, its streams captured, its
 * limits, and the "run" object that says how it ended (job.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "buf.h"
#include "job.h"
#include "mem.h"
#include "path.h"
#include "record.h"
#include "signame.h"

#define CHUNK 65536
#define READS_PER_WAKE 16	/* 1 MiB per stream before others get a turn */

const char *const kf_ended_names[] = {
	NULL, "exit", "timeout", "inactivity", "end_marker", "interrupted"
};

const char *
kf_job_check(const cJSON *rec)
{
	const cJSON *argv = kf_arr(rec, "argv"), *a, *v;
	static const char *const limits[] = {"timeout", "inactivity"};
	size_t i;
	char *b;
	int empty = 0;

	if (argv == NULL)
		return cJSON_GetObjectItemCaseSensitive(rec, "argv") ?
		    "argv is not an array of strings" : "no argv";
	if (cJSON_GetArraySize(argv) == 0)
		return "argv is empty";
	cJSON_ArrayForEach(a, argv) {
		/* a string, or an argument's bytes as {"hex": ...} */
		if ((b = kf_arg_bytes(a)) == NULL)
			return "argv is not an array of strings";
		if (a == argv->child)
			empty = b[0] == '\0';
		free(b);
	}
	if (empty)
		return "argv[0] is empty";
	v = cJSON_GetObjectItemCaseSensitive(rec, "env");
	if (v && !cJSON_IsNull(v) && !cJSON_IsObject(v))
		return "env is not an object";
	v = cJSON_GetObjectItemCaseSensitive(rec, "cwd");
	if (v && !cJSON_IsNull(v) && !(cJSON_IsString(v) && v->valuestring[0] == '/'))
		return "cwd is not an absolute path";
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

/* --save-output: stream k's log in output_dir (relative to the record's
 * cwd, where the program runs), or -1 with a note. */
static int
open_log(struct kf_job *j, int k)
{
	const char *dir = kf_str(j->rec, "output_dir"), *cwd = kf_str(j->rec, "cwd");
	char *path, *at = NULL;
	int fd;

	if (dir && dir[0] != '/' && cwd)
		dir = at = kf_path_join(cwd, dir);
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
		free(at);
		return -1;
	}
	path = kf_path_join(dir, k ? "stderr.log" : "stdout.log");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		buf_printf(&j->note, "; --save-output: cannot write %s (%s)",
		    path, strerror(errno));
	free(path);
	free(at);
	return fd;
}

struct kf_job *
kf_job_new(cJSON *rec, long seq, const char *file, long line, int slot,
    pid_t self, const struct kf_job_opts *o)
{
	struct kf_job *j = xcalloc(1, sizeof *j);
	const char *m = kf_str(rec, "end_marker");
	int k;

	j->rec = rec;
	j->seq = seq;
	j->file = file ? xstrdup(file) : NULL;
	j->line = line;
	j->slot = slot;
	j->o = o;
	j->marker = m && *m ? m : NULL;
	/* A limit given on the command line wins, as flags do. */
	j->timeout = o->timeout_set ? o->timeout : kf_num(rec, "timeout", o->timeout);
	j->inactivity = o->inactivity_set ? o->inactivity :
	    kf_num(rec, "inactivity", o->inactivity);
	snprintf(j->tag, sizeof j->tag, "%d.%ld", (int)self, seq);
	j->c.pid = -1;
	j->c.out = j->c.err = -1;
	j->s[0].fd = &j->c.out;
	j->s[1].fd = &j->c.err;
	for (k = 0; k < 2; k++) {
		kf_tail_init(&j->s[k].tail, o->tail);
		kf_marker_init(&j->s[k].marker, j->marker);
		j->s[k].log = o->save ? open_log(j, k) : -1;
	}
	return j;
}

void
kf_job_free(struct kf_job *j)
{
	int k;

	kf_child_close(&j->c);
	for (k = 0; k < 2; k++) {
		kf_tail_free(&j->s[k].tail);
		if (j->s[k].log >= 0)
			close(j->s[k].log);
		kf_marker_free(&j->s[k].marker);
	}
	cJSON_Delete(j->rec);
	buf_free(&j->note);
	buf_free(&j->echo[0]);
	buf_free(&j->echo[1]);
	free(j->file);
	free(j);
}

/* Capture. */

static void
save(struct kf_job *j, struct kf_stream *s, const char *p, size_t n)
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

void
kf_job_read(struct kf_job *j, int k, double now)
{
	static char chunk[CHUNK];
	struct kf_stream *s = &j->s[k];
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
		if (j->o->echo)
			j->o->echo(j, k, chunk, (size_t)n);
		if (s->log >= 0)
			save(j, s, chunk, (size_t)n);
		if (!j->marker_at && kf_marker_feed(&s->marker, chunk, (size_t)n)) {
			j->marker_at = now;
			j->hit = &s->marker;
		}
	}
}

/* Limits. */

static double
marker_grace(const struct kf_job *j)
{
	return strcmp(j->marker, "pytest") == 0 ? j->o->pgrace : j->o->mgrace;
}

void
kf_jobs_timers(const struct kf_jobset *js, struct kf_job *j, double now)
{
	if (j->ended == KF_END_NONE && !j->reaped) {
		if (j->timeout > 0 && now >= j->start + j->timeout)
			kf_jobs_end(js, j, KF_END_TIMEOUT, now);
		else if (j->inactivity > 0 && now >= j->last_io + j->inactivity)
			kf_jobs_end(js, j, KF_END_INACTIVITY, now);
		else if (j->marker_at > 0 && now >= j->marker_at + marker_grace(j))
			kf_jobs_end(js, j, KF_END_MARKER, now);
	}
	if (j->term_at > 0 && j->kill_at == 0 && now >= j->term_at + j->o->grace)
		kf_jobs_signal(js, j, SIGKILL, now);
}

double
kf_job_wake_at(const struct kf_job *j, double now)
{
	double t = INFINITY;

	if (j->ended == KF_END_NONE && !j->reaped) {
		if (j->timeout > 0)
			t = fmin(t, j->start + j->timeout);
		if (j->inactivity > 0)
			t = fmin(t, j->last_io + j->inactivity);
		if (j->marker_at > 0)
			t = fmin(t, j->marker_at + marker_grace(j));
	}
	if (j->term_at > 0 && j->kill_at == 0)
		t = fmin(t, j->term_at + j->o->grace);
	if (j->reaped && (j->c.out >= 0 || j->c.err >= 0) &&
	    now < j->exited_at + j->o->drain)
		t = fmin(t, j->exited_at + j->o->drain);
	if (j->waiting)
		t = fmin(t, now + KF_JOB_RECHECK);
	if (j->kill_at > 0 && !j->reaped)
		t = fmin(t, j->kill_at + KF_JOB_GIVE_UP);
	return t;
}

/* The run record. */

static void
add_status(cJSON *run, const struct kf_job *j)
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
how_ended(struct buf *m, const struct kf_job *j)
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
message(const struct kf_job *j, int sig)
{
	struct buf m = {0};
	const char *pytest = j->marker && strcmp(j->marker, "pytest") == 0 ?
	    "the pytest summary" : "the end marker";

	switch (j->ended) {
	case KF_END_TIMEOUT:
		buf_printf(&m, "timed out after %g s", j->timeout);
		break;
	case KF_END_INACTIVITY:
		buf_printf(&m, "no output for %g s", j->inactivity);
		break;
	case KF_END_MARKER:
		buf_printf(&m, "%s appeared (\"%s\") but the program was still "
		    "running %g s later", pytest, kf_marker_text(j->hit),
		    marker_grace(j));
		break;
	case KF_END_INTERRUPTED:
		buf_printf(&m, "kf-run was stopped by %s", kf_signame(sig));
		break;
	default:
		how_ended(&m, j);
		if (j->marker_at)
			buf_printf(&m, " after %s appeared", pytest);
	}
	if (j->ended != KF_END_EXIT) {
		buf_printf(&m, ": ended with SIGTERM%s; ", j->kill_at ?
		    " and, after the grace period, SIGKILL" : "");
		how_ended(&m, j);
	}
	if (j->ended == KF_END_MARKER && kf_marker_all_passed(j->hit))
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

static void
add_stream(cJSON *run, const char *key, const struct kf_stream *s)
{
	char bytes[32], *t = kf_tail_str(&s->tail);

	cJSON_AddStringToObject(run, key, t);
	snprintf(bytes, sizeof bytes, "%s_bytes", key);
	cJSON_AddNumberToObject(run, bytes, (double)s->tail.total);
	free(t);
}

cJSON *
kf_job_run(const struct kf_job *j, double now, int sig)
{
	double end = j->reaped ? j->exited_at : now;
	cJSON *run = cJSON_CreateObject();
	char *msg = message(j, sig);

	add_status(run, j);
	cJSON_AddStringToObject(run, "ended_by", kf_ended_names[j->ended]);
	if (j->ended == KF_END_TIMEOUT || j->ended == KF_END_INACTIVITY)
		cJSON_AddNumberToObject(run, "limit_s", j->ended == KF_END_TIMEOUT ?
		    j->timeout : j->inactivity);
	cJSON_AddNumberToObject(run, "elapsed_s", round((end - j->start) * 1000) / 1000);
	add_stream(run, "stdout", &j->s[0]);
	add_stream(run, "stderr", &j->s[1]);
	cJSON_AddStringToObject(run, "message", msg);
	cJSON_AddNumberToObject(run, "pid", j->c.pid);
	cJSON_AddTrueToObject(run, "started");
	cJSON_AddNumberToObject(run, "leftovers", j->leftovers);
	if (j->gpu)
		cJSON_AddStringToObject(run, "gpu", j->gpu);
	free(msg);
	return run;
}

cJSON *
kf_job_not_run(int code, const char *msg)
{
	cJSON *run = cJSON_CreateObject();

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
	return run;
}

/* A program that could not be started: said like a shell (127, 126). */
cJSON *
kf_job_not_started(const char *argv0, int err)
{
	int code = err == ENOENT || err == ENOTDIR ? 127 : 126;
	cJSON *run;
	char *msg;

	if (code == 127 && strchr(argv0, '/') == NULL)
		msg = xasprintf("cannot run '%s': command not found in PATH", argv0);
	else if (code == 127)
		msg = xasprintf("cannot run '%s': %s", argv0, strerror(err));
	else
		msg = xasprintf("cannot run '%s': not executable (%s)", argv0, strerror(err));
	run = kf_job_not_run(code, msg);
	free(msg);
	return run;
}
