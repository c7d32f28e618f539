/* kf: the running jobs of kf-run, and which processes are whose: a job's
 * session and process group, and the orphans that come back to kf-run (a
 * child subreaper) carrying the job's tag (job.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "job.h"
#include "ptree.h"

static int
is_running_main(const struct kf_jobset *js, pid_t pid)
{
	int i;

	for (i = 0; i < js->n; i++)
		if (js->slots[i] && !js->slots[i]->reaped && js->slots[i]->c.pid == pid)
			return 1;
	return 0;
}

struct owner {
	const struct kf_jobset *js;
	const struct kf_job *j;	/* NULL: anyone's left behind */
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
	if (p->ppid != o->js->self || is_running_main(o->js, p->pid))
		return 0;
	if (o->j == NULL)
		return 1;
	v = kf_environ_get(p->pid, KF_JOB_TAG);
	snprintf(prefix, sizeof prefix, "%d.", (int)o->js->self);
	if (v && strncmp(v, prefix, strlen(prefix)) == 0)
		r = strcmp(v, o->j->tag) == 0;
	else
		r = o->adopt;
	free(v);
	return r;
}

/* An orphan without our tag is taken for j's only while j is the one job
 * running. */
int
kf_jobs_signal_tree(const struct kf_jobset *js, const struct kf_job *j, int sig)
{
	struct owner o = { js, j, js->nrunning <= 1 };

	return kf_ptree_signal(belongs, &o, sig);
}

int
kf_jobs_strays(const struct kf_jobset *js)
{
	pid_t *kids = NULL;
	size_t n, i;
	int r = 0;

	if (kf_children(&kids, &n) != 0)
		return 1;
	for (i = 0; i < n && !r; i++)
		r = !is_running_main(js, kids[i]);
	free(kids);
	return r;
}

int
kf_jobs_alive(const struct kf_jobset *js, const struct kf_job *j)
{
	/* The common case, nothing left, costs two system calls. */
	if (killpg(j->c.pid, 0) != 0 && errno == ESRCH && !kf_jobs_strays(js))
		return 0;
	return kf_jobs_signal_tree(js, j, 0);
}

void
kf_jobs_signal(const struct kf_jobset *js, struct kf_job *j, int sig, double now)
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
	kf_jobs_signal_tree(js, j, sig);
}

void
kf_jobs_end(const struct kf_jobset *js, struct kf_job *j, enum kf_ended why, double now)
{
	if (j->ended != KF_END_NONE)
		return;
	j->ended = why;
	kf_jobs_signal(js, j, SIGTERM, now);
}

void
kf_jobs_reap(struct kf_jobset *js, double now)
{
	int st, i;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
		for (i = 0; i < js->n; i++) {
			struct kf_job *j = js->slots[i];

			if (j && !j->reaped && j->c.pid == pid) {
				j->reaped = 1;
				j->status = st;
				j->exited_at = now;
				if (j->ended == KF_END_NONE)
					j->ended = KF_END_EXIT;
				break;
			}
		}
}
