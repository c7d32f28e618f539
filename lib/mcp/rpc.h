/* kf: JSON-RPC 2.0 messages, one a line, as the Model Context Protocol's
 * stdio transport carries them (rpc.c), and a check of JSON values against
 * the small part of JSON Schema that kf-mcp's tools use (schema.c).
 *
 * Ownership: the lines kf_rpc_next() finds belong to the reader and stay
 * valid until its next call; the messages made here are new cJSON trees
 * the caller owns (cJSON_Delete); ids and values given are copied. */
#ifndef KF_RPC_H
#define KF_RPC_H

#include <stdio.h>
#include <cJSON.h>

#include "buf.h"

/* The standard error codes of JSON-RPC 2.0. */
enum {
	KF_RPC_PARSE = -32700,		/* not JSON */
	KF_RPC_INVALID = -32600,	/* JSON, but not a request */
	KF_RPC_METHOD = -32601,		/* no such method */
	KF_RPC_PARAMS = -32602,		/* the method's params are wrong */
	KF_RPC_INTERNAL = -32603
};

/* Lines of at most max bytes from a descriptor, read as poll(2) says. */
struct kf_rpc_in {
	int fd, eof, skipping;
	size_t max, beg, scan, skipped;
	long line;		/* the number of the line last found, from 1 */
	struct buf b;
};
void kf_rpc_in_init(struct kf_rpc_in *r, int fd, size_t max);
void kf_rpc_in_free(struct kf_rpc_in *r);
/* One read(2): 0, or -1 at the end of the input (or a read error, said on
 * stderr); then eof is set. */
int kf_rpc_read(struct kf_rpc_in *r);
/* The next line (its LF and a CR before it removed): 1 with *s and *n; 2
 * when a line has gone past max bytes (*n: how many so far), once per line,
 * whose bytes are then dropped up to its end; 0: none complete yet. */
int kf_rpc_next(struct kf_rpc_in *r, const char **s, size_t *n);

/* {"jsonrpc":"2.0","id":ID,"result":result} (takes result); id NULL: null. */
cJSON *kf_rpc_result(const cJSON *id, cJSON *result);
/* {"jsonrpc":"2.0","id":ID,"error":{"code":code,"message":...}} */
cJSON *kf_rpc_error(const cJSON *id, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* {"jsonrpc":"2.0","method":method,"params":params} (takes params). */
cJSON *kf_rpc_notification(const char *method, cJSON *params);
/* Write msg as one line and flush: 0, or -1 when the write failed. */
int kf_rpc_send(FILE *f, const cJSON *msg);
/* An id a request may carry: a string or a number. */
int kf_rpc_id_ok(const cJSON *id);
int kf_rpc_id_equal(const cJSON *a, const cJSON *b);

/* Check v against schema, a JSON Schema using only "type" (object, array,
 * string, integer, number, boolean), "properties", "required",
 * "additionalProperties": false, "items", "enum" (of strings), "minimum",
 * "maximum", "minLength" and "minItems". 0, or -1 with the first thing
 * wrong, named by where it is under path ("arguments.command[2]: not a
 * string"), in err. */
int kf_schema_check(const cJSON *v, const cJSON *schema, const char *path,
    struct buf *err);

#endif
