/* Records in, records out, and errors as data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "record.h"

struct kf_in {
	struct kf_operands ops;
	FILE *f;
	const char *name;	/* NULL for standard input */
	char *buf;
	size_t cap;
	struct kf_seq *seq;	/* the values in the lines */
	char *iobuf;		/* stdio's buffer for the files opened */
};

#define IOBUF (1 << 16)

static char where_buf[512];
static char where_file[PATH_MAX];	/* kf_where_file */
static int status;
static int unbuffered;
static int out_failed;
static volatile sig_atomic_t interrupted;

static void
on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

void
kf_in_finish_on_interrupt(void)
{
	struct sigaction sa = { .sa_handler = on_interrupt, .sa_flags = SA_RESTART }, old;

	if (isatty(STDIN_FILENO))
		return;
	sigemptyset(&sa.sa_mask);
	/* An interrupt ignored already (a background job) stays ignored. */
	if (sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
}

const char *
kf_where(void)
{
	return where_buf;
}

const char *
kf_where_file(void)
{
	return where_file[0] ? where_file : NULL;
}

void
kf_set_where(const char *file, long line)
{
	snprintf(where_file, sizeof where_file, "%s", file ? file : "");
	if (file && line > 0)
		snprintf(where_buf, sizeof where_buf, "%s: line %ld", file, line);
	else if (line > 0)
		snprintf(where_buf, sizeof where_buf, "line %ld", line);
	else if (file)
		snprintf(where_buf, sizeof where_buf, "%s", file);
	else
		where_buf[0] = '\0';
}

struct kf_in *
kf_in_open(int argc, char **argv)
{
	struct kf_in *in = xcalloc(1, sizeof *in);

	/* A reader that goes away must not kill us mid-record: see kf_finish. */
	signal(SIGPIPE, SIG_IGN);
	in->ops.v = argv;
	in->ops.n = argc;
	in->ops.i = -1;
	in->seq = kf_seq_new();
	return in;
}

int
kf_operand_next(struct kf_operands *o, const char **name)
{
	for (;;) {
		const char *op;
		int fd;

		o->i++;
		if (o->n == 0 && o->i == 0)
			op = "-";
		else if (o->i < o->n)
			op = o->v[o->i];
		else
			return -1;
		if (strcmp(op, "-") == 0) {
			*name = NULL;
			return 0;
		}
		*name = op;
		if ((fd = open(op, O_RDONLY | O_CLOEXEC)) >= 0)
			return fd;
		kf_warn("%s:", op);
		status = status > 1 ? status : 1;
	}
}

static int
open_next(struct kf_in *in)
{
	int fd;

	if (in->f && in->f != stdin)
		fclose(in->f);
	in->f = NULL;
	for (;;) {
		if ((fd = kf_operand_next(&in->ops, &in->name)) < 0)
			return 0;
		if (fd == 0) {
			static char stdin_buf[IOBUF];
			static int stdin_set;

			in->f = stdin;
			/* Records are long: 64 KiB a read, not 4 (before any
			 * read; glibc takes the size only with a buffer). */
			if (!stdin_set) {
				setvbuf(stdin, stdin_buf, _IOFBF, sizeof stdin_buf);
				stdin_set = 1;
			}
			return 1;
		}
		if ((in->f = fdopen(fd, "r")) != NULL) {
			if (in->iobuf == NULL)
				in->iobuf = xmalloc(IOBUF);
			setvbuf(in->f, in->iobuf, _IOFBF, IOBUF);
			return 1;
		}
		kf_warn("%s:", in->name);
		close(fd);
		status = status > 1 ? status : 1;
	}
}

static cJSON *
bad_line(const char *file, long line, const char *s, size_t n, const char *why)
{
	cJSON *rec = cJSON_CreateObject();
	char *snip = kf_bytes_dup(s, n > 200 ? 200 : n);
	cJSON *e;

	kf_fail(rec, "bad_json", "%s: %s%s", kf_where(), why,
	    n > 200 ? " (the input below is cut at 200 bytes)" : "");
	e = cJSON_GetObjectItemCaseSensitive(rec, "error");
	cJSON_AddNumberToObject(e, "line", (double)line);
	if (file)
		cJSON_AddStringToObject(e, "file", file);
	cJSON_AddStringToObject(e, "input", snip);
	free(snip);
	return rec;
}

static cJSON *
parse_line(const char *s, size_t n, const char *file, long line,
    const char *const *keep)
{
	const char *p, *end;
	cJSON *rec;

	kf_set_where(file, line);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	for (p = s, end = s + n; p < end && (*p == ' ' || *p == '\t'); p++)
		;
	if (p == end)
		return NULL;
	if (memchr(s, '\0', n))
		return bad_line(file, line, s, n, "not JSON: the line holds a NUL byte");
	rec = kf_json_parse_keep(s, n, keep);
	if (rec == NULL)
		return bad_line(file, line, s, n, "not JSON");
	if (!cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		return bad_line(file, line, s, n, "not a JSON object");
	}
	return rec;
}

cJSON *
kf_parse_line(const char *s, size_t n, const char *file, long line)
{
	return parse_line(s, n, file, line, NULL);
}

void
kf_in_keep(struct kf_in *in, const char *const *paths)
{
	kf_seq_keep(in->seq, paths);
}

cJSON *
kf_in_next(struct kf_in *in)
{
	ssize_t n;
	cJSON *rec;

	while ((rec = kf_seq_next(in->seq, NULL)) == NULL) {
		if (in->f == NULL && !open_next(in))
			return NULL;
		n = getline(&in->buf, &in->cap, in->f);
		if (n < 0) {
			if (ferror(in->f)) {
				kf_warn("%s:", in->name ? in->name : "<stdin>");
				status = 1;
			}
			kf_seq_end(in->seq);
			if (in->f != stdin)
				fclose(in->f);
			in->f = NULL;
			continue;
		}
		kf_seq_line(in->seq, in->name, in->buf, (size_t)n);
		/* Large inputs: release a buffer grown for a huge line. */
		if (in->cap > (1 << 20)) {
			free(in->buf);
			in->buf = NULL;
			in->cap = 0;
		}
	}
	return rec;
}

void
kf_in_close(struct kf_in *in)
{
	if (in == NULL)
		return;
	if (in->f && in->f != stdin)
		fclose(in->f);
	kf_seq_free(in->seq);
	free(in->buf);
	free(in->iobuf);
	free(in);
}

void
kf_set_unbuffered(int on)
{
	unbuffered = on;
}

void
kf_emit(const cJSON *rec)
{
	if (out_failed)
		return;
	kf_json_write(stdout, rec);
	putchar('\n');
	if (unbuffered)
		fflush(stdout);
	if (ferror(stdout))
		out_failed = errno ? errno : EIO;
}

static void
put_key(const char *key, int comma)
{
	static struct buf b;

	buf_reset(&b);
	if (comma)
		buf_putc(&b, ',');
	kf_json_quote(&b, key, strlen(key));
	buf_putc(&b, ':');
	fwrite(b.s, 1, b.len, stdout);
}

void
kf_emit_begin(const cJSON *rec, const char *key)
{
	const cJSON *c;
	int comma = 0;

	putchar('{');
	for (c = rec->child; c; c = c->next) {
		if (c->string && strcmp(c->string, key) == 0)
			continue;
		put_key(c->string ? c->string : "", comma);
		kf_json_write(stdout, c);
		comma = 1;
	}
	put_key(key, comma);
}

void
kf_emit_end(void)
{
	fputs("}\n", stdout);
	if (unbuffered)
		fflush(stdout);
	if (ferror(stdout) && !out_failed)
		out_failed = errno ? errno : EIO;
}

int
kf_flush(void)
{
	if (!out_failed && (fflush(stdout) != 0 || ferror(stdout)))
		out_failed = errno ? errno : EIO;
	return out_failed ? -1 : 0;
}

static void
set_error(cJSON *rec, const char *kind, const char *msg)
{
	cJSON *e;

	if (kf_error(rec))
		return;
	e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "stage", kf_progname);
	cJSON_AddStringToObject(e, "kind", kind);
	cJSON_AddStringToObject(e, "message", msg);
	kf_set(rec, "error", e);
}

/* KF_QUIET_ERRORS set (not empty, not 0): a record's error is not also
 * said on stderr. */
static int
quiet_errors(void)
{
	static int q = -1;
	const char *v;

	if (q < 0)
		q = (v = getenv(KF_QUIET_ERRORS)) != NULL && *v && strcmp(v, "0") != 0;
	return q;
}

cJSON *
kf_fail(cJSON *rec, const char *kind, const char *fmt, ...)
{
	struct buf b = {0};
	va_list ap;

	if (rec == NULL)
		rec = cJSON_CreateObject();
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (quiet_errors())
		;
	else if (where_buf[0] && strncmp(b.s, where_buf, strlen(where_buf)) != 0)
		kf_warn("%s: %s", where_buf, b.s);
	else
		kf_warn("%s", b.s);
	set_error(rec, kind, b.s);
	buf_free(&b);
	status = 1;
	return rec;
}

void
kf_fail_hint(cJSON *rec, const char *fmt, ...)
{
	cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "error");
	struct buf b = {0};
	va_list ap;

	if (!cJSON_IsObject(e))
		return;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kf_set_str(e, "hint", b.s);
	buf_free(&b);
}

const cJSON *
kf_error(const cJSON *rec)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(rec, "error");

	return cJSON_IsObject(e) ? e : NULL;
}

void
kf_set_failed(void)
{
	status = status ? status : 1;
}

int
kf_finish(void)
{
	if (!out_failed && fflush(stdout) != 0)
		out_failed = errno ? errno : EIO;
	if (!out_failed && ferror(stdout))
		out_failed = EIO;
	if (out_failed) {
		/* A reader that went away ends us quietly. */
		if (out_failed != EPIPE)
			kf_warn("write error on standard output: %s", strerror(out_failed));
		return 1;
	}
	return interrupted ? 128 + SIGINT : status;
}

const char *
kf_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double
kf_num(const cJSON *o, const char *key, double def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : def;
}

long
kf_num_long(const cJSON *o, const char *key, long def, long min, long max)
{
	double d = kf_num(o, key, NAN);

	if (isnan(d))
		return def;
	if (d <= (double)min)
		return min;
	if (d >= (double)max)
		return max;
	return (long)d;
}

const cJSON *
kf_obj(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsObject(v) ? v : NULL;
}

const cJSON *
kf_arr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsArray(v) ? v : NULL;
}

void
kf_set(cJSON *o, const char *key, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(o, key))
		cJSON_ReplaceItemInObjectCaseSensitive(o, key, v);
	else
		cJSON_AddItemToObject(o, key, v);
}

void
kf_set_str(cJSON *o, const char *key, const char *s)
{
	kf_set(o, key, cJSON_CreateString(s ? s : ""));
}

void
kf_set_num(cJSON *o, const char *key, double d)
{
	kf_set(o, key, cJSON_CreateNumber(d));
}

cJSON *
kf_json_num(double d)
{
	return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
}

void
kf_push_str(cJSON *a, const char *s)
{
	cJSON_AddItemToArray(a, cJSON_CreateString(s));
}

/* An argument is its own bytes: JSON strings hold only Unicode, so one that
 * is not UTF-8 goes as {"hex": its bytes, "text": it shown with U+FFFD}. */
cJSON *
kf_arg_json(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	cJSON *o;
	char *h, *q;

	if (kf_utf8_valid(s))
		return cJSON_CreateString(s);
	q = h = xmalloc(2 * strlen(s) + 1);
	for (; *p; p++) {
		*q++ = hex[*p >> 4];
		*q++ = hex[*p & 15];
	}
	*q = '\0';
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "hex", h);
	cJSON_AddStringToObject(o, "text", s);
	free(h);
	return o;
}

void
kf_push_arg(cJSON *a, const char *s)
{
	cJSON_AddItemToArray(a, kf_arg_json(s));
}

static int
hex_digit(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	    c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

char *
kf_arg_bytes(const cJSON *item)
{
	const char *h = kf_str(item, "hex");
	size_t n, i;
	char *b;

	if (cJSON_IsString(item))
		return xstrdup(item->valuestring);
	if (!cJSON_IsObject(item) || h == NULL || (n = strlen(h)) % 2 != 0)
		return NULL;
	b = xmalloc(n / 2 + 1);
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(h[2 * i]), lo = hex_digit(h[2 * i + 1]);

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(b);
			return NULL;
		}
		b[i] = (char)(hi << 4 | lo);
	}
	b[n / 2] = '\0';
	return b;
}
