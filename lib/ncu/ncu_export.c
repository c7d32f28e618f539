/* kf-ncu's exports: the pages of a report as CSV, each by its own ncu -i,
 * side by side (each export is mostly ncu's start: 1.0 s for three on the
 * H200, where one after another took 2.9 s):
 *
 *   NCU -i REPORT --page details --csv                  > ncu_report.csv
 *   NCU -i REPORT --page details --csv --print-kernel-base mangled
 *                                                       > ncu_report_mangled.csv
 *   NCU -i REPORT --page raw --csv                      > ncu_raw.csv
 *   NCU -i REPORT --page source --csv --print-source cuda,sass
 *       [--launch-skip ID --launch-count 1]            >> ncu_source.csv
 *
 * With --top the report holds only the chosen launches, so their source page
 * is the whole page, exported beside the others: one round of ncu starts.
 * A report of every launch has its source page exported one launch at a
 * time, the first launch of each of the KF_NCU_SOURCE_TOP (3) kernels with
 * the most GPU time (their IDs from the details page), since the page of a
 * hundred launches is slow to write (21.9 s for ResNet-18's 120); when ncu
 * said it profiled no more launches than that, the whole page, beside the
 * others. A failed export of the raw or source page only leaves that file
 * out; the details page is what kf-read needs.
 *
 * With a report a process (DIR/report.K.ncu-rep), every page of each is
 * exported side by side into DIR/PAGE.K, then they are joined into
 * DIR/PAGE: each report numbers its launches from 0, so the IDs of each
 * part follow those of the parts before it, and each part keeps its header
 * rows (kf-read reads a header again where one comes). A part whose details
 * page did not export is left out of every page; one whose source page did
 * not leaves no source page (its blocks follow the launches in order). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "buf.h"
#include "err.h"
#include "lines.h"
#include "mem.h"
#include "ncu.h"
#include "ncu_chain.h"
#include "path.h"
#include "proc.h"
#include "record.h"

#define MAX_EXPORTS 64
#define SOURCE_TOP 3		/* KF_NCU_SOURCE_TOP's default */

struct exp {
	int h;			/* -1: not started (its file could not be made) */
	char *rep, *file;
	const char *page;
	const char *what;	/* its timings' key: export_WHAT_s */
};

struct exports {
	const char *ncu;
	struct exp e[MAX_EXPORTS];
	int n;
};

/* NCU -i rep --page page --csv [arg ...] > file, started; what: its
 * part of the account ("details", "mangled", "raw", "source", "timing"). */
static struct exp *
export_start(struct exports *x, const char *rep, const char *file, const char *page,
    const char *const *args, const char *what)
{
	const char *argv[16] = { x->ncu, "-i", rep, "--page", page, "--csv" };
	struct exp *e;
	int i, fd;

	if (x->n == MAX_EXPORTS)
		kf_die(1, "more than %d exports", MAX_EXPORTS);
	e = &x->e[x->n++];
	for (i = 0; args && args[i] && i < 9; i++)
		argv[6 + i] = args[i];
	argv[6 + i] = NULL;
	e->rep = xstrdup(rep);
	e->file = xstrdup(file);
	e->page = page;
	e->what = what;
	e->h = -1;
	if ((fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
		kf_warn("cannot write %s:", file);
		return e;
	}
	e->h = ncu_proc_start((char *const *)argv, NULL, -1, fd, -1, 0);
	close(fd);
	return e;
}

/* timings' export_WHAT_s: the longest export of its kind (they run side
 * by side, so the longest is what they cost). */
static void
longest(struct ncu_chain *c, const char *what, double seconds)
{
	char key[32];
	const cJSON *v;

	snprintf(key, sizeof key, "export_%s_s", what);
	v = cJSON_GetObjectItemCaseSensitive(c->timings, key);
	if (!cJSON_IsNumber(v) || seconds > v->valuedouble)
		kf_set_num(c->timings, key, round(seconds * 1000) / 1000);
}

/* Every export started, waited for; a failed one leaves no file, and says
 * so. The status of the one that is e, or 0. */
static int
exports_wait(struct ncu_chain *c, struct exports *x, const struct exp *want)
{
	int i, st, want_st = 0;

	for (i = 0; i < x->n; i++) {
		struct exp *e = &x->e[i];

		if (e->h >= 0 && ncu_proc_wait(e->h, INFINITY) < 0)
			ncu_chain_stopped(c);
		if (e->h >= 0)
			longest(c, e->what, ncu_proc_seconds(e->h));
		st = e->h >= 0 ? ncu_proc_status(e->h) : 1;
		if (st != 0) {
			fprintf(stderr, "%s: export failed: %s -i %s --page %s exited with status "
			    "%d; no %s\n", kf_progname, x->ncu, e->rep, e->page, st, e->file);
			unlink(e->file);
		}
		if (e == want)
			want_st = st;
	}
	return want_st;
}

static void
exports_free(struct exports *x)
{
	int i;

	for (i = 0; i < x->n; i++) {
		free(x->e[i].rep);
		free(x->e[i].file);
	}
	x->n = 0;
}

static const char *const mangled_args[] = { "--print-kernel-base", "mangled", NULL };
static const char *const source_args[] = { "--print-source", "cuda,sass", NULL };

int
ncu_export_timing(struct ncu_chain *c)
{
	static const char *const base[] = { "--print-units", "base", NULL };
	static const char *const base_mangled[] = { "--print-units", "base",
		"--print-kernel-base", "mangled", NULL };
	struct exports x = { c->ncu, {{0}}, 0 };
	char *rep = ncu_out_path(c, NCU_TIMING_REP NCU_REP_EXT);
	char *csv = ncu_out_path(c, NCU_TIMING), *mcsv = ncu_out_path(c, NCU_TIMING_MANGLED);
	struct exp *plain;
	double t = kf_now();
	int st;

	/* Both at once: each is mostly ncu's start. The mangled names select
	 * exactly the chosen kernels; without them the choice falls back to
	 * function names. */
	export_start(&x, rep, mcsv, "details", base_mangled, "timing");
	plain = export_start(&x, rep, csv, "details", base, "timing");
	st = exports_wait(c, &x, plain);
	ncu_time_add(c, "exports_s", kf_now() - t);
	exports_free(&x);
	free(rep);
	free(csv);
	free(mcsv);
	return st;
}

/* Copy src onto the end of f, renumbering launch rows ("ID",...) by off;
 * *next: one past the largest ID seen (counting only when next). 0, or
 * -1 when src cannot be read. */
static int
append_renumbered(FILE *f, const char *src, long off, long *next)
{
	struct kf_lines l;
	char *end;
	long id;

	if (kf_lines_open(&l, src) != 0)
		return -1;
	while (kf_lines_next(&l) > 0) {
		if (l.s[0] == '"' && l.s[1] >= '0' && l.s[1] <= '9' &&
		    (id = strtol(l.s + 1, &end, 10), end[0] == '"' && end[1] == ',')) {
			if (next && id + 1 > *next)
				*next = id + 1;
			fprintf(f, "\"%ld%s", id + off, end);
		} else {
			fputs(l.s, f);
		}
		if (l.complete)
			putc('\n', f);
	}
	kf_lines_close(&l);
	return 0;
}

static char *
part_path(const struct ncu_chain *c, const char *page, int k)
{
	return xasprintf("%s/%s.%d", c->dir, page, k);
}

/* The reports of a program's processes, exported and joined. 0, or -1
 * when no details page exported. */
static int
export_parts(struct ncu_chain *c)
{
	static const char *const pages[] = { NCU_REPORT, NCU_REPORT_MANGLED, NCU_RAW_PAGE,
		NCU_SOURCE_PAGE };
	struct exports x = { c->ncu, {{0}}, 0 };
	FILE *out[4];
	char *p, *all[4];
	long off = 0, next;
	int k, i, got = 0, src = 1;

	for (k = 1; k <= c->parts; k++) {
		char *rep = xasprintf("%s/%s.%d%s", c->dir, NCU_REPORT_REP, k, NCU_REP_EXT);
		char *f[4];

		if (!kf_is_file(rep)) {
			free(rep);
			continue;
		}
		for (i = 0; i < 4; i++)
			f[i] = part_path(c, pages[i], k);
		export_start(&x, rep, f[0], "details", NULL, "details");
		export_start(&x, rep, f[1], "details", mangled_args, "mangled");
		export_start(&x, rep, f[2], "raw", NULL, "raw");
		export_start(&x, rep, f[3], "source", source_args, "source");
		for (i = 0; i < 4; i++)
			free(f[i]);
		free(rep);
	}
	exports_wait(c, &x, NULL);
	exports_free(&x);
	for (i = 0; i < 4; i++) {
		all[i] = xasprintf("%s/%s.all", c->dir, pages[i]);
		out[i] = fopen(all[i], "w");
	}
	for (k = 1; k <= c->parts; k++) {
		char *d = part_path(c, pages[0], k);

		if (!kf_is_file(d)) {
			for (i = 0; i < 4; i++) {
				p = part_path(c, pages[i], k);
				unlink(p);
				free(p);
			}
			free(d);
			continue;
		}
		got = 1;
		next = 0;
		for (i = 0; i < 3; i++) {
			p = part_path(c, pages[i], k);
			if (out[i] && kf_is_file(p))
				append_renumbered(out[i], p, off, i == 0 ? &next : NULL);
			unlink(p);
			free(p);
		}
		p = part_path(c, pages[3], k);
		if (out[3] && kf_is_file(p))
			append_renumbered(out[3], p, 0, NULL);
		else
			src = 0;
		unlink(p);
		free(p);
		off += next;
		free(d);
	}
	for (i = 0; i < 4; i++) {
		int ok = out[i] && fclose(out[i]) == 0;
		char *final = ncu_out_path(c, pages[i]);

		if (ok && got && (i < 3 || src) && ncu_file_nonempty(all[i]))
			rename(all[i], final);
		else
			unlink(all[i]);
		free(final);
		free(all[i]);
	}
	return got ? 0 : -1;
}

/* The first launch's ID of each of the n kernels with the most time in
 * the details page, one a line, into ids; their number. */
static int
source_ids(const char *details, long n, struct buf *ids)
{
	const char *p;
	int count = 0;

	if (ncu_select(n, details, KF_SELECT_IDS, ids) != 0) {
		buf_reset(ids);
		return 0;
	}
	for (p = ids->s; p && *p; p++)
		count += *p == '\n';
	return count;
}

/* The source page one launch at a time, the parts joined in ids' order;
 * a part that failed (its export said so) leaves no source page. */
static void
export_source_parts(struct ncu_chain *c, const char *rep, const char *ids)
{
	struct exports x = { c->ncu, {{0}}, 0 };
	const char *p, *e;
	char *final = ncu_out_path(c, NCU_SOURCE_PAGE), *part, *id;
	FILE *f;
	int n = 0, i, whole = 1;

	for (p = ids; p && *p; p = e + 1) {
		const char *args[] = { "--print-source", "cuda,sass", "--launch-skip", NULL,
			"--launch-count", "1", NULL };

		if ((e = strchr(p, '\n')) == NULL)
			break;
		id = xstrndup(p, (size_t)(e - p));
		args[3] = id;
		part = part_path(c, NCU_SOURCE_PAGE, ++n);
		export_start(&x, rep, part, "source", args, "source");
		free(part);
		free(id);
	}
	exports_wait(c, &x, NULL);
	exports_free(&x);
	f = fopen(final, "w");
	for (i = 1; i <= n; i++) {
		part = part_path(c, NCU_SOURCE_PAGE, i);
		if (!f || !kf_is_file(part) || append_renumbered(f, part, 0, NULL) != 0)
			whole = 0;
		unlink(part);
		free(part);
	}
	if (f && fclose(f) != 0)
		whole = 0;
	if (!whole || !f)
		unlink(final);
	free(final);
}

/* The details, raw and source pages of rep, by how: 'T' a report of the
 * chosen launches only (--top: its mangled details too, the whole source
 * page beside the others); 'A' a report of every launch (the source page's
 * launches chosen from the details page, else the whole page); 'W' the
 * same, the whole source page beside the others (SELECT "-"); 'I' an
 * imported report (the chosen launches' source page, else none). The
 * details export's status. */
static int
export_pages(struct ncu_chain *c, const char *rep, int how)
{
	struct exports x = { c->ncu, {{0}}, 0 };
	char *raw = ncu_out_path(c, NCU_RAW_PAGE), *det = ncu_out_path(c, NCU_REPORT);
	char *mang = ncu_out_path(c, NCU_REPORT_MANGLED), *src = ncu_out_path(c, NCU_SOURCE_PAGE);
	const char *ntop = getenv("KF_NCU_SOURCE_TOP");
	long n = ntop && *ntop && strspn(ntop, "0123456789") == strlen(ntop) ?
	    strtol(ntop, NULL, 10) : SOURCE_TOP, profiled, passes;
	struct buf ids = {0};
	struct exp *d;
	int st, whole;

	ncu_proc_passes(&profiled, &passes);
	/* ncu said how many launches it profiled: a few are one page, in the
	 * first round */
	whole = how == 'T' || how == 'W' || (how == 'A' && profiled > 0 && profiled <= n);
	export_start(&x, rep, raw, "raw", NULL, "raw");
	if (how == 'T')
		export_start(&x, rep, mang, "details", mangled_args, "mangled");
	if (whole)
		export_start(&x, rep, src, "source", source_args, "source");
	d = export_start(&x, rep, det, "details", NULL, "details");
	st = exports_wait(c, &x, d);
	exports_free(&x);
	if (st == 0 && !whole && n > 0 && source_ids(det, n, &ids) > 0) {
		export_source_parts(c, rep, ids.s);
	} else if (st == 0 && !whole && how == 'A') {
		export_start(&x, rep, src, "source", source_args, "source");
		exports_wait(c, &x, NULL);
		exports_free(&x);
	}
	buf_free(&ids);
	free(raw);
	free(det);
	free(mang);
	free(src);
	return st;
}

int
ncu_export_report(struct ncu_chain *c)
{
	char *rep = ncu_out_path(c, NCU_REPORT_REP NCU_REP_EXT);
	double t = kf_now();
	int st = 0;

	if (c->parts > 0)
		st = export_parts(c) == 0 ? 0 : 1;
	else
		st = export_pages(c, rep, c->top > 0 ? 'T' : strcmp(c->select, "-") == 0 ? 'W' : 'A');
	ncu_time_add(c, "exports_s", kf_now() - t);
	free(rep);
	return st;
}

/* kf-wrap ncu --import REPORT: the same exports as of kf-ncu's own report
 * of every launch, from a report that ncu wrote before (a user's own ncu -o
 * run), then NCU_DONE. Exit status: 0; ncu's status when the details export
 * failed (no ncu_report.csv: a message says so); 1 when REPORT cannot be
 * read; 2 for a usage error. */
int
ncu_import_main(int argc, char **argv)
{
	struct ncu_chain c;
	static const char *const stale[] = { NCU_REPORT, NCU_RAW_PAGE, NCU_SOURCE_PAGE, NULL };
	char *p;
	int st, i;

	kf_progname = "kf-ncu-import";
	if (argc != 5) {
		fputs("usage: kf-ncu-import NCU DIR SELECT REPORT\n", stderr);
		return 2;
	}
	if (!kf_is_file(argv[4]) || access(argv[4], R_OK) != 0) {
		fprintf(stderr, "kf-ncu-import: cannot read the report %s\n", argv[4]);
		return 1;
	}
	memset(&c, 0, sizeof c);
	c.ncu = argv[1];
	c.dir = argv[2];
	c.select = argv[3];
	c.held = -1;
	c.timings = cJSON_CreateObject();
	ncu_proc_init();
	for (i = 0; stale[i]; i++) {
		p = ncu_out_path(&c, stale[i]);
		unlink(p);
		free(p);
	}
	st = export_pages(&c, argv[4], 'I');
	cJSON_Delete(c.timings);
	if (st != 0)
		return st;
	ncu_out("NCU_DONE\n", 9);
	return 0;
}
