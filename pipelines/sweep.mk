# kf sweep: every job of a jobs file through the whole pipeline, by make.
#
#   make -f pipelines/sweep.mk JOBS=jobs.jsonl OUT=DIR [-jN] [GPUS="0 1"]
#
# leaves, for each job, DIR/ID.json (the final record), DIR/ID.feedback.txt,
# DIR/ID.log (what the stages said) and the profiler's files in
# DIR/runs/ID/ID/PASS, and DIR/summary.tsv with a header line and one line
# per job: id, profiler, status, top kernel, its share of GPU time, verdict,
# reason (why a job failed); with the target times, DIR/times.tsv: where
# each job's time went (pipelines/kf-sweep-times). Before any job, the kf programs and the
# profilers must be there (else make stops, status 2); on a terminal, a
# count of the jobs done and a closing summary.
#
# Each job is split into DIR/jobs/ID.job, rewritten only when the job's line
# changed, so a second run profiles only the jobs that changed. A failed job
# does not stop the others: its record and feedback say why. With -jN, N
# jobs run side by side, each holding one GPU of GPUS at a time
# (pipelines/kf-gpu-lock): with OVERLAP=1 (the default) an ncu job holds it
# only for ncu's profiled runs (kf-gpu-lock -l), so -jN above the GPUs runs
# the jobs' exports and kf's stages beside the profiling; OVERLAP=0 holds
# it for the whole of kf-run. OUT may not contain blanks; a job whose id is not
# a plain file name runs under the name line-N (N: its line in JOBS).
#
# With BASELINE=DIR (an earlier sweep's OUT), each job's final record is
# also compared with DIR/ID.json (kf-feedback --baseline; no profiling
# again): DIR/ID.compared.json and DIR/ID.compared.txt, redone when the job,
# its baseline record or BASELINE changes; summary.tsv then gains the
# speedup (before / after of total GPU time) and the verdict (faster,
# slower, unchanged; "-" without a baseline record).
#
# Variables: KF (the folder of the kf programs; default: PATH), SELECT_FLAGS,
# WRAP_FLAGS, RUN_FLAGS, FEEDBACK_FLAGS (options of each stage), GPUS, OVERLAP,
# GATE (1: ncu's attach started before the GPU is free, kf-wrap(1)), RANGE
# (1: the GPU had alone only from the program's profiler range, kf-wrap(1);
# unset: so for --top jobs; 0: never), EARLY (1: with RANGE, --top's held
# program attached at once, kf-wrap(1)),
# LOCKDIR (the GPU locks; default /tmp/kf-gpu-locks, shared by every sweep on
# the machine).

JOBS ?= jobs.jsonl
OUT ?= kf-sweep
KF ?=
GPUS ?=
LOCKDIR ?= /tmp/kf-gpu-locks
SELECT_FLAGS ?=
WRAP_FLAGS ?=
RUN_FLAGS ?=
FEEDBACK_FLAGS ?=
BASELINE ?=

PIPELINES := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BIN = $(if $(KF),$(KF)/,)
OVERLAP ?= 1
# GATE=1: an ncu job's attach starts beside another's profiling and takes
# the GPU's lock at its connection to the program (kf-ncu, KF_NCU_GATE).
GATE ?= 0
ifeq ($(GATE),1)
export KF_NCU_GATE = 1
endif
# RANGE=1: a job whose ncu profiles only the program's own profiler range
# (WRAP_FLAGS with -a --profile-from-start -a off) holds the GPU shared
# outside its range, beside other jobs' work outside theirs, and alone
# while the range runs, both runs of --top (kf-ncu, KF_NCU_RANGE). Unset: on for
# --top jobs only; RANGE=0: off.
RANGE ?=
ifneq ($(strip $(RANGE)),)
export KF_NCU_RANGE = $(RANGE)
endif
# EARLY=1: with the range gate, a --top job's held program is attached to at
# once by an ncu that profiles nothing, so that its work before its range
# runs beside the timing run's (kf-ncu, KF_NCU_EARLY); up to twice the
# programs on the GPU at once.
EARLY ?= 0
ifeq ($(EARLY),1)
export KF_NCU_EARLY = 1
endif
GPULOCK = $(if $(strip $(GPUS)),'$(PIPELINES)/kf-gpu-lock' $(if $(filter 1,$(OVERLAP)),-l) -d '$(LOCKDIR)' -g '$(GPUS)' --,)

ifeq ($(wildcard $(JOBS)),)
$(error JOBS=$(JOBS): no such jobs file)
endif
NAMES := $(shell '$(PIPELINES)/kf-sweep-split' '$(JOBS)' '$(OUT)/jobs' || echo KF_SPLIT_FAILED)
ifneq ($(filter KF_SPLIT_FAILED,$(NAMES)),)
$(error cannot split $(JOBS) into $(OUT)/jobs)
endif

# jobs/.baseline holds BASELINE, rewritten only when it changed: a sweep
# compared with another baseline, or with none, redoes the comparisons and
# the summary, never the profiles.
ifneq ($(strip $(BASELINE)),)
ifeq ($(abspath $(BASELINE)),$(abspath $(OUT)))
$(error BASELINE=$(BASELINE) is OUT itself: the sweep replaces its own records; give it another OUT)
endif
ifeq ($(wildcard $(BASELINE)/.),)
$(error BASELINE=$(BASELINE) is not a directory: give it an earlier sweep's OUT, or leave BASELINE out)
endif
endif
BASELINE_STAMP := $(shell f='$(OUT)/jobs/.baseline'; [ "$$(cat "$$f" 2>/dev/null)" = '$(BASELINE)' ] && [ -f "$$f" ] || printf '%s\n' '$(BASELINE)' >"$$f"; echo "$$f")
COMPARED = $(if $(strip $(BASELINE)),$(NAMES:%=$(OUT)/%.compared.json),)

# kf-report draws the compared records when there is a baseline.
REPORTED = $(if $(COMPARED),$(COMPARED),$(NAMES:%=$(OUT)/%.json))

all: $(OUT)/summary.tsv $(OUT)/report.html

# jobs/.names, the list of jobs (rewritten by the split when it changed),
# makes a job removed from JOBS rewrite the summary. On a terminal, a
# closing line says how many jobs failed.
# A recipe that writes $@.tmp removes it when it is interrupted (make
# removes only $@): after ^C or a TERM to the group nothing half-written
# stays behind.
CLEANUP = tmp='$@.tmp'; trap 'rm -f "$$tmp"' EXIT; trap 'exit 130' INT; \
	trap 'exit 143' TERM; trap 'exit 129' HUP;

$(OUT)/summary.tsv: $(NAMES:%=$(OUT)/%.json) $(COMPARED) $(OUT)/jobs/.names $(BASELINE_STAMP)
	@$(CLEANUP) '$(PIPELINES)/kf-sweep-summary' $(if $(COMPARED),-b) '$(OUT)' $(NAMES) > '$@.tmp' && \
	mv -f '$@.tmp' '$@'
	@if [ -t 1 ]; then awk -F'\t' 'NR > 1 { n++; if ($$3 != "ok") { f++; ids = ids " " $$1 } } \
		END { printf "kf-sweep: %d jobs, %d ok, %d failed%s (%s)\n", n, n - f, f, \
		f ? ":" ids : "", FILENAME }' '$@'; fi

# Before any job runs (when some job is new or changed): the kf programs
# and the profilers the jobs need must be there, else make stops here.
export KF SELECT_FLAGS WRAP_FLAGS
$(OUT)/jobs/.checked: $(NAMES:%=$(OUT)/jobs/%.job)
	@'$(PIPELINES)/kf-sweep-check' '$(OUT)' '$(JOBS)' $(NAMES)
	@touch '$@'

# One job compared with its baseline record: kf-feedback again on the final
# record, no profiling. A job without a baseline record still gets its
# record, which says why there is no comparison.
.SECONDEXPANSION:
$(OUT)/%.compared.json: $(OUT)/%.json $(BASELINE_STAMP) $$(wildcard $(BASELINE)/$$*.json)
	@$(CLEANUP) $(BIN)kf-feedback $(FEEDBACK_FLAGS) --baseline '$(BASELINE)/$*.json' '$<' > '$@.tmp' \
		2>> '$(OUT)/$*.log'; \
	'$(PIPELINES)/kf-sweep-finish' '$*' '$@.tmp' '$@' '$(OUT)/$*.compared.txt' '$(OUT)/$*.log'

# The page to look at, beside the summary: kf-report over the same records
# (with BASELINE, the compared ones), REPORT_FLAGS its options, what it says
# in OUT/report.log. A record it cannot draw is listed as failed on the
# page (status 1), which does not fail the make.
$(OUT)/report.html: $(REPORTED) $(OUT)/jobs/.names $(BASELINE_STAMP)
	@$(CLEANUP) { $(BIN)kf-report -T 'kf sweep' $(REPORT_FLAGS) $(REPORTED:%='%') > '$@.tmp' \
		2> '$(OUT)/report.log' || [ $$? -eq 1 ]; } && mv -f '$@.tmp' '$@'

# One job: its earlier outputs removed, then the six stages, the profiler's
# files in OUT/runs/NAME/ID/PASS (NAME apart from ID: two jobs may share an
# id). Only kf-run holds a GPU. Every stage's standard error goes to one
# log, opened once for all. The finish step keeps the record (or writes one
# that says the pipeline failed) and the feedback text, and counts the job
# on a terminal; it does not fail the make.
$(OUT)/%.json: $(OUT)/jobs/%.job | $(OUT)/jobs/.checked
	@echo 'kf-sweep: $*'
	@rm -rf '$(OUT)/runs/$*' && mkdir -p '$(OUT)/runs'
	@$(CLEANUP) { $(BIN)kf-select $(SELECT_FLAGS) '$<' \
	| $(BIN)kf-wrap -o '$(OUT)/runs/$*' $(WRAP_FLAGS) \
	| $(GPULOCK) $(BIN)kf-run $(RUN_FLAGS) \
	| $(BIN)kf-read \
	| $(BIN)kf-collate \
	| $(BIN)kf-feedback $(FEEDBACK_FLAGS) > '$@.tmp'; } 2> '$(OUT)/$*.log'; \
	'$(PIPELINES)/kf-sweep-finish' '$*' '$@.tmp' '$@' '$(OUT)/$*.feedback.txt' '$(OUT)/$*.log'

# Where each job's time went (pipelines/kf-sweep-times): OUT/times.tsv,
# printed.
times: $(OUT)/summary.tsv
	@'$(PIPELINES)/kf-sweep-times' '$(OUT)' $(NAMES) > '$(OUT)/times.tsv.tmp' && \
	mv -f '$(OUT)/times.tsv.tmp' '$(OUT)/times.tsv' && cat '$(OUT)/times.tsv'

# The jobs that failed, one id a line; exits 1 when there is any.
failed: $(OUT)/summary.tsv
	@awk -F'\t' '$$3 == "failed" { print $$1; n++ } END { exit n > 0 }' '$(OUT)/summary.tsv'

clean:
	rm -rf '$(OUT)'

.PHONY: all failed times clean
.SUFFIXES:
.DELETE_ON_ERROR:
