/* kf: the hottest source lines of each launch, from ncu's source page
 * (ncu_source.csv, exported with --print-source cuda,sass).
 *
 * The page has a block per source file and launch: a "File Path" row, a
 * "Function Name" row, a header, then each CUDA line (Line No, its text,
 * its metrics summed over its instructions) followed by its SASS
 * instructions (Address, text, metrics). A kernel that calls header code
 * has several blocks in a row (one per file); a program with several
 * launches repeats them; code built without -lineinfo has SASS rows only.
 * Only the hottest lines and instructions of the launch in progress are
 * kept, so memory does not grow with the file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "csvrow.h"
#include "lines.h"
#include "mem.h"
#include "ncu_pages.h"
#include "num.h"
#include "path.h"
#include "record.h"

#define TOP_LINES 10		/* lines kept per launch */
#define TOP_SASS 3		/* instructions kept per line */
#define HOT_SASS 5		/* instructions kept per launch */
#define MAX_STALLS 48		/* stall reason columns */
#define TOP_STALLS 4		/* stall reasons kept per line */
#define MAX_FILES 64		/* source files per launch */
#define MAX_TEXT 400		/* bytes of a line's text kept */
#define MAX_ROW_LINES 64
#define MAX_BARS 4096		/* BAR instructions and barrier-stalled ones kept */
#define TOP_BAR_LINES 3

/* What a line's instructions do, for the diagnosis: "ops" of a line. */
enum {
	OP_LDL = 1, OP_STL = 2, OP_F2F64 = 4, OP_FP64 = 8, OP_BAR = 16, OP_ATOM = 32,
	OP_SHARED = 64, OP_EXIT = 128, OP_STG = 256, OP_MUFU = 512, OP_MMA = 1024,
};
static const char *const op_names[] = {
	"LDL", "STL", "F2F.F64", "FP64", "BAR", "ATOM", "LDS/STS", "EXIT", "STG", "MUFU", "MMA",
};
#define NOPS (sizeof op_names / sizeof op_names[0])

/* A BAR instruction, or one that waited on a barrier (the stall lands on
 * the instruction after the BAR, 16 bytes on). */
struct bar {
	unsigned long long addr;
	size_t file;
	double line, samples;	/* samples: the barrier stall's; the BAR's 0 */
	int is_bar;
};

struct sass {
	char *addr, *text;
	double samples, excessive;
	int stall;		/* its largest stall column, or -1 */
};

struct sline {
	size_t file;
	double line, samples, exec, excessive, sectors, shared, threads;
	int has_exec, has_shared, has_threads;
	unsigned ops;
	char *text;
	double stall[MAX_STALLS];
	struct sass top[TOP_SASS];
	size_t ntop;
};

struct group {
	char *fn;
	char *files[MAX_FILES];
	size_t nfiles;
	struct sline lines[TOP_LINES];
	size_t nlines;
	struct sass hot[HOT_SASS];
	size_t nhot;
	double line_samples, sass_samples, excessive;
	double block_lines, block_sass;	/* the same in the file's block */
	size_t block_file, main_file;	/* the block's file; the largest block's */
	long nline_rows, nsass_rows;
	int no_table;		/* ncu said it has no line info */
	int uncounted;		/* a header without "Instructions Executed" */
	struct bar *bars;
	size_t nbars;
	double cur_line_no;	/* the line the SASS rows now read belong to */
};

enum { C_LINE, C_TEXT, C_ADDR, C_SASS, C_SAMPLES, C_EXEC, C_EXC, C_SECT, C_SHARED,
	C_SPACE, C_THREADS, NCOL };

struct ncu_src {
	char *path;
	struct kf_lines l;
	struct kf_csvrow row;
	long col[NCOL];
	long stall_col[MAX_STALLS];
	char *stall_name[MAX_STALLS];
	size_t nstall;
	int have_hdr, eof;
	char *pend_file;	/* the last "File Path" */
	struct group cur, done;
	int cur_open, have_done;
	long cur_line;		/* cur.lines index the SASS rows go to, or -1 */
	long used, bad_rows;
};

/* Groups */

static void
sass_free(struct sass *x)
{
	free(x->addr);
	free(x->text);
	memset(x, 0, sizeof *x);
}

static void
sline_free(struct sline *x)
{
	size_t i;

	free(x->text);
	for (i = 0; i < x->ntop; i++)
		sass_free(&x->top[i]);
	memset(x, 0, sizeof *x);
}

static void
group_free(struct group *g)
{
	size_t i;

	free(g->fn);
	for (i = 0; i < g->nfiles; i++)
		free(g->files[i]);
	for (i = 0; i < g->nlines; i++)
		sline_free(&g->lines[i]);
	for (i = 0; i < g->nhot; i++)
		sass_free(&g->hot[i]);
	free(g->bars);
	memset(g, 0, sizeof *g);
}

static size_t
group_file(struct group *g, const char *file)
{
	size_t i;

	for (i = 0; i < g->nfiles; i++)
		if (strcmp(g->files[i], file) == 0)
			return i;
	if (g->nfiles == MAX_FILES)
		return MAX_FILES - 1;
	g->files[g->nfiles] = xstrdup(file);
	return g->nfiles++;
}

static int
group_has_file(const struct group *g, const char *file)
{
	size_t i;

	for (i = 0; i < g->nfiles; i++)
		if (strcmp(g->files[i], file) == 0)
			return 1;
	return 0;
}

/* The current group is whole: hand it over. */
static void
group_done(struct ncu_src *s)
{
	if (!s->cur_open)
		return;
	group_free(&s->done);
	s->done = s->cur;
	memset(&s->cur, 0, sizeof s->cur);
	s->cur_open = 0;
	s->have_done = 1;
	s->cur_line = -1;
}

/* "Function Name" (file: the "File Path" before it; NULL for a launch
 * with no table): the same kernel in a file not seen yet goes on with the
 * launch in progress, anything else starts the next launch. 1 when a
 * launch is done. */
static int
function_row(struct ncu_src *s, const char *fn, const char *file)
{
	int done = 0;

	if (!s->cur_open || strcmp(s->cur.fn, fn) != 0 || file == NULL || s->cur.no_table ||
	    group_has_file(&s->cur, file)) {
		done = s->cur_open;
		group_done(s);
		s->cur.fn = xstrdup(fn);
		s->cur_open = 1;
	}
	if (file)
		s->cur.block_file = group_file(&s->cur, file);
	else
		s->cur.no_table = 1;
	s->cur.block_lines = s->cur.block_sass = 0;
	s->cur_line = -1;
	return done;
}

/* The header */

static void
header_row(struct ncu_src *s)
{
	static const char *const names[NCOL] = {
		"Line No", NULL, "Address", NULL, "Warp Stall Sampling (All Samples)",
		"Instructions Executed", "L2 Theoretical Sectors Global Excessive",
		"L2 Theoretical Sectors Global", "L1 Wavefronts Shared Excessive", "Address Space",
		"Thread Instructions Executed",
	};
	size_t i, j;

	for (j = 0; j < s->nstall; j++)
		free(s->stall_name[j]);
	s->nstall = 0;
	for (j = 0; j < NCOL; j++)
		s->col[j] = -1;
	for (i = 0; i < s->row.n; i++) {
		const char *f = kf_csvrow_field(&s->row, i, NULL);

		for (j = 0; j < NCOL; j++)
			if (names[j] && s->col[j] < 0 && strcmp(f, names[j]) == 0)
				s->col[j] = (long)i;
		if (strcmp(f, "Source") == 0 && i > 0) {
			const char *prev = kf_csvrow_field(&s->row, i - 1, NULL);

			if (strcmp(prev, "Line No") == 0)
				s->col[C_TEXT] = (long)i;
			else if (strcmp(prev, "Address") == 0)
				s->col[C_SASS] = (long)i;
		}
		if (kf_startswith(f, "stall_") && !strstr(f, "(") && s->nstall < MAX_STALLS) {
			s->stall_col[s->nstall] = (long)i;
			s->stall_name[s->nstall++] = xstrdup(f + 6);
		}
	}
	s->have_hdr = s->col[C_SAMPLES] >= 0 && (s->col[C_LINE] >= 0 || s->col[C_ADDR] >= 0);
}

/* Rows */

static const char *
fld(const struct ncu_src *s, int c, size_t *len)
{
	if (s->col[c] < 0) {
		if (len)
			*len = 0;
		return "";
	}
	return kf_csvrow_field(&s->row, (size_t)s->col[c], len);
}

static double
field_number(const struct ncu_src *s, int c)
{
	size_t len;
	const char *f = fld(s, c, &len);
	double v;

	return kf_parse_number_n(f, len, &v) ? v : 0;
}

static double
stall_val(const struct ncu_src *s, size_t j)
{
	size_t len;
	const char *f = kf_csvrow_field(&s->row, (size_t)s->stall_col[j], &len);
	double v;

	return kf_parse_number_n(f, len, &v) ? v : 0;
}

static char *
text_dup(const char *f, size_t len)
{
	while (len > 0 && (*f == ' ' || *f == '\t')) {
		f++;
		len--;
	}
	return kf_bytes_dup(f, len > MAX_TEXT ? MAX_TEXT : len);
}

/* Keep x among the n best of v (cap of them) by samples: its index, or -1
 * when it is not among them (then it is freed). */
static long
keep_sass(struct sass *v, size_t *n, size_t cap, struct sass *x)
{
	size_t i, low = 0;

	if (*n < cap) {
		v[*n] = *x;
		return (long)(*n)++;
	}
	for (i = 1; i < *n; i++)
		if (v[i].samples < v[low].samples)
			low = i;
	if (x->samples <= v[low].samples) {
		sass_free(x);
		return -1;
	}
	sass_free(&v[low]);
	v[low] = *x;
	return (long)low;
}

static struct sass
sass_make(const struct ncu_src *s)
{
	struct sass x;
	size_t len, j;
	const char *f = fld(s, C_ADDR, &len);
	double best = 0;

	x.addr = kf_bytes_dup(f, len);
	f = fld(s, C_SASS, &len);
	x.text = text_dup(f, len);
	x.samples = field_number(s, C_SAMPLES);
	x.excessive = field_number(s, C_EXC);
	x.stall = -1;
	for (j = 0; j < s->nstall; j++) {
		double v = stall_val(s, j);

		if (v > best) {
			best = v;
			x.stall = (int)j;
		}
	}
	return x;
}

/* The instruction's kind, from its text ("@!P0  LDS R13, [R5]"). */
static unsigned
sass_op(const char *t)
{
	static const struct { const char *pre; unsigned op; } k[] = {
		{ "LDL", OP_LDL }, { "STL", OP_STL }, { "BAR", OP_BAR }, { "ATOMS", OP_SHARED },
		{ "ATOM", OP_ATOM }, { "RED", OP_ATOM }, { "LDS", OP_SHARED },
		{ "STS", OP_SHARED }, { "EXIT", OP_EXIT }, { "STG", OP_STG }, { "MUFU", OP_MUFU },
		{ "DADD", OP_FP64 }, { "DMUL", OP_FP64 }, { "DFMA", OP_FP64 },
		{ "HMMA", OP_MMA }, { "HGMMA", OP_MMA }, { "QGMMA", OP_MMA }, { "IMMA", OP_MMA },
		{ "IGMMA", OP_MMA }, { "DMMA", OP_MMA },
	};
	size_t i;

	while (*t == ' ')
		t++;
	if (*t == '@')
		t += strcspn(t, " ");
	while (*t == ' ')
		t++;
	if (kf_startswith(t, "F2F") && strstr(t, ".F64"))
		return OP_F2F64;
	for (i = 0; i < sizeof k / sizeof k[0]; i++)
		if (kf_startswith(t, k[i].pre))
			return k[i].op;
	return 0;
}

static long
barrier_col(const struct ncu_src *s)
{
	size_t j;

	for (j = 0; j < s->nstall; j++)
		if (strcmp(s->stall_name[j], "barrier") == 0)
			return (long)j;
	return -1;
}

/* Keep what the barrier attribution needs: BARs, and instructions that
 * waited on one. */
static void
note_bar(struct ncu_src *s, const struct sass *x, unsigned op)
{
	struct group *g = &s->cur;
	long bc = barrier_col(s);
	double w = bc >= 0 ? stall_val(s, (size_t)bc) : 0;
	struct bar b;

	if ((op != OP_BAR && w <= 0) || g->nbars >= MAX_BARS || s->col[C_LINE] < 0)
		return;
	b.addr = strtoull(x->addr, NULL, 16);
	b.file = g->block_file;
	b.line = g->cur_line_no;
	b.samples = op == OP_BAR ? 0 : w;
	b.is_bar = op == OP_BAR;
	if (g->nbars % 64 == 0)
		g->bars = xrealloc(g->bars, (g->nbars + 64) * sizeof *g->bars);
	g->bars[g->nbars++] = b;
}

static void
sass_row(struct ncu_src *s)
{
	struct group *g = &s->cur;
	struct sass x = sass_make(s), y;
	unsigned op = sass_op(x.text);

	note_bar(s, &x, op);
	if (s->cur_line >= 0)
		g->lines[s->cur_line].ops |= op;

	/* Each file's block has every instruction of the launch that its
	 * lines hold, and the kernel's own file holds them all (code inlined
	 * from a header is in both): the launch's samples are the largest
	 * block's. */
	g->block_sass += x.samples;
	if (g->block_sass > g->sass_samples)
		g->sass_samples = g->block_sass;
	g->nsass_rows++;
	if (x.samples <= 0 && x.excessive <= 0) {
		sass_free(&x);
		return;
	}
	if (s->cur_line >= 0) {
		struct sline *ln = &g->lines[s->cur_line];

		y = x;
		y.addr = xstrdup(x.addr);
		y.text = xstrdup(x.text);
		keep_sass(ln->top, &ln->ntop, TOP_SASS, &y);
	}
	keep_sass(g->hot, &g->nhot, HOT_SASS, &x);
}

/* Lines with excessive sectors stay before lines without; then samples. */
static int
line_less(const struct sline *a, const struct sline *b)
{
	if ((a->excessive > 0) != (b->excessive > 0))
		return a->excessive <= 0;
	return a->samples < b->samples;
}

static void
line_row(struct ncu_src *s, const char *file)
{
	struct group *g = &s->cur;
	struct sline x;
	size_t i, low = 0, len, j;
	const char *f;

	memset(&x, 0, sizeof x);
	x.file = group_file(g, file);
	x.line = field_number(s, C_LINE);
	x.samples = field_number(s, C_SAMPLES);
	/* ncu counts each instruction's executions only when asked
	 * (SourceCounters; not kf-wrap --sampled-source's collection): with
	 * no such column the count is unknown, not 0. */
	x.has_exec = s->col[C_EXEC] >= 0;
	if (!x.has_exec)
		g->uncounted = 1;
	x.exec = field_number(s, C_EXEC);
	x.excessive = field_number(s, C_EXC);
	x.sectors = field_number(s, C_SECT);
	x.has_threads = x.has_exec && s->col[C_THREADS] >= 0 && x.exec > 0;
	x.threads = field_number(s, C_THREADS);
	g->cur_line_no = x.line;
	/* Bank conflicts: the shared-memory wavefronts beyond the ideal, on
	 * lines that access shared memory (only pages of kernels that use it
	 * have the column). */
	f = fld(s, C_SPACE, &len);
	if (s->col[C_SHARED] >= 0 && memmem(f, len, "Shared", 6)) {
		x.shared = field_number(s, C_SHARED);
		x.has_shared = 1;
	}
	f = fld(s, C_TEXT, &len);
	for (j = 0; j < s->nstall; j++)
		x.stall[j] = stall_val(s, j);
	g->block_lines += x.samples;
	if (g->block_lines > g->line_samples) {
		g->line_samples = g->block_lines;
		g->main_file = g->block_file;
	}
	g->excessive += x.excessive;
	g->nline_rows++;
	s->cur_line = -1;
	if (g->nlines < TOP_LINES) {
		low = g->nlines++;
	} else {
		for (i = 1; i < g->nlines; i++)
			if (line_less(&g->lines[i], &g->lines[low]))
				low = i;
		if (!line_less(&g->lines[low], &x))
			return;
		sline_free(&g->lines[low]);
	}
	x.text = text_dup(f, len);
	g->lines[low] = x;
	s->cur_line = (long)low;
}

static void
data_row(struct ncu_src *s)
{
	size_t len;
	const char *addr;

	if (!s->have_hdr || !s->cur_open) {
		s->bad_rows++;
		return;
	}
	fld(s, C_LINE, &len);
	if (len > 0) {
		line_row(s, s->pend_file ? s->pend_file : "");
		return;
	}
	addr = fld(s, C_ADDR, &len);
	if (len > 0 && strcmp(addr, "...") != 0)
		sass_row(s);
}

/* A complete row; 1 when it ends a launch. */
static int
take_row(struct ncu_src *s)
{
	const char *first = kf_csvrow_field(&s->row, 0, NULL);

	if (strcmp(first, "File Path") == 0) {
		free(s->pend_file);
		s->pend_file = xstrdup(kf_csvrow_field(&s->row, 1, NULL));
		return 0;
	}
	if (strcmp(first, "Function Name") == 0)
		return function_row(s, kf_csvrow_field(&s->row, 1, NULL),
		    s->pend_file ? s->pend_file : "");
	if (strcmp(first, "Line No") == 0 || strcmp(first, "Address") == 0) {
		header_row(s);
		return 0;
	}
	data_row(s);
	return 0;
}

/* Code without line info has no table, only ncu's line
 * "==WARNING== No lineinfo available to show CUDA-C source related to
 * 'NAME'." for each launch: a launch with no lines (1 when that ends the
 * one before). */
static int
no_lineinfo(struct ncu_src *s)
{
	static const char pre[] = "==WARNING== No lineinfo available to show CUDA-C "
	    "source related to '";
	char *name, *end;
	int done;

	if (!kf_startswith(s->l.s, pre))
		return 0;
	name = s->l.s + sizeof pre - 1;
	if ((end = strrchr(name, '\'')) != NULL)
		*end = '\0';
	done = function_row(s, name, NULL);
	s->have_hdr = 0;
	return done;
}

/* Read until a launch is whole (in s->done): 1, or 0 at the end. */
static int
next_group(struct ncu_src *s)
{
	int got, done;

	while (!s->eof && (got = kf_lines_next(&s->l)) > 0) {
		if (!kf_csvrow_pending(&s->row) && s->l.s[0] != '"') {
			if (no_lineinfo(s))
				return 1;
			continue;
		}
		if (kf_csvrow_pending(&s->row) && s->row.nlines >= MAX_ROW_LINES) {
			kf_csvrow_drop(&s->row);
			s->bad_rows++;
		}
		done = kf_csvrow_feed(&s->row, s->l.s, s->l.len);
		if (done < 0)
			break;
		if (done == 1 && s->row.n > 0 && take_row(s))
			return 1;
	}
	if (kf_csvrow_pending(&s->row)) {
		kf_csvrow_drop(&s->row);
		s->bad_rows++;
	}
	s->eof = 1;
	group_done(s);
	return s->have_done;
}

struct ncu_src *
ncu_src_open(const char *dir)
{
	struct ncu_src *s = xcalloc(1, sizeof *s);
	size_t j;

	s->path = kf_path_join(dir, NCU_SOURCE_PAGE);
	if (kf_lines_open(&s->l, s->path) < 0) {
		free(s->path);
		free(s);
		return NULL;
	}
	kf_csvrow_init(&s->row, ',');
	for (j = 0; j < NCOL; j++)
		s->col[j] = -1;
	s->cur_line = -1;
	return s;
}

/* Output */

static void
put_str(struct buf *b, const char *key, const char *v)
{
	buf_printf(b, "\"%s\":", key);
	kf_json_quote(b, v, strlen(v));
}

static void
put_sass(struct buf *b, const struct ncu_src *s, const struct sass *x)
{
	buf_putc(b, '{');
	put_str(b, "address", x->addr);
	buf_putc(b, ',');
	put_str(b, "text", x->text);
	buf_puts(b, ",\"samples\":");
	ncu_put_num(b, x->samples);
	buf_puts(b, ",\"l2_excessive_sectors\":");
	ncu_put_num(b, x->excessive);
	if (x->stall >= 0 && (size_t)x->stall < s->nstall) {
		buf_putc(b, ',');
		put_str(b, "stall", s->stall_name[x->stall]);
	}
	buf_putc(b, '}');
}

static int
by_samples_sass(const void *a, const void *b)
{
	const struct sass *x = a, *y = b;

	return (x->samples < y->samples) - (x->samples > y->samples);
}

static int
by_samples_line(const void *a, const void *b)
{
	const struct sline *x = a, *y = b;

	return (x->samples < y->samples) - (x->samples > y->samples);
}

/* The line's stall reasons with samples, largest first. */
static void
put_stalls(struct buf *b, const struct ncu_src *s, const struct sline *x)
{
	int used[MAX_STALLS] = {0};
	size_t k, j;

	buf_puts(b, ",\"stalls\":{");
	for (k = 0; k < s->nstall && k < TOP_STALLS; k++) {
		long best = -1;

		for (j = 0; j < s->nstall; j++)
			if (!used[j] && x->stall[j] > 0 && (best < 0 || x->stall[j] > x->stall[best]))
				best = (long)j;
		if (best < 0)
			break;
		used[best] = 1;
		if (k)
			buf_putc(b, ',');
		kf_json_quote(b, s->stall_name[best], strlen(s->stall_name[best]));
		buf_putc(b, ':');
		ncu_put_num(b, x->stall[best]);
	}
	buf_putc(b, '}');
}

static void
put_line(struct buf *b, const struct ncu_src *s, const struct group *g, struct sline *x)
{
	size_t i;

	buf_putc(b, '{');
	put_str(b, "file", g->files[x->file]);
	buf_puts(b, ",\"line\":");
	ncu_put_num(b, x->line);
	buf_putc(b, ',');
	put_str(b, "text", x->text);
	buf_puts(b, ",\"samples\":");
	ncu_put_num(b, x->samples);
	buf_puts(b, ",\"instructions_executed\":");
	if (x->has_exec)
		ncu_put_num(b, x->exec);
	else
		buf_puts(b, "null");
	buf_puts(b, ",\"l2_excessive_sectors\":");
	ncu_put_num(b, x->excessive);
	buf_puts(b, ",\"l2_sectors\":");
	ncu_put_num(b, x->sectors);
	buf_puts(b, ",\"shared_excessive_wavefronts\":");
	if (x->has_shared)
		ncu_put_num(b, x->shared);
	else
		buf_puts(b, "null");
	put_stalls(b, s, x);
	buf_puts(b, ",\"avg_threads_executed\":");
	if (x->has_threads)
		ncu_put_num(b, x->threads / x->exec);
	else
		buf_puts(b, "null");
	buf_puts(b, ",\"ops\":[");
	for (i = 0; i < NOPS; i++)
		if (x->ops & (1u << i))
			buf_printf(b, "%s\"%s\"", (x->ops & ((1u << i) - 1)) ? "," : "", op_names[i]);
	buf_putc(b, ']');
	buf_puts(b, ",\"sass\":[");
	kf_sort(x->top, x->ntop, sizeof x->top[0], by_samples_sass);
	for (i = 0; i < x->ntop; i++) {
		if (i)
			buf_putc(b, ',');
		put_sass(b, s, &x->top[i]);
	}
	buf_puts(b, "]}");
}

static int
by_addr(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return y->is_bar - x->is_bar;
}

struct bar_line {
	size_t file;
	double line, samples;
};

/* The BAR an instruction at addr waited on: the closest one before it,
 * at most four instructions (64 bytes) back (the compiler may put one in
 * between), the main file's when code is inlined (the same address in
 * several files' blocks). NULL when there is none. */
static const struct bar *
bar_before(const struct group *g, unsigned long long addr)
{
	const struct bar *best = NULL;
	size_t i;

	for (i = 0; i < g->nbars; i++) {
		const struct bar *b = &g->bars[i];

		if (!b->is_bar || b->addr >= addr || addr - b->addr > 64)
			continue;
		if (best == NULL || b->addr > best->addr ||
		    (b->addr == best->addr && b->file == g->main_file))
			best = b;
	}
	return best;
}

/* "barrier_lines": the __syncthreads (BAR) lines whose barriers the
 * barrier-stall samples waited at, most samples first. An instruction is
 * counted once, however many files' blocks repeat it. */
static void
put_barrier_lines(struct buf *b, const struct group *g)
{
	struct bar_line v[TOP_BAR_LINES + 1];
	size_t i, j, n = 0;
	unsigned long long last = 0;
	int have_last = 0;

	kf_sort(g->bars, g->nbars, sizeof *g->bars, by_addr);
	for (i = 0; i < g->nbars; i++) {
		const struct bar *x = &g->bars[i], *bar;

		if (x->is_bar || (have_last && x->addr == last))
			continue;
		last = x->addr;
		have_last = 1;
		if ((bar = bar_before(g, x->addr)) == NULL)
			continue;
		for (j = 0; j < n; j++)
			if (v[j].file == bar->file && v[j].line == bar->line)
				break;
		if (j == n) {
			if (n == TOP_BAR_LINES + 1)
				continue;
			v[n].file = bar->file;
			v[n].line = bar->line;
			v[n++].samples = 0;
		}
		v[j].samples += x->samples;
	}
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && v[j].samples > v[j - 1].samples; j--) {
			struct bar_line t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	buf_puts(b, ",\"barrier_lines\":[");
	for (i = 0; i < n && i < TOP_BAR_LINES; i++) {
		buf_puts(b, i ? ",{" : "{");
		put_str(b, "file", g->files[v[i].file]);
		buf_puts(b, ",\"line\":");
		ncu_put_num(b, v[i].line);
		buf_puts(b, ",\"samples\":");
		ncu_put_num(b, v[i].samples);
		buf_putc(b, '}');
	}
	buf_putc(b, ']');
}

static void
put_group(struct buf *b, const struct ncu_src *s, struct group *g)
{
	size_t i;

	buf_puts(b, ",\"source\":{");
	put_str(b, "function", g->fn);
	buf_puts(b, ",\"files\":[");
	for (i = 0; i < g->nfiles; i++) {
		if (i)
			buf_putc(b, ',');
		kf_json_quote(b, g->files[i], strlen(g->files[i]));
	}
	buf_putc(b, ']');
	if (g->nline_rows && g->main_file < g->nfiles) {
		buf_putc(b, ',');
		put_str(b, "main_file", g->files[g->main_file]);
	}
	buf_printf(b, ",\"line_info\":%s,", g->nline_rows ? "true" : "false");
	if (g->no_table)
		buf_puts(b, "\"no_table\":true,");
	if (g->nline_rows)
		buf_printf(b, "\"instructions_counted\":%s,", g->uncounted ? "false" : "true");
	buf_puts(b, "\"samples\":");
	ncu_put_num(b, g->nline_rows ? g->line_samples : g->sass_samples);
	buf_puts(b, ",\"l2_excessive_sectors\":");
	ncu_put_num(b, g->excessive);
	if (g->nline_rows)
		put_barrier_lines(b, g);
	buf_puts(b, ",\"lines\":[");
	kf_sort(g->lines, g->nlines, sizeof g->lines[0], by_samples_line);
	for (i = 0; i < g->nlines; i++) {
		if (i)
			buf_putc(b, ',');
		put_line(b, s, g, &g->lines[i]);
	}
	buf_puts(b, "],\"hot_sass\":[");
	kf_sort(g->hot, g->nhot, sizeof g->hot[0], by_samples_sass);
	for (i = 0; i < g->nhot; i++) {
		if (i)
			buf_putc(b, ',');
		put_sass(b, s, &g->hot[i]);
	}
	buf_puts(b, "]}");
}

/* The page's function name and the details page's kernel name: the same,
 * or the same up to the parameter list. */
static int
same_kernel(const char *a, const char *b)
{
	size_t na = strcspn(a, "("), nb = strcspn(b, "(");

	return strcmp(a, b) == 0 || (na == nb && strncmp(a, b, na) == 0);
}

void
ncu_src_put(struct ncu_src *s, const char *name, struct buf *out)
{
	if (s == NULL || name == NULL)
		return;
	if (!s->have_done && !next_group(s))
		return;
	if (!same_kernel(s->done.fn, name))
		return;
	put_group(out, s, &s->done);
	group_free(&s->done);
	s->have_done = 0;
	s->used++;
}

void
ncu_src_close(struct ncu_src *s, cJSON *notes)
{
	size_t j;

	if (s == NULL)
		return;
	if (s->used == 0)
		cJSON_AddItemToArray(notes, cJSON_CreateString(s->have_hdr || s->have_done ?
		    NCU_SOURCE_PAGE " has no block for the details page's launches: no source lines" :
		    NCU_SOURCE_PAGE " has no source table (\"Function Name\", a header): no source lines"));
	if (s->bad_rows > 0) {
		char *m = xasprintf("%s: %ld row%s skipped (cut off, or outside a source table)",
		    NCU_SOURCE_PAGE, s->bad_rows, s->bad_rows == 1 ? "" : "s");

		cJSON_AddItemToArray(notes, cJSON_CreateString(m));
		free(m);
	}
	group_free(&s->cur);
	group_free(&s->done);
	for (j = 0; j < s->nstall; j++)
		free(s->stall_name[j]);
	free(s->pend_file);
	kf_lines_close(&s->l);
	kf_csvrow_free(&s->row);
	free(s->path);
	free(s);
}
