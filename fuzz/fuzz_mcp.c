/* libFuzzer target: kf-mcp's input, lines of bounded length through
 * kf_rpc_next, each parsed and held to a schema with every keyword
 * kf_schema_check knows, as tools/call holds its arguments. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "fuzz.h"
#include "mem.h"
#include "record.h"
#include "rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const char schema_json[] =
	"{\"type\":\"object\",\"additionalProperties\":false,\"required\":[\"command\"],"
	"\"properties\":{\"command\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"string\"}},"
	"\"profiler\":{\"type\":\"string\",\"enum\":[\"ncu\",\"unitrace\"]},"
	"\"top\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000},"
	"\"timeout\":{\"type\":\"number\",\"minimum\":0},\"cwd\":{\"type\":\"string\",\"minLength\":1},"
	"\"params\":{\"type\":\"object\",\"properties\":{\"on\":{\"type\":\"boolean\"}}}}}";

enum { MAX = 256 };

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	static cJSON *schema;
	struct kf_rpc_in in;
	struct buf err = {0};
	const char *s;
	size_t len;
	cJSON *v;
	char *path;
	int fd, r;

	fz_init("kf-mcp");
	if (schema == NULL && (schema = cJSON_Parse(schema_json)) == NULL)
		abort();
	fz_put("in", d, n);
	path = xasprintf("%s/in", fz_dir());
	if ((fd = open(path, O_RDONLY)) < 0)
		abort();
	kf_rpc_in_init(&in, fd, MAX);
	for (;;) {
		while ((r = kf_rpc_next(&in, &s, &len)) != 0) {
			if (r == 2)
				continue;	/* past MAX: said, and dropped */
			if (len > MAX || memchr(s, '\n', len))
				abort();
			if ((v = kf_json_parse(s, len)) == NULL)
				continue;
			buf_reset(&err);
			if (kf_schema_check(v, schema, "arguments", &err) != 0 && err.len == 0)
				abort();
			cJSON_Delete(v);
		}
		if (in.eof)
			break;
		kf_rpc_read(&in);
	}
	close(fd);
	kf_rpc_in_free(&in);
	buf_free(&err);
	free(path);
	return 0;
}
