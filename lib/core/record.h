/* kf: reading and writing JSON-lines records, and errors as data.
 *
 * Every program reads records with kf_in_next(), marks the ones it cannot
 * process with kf_fail(), writes them with kf_emit() and ends with
 * kf_finish(). Records are cJSON trees owned by the caller (cJSON_Delete).
 *
 * Lifetimes of what the parser makes (lib/core/json.c):
 * - Object keys are interned: items carry cJSON_StringIsConst and point
 *   into a table that lives as long as the program. Never free or write
 *   into a key; cJSON_Delete and cJSON_Duplicate handle them as they are.
 * - A kept member (kf_json_parse_keep) is a cJSON_Raw item holding its
 *   text. kf_json_lazy() and kf_json_lazy_item() parse it on first use and
 *   swap the new tree into the parent in its place: the raw item is freed,
 *   so a pointer to it taken before is stale afterwards; use the pointer
 *   they return. Writing a tree writes kept members' text as it is.
 *
 * Errors, everywhere in lib/: a function that can fail returns 0 or a
 * pointer on success and -1 or NULL on failure (a count or a lookup may
 * return a value that means "none", which its comment names), having said
 * why in one of two ways, which its comment names: into a record, as data
 * (kf_fail: what the user must see travels with the record), or to its
 * caller (errno, or a message into a caller's struct buf) for the caller
 * to put into a record. Library code exits only when memory runs out
 * (status 1) or the process machinery itself fails (lib/run/proc.c);
 * option parsing exits with status 2 (kf_usage_error). */
#ifndef KF_RECORD_H
#define KF_RECORD_H

#include <stdio.h>
#include <cJSON.h>

#include "buf.h"

/* The operands of a filter, in order ("-" or none: standard input). */
struct kf_operands {
	char **v;
	int n, i;	/* i: the last one opened; -1 before the first */
};
/* Open the next operand for reading: its descriptor (0: standard input)
 * and *name (NULL for standard input); -1 after the last. One that cannot
 * be opened is said on stderr ("prog: FILE: why"), makes the exit status 1
 * and is passed over. For readers that cannot use kf_in (kf-run). */
int kf_operand_next(struct kf_operands *o, const char **name);

/* Records from lines holding any sequence of JSON values separated by
 * white space, as jq reads them (lib/core/jsonseq.c says how it
 * resynchronises after a bad value). Feed a file's lines in order, then
 * kf_seq_end(); take the records completed after each call. The caller
 * owns what kf_seq_next returns; file must stay valid until kf_seq_end. */
struct kf_seq;
struct kf_seq *kf_seq_new(void);
void kf_seq_free(struct kf_seq *q);
/* Read records as kf_json_parse_keep(paths) does. */
void kf_seq_keep(struct kf_seq *q, const char *const *paths);
/* The next line of file (NULL: standard input); its line end may be on. */
void kf_seq_line(struct kf_seq *q, const char *file, const char *s, size_t n);
/* The end of the file: a value still open is an error; lines count anew. */
void kf_seq_end(struct kf_seq *q);
/* The next record completed (an error record, kind "bad_json", for text
 * that is not a JSON object: error.line, error.column, error.input), or
 * NULL: feed more. *line (if not NULL) is the line it began on; kf_where()
 * is set to it. */
cJSON *kf_seq_next(struct kf_seq *q, long *line);

/* Input: the operands in order ("-" or none means standard input). */
struct kf_in;
struct kf_in *kf_in_open(int argc, char **argv);
/* The next record, or NULL at the end: the JSON values of the input, as
 * kf_seq reads them (text that is not a JSON object comes back as an error
 * record, kind "bad_json", with its line and column). */
cJSON *kf_in_next(struct kf_in *in);
/* From now on, read records as kf_json_parse_keep(paths) does (kf-collate:
 * "data"; kf-feedback: each ncu launch's metric sections and rules). */
void kf_in_keep(struct kf_in *in, const char *const *paths);
void kf_in_close(struct kf_in *in);
/* A stage after kf-run: an interrupt (SIGINT: a terminal's ^C reaches the
 * whole pipeline) does not stop it while its input is not a terminal. It
 * reads to the end of what the stages before it write (kf-run's record of
 * what was interrupted among it), and kf_finish() then returns 130. */
void kf_in_finish_on_interrupt(void);
/* One line of input (its line end may be left on), parsed as kf_in_next()
 * does: the record, NULL for a blank line, or an error record. For readers
 * that cannot block in stdio (kf-run). file is NULL for standard input;
 * kf_where() is set to file and line. */
cJSON *kf_parse_line(const char *s, size_t n, const char *file, long line);

/* Where the current record came from: "line 12" or "FILE: line 12". */
const char *kf_where(void);
void kf_set_where(const char *file, long line);
/* The file the current record came from; NULL: standard input. */
const char *kf_where_file(void);

/* Write one record as a line on standard output (sanitised: invalid UTF-8
 * becomes U+FFFD, control bytes are escaped). Write errors are remembered
 * and reported by kf_finish(). */
void kf_emit(const cJSON *rec);
void kf_set_unbuffered(int on);

/* Streaming output of one record whose last member is big: write rec's
 * members (but key) and then "KEY": ; the caller writes the value to stdout
 * and ends with kf_emit_end(). */
void kf_emit_begin(const cJSON *rec, const char *key);
void kf_emit_end(void);
/* Flush standard output now (a live consumer is waiting); -1 once output
 * has failed, the error kept for kf_finish(). */
int kf_flush(void);

/* Write v as JSON to f, sanitising strings as kf_emit does. The two-byte
 * sequence C0 80 inside a string (how kf keeps a NUL byte in a C string) is
 * written as \u0000. */
void kf_json_write(FILE *f, const cJSON *v);
/* Parse the n bytes at s as one JSON value (whitespace around it only),
 * as cJSON_ParseWithLength would, faster; NULL when it is not JSON. The
 * caller owns the tree (cJSON_Delete). */
cJSON *kf_json_parse(const char *s, size_t n);
/* The same, but the members that paths name come as cJSON_Raw items holding
 * their text, unparsed, when that text is what kf_json_write would write
 * for them (kf-read's output is), so that writing them gives the same bytes:
 * for a stage that passes a big member on, or reads a part of it. A path
 * names object keys and array elements, separated by '/', "*" for any key
 * or element ("data"; bin/kf-feedback.c has more). NULL-terminated, at most
 * 16 paths of at most 16 parts. */
cJSON *kf_json_parse_keep(const char *s, size_t n, const char *const *paths);
/* The same; *stop is where the parser stopped: at a failure, about where
 * the text stops being JSON (for "line 3:14: not JSON"). */
cJSON *kf_json_parse_stop(const char *s, size_t n, const char *const *paths,
    size_t *stop);
/* Member key of o, parsed now (and so left in o) if it was kept as text;
 * NULL when o has none. o must not be a const tree: only its reader's view
 * of it is const. */
cJSON *kf_json_lazy(const cJSON *o, const char *key);
/* The same for item, a member of parent: what is now in its place. */
cJSON *kf_json_lazy_item(const cJSON *parent, const cJSON *item);
/* Every kept member in v parsed. */
void kf_json_unkeep_all(cJSON *v);
/* Write v into a buffer as kf_json_write does. */
void kf_json_buf(struct buf *b, const cJSON *v);
/* Whether the n bytes at s are a JSON number that kf_json_write writes as
 * these very bytes ("20.21", "18368"; not "1.50", "1e3", "01"): a reader
 * may copy such a value instead of converting it twice. 0 when not sure. */
int kf_json_number_written(const char *s, size_t n);
/* Quote and escape the len bytes at s as a JSON string into b. */
void kf_json_quote(struct buf *b, const char *s, size_t len);
/* A copy of len bytes that fits in a C string: NUL becomes C0 80. */
char *kf_bytes_dup(const char *s, size_t len);

/* Mark rec with error {stage, kind, message}; warn "prog: WHERE: message" on
 * stderr (not with KF_QUIET_ERRORS set, as kf sets it for its stages: the
 * error travels in the record and kf-feedback's text says it, once); make
 * the exit status 1. An existing error is kept. rec may be NULL, then a new
 * record is made. Returns rec. */
#define KF_QUIET_ERRORS "KF_QUIET_ERRORS"

cJSON *kf_fail(cJSON *rec, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add a "hint" (what to do) to rec's error. */
void kf_fail_hint(cJSON *rec, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The record's error object, or NULL. */
const cJSON *kf_error(const cJSON *rec);

/* Flush and check standard output; return the exit status for main():
 * 0, or 1 when a record was marked or output failed; 130 after an
 * interrupt that kf_in_finish_on_interrupt() held off. */
int kf_finish(void);
/* Make the exit status at least 1 (an error reported some other way). */
void kf_set_failed(void);

/* Field access that tolerates wrong types: NULL / def when absent or not of
 * the type asked for. */
const char *kf_str(const cJSON *o, const char *key);
double kf_num(const cJSON *o, const char *key, double def);
/* A whole number, clamped to [min, max]; def when absent, not a number or NaN. */
long kf_num_long(const cJSON *o, const char *key, long def, long min, long max);
const cJSON *kf_obj(const cJSON *o, const char *key);
const cJSON *kf_arr(const cJSON *o, const char *key);
/* Replace (or add) key in o with v; o takes v. */
void kf_set(cJSON *o, const char *key, cJSON *v);
void kf_set_str(cJSON *o, const char *key, const char *s);
void kf_set_num(cJSON *o, const char *key, double d);
/* A number, or null when d is not finite (JSON has no NaN or infinity).
 * New item. */
cJSON *kf_json_num(double d);
/* Append the string s to the array a. */
void kf_push_str(cJSON *a, const char *s);
/* Whether s is valid UTF-8 throughout. */
int kf_utf8_valid(const char *s);
/* An argument of a command (cmd, argv) as JSON, its bytes kept: a string
 * when s is UTF-8, else {"hex": "2e2fff", "text": s with U+FFFD}, the one
 * form (man/kf.7 "Arguments") kf_arg_bytes reads back. New item. */
cJSON *kf_arg_json(const char *s);
/* Append kf_arg_json(s) to the array a. */
void kf_push_arg(cJSON *a, const char *s);
/* The bytes of an argument item (a string, or the hex form; "text" is
 * only for people), a new string the caller frees; NULL when item is
 * neither (bad hex, an odd number of digits, a NUL byte). */
char *kf_arg_bytes(const cJSON *item);

#endif
