/* kf: the files of an ncu output directory, each name defined here only:
 * kf-ncu (ncu_chain.c and its parts) writes them, kf-read reads them
 * (man/kf.7, "Files in output_dir"). The timing run's CSVs are the
 * selectors' contract (stage/profiler.h): a timing source of another
 * profiler (kf's tracer) writes them too. */
#ifndef KF_NCU_FILES_H
#define KF_NCU_FILES_H

#include "profiler.h"

#define NCU_REP_EXT ".ncu-rep"			/* what ncu adds to -o NAME */
#define NCU_REPORT_REP "report"			/* the detailed run's report */
#define NCU_TIMING_REP "timing"			/* ncu's timing run's report */
#define NCU_REPORT "ncu_report.csv"		/* its details page */
#define NCU_REPORT_MANGLED "ncu_report_mangled.csv"	/* ... by mangled name */
#define NCU_RAW_PAGE "ncu_raw.csv"		/* its raw page */
#define NCU_SOURCE_PAGE "ncu_source.csv"	/* its source page */
#define NCU_TIMING KF_TIMING_CSV		/* the timing run's launches */
#define NCU_TIMING_MANGLED KF_TIMING_MANGLED_CSV
#define NCU_TIMELINE KF_TIMING_TIMELINE		/* a traced timing run's timeline */
#define NCU_RANKING KF_TIMING_RANKING		/* the ranking made of them */
#define NCU_TOP "ncu_top.json"			/* the choice */
#define NCU_DETAILED "ncu_detailed.json"	/* kf-ncu's account of the detailed run */
#define NCU_TIMINGS "ncu_timings.json"		/* where kf-ncu's time went */
#define NCU_LAUNCH_LOG "ncu_launch.log"		/* the held program's output */
#define NCU_EARLY_LOG "ncu_early.log"		/* the held program's first attach's output */
#define NCU_EARLY_REP "ncu_early"		/* ... its report, were it to profile */
#define NCU_GATE_LOG "ncu_gate.log"		/* the gate's wait for the GPU */
#define NCU_RANGE_REQ "ncu_range.log"		/* the range gate: "start PID", "stop PID" */
#define NCU_RANGE_ACK "ncu_range.ack"		/* ... kf-ncu's answer: the GPU is had alone */
#define NCU_TIMING_REQ "ncu_timing_gpu.log"	/* the traced timing run: "cuda PID" a process */
#define NCU_TIMING_ACK "ncu_timing_gpu.ack"	/* ... kf-ncu's answer: the GPU is had */
#define NCU_TIMING_RANGE_REQ "ncu_timing_range.log"	/* its range gate: "start PID", "stop PID" */
#define NCU_TIMING_RANGE_ACK "ncu_timing_range.ack"	/* ... the GPU is had alone */
#define NCU_XLA_RESULTS "xla_autotune.txt"	/* XLA's autotuning results */
#define NCU_TRACE_DIR "trace"			/* kf's tracer's files */
/* kf-wrap --sampled-source: ncu's stock sections, and kf's beside them */
#define NCU_SECTIONS_DIR "ncu_sections"
#define NCU_SAMPLED_SECTION "KfSourceSampled.section"	/* ... kf's, by that name */
#define NCU_SAMPLED_DATA "ncu_source_sampled.section"	/* ... its file in share/kf */
/* kf's tracer, beside kf-ncu (lib/trace/inject: TRACE_LIB), and the gates
 * of ncu's attach and of the program's range (lib/ncu/gate). */
#define NCU_TRACER_LIB "libkftrace.so"
#define NCU_GATE_LIB "libkfgate.so"

#endif
