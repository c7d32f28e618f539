/* kf: rows of a CSV file read line by line.
 *
 * Profiler logs mix CSV with other text, so the caller reads lines, decides
 * which ones are CSV, and feeds those here one at a time; a quoted field may
 * span lines. Fields belong to the reader and stay valid until the next
 * kf_csvrow_feed() or kf_csvrow_drop().
 *
 * Two splitters give the same rows: libcsv (kf_csvrow_init_libcsv), the
 * general one, and a faster one for the hot path (kf_csvrow_init; ncu's
 * reports are mostly CSV) that finds quotes and delimiters with memchr
 * instead of taking a callback per byte: half of kf-read's instructions.
 * The fast one follows libcsv's state machine (non-strict) byte for byte:
 * leading and trailing blanks of unquoted fields dropped, "" inside quotes
 * as one quote, a quoted field across lines (joined by LF), text after a
 * closing quote kept with that quote (and still quoted), a quote inside an
 * unquoted field kept, CR and NUL as data. tests/csvrow.bats checks both
 * against each other on random lines. */
#ifndef KF_CSVROW_H
#define KF_CSVROW_H

#include <stddef.h>
#include <csv.h>

#include "buf.h"

struct kf_csvrow {
	struct csv_parser p;	/* libcsv's state (kf_csvrow_init_libcsv) */
	int libcsv;
	unsigned char delim;
	int inq;		/* fast splitter: inside a quoted field */
	struct buf store;	/* the fields, each NUL-terminated */
	size_t *off, *len;	/* field i is store.s + off[i], len[i] bytes */
	size_t n, cap;
	size_t nlines;		/* lines fed into the row in progress */
	int done;		/* the row ended at the last line fed */
	/* kf_csvrow_reuse: the first pk fields of the last row began its line
	 * as the plen bytes pre; they fill store up to pstore. */
	size_t pk, plen, pstore;
	struct buf pre;
};

/* delim: ',' for ncu, '\t' or ';' for others. 0, or -1 if libcsv fails. */
int kf_csvrow_init(struct kf_csvrow *r, unsigned char delim);
int kf_csvrow_init_libcsv(struct kf_csvrow *r, unsigned char delim);
/* Feed one line without its line end. 1: a row is complete (n fields; 0 for
 * a blank line); 0: the line ended inside a quoted field, feed the next one;
 * -1: libcsv failed (out of memory). */
int kf_csvrow_feed(struct kf_csvrow *r, const char *line, size_t n);
/* Rows whose line starts with the same bytes as the last row's first k
 * fields (and the delimiter after them) take those fields as they are, not
 * split again: ncu repeats a launch's identity (its kernel's long name
 * among it) on each of its metric rows. 0: never (the default). Fast
 * splitter only. */
void kf_csvrow_reuse(struct kf_csvrow *r, size_t k);
/* A row is open across lines (a quoted field not closed yet). */
int kf_csvrow_pending(const struct kf_csvrow *r);
/* Forget the row in progress (a quote that never closes). */
void kf_csvrow_drop(struct kf_csvrow *r);
/* Field i of the complete row, "" past the end; *len may be NULL. */
const char *kf_csvrow_field(const struct kf_csvrow *r, size_t i, size_t *len);
void kf_csvrow_free(struct kf_csvrow *r);

#endif
