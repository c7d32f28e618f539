/* kf: the roofline's inputs from ncu's raw page (ncu_raw.csv).
 *
 * The page is one header row of metric names, one row of their units and
 * one row per launch, each with over a thousand columns. Only the columns
 * a roofline needs are kept, converted to base units (ncu prints
 * "Kbyte/cycle", "Tbyte/s", "Ghz", "ms", with thousands separators), and
 * only the row of the launch asked for is held. */
#include <errno.h>
#include <math.h>
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

#define MAX_ROW_LINES 64

static const char *const wanted[] = {
	"gpu__time_duration.sum",
	"sm__cycles_elapsed.avg.per_second",
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed",
	"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed",
	"sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
	"sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
	"sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
	"dram__bytes.sum.per_second",
	"dram__bytes.sum.peak_sustained",
	"dram__cycles_elapsed.avg.per_second",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"lts__t_sectors.sum",
	"lts__t_sectors.sum.pct_of_peak_sustained_elapsed",
	"lts__t_bytes.sum.per_second",
	"lts__t_bytes.sum.peak_sustained",
	"lts__cycles_elapsed.avg.per_second",
	"lts__throughput.avg.pct_of_peak_sustained_elapsed",
	"lts__throughput.max.pct_of_peak_sustained_elapsed",
	"lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
	"l1tex__t_bytes.sum.per_second",
	"l1tex__t_bytes.sum.peak_sustained",
	"l1tex__cycles_elapsed.avg.per_second",
	"l1tex__throughput.avg.pct_of_peak_sustained_active",
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__inst_executed_pipe_tensor.avg.pct_of_peak_sustained_active",
	/* a pipe's share over all SMs and the whole run, idle SMs included */
	"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed",
	"smsp__pcsamp_sample_count",
	/* The diagnosis (ncu_diag.c): what limits the SM, and why. */
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",
	"sm__issue_active.avg.pct_of_peak_sustained_active",
	"sm__inst_issued.avg.pct_of_peak_sustained_active",
	"sm__issue_active.avg.pct_of_peak_sustained_elapsed",	/* the H200's raw page */
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"sm__maximum_warps_per_active_cycle_pct",
	"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_active",
	"sm__mio_inst_issued.avg.pct_of_peak_sustained_active",
	"l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
	"launch__stack_size",
	"launch__grid_size",
	"launch__block_size",
	"launch__sm_count",
	"launch__waves_per_multiprocessor",
	"launch__registers_per_thread",
	"launch__occupancy_limit_registers",
	"launch__occupancy_limit_shared_mem",
	"launch__occupancy_limit_warps",
	"launch__occupancy_limit_blocks",
	"launch__occupancy_limit_barriers",
	"memory_l1_wavefronts_shared",
	"memory_l1_wavefronts_shared_ideal",
	"derived__memory_l1_wavefronts_shared_excessive",
	"derived__memory_l1_conflicts_shared_nway",
	"derived__memory_l2_theoretical_sectors_global_excessive",
	"memory_l2_theoretical_sectors_global",
	"memory_l2_theoretical_sectors_global_ideal",
	"memory_l2_theoretical_sectors_local",
	/* ncu's estimates of uncoalesced accesses' cost, made by kf where
	 * the record has no rule of SourceCounters (ncu_rules.c) */
	"lts__cycles_active.sum",
	"lts__cycles_elapsed.sum",
	"l1tex__cycles_active.sum",
	"l1tex__cycles_elapsed.sum",
	"l1tex__t_requests_pipe_lsu_mem_local_op_ld.sum",
	"l1tex__t_requests_pipe_lsu_mem_local_op_st.sum",
	"sass__inst_executed_local_loads",
	"sass__inst_executed_local_stores",
	"sass__inst_executed_register_spilling_mem_local",
	"l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
	"l1tex__t_requests_pipe_lsu_mem_global_op_red.sum",
	"smsp__inst_executed_op_generic_atom_dot_alu.sum",
	"smsp__inst_executed_op_generic_atom_dot_cas.sum",
	"smsp__inst_executed_op_global_red.sum",
	"smsp__inst_executed_op_shared_atom.sum",
	"smsp__inst_executed.sum",
	"smsp__sass_inst_executed_op_shared_ld.sum",
	"smsp__sass_inst_executed_op_shared_st.sum",
	"smsp__sass_inst_executed_op_global_ld.sum",
	"smsp__sass_inst_executed_op_global_st.sum",
	"derived__avg_thread_executed",
	"smsp__sass_average_branch_targets_threads_uniform.pct",
	"smsp__sass_branch_targets_threads_divergent.sum",
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
};
#define NWANT (sizeof wanted / sizeof wanted[0])

/* Families kept whole, every column whose name starts so: the SM's pipes
 * (share of peak while active), tensor-core operations by precision (kf's
 * own --metrics, share/kf/ncu_metrics.txt), local and shared sectors, the
 * warp-state samples by stall reason. */
static const char *const families[] = {
	"sm__inst_executed_pipe_",
	"sm__pipe_",
	"sm__ops_path_tensor_",
	"l1tex__t_sectors_pipe_lsu_mem_local_",
	"l1tex__data_bank_conflicts_",
	"smsp__pcsamp_warps_issue_stalled_",
};
#define NFAM (sizeof families / sizeof families[0])

/* A family's column worth keeping: one value per launch, not min/max/sum
 * variants of the same rate (".avg.pct_of_peak_sustained_active" of the
 * pipes, ".sum" of counters), nor the samples of warps "not issued". */
static int
family_col(const char *f)
{
	size_t i;

	/* Metric names are these bytes; they go into JSON as they are. */
	if (f[strspn(f, "abcdefghijklmnopqrstuvwxyz0123456789_.")] != '\0')
		return 0;
	for (i = 0; i < NFAM; i++) {
		if (strncmp(f, families[i], strlen(families[i])) != 0)
			continue;
		if (i < 2)
			return kf_endswith(f, ".avg.pct_of_peak_sustained_active");
		if (i == NFAM - 1)
			return !kf_endswith(f, "_not_issued");
		return kf_endswith(f, ".sum");
	}
	return 0;
}

struct ncu_raw {
	char *path;
	struct kf_lines l;
	struct kf_csvrow row;
	/* The columns kept: wanted[] and the families', in header order. */
	char **name;
	long *col;
	double *scale;		/* its unit's factor to base units; 0: unknown */
	size_t nkeep;
	int have_hdr, have_units;
	size_t ncol;		/* the header's columns */
	/* The row read ahead: the launch with this ID, its values. */
	int have_row, eof;
	double row_id;
	double *val;
	int *has;
	long bad_rows, unmatched, used;
};

/* Units */

static double
prefix_scale(const char *s, size_t *skip)
{
	static const struct { char c; double f; } p[] = {
		{ 'n', 1e-9 }, { 'u', 1e-6 }, { 'm', 1e-3 }, { 'K', 1e3 }, { 'k', 1e3 },
		{ 'M', 1e6 }, { 'G', 1e9 }, { 'T', 1e12 }, { 'P', 1e15 },
	};
	size_t i;

	for (i = 0; i < sizeof p / sizeof p[0]; i++) {
		if (s[0] == p[i].c) {
			*skip = 1;
			return p[i].f;
		}
	}
	*skip = 0;
	return 1;
}

/* One side of a unit ("Kbyte", "Ghz", "ms", "cycle"): its factor, 0 when
 * it is not a unit kf knows. */
static double
side_scale(const char *s, size_t n)
{
	static const char *const base[] = {
		"byte", "hz", "s", "second", "cycle", "sector", "sectors", "inst", "warp",
		"thread", "block", "register", "request", "SM", "cluster", "",
	};
	size_t i, skip;
	double f;

	for (i = 0; i < sizeof base / sizeof base[0]; i++)
		if (strlen(base[i]) == n && strncasecmp(s, base[i], n) == 0)
			return 1;
	f = prefix_scale(s, &skip);
	if (skip == 0 || n < 2)
		return 0;
	for (i = 0; i < sizeof base / sizeof base[0] - 1; i++)
		if (strlen(base[i]) == n - 1 && strncasecmp(s + 1, base[i], n - 1) == 0)
			return f;
	return 0;
}

/* The factor that turns a value in unit into base units ("Tbyte/s": 1e12,
 * "Kbyte/cycle": 1e3, "sector/us": 1e6, "%": 1); 0 when unknown. */
static double
unit_scale(const char *unit)
{
	const char *slash = strchr(unit, '/');
	double num, den;

	if (strcmp(unit, "%") == 0)
		return 1;
	if (slash == NULL)
		return side_scale(unit, strlen(unit));
	num = side_scale(unit, (size_t)(slash - unit));
	den = side_scale(slash + 1, strlen(slash + 1));
	return num == 0 || den == 0 ? 0 : num / den;
}

/* Rows */

static int
is_wanted(const char *f)
{
	size_t j;

	for (j = 0; j < NWANT; j++)
		if (strcmp(f, wanted[j]) == 0)
			return 1;
	return family_col(f);
}

static void
free_keep(struct ncu_raw *r)
{
	size_t j;

	for (j = 0; j < r->nkeep; j++)
		free(r->name[j]);
	free(r->name);
	free(r->col);
	free(r->scale);
	free(r->val);
	free(r->has);
	r->name = NULL;
	r->col = NULL;
	r->scale = r->val = NULL;
	r->has = NULL;
	r->nkeep = 0;
}

/* A name kept twice (a second header row of another layout) counts once. */
static int
kept(const struct ncu_raw *r, const char *f)
{
	size_t j;

	for (j = 0; j < r->nkeep; j++)
		if (strcmp(r->name[j], f) == 0)
			return 1;
	return 0;
}

static void
read_header(struct ncu_raw *r)
{
	size_t i, n = 0;

	free_keep(r);
	for (i = 0; i < r->row.n; i++)
		if (is_wanted(kf_csvrow_field(&r->row, i, NULL)))
			n++;
	r->name = xcalloc(n + 1, sizeof *r->name);
	r->col = xcalloc(n + 1, sizeof *r->col);
	r->scale = xcalloc(n + 1, sizeof *r->scale);
	r->val = xcalloc(n + 1, sizeof *r->val);
	r->has = xcalloc(n + 1, sizeof *r->has);
	for (i = 0; i < r->row.n; i++) {
		const char *f = kf_csvrow_field(&r->row, i, NULL);

		if (!is_wanted(f) || kept(r, f))
			continue;
		r->name[r->nkeep] = xstrdup(f);
		r->col[r->nkeep++] = (long)i;
	}
	r->ncol = r->row.n;
	r->have_hdr = 1;
}

static void
read_units(struct ncu_raw *r)
{
	size_t j;

	for (j = 0; j < r->nkeep; j++)
		r->scale[j] = (size_t)r->col[j] >= r->row.n ? 0 :
		    unit_scale(kf_csvrow_field(&r->row, (size_t)r->col[j], NULL));
	r->have_units = 1;
}

static void
read_values(struct ncu_raw *r)
{
	size_t j, len;

	for (j = 0; j < r->nkeep; j++) {
		const char *f;
		double v;

		r->has[j] = 0;
		if (r->scale[j] == 0)
			continue;
		f = kf_csvrow_field(&r->row, (size_t)r->col[j], &len);
		if (kf_parse_number_n(f, len, &v) && isfinite(v * r->scale[j])) {
			r->val[j] = v * r->scale[j];
			r->has[j] = 1;
		}
	}
}

/* A complete row: the header, the units, or a launch (then 1). */
static int
take_row(struct ncu_raw *r)
{
	const char *first = kf_csvrow_field(&r->row, 0, NULL);
	size_t len;

	if (strcmp(first, "ID") == 0) {
		read_header(r);
		r->have_units = 0;
		return 0;
	}
	if (!r->have_hdr)
		return 0;
	if (!r->have_units && first[0] == '\0') {
		read_units(r);
		return 0;
	}
	first = kf_csvrow_field(&r->row, 0, &len);
	if (!r->have_units || r->row.n < r->ncol ||
	    !kf_parse_number_n(first, len, &r->row_id)) {
		r->bad_rows++;
		return 0;
	}
	read_values(r);
	return 1;
}

/* Read up to the next launch row: 1, or 0 at the end. */
static int
next_row(struct ncu_raw *r)
{
	int got, done;

	while ((got = kf_lines_next(&r->l)) > 0) {
		if (!kf_csvrow_pending(&r->row) && r->l.s[0] != '"')
			continue;	/* ==PROF== lines, blank lines */
		if (kf_csvrow_pending(&r->row) && r->row.nlines >= MAX_ROW_LINES) {
			kf_csvrow_drop(&r->row);
			r->bad_rows++;
		}
		done = kf_csvrow_feed(&r->row, r->l.s, r->l.len);
		if (done < 0)
			break;
		if (done == 1 && r->row.n > 0 && take_row(r))
			return 1;
	}
	if (kf_csvrow_pending(&r->row)) {
		kf_csvrow_drop(&r->row);
		r->bad_rows++;
	}
	r->eof = 1;
	return 0;
}

struct ncu_raw *
ncu_raw_open(const char *dir)
{
	struct ncu_raw *r = xcalloc(1, sizeof *r);

	r->path = kf_path_join(dir, NCU_RAW_PAGE);
	if (kf_lines_open(&r->l, r->path) < 0) {
		free(r->path);
		free(r);
		return NULL;
	}
	kf_csvrow_init(&r->row, ',');
	return r;
}

void
ncu_put_num(struct buf *b, double v)
{
	if (!isfinite(v))
		buf_puts(b, "null");
	else if (v > -1e15 && v < 1e15 && v == (double)(long long)v)
		buf_printf(b, "%lld", (long long)v);
	else
		buf_printf(b, "%.10g", v);
}

void
ncu_raw_put(struct ncu_raw *r, double id, struct buf *out)
{
	size_t j;
	int first = 1;

	if (r == NULL)
		return;
	while (!r->eof && (!r->have_row || r->row_id < id)) {
		if (r->have_row)
			r->unmatched++;
		r->have_row = next_row(r);
	}
	if (!r->have_row || r->row_id != id)
		return;
	r->have_row = 0;
	r->used++;
	buf_puts(out, ",\"roofline_inputs\":{");
	for (j = 0; j < r->nkeep; j++) {
		if (!r->has[j])
			continue;
		buf_printf(out, "%s\"%s\":", first ? "" : ",", r->name[j]);
		ncu_put_num(out, r->val[j]);
		first = 0;
	}
	buf_putc(out, '}');
}

void
ncu_raw_close(struct ncu_raw *r, cJSON *notes)
{
	struct buf b = {0};

	if (r == NULL)
		return;
	if (!r->have_hdr)
		buf_printf(&b, "%s has no header row (\"ID\",...): not ncu's raw page",
		    NCU_RAW_PAGE);
	else if (r->bad_rows)
		buf_printf(&b, "%s: %ld row%s skipped (cut off, or not a launch's)",
		    NCU_RAW_PAGE, r->bad_rows, r->bad_rows == 1 ? "" : "s");
	if (b.len)
		cJSON_AddItemToArray(notes, cJSON_CreateString(b.s));
	buf_reset(&b);
	if (r->have_hdr && r->used == 0)
		buf_printf(&b, "%s has no row for the details page's launches: no roofline",
		    NCU_RAW_PAGE);
	if (b.len)
		cJSON_AddItemToArray(notes, cJSON_CreateString(b.s));
	buf_free(&b);
	kf_lines_close(&r->l);
	kf_csvrow_free(&r->row);
	free_keep(r);
	free(r->path);
	free(r);
}
