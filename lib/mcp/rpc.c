/* JSON-RPC 2.0 lines for kf-mcp (see rpc.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "err.h"
#include "mem.h"
#include "record.h"
#include "rpc.h"

enum { CHUNK = 65536 };

void
kf_rpc_in_init(struct kf_rpc_in *r, int fd, size_t max)
{
	memset(r, 0, sizeof *r);
	r->fd = fd;
	r->max = max;
}

void
kf_rpc_in_free(struct kf_rpc_in *r)
{
	buf_free(&r->b);
}

int
kf_rpc_read(struct kf_rpc_in *r)
{
	ssize_t n;

	if (r->eof)
		return -1;
	/* Move what is left to the front before the buffer grows. */
	if (r->beg > 0 && (r->beg == r->b.len || r->beg >= r->b.cap / 2)) {
		memmove(r->b.s, r->b.s + r->beg, r->b.len - r->beg);
		r->b.len -= r->beg;
		r->scan -= r->beg;
		r->beg = 0;
	}
	if (r->b.cap - r->b.len < CHUNK + 1) {
		r->b.cap = kf_grow_cap(r->b.cap, r->b.len + CHUNK + 1, CHUNK * 2);
		r->b.s = xrealloc(r->b.s, r->b.cap);
	}
	do
		n = read(r->fd, r->b.s + r->b.len, CHUNK);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n < 0)
			kf_warn("standard input:");
		r->eof = 1;
		return -1;
	}
	r->b.len += (size_t)n;
	r->b.s[r->b.len] = '\0';
	return 0;
}

int
kf_rpc_next(struct kf_rpc_in *r, const char **s, size_t *n)
{
	char *p = NULL, *start;
	size_t len;

	if (r->b.s == NULL)
		return 0;	/* nothing read yet */
	start = r->b.s + r->beg;
	if (r->b.len > r->scan)
		p = memchr(r->b.s + r->scan, '\n', r->b.len - r->scan);
	if (p == NULL) {
		r->scan = r->b.len;
		len = r->b.len - r->beg;
		if (r->eof && len > 0 && !r->skipping) {
			/* The last line, with no LF at the end. */
			r->beg = r->scan = r->b.len;
			r->line++;
			*s = start;
			*n = len;
			return len > r->max ? 2 : 1;
		}
		if (len > r->max || (r->skipping && len > 0)) {
			/* Past the bound: said once, then dropped to its end. */
			r->skipped += len;
			r->beg = r->scan = r->b.len;
			if (!r->skipping) {
				r->skipping = 1;
				r->line++;
				*n = r->skipped;
				return 2;
			}
		}
		return 0;
	}
	len = (size_t)(p - start);
	r->beg = r->scan = (size_t)(p - r->b.s) + 1;
	if (r->skipping) {
		r->skipping = 0;
		r->skipped = 0;
		return kf_rpc_next(r, s, n);
	}
	r->line++;
	if (len > r->max) {
		*n = len;
		return 2;
	}
	if (len > 0 && start[len - 1] == '\r')
		len--;
	*s = start;
	*n = len;
	return 1;
}

static cJSON *
message(const cJSON *id)
{
	cJSON *m = cJSON_CreateObject();

	kf_set_str(m, "jsonrpc", "2.0");
	kf_set(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	return m;
}

cJSON *
kf_rpc_result(const cJSON *id, cJSON *result)
{
	cJSON *m = message(id);

	kf_set(m, "result", result);
	return m;
}

cJSON *
kf_rpc_error(const cJSON *id, int code, const char *fmt, ...)
{
	cJSON *m = message(id), *e = cJSON_CreateObject();
	struct buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	kf_set_num(e, "code", code);
	kf_set_str(e, "message", b.s ? b.s : "");
	kf_set(m, "error", e);
	buf_free(&b);
	return m;
}

cJSON *
kf_rpc_notification(const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	kf_set_str(m, "jsonrpc", "2.0");
	kf_set_str(m, "method", method);
	kf_set(m, "params", params);
	return m;
}

int
kf_rpc_send(FILE *f, const cJSON *msg)
{
	struct buf b = {0};
	int ret = 0;

	kf_json_buf(&b, msg);
	buf_putc(&b, '\n');
	if (fwrite(b.s, 1, b.len, f) != b.len || fflush(f) != 0)
		ret = -1;
	buf_free(&b);
	return ret;
}

int
kf_rpc_id_ok(const cJSON *id)
{
	return id && (cJSON_IsString(id) || (cJSON_IsNumber(id) && isfinite(id->valuedouble)));
}

int
kf_rpc_id_equal(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsString(a) && cJSON_IsString(b))
		return strcmp(a->valuestring, b->valuestring) == 0;
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return 0;
}
