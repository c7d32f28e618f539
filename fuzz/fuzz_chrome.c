/* libFuzzer target: unitrace's Chrome trace through kf_chrome_read. */
#include <stdlib.h>

#include "buf.h"
#include "chrome.h"
#include "fuzz.h"
#include "mem.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	char *path;
	struct buf msg = {0};
	cJSON *t;

	fz_init("kf-read");
	fz_put("trace.json", d, n);
	path = xasprintf("%s/trace.json", fz_dir());
	t = kf_chrome_read(path, &msg);
	/* Either a tree or a reason, never both, never neither. */
	if ((t == NULL) == (msg.len == 0))
		abort();
	if (t)
		kf_emit(t);
	cJSON_Delete(t);
	buf_free(&msg);
	free(path);
	return 0;
}
