/* kf trace: kf-read. Every trace.<pid>.kft in output_dir, one per traced
 * process; a file that was cut off (its program killed before the tracer
 * could flush) is read up to its last whole line and said to be cut. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "feedback.h"
#include "mem.h"
#include "record.h"
#include "trace.h"

static const char no_trace_hint[] = "the tracer writes a file when the program "
    "initialises CUDA: check that the program ran on an NVIDIA GPU, that "
    "CUDA_INJECTION64_PATH reached it (a launcher that clears the environment "
    "stops it), and that kf was built with CUPTI (make says where it looked)";

/* What was not whole in f, as a sentence (NULL: nothing). */
static char *
file_problem(const struct trace_file *f)
{
	const char *slash = strrchr(f->path, '/'), *name = slash ? slash + 1 : f->path;

	if (!f->header)
		return xasprintf("%s is not a kf trace (no #kftrace 1 header in its %ld "
		    "line%s)", name, f->lines, f->lines == 1 ? "" : "s");
	if (f->io_err)
		return xasprintf("%s could not be read to its end (%s): kept its first %ld "
		    "lines", name, strerror(f->io_err), f->lines);
	if (!f->ended || f->cut)
		return xasprintf("%s was cut off after line %ld%s (the program was killed "
		    "before the tracer flushed): kept its %zu whole kernel launches; "
		    "later ones are missing", name, f->lines, f->cut ?
		    ", in the middle of a line" : "", f->nk);
	if (f->bad_lines)
		return xasprintf("%s: %ld line%s that are no kf trace record left out "
		    "(the first is line %ld)", name, f->bad_lines, f->bad_lines == 1 ? "" : "s",
		    f->bad_first);
	return NULL;
}

/* What the tracer counted and did not keep (its size bound, CUPTI's own
 * buffers), as a sentence; NULL: nothing. */
static char *
file_dropped(const struct trace_file *f)
{
	const char *slash = strrchr(f->path, '/'), *name = slash ? slash + 1 : f->path;
	struct buf b = {0};
	size_t i;
	char *s;

	for (i = 0; i < 6; i++)
		if (f->dropped[i])
			buf_printf(&b, "%s%llu %s", b.len ? ", " : "", f->dropped[i],
			    trace_drop_kinds[i]);
	if (b.len)
		buf_puts(&b, " records not kept past the file's size bound (kf-wrap "
		    "trace --max-mb)");
	if (f->cupti_dropped)
		buf_printf(&b, "%s%llu records dropped by CUPTI (its buffers were full)",
		    b.len ? "; " : "", f->cupti_dropped);
	if (b.len == 0)
		return NULL;
	s = xasprintf("%s: %s: the totals leave them out", name, b.s);
	buf_free(&b);
	return s;
}

static void
warn(cJSON *w, char *p)
{
	if (p == NULL)
		return;
	kf_warn("%s: %s", kf_where(), p);
	cJSON_AddItemToArray(w, cJSON_CreateString(p));
	free(p);
}

static void
warnings(cJSON *data, struct trace_file *const *f, size_t n)
{
	cJSON *w = cJSON_AddArrayToObject(data, "warnings");
	size_t i;
	int cut = 0;

	for (i = 0; i < n; i++) {
		warn(w, file_problem(f[i]));
		warn(w, file_dropped(f[i]));
		cut |= f[i]->header && (!f[i]->ended || f[i]->cut);
	}
	cJSON_AddBoolToObject(data, "truncated", cut);
}

void
trace_read(cJSON *rec, const char *dir)
{
	struct trace_file **f = NULL;
	char **paths;
	size_t n = 0, i, good = 0;
	cJSON *data;

	if ((paths = trace_list(dir, &n)) == NULL) {
		if (!kf_fail_if_stopped(rec, "trace", "no trace"))
			kf_fail(rec, "no_trace", "cannot list %s: %s", dir, strerror(errno));
		goto out;
	}
	if (n == 0) {
		if (!kf_fail_if_stopped(rec, "trace", "no trace")) {
			kf_fail(rec, "no_trace", "no kf trace (trace.<pid>.kft) in %s", dir);
			kf_fail_hint(rec, "%s", no_trace_hint);
		}
		goto out;
	}
	f = xcalloc(n, sizeof *f);
	for (i = 0; i < n; i++) {
		f[i] = xcalloc(1, sizeof **f);
		if (trace_file_read(f[i], paths[i]) != 0) {
			trace_file_parse(f[i], paths[i], "", 0);
			f[i]->io_err = errno;
		}
		good += f[i]->header;
	}
	if (good == 0) {
		kf_fail(rec, "bad_trace", "no kf trace in %s: %zu trace.<pid>.kft file%s, "
		    "none with a #kftrace 1 header", dir, n, n == 1 ? "" : "s");
		goto out;
	}
	data = trace_data(f, n);
	warnings(data, f, n);
	kf_set(rec, "data", data);
out:
	for (i = 0; f && i < n; i++) {
		trace_file_free(f[i]);
		free(f[i]);
	}
	free(f);
	for (i = 0; paths && i < n; i++)
		free(paths[i]);
	free(paths);
	kf_emit(rec);
}
