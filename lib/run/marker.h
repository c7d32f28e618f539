/* kf: end markers, looked for in output that arrives in pieces of any size:
 * the pytest summary line ("=== 3 passed, 1 failed in 2.1s ===" and its
 * variants), or a literal string, found even when it straddles two pieces.
 *
 * Ownership: struct kf_marker belongs to the caller and is released with
 * kf_marker_free(); the marker string given to kf_marker_init() is
 * borrowed and must outlive it; kf_marker_text() returns a string that
 * belongs to the struct. */
#ifndef KF_MARKER_H
#define KF_MARKER_H

#include <stddef.h>

#include "buf.h"

/* One stream's watch for one marker. */
struct kf_marker {
	const char *want;	/* the literal; NULL: pytest, or nothing */
	int pytest;
	struct buf line;	/* pytest: the line so far */
	int overlong;		/* ... too long to be a summary */
	struct buf carry;	/* literal: the end of the previous piece */
	char *text;		/* what was seen; NULL: nothing yet */
};

/* Watch for marker: "pytest" for the pytest summary, any other string
 * literally, NULL or "" for nothing (then never seen). */
void kf_marker_init(struct kf_marker *m, const char *marker);
/* The next n bytes of the stream. 1 once the marker has been seen (in these
 * bytes or before); bytes fed after that are not looked at. */
int kf_marker_feed(struct kf_marker *m, const char *p, size_t n);
/* What was seen: the summary line or the literal, at most 200 bytes kept
 * as kf_bytes_dup() keeps them; NULL while nothing has been. */
const char *kf_marker_text(const struct kf_marker *m);
/* A pytest summary that was seen says tests passed and none failed or
 * errored. */
int kf_marker_all_passed(const struct kf_marker *m);
void kf_marker_free(struct kf_marker *m);

#endif
