/* The "run" object kf-run writes, built from jobs made up here (no process
 * runs): one JSON line per case, for tests/runrec.bats. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "job.h"
#include "record.h"

static void
show(struct kf_job *j, double now, int sig)
{
	cJSON *run = kf_job_run(j, now, sig);

	kf_json_write(stdout, run);
	putchar('\n');
	cJSON_Delete(run);
	kf_job_free(j);
}

static struct kf_job *
job(const struct kf_job_opts *o, const char *rec)
{
	struct kf_job *j = kf_job_new(cJSON_Parse(rec), 0, NULL, 1, 0, 1234, o);

	j->c.pid = 4321;
	j->start = j->last_io = 10;
	return j;
}

int
main(void)
{
	struct kf_job_opts o = { 300, 100, 2, 2, 10, 1, 4, 0 };
	struct kf_job *j;
	cJSON *run;

	/* exited 3 after 1.5 s, 8 bytes of output, 4 kept */
	j = job(&o, "{}");
	kf_tail_add(&j->s[0].tail, "abcdefgh", 8);
	j->reaped = 1, j->status = 3 << 8, j->ended = KF_END_EXIT, j->exited_at = 11.5;
	show(j, 20, 0);
	/* the record's timeout (5 s) ran out; SIGTERM, then SIGKILL */
	j = job(&o, "{\"timeout\": 5}");
	j->ended = KF_END_TIMEOUT, j->term_at = 15, j->kill_at = 17;
	j->reaped = 1, j->status = SIGKILL, j->exited_at = 17.25;
	show(j, 18, 0);
	/* inactivity (the default, 100 s), never reaped, on GPU 1 */
	j = job(&o, "{}");
	j->ended = KF_END_INACTIVITY, j->term_at = 110, j->kill_at = 112;
	j->gpu = "1";
	show(j, 117, 0);
	/* kf-run interrupted by SIGINT; the program exited 130 at once */
	j = job(&o, "{}");
	j->ended = KF_END_INTERRUPTED, j->term_at = 12;
	j->reaped = 1, j->status = 130 << 8, j->exited_at = 12;
	j->leftovers = 2;
	show(j, 12, SIGINT);
	/* not started */
	run = kf_job_not_started("nosuch", ENOENT);
	kf_json_write(stdout, run);
	putchar('\n');
	cJSON_Delete(run);
	run = kf_job_not_started("./k", EACCES);
	kf_json_write(stdout, run);
	putchar('\n');
	cJSON_Delete(run);
	return 0;
}
