/* kf: the reader of ncu's details page (ncu_read.c), shared with the
 * files that keep one launch's metrics as JSON text (ncu_launch.c) and that
 * gather ncu's messages and say what failed (ncu_msgs.c). Not for use
 * outside lib/ncu.
 *
 * Ownership: struct ncu_reader is ncu_read's, on its stack, and freed by
 * it; struct ncu_launch_metrics is its member, released with ncu_lx_free. */
#ifndef KF_NCU_READER_H
#define KF_NCU_READER_H

#include <stddef.h>
#include <cJSON.h>

#include "buf.h"
#include "csvrow.h"
#include "lines.h"
#include "map.h"
#include "ncu_files.h"

enum col {
	C_ID, C_PID, C_PNAME, C_HOST, C_NAME, C_TIME, C_CONTEXT, C_STREAM,
	C_BLOCK, C_GRID, C_DEVICE, C_CC, C_SECTION, C_METRIC, C_UNIT, C_VALUE,
	C_RULE, C_RTYPE, C_RDESC, C_STYPE, C_SPEEDUP, NCOL
};

struct hdr {
	long col[NCOL];		/* index of each known column, or -1 */
	char **name;		/* every column's name */
	char **unit;		/* raw page: the units row */
	size_t n;
	int raw;		/* no "Metric Name": the raw page */
};

/* A launch's metrics, sections in the order they first come, each metric
 * once (the last value wins) in the order it first comes: ncu's rows
 * without a cJSON node per value. text holds every name (raw bytes to
 * compare, and quoted) and every value's JSON; a reused arena. */
struct lsec {
	size_t raw, rlen, q, qlen;	/* offsets in text */
	long first, last;		/* its metrics, a list through met */
};
struct lmet {
	size_t sec, raw, rlen, q, qlen, val, vlen;
	long next;
};
struct ncu_launch_metrics {
	struct buf text, rules, out;
	struct lsec *sec;
	struct lmet *met;
	size_t nsec, seccap, nmet, metcap;
	size_t *slot, nslot;		/* hash of (section, name): met index + 1 */
	int nrules;
};

struct ncu_reader {
	cJSON *rec;
	const char *path;
	struct kf_lines l;
	struct kf_csvrow row;
	struct hdr h;
	int have_hdr, want_units;
	long hdr_line;

	/* The launch in progress: its identity as a tree (small), its
	 * metrics and rules as JSON text, written out whole at its end. */
	cJSON *cur;
	struct ncu_launch_metrics lx;
	struct buf key, cur_key;	/* "ID\tPROCESS ID" of this row, of cur */
	size_t idlen, cur_idlen;	/* their IDs' lengths */
	long cur_line;		/* where it starts */
	/* Metric sections of the first launch, in order, to tell a launch
	 * cut at a line end: its sections are a strict prefix of these. */
	char **ref;
	size_t nref;
	int ref_done;
	char *last_sec;
	size_t nsec;
	int prefix_ok;

	int emitting;
	long kernels, bad_rows;
	long first_bad_line;
	int truncated;
	struct kf_map msgidx;
	cJSON *msgs, *notes;
	char *format;
	struct ncu_raw *raw;	/* the raw and source pages, if there */
	struct ncu_src *src;
	const char *dir;
	struct ncu_timing *timing;	/* --top's timing run, or NULL */
	cJSON *timings;		/* kf-ncu's NCU_TIMINGS, or NULL */
};

/* ncu_launch.c: the launch's metric name in section, with its unit and
 * value; a name seen twice in one section: the last value wins, in the
 * first one's place (only_new: keep the value there is). */
void ncu_lx_put(struct ncu_launch_metrics *x, const char *section, size_t slen,
    const char *name, size_t nlen, const char *unit, size_t ulen, const char *val,
    size_t vlen, int only_new);
/* A known --metrics NAME row, filed under its details page name too. */
void ncu_lx_put_raw(struct ncu_launch_metrics *x, const char *name, size_t nlen,
    const char *unit, size_t ulen, const char *val, size_t vlen);
void ncu_lx_write(const struct ncu_launch_metrics *x, struct buf *o);
/* Forget the launch's metrics; keep the memory for the next one. */
void ncu_lx_reset(struct ncu_launch_metrics *x);
void ncu_lx_free(struct ncu_launch_metrics *x);

/* ncu_msgs.c: ncu's ==ERROR== and ==WARNING== lines, each once with a
 * count; those of the run's stdout and stderr tails; the first of level
 * (NULL: any) whose text holds needle; a note on the data. */
void ncu_rd_message(struct ncu_reader *r, const char *line, const char *source);
void ncu_rd_run_messages(struct ncu_reader *r);
const char *ncu_rd_find_message(const struct ncu_reader *r, const char *level,
    const char *needle);
void ncu_rd_note(struct ncu_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The program's own exit status, when ncu reports it: 1 and *code. */
int ncu_rd_app_error(const struct ncu_reader *r, long *code);
/* A --top run whose detailed run left no launch: the failure becomes the
 * detailed run's and the timing run's ranking still flows. */
void ncu_rd_timing_rescue(struct ncu_reader *r);
/* The record's error when dir has no details page, or it has no launch
 * (the latter emits the record). */
void ncu_rd_fail_no_report(struct ncu_reader *r, const char *dir);
void ncu_rd_fail_no_kernel(struct ncu_reader *r);

#endif
