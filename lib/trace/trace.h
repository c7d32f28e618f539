/* kf: kf's own CUPTI tracer as a profiler ("trace"): the tracer library
 * (inject/kftrace.c, loaded into the program by CUDA) writes one file per
 * process, trace.<pid>.kft, in output_dir; kf-read reads them here.
 *
 * The file (man/kf.7, "kf trace files"): text, one record a line, fields
 * separated by tabs; times in ns, relative to the header's t0 (CUPTI's
 * clock, the same for every process of a machine).
 *   #kftrace 1 pid= ppid= cupti= cupti_lib= t0= max_bytes= cmd=
 *   N id mangled demangled                        a kernel name, once
 *   K name start dur device context stream gx gy gz bx by bz registers
 *     static_smem dynamic_smem graph_id graph_node correlation
 *   C kind bytes start dur device stream src_kind dst_kind graph_id
 *   S bytes start dur device stream memory_kind graph_id
 *   Y type start dur context stream              a synchronisation
 *   M flags id time domain name                  NVTX (flags 1 mark, 2 start, 4 end)
 *   P start|stop correlation time                the program's profiler range
 *                                                (cudaProfilerStart/Stop)
 *   D kind count                                 records dropped (size bound)
 *   E end end=exit|signal signal= kernels= ... bytes=   the last line
 * A file without "E" was cut off: its program was killed before it could
 * flush. A last line without a line end was cut in the middle and is left
 * out; every line before it is whole.
 *
 * Ownership: everything returned belongs to the caller (trace_file_free,
 * cJSON_Delete). */
#ifndef KF_TRACE_H
#define KF_TRACE_H

#include <stdint.h>
#include <cJSON.h>

#include "profiler.h"

#define TRACE_LIB "libkftrace.so"	/* in libexec/kf */
#define TRACE_DIR_ENV "KF_TRACE_DIR"

kf_wrap_fn trace_wrap;		/* trace_wrap.c */
kf_read_fn trace_read;		/* trace_read.c */
kf_feedback_fn trace_feedback;	/* trace_feedback.c */
kf_select_fn trace_select;	/* trace_select.c */

struct trace_name {
	char *mangled, *demangled;
};

struct trace_kernel {
	int64_t start, end;	/* absolute: t0 + the file's times */
	uint32_t name;		/* index into names */
	uint32_t device, stream, graph;
	int32_t grid[3], block[3];
	uint32_t regs;
	int32_t smem_static, smem_dynamic;
	uint32_t corr;		/* the correlation ID of the call that launched it */
};

/* A call of the program's profiler range: cuProfilerStart (start 1) or
 * cuProfilerStop, ordered among the launches by its correlation ID. */
struct trace_range {
	uint32_t corr;
	int start;
	int64_t time;
};

/* A copy ('C'), a set ('S') or a synchronisation ('Y'). */
struct trace_op {
	int64_t start, end;
	uint64_t bytes;
	char kind;
	char copy[8];		/* "HtoD", ...; "" for sets and syncs */
	uint32_t device, stream;
	uint32_t sync;		/* a synchronisation's CUPTI type, else 0: below */
};

/* CUPTI's types of synchronisation (CUpti_ActivitySynchronizationType):
 * all but a stream's wait for an event are the host waiting for the GPU
 * (cudaEventSynchronize, cudaStreamSynchronize, cudaDeviceSynchronize). */
enum { TRACE_SYNC_EVENT = 1, TRACE_SYNC_STREAM_WAIT = 2, TRACE_SYNC_STREAM = 3,
	TRACE_SYNC_CONTEXT = 4 };
#define TRACE_HOST_WAITS(o) ((o)->kind == 'Y' && (o)->sync != TRACE_SYNC_STREAM_WAIT && \
	(o)->sync != 0)

struct trace_marker {
	int64_t time;
	uint32_t flags, id;
	char *domain, *name;
};

struct trace_file {
	char *path;
	long pid, ppid, cupti;
	char *cmd;
	int64_t t0, t1;		/* t1: the end line's time, or the last record's */
	int header;		/* the #kftrace line was read */
	int ended;		/* the E line was read */
	char *end_how;		/* "exit", "signal" (E's end=) */
	long signal;
	long lines, bad_lines, unknown_lines;
	int cut;		/* the last line had no line end (left out) */
	long bad_first;		/* the first bad line's number */
	unsigned long long dropped[6];	/* D lines: kernel copy set sync marker other */
	unsigned long long cupti_dropped;
	struct trace_name *names;
	size_t nnames, capnames;
	struct trace_kernel *k;
	size_t nk, capk;
	struct trace_op *ops;
	size_t nops, capops;
	struct trace_marker *m;
	size_t nm, capm;
	struct trace_range *r;
	size_t nr, capr;
	int io_err;		/* errno of a failed read */
};

/* Parse the n bytes at s, read from path (for messages), into f. Never
 * fails: what could not be read is counted in f. */
void trace_file_parse(struct trace_file *f, const char *path, const char *s, size_t n);
/* Read path into f; -1 and errno when it cannot be opened. */
int trace_file_read(struct trace_file *f, const char *path);
void trace_file_free(struct trace_file *f);
/* The kinds of D lines, in trace_file.dropped's order. */
extern const char *const trace_drop_kinds[6];

/* Whether launch k lies inside f's profiler range: 1 in, 0 out, -1 when
 * the program has none (no P line). */
int trace_in_range(const struct trace_file *f, const struct trace_kernel *k);

/* f's launches in the order of their starts (indices into f->k; equal
 * starts in the file's order); the caller frees it. */
size_t *trace_launch_order(const struct trace_file *f);
/* For each launch of f (waited[i] for f->k[i]; order from
 * trace_launch_order): 1 where a synchronisation of the host ended from
 * its start to the start of the next launch (or the trace's end). The end
 * of a host's wait comes after the GPU work it waited for, and a launch
 * made after it starts later. 1 when some launch was, else 0. */
int trace_waits(const struct trace_file *f, const size_t *order, char *waited);

/* The trace.*.kft files of dir, sorted; NULL-terminated; NULL with errno
 * when dir cannot be read. */
char **trace_list(const char *dir, size_t *n);

/* data from the files of a trace (kf-read's "data"): n >= 1. */
cJSON *trace_data(struct trace_file *const *f, size_t n);
/* The same, the timeline's window the steady state a choice found, from
 * the start of its first launch to the end of its last (CUPTI's times; no
 * window when to <= from). */
cJSON *trace_data_window(struct trace_file *const *f, size_t n, int64_t from, int64_t to);

#endif
