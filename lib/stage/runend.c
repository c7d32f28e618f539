/* kf: how a run ended when it did not end by itself (kf-run's timeout or
 * inactivity limit, an interrupt, a signal), said the same way by kf-read's
 * errors and kf-feedback's text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runend.h"
#include "profiler.h"
#include "record.h"
#include "buf.h"

/* The limit that stopped the run: run.limit_s, else the number in kf-run's
 * message ("timed out after 900 s", "no output for 600 s"). */
static double
limit_of(const cJSON *run, const char *fmt)
{
	const char *msg = kf_str(run, "message");
	double v;

	if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(run, "limit_s")))
		return kf_num(run, "limit_s", -1);
	if (msg && sscanf(msg, fmt, &v) == 1)
		return v;
	return -1;
}

static void
put_elapsed(struct buf *b, const cJSON *run)
{
	if (kf_num(run, "elapsed_s", -1) >= 0)
		buf_printf(b, " after %g s", kf_num(run, "elapsed_s", 0));
}

char *
kf_run_stopped(const cJSON *run)
{
	const char *by = kf_str(run, "ended_by"), *msg = kf_str(run, "message");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(run, "signal");
	struct buf b = {0};
	double lim;

	if (by == NULL)
		return NULL;
	if (strcmp(by, "timeout") == 0) {
		buf_puts(&b, "kf-run stopped it");
		put_elapsed(&b, run);
		buf_puts(&b, ", at its time limit");
		if ((lim = limit_of(run, "timed out after %lf")) >= 0)
			buf_printf(&b, " of %g s", lim);
		buf_puts(&b, " (kf-run --timeout changes it)");
	} else if (strcmp(by, "inactivity") == 0) {
		buf_puts(&b, "kf-run stopped it");
		put_elapsed(&b, run);
		buf_puts(&b, ", at its inactivity limit: no output");
		if ((lim = limit_of(run, "no output for %lf")) >= 0)
			buf_printf(&b, " for %g s", lim);
		buf_puts(&b, ", as from a program that hangs (kf-run --inactivity changes it)");
	} else if (strcmp(by, "interrupted") == 0) {
		buf_puts(&b, "kf-run was interrupted and stopped it");
		put_elapsed(&b, run);
		if (msg)
			buf_printf(&b, " (%s)", msg);
	} else if (strcmp(by, "exit") == 0 && (cJSON_IsString(sig) || cJSON_IsNumber(sig))) {
		if (cJSON_IsString(sig))
			buf_printf(&b, "the profiler was killed by %s", sig->valuestring);
		else
			buf_printf(&b, "the profiler was killed by signal %.0f", sig->valuedouble);
		put_elapsed(&b, run);
	} else {
		return NULL;
	}
	return buf_take(&b);
}

int
kf_fail_if_stopped(cJSON *rec, const char *profiler, const char *what)
{
	char *why = kf_run_stopped(kf_obj(rec, "run"));
	const struct kf_profiler *p;
	int inactive;

	if (why == NULL)
		return 0;
	kf_fail(rec, "stopped", "the run did not finish: %s; %s had nothing complete to "
	    "read: %s", why, profiler, what);
	if (strcmp(kf_str(kf_obj(rec, "run"), "ended_by") ? kf_str(kf_obj(rec, "run"),
	    "ended_by") : "", "interrupted") == 0) {
		/* Someone (a person, CI, timeout(1)) stopped it: not a hang. */
		kf_fail_hint(rec, "run it again with the time it needs: the interrupt "
		    "came before %s wrote its outputs (kf-run's own --timeout ends a run "
		    "and still keeps what the profiler finished)", profiler);
		free(why);
		return 1;
	}
	p = kf_profiler_find(kf_str(rec, "profiler"));
	inactive = strcmp(kf_str(kf_obj(rec, "run"), "ended_by"), "inactivity") == 0;
	kf_fail_hint(rec, "if the program hangs, fix that first (the run's stdout and stderr "
	    "tails are in \"run\"); if it is only slow, give kf-run a longer --timeout or "
	    "--inactivity%s%s%s%s%s", p && p->less ? ", or profile less (" : "",
	    p && p->less ? p->less : "", p && p->less ? ")" : "",
	    p && p->silent && inactive ? ". " : "", p && p->silent && inactive ? p->silent : "");
	free(why);
	return 1;
}
