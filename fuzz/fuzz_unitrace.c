/* libFuzzer target: a unitrace output directory through unitrace_read, then
 * kf-collate's and kf-feedback's code on the record (as three passes).
 *
 * The input is the metrics file (trace.metrics.1); a line "@@timeline@@"
 * splits off a Chrome trace (python3.1.json) and a line "@@log@@" the
 * tool's log (trace.1), so that one input covers the whole directory. */
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static const uint8_t *
cut(const uint8_t *d, size_t n, const char *mark, size_t *before)
{
	size_t m = strlen(mark);
	const uint8_t *p = memmem(d, n, mark, m);

	if (p == NULL) {
		*before = n;
		return NULL;
	}
	*before = (size_t)(p - d);
	return p + m;
}

static void
put_part(const char *name, const uint8_t *p, const uint8_t *end)
{
	if (p)
		fz_put(name, p, (size_t)(end - p));
	else
		fz_rm(name);
}

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const uint8_t *tl, *log, *end = d + n;
	size_t m, t;

	fz_init("kf-read");
	tl = cut(d, n, "\n@@timeline@@\n", &m);
	log = tl ? cut(tl, (size_t)(end - tl), "\n@@log@@\n", &t) : NULL;
	fz_put("trace.metrics.1", d, m);
	put_part("python3.1.json", tl, log ? log - strlen("\n@@log@@\n") : end);
	put_part("trace.1", log, end);
	fz_read("unitrace", 3, (int)(n & 1));
	return 0;
}
