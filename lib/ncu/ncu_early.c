/* kf-ncu: the held program's first attach (ncu_chain.h says why). In a
 * sweep, a --top job's held program under the range gate does its own
 * work before its range (its inputs made and copied, its warm-up) with
 * the GPU's lock held shared, beside other jobs' such work. Without this
 * it did that work only after the timing run had ended and the choice
 * was made, since ncu takes its filter when it attaches: the two runs'
 * shared phases followed one another. With it the held program is
 * attached to at once by an ncu that profiles nothing, does that work
 * beside the timing run's, and waits at its range's start (the gate,
 * lib/ncu/gate) until the choice is made; then that attach is ended
 * (SIGINT, as tried on an H100) and the detailing one connects.
 *
 * The timing run's range never runs beside the held program's GPU work:
 * the first attach starts only while the lock is had shared (never in
 * the timing run's range), and the timing run's range waits, while the
 * held program runs, for it to reach its own range, where the gate has
 * waited for its GPU work to end. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "ncu_chain.h"
#include "ncu_files.h"
#include "proc.h"

#define EARLY_FILTER "regex:^kf-ncu-profiles-nothing$"	/* no kernel is so named */
#define EARLY_END_WAIT 10.0	/* for the first attach to end at SIGINT */
#define EARLY_DEFER_MAX 30.0	/* the timing run's range waits no longer */

static int
early_wanted(const struct ncu_chain *c)
{
	const char *v = getenv("KF_NCU_EARLY");

	return c->top > 0 && c->held >= 0 && c->held_ranged && v && strcmp(v, "1") == 0;
}

/* A request "start PID" of the held program not yet read by
 * ncu_range_poll: the program waits at its range's start. */
static int
range_pending(const struct ncu_range *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t got;
	long pid;
	int found = 0;
	FILE *f;

	if (r->keep[1] == NULL || (f = fopen(r->keep[1], "r")) == NULL)
		return 0;
	if (fseek(f, r->off, SEEK_SET) == 0)
		while (!found && (got = getline(&line, &cap, f)) > 0)
			found = line[got - 1] == '\n' && sscanf(line, "start %ld", &pid) == 1;
	free(line);
	fclose(f);
	return found;
}

/* The first attach said it connected (NCU_EARLY_LOG): the program went
 * on from its first CUDA call, and goes on if that attach has ended. */
static int
early_connected(const struct ncu_chain *c)
{
	char *p = ncu_out_path(c, NCU_EARLY_LOG), *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen(p, "r");

	while (f && !found && getline(&line, &cap, f) > 0)
		found = strncmp(line, "==PROF== Connected to process", 29) == 0;
	if (f)
		fclose(f);
	free(line);
	free(p);
	return found;
}

void
ncu_early_poll(struct ncu_chain *c)
{
	struct buf sel = {0};
	char *out, *log;
	int port, fd;

	if (c->early >= 0 && c->early_parked == 0 && range_pending(&c->held_range))
		c->early_parked = kf_now();
	if (c->early_tried || !early_wanted(c) || ncu_gpu_held() != LOCK_SH ||
	    ncu_proc_done(c->held) || ncu_ports_used(c->port, c->port, 1, &port, 1) <= 0)
		return;
	c->early_tried = 1;
	log = ncu_out_path(c, NCU_EARLY_LOG);
	if ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		kf_warn("cannot write %s:", log);
		free(log);
		return;
	}
	free(log);
	buf_add(&sel, "--kernel-name", sizeof "--kernel-name");
	buf_add(&sel, EARLY_FILTER, sizeof EARLY_FILTER);
	out = ncu_out_path(c, NCU_EARLY_REP);
	c->early_at = kf_now();
	c->early = ncu_attach_start(c, port, out, &sel, NULL, fd);
	close(fd);
	free(out);
	buf_free(&sel);
}

int
ncu_early_busy(struct ncu_chain *c, const struct ncu_range *timing)
{
	int port;

	/* an early attach that ended before it connected left the program at
	 * its first CUDA call; one that ended after, running */
	if (c->early < 0 || c->held < 0 || !range_pending(timing) || ncu_proc_done(c->held) ||
	    range_pending(&c->held_range) || (ncu_proc_done(c->early) && !early_connected(c))) {
		c->early_defer = 0;
		return 0;
	}
	if (c->early_defer == 0)
		c->early_defer = kf_now();
	if (ncu_ports_used(c->port + 1, c->port + NCU_NPORTS - 1, 1, &port, 1) > 0) {
		fprintf(stderr, "kf-ncu: a second process of the program held for ncu reached CUDA "
		    "while the first, attached early, worked before its range: the detailed run "
		    "comes after the timing run\n");
		return -1;
	}
	if (kf_now() - c->early_defer > EARLY_DEFER_MAX) {
		fprintf(stderr, "kf-ncu: the program held for ncu did not reach its profiler range "
		    "within %.0f s of the timing run's: the detailed run comes after the timing "
		    "run\n", EARLY_DEFER_MAX);
		return -1;
	}
	return 1;
}

int
ncu_early_switch(struct ncu_chain *c, double deadline, char *why, size_t n)
{
	double t, until;

	while (!range_pending(&c->held_range)) {
		/* a first attach that ended by itself before it connected (it
		 * could not start, or failed): the program waits at its first
		 * CUDA call, and the detailing attach connects as it would have */
		if (ncu_proc_done(c->early) && !early_connected(c)) {
			ncu_early_end(c);
			return 0;
		}
		if (ncu_proc_done(c->held)) {
			snprintf(why, n, "the program held for ncu ended (status %d) before its "
			    "profiler range asked for the GPU", ncu_proc_status(c->held));
			ncu_early_end(c);
			return -1;
		}
		if (kf_now() >= deadline) {
			snprintf(why, n, "the program held for ncu did not reach its profiler range "
			    "within the detailed run's limit");
			ncu_early_end(c);
			return -1;
		}
		if (ncu_proc_sleep(0.01) != 0)
			return -2;
	}
	/* the held program's own work before its range, from its first
	 * attach (some of it beside the timing run) */
	if (c->early_parked == 0)
		c->early_parked = kf_now();
	ncu_time_add(c, "early_before_range_s", c->early_parked - c->early_at);
	t = kf_now();
	ncu_proc_signal(c->early, SIGINT);
	until = kf_now() + EARLY_END_WAIT < deadline ? kf_now() + EARLY_END_WAIT : deadline;
	if (ncu_proc_wait(c->early, until) < 0)
		return -2;
	ncu_early_end(c);
	ncu_time_add(c, "early_end_s", kf_now() - t);
	return 0;
}

int
ncu_early_settle(struct ncu_chain *c, double until)
{
	while (!range_pending(&c->held_range)) {
		if (ncu_proc_done(c->held))
			return 0;
		if (kf_now() >= until)
			return -1;
		if (ncu_proc_sleep(0.02) != 0)
			return -2;
	}
	return 1;
}

void
ncu_early_end(struct ncu_chain *c)
{
	char *rep;

	if (c->early < 0)
		return;
	ncu_proc_end(c->early);
	c->early = -1;
	/* an attach that profiles nothing leaves no report; were there one */
	rep = ncu_out_path(c, NCU_EARLY_REP NCU_REP_EXT);
	unlink(rep);
	free(rep);
}
