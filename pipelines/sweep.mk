# kf sweep: every job of a jobs file through the whole pipeline, by make.
#
#   make -f pipelines/sweep.mk JOBS=jobs.jsonl OUT=DIR [-jN] [GPUS="0 1"]
#
# leaves, for each job, DIR/ID.json (the final record), DIR/ID.feedback.txt,
# DIR/ID.log (what the stages said) and the profiler's files in
# DIR/runs/ID/ID/PASS, and DIR/summary.tsv with one line
# per job: id, profiler, status, top kernel, its share of GPU time, verdict.
#
# Each job is split into DIR/jobs/ID.job, rewritten only when the job's line
# changed, so a second run profiles only the jobs that changed. A failed job
# does not stop the others: its record and feedback say why. With -jN, N
# jobs run side by side, each holding one GPU of GPUS at a time
# (pipelines/kf-gpu-lock). OUT may not contain blanks; a job whose id is not
# a plain file name runs under the name line-N (N: its line in JOBS).
#
# Variables: KF (the folder of the kf programs; default: PATH), SELECT_FLAGS,
# WRAP_FLAGS, RUN_FLAGS, FEEDBACK_FLAGS (options of each stage), GPUS,
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

PIPELINES := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BIN = $(if $(KF),$(KF)/,)
GPULOCK = $(if $(strip $(GPUS)),'$(PIPELINES)/kf-gpu-lock' -d '$(LOCKDIR)' -g '$(GPUS)' --,)

ifeq ($(wildcard $(JOBS)),)
$(error JOBS=$(JOBS): no such jobs file)
endif
NAMES := $(shell '$(PIPELINES)/kf-sweep-split' '$(JOBS)' '$(OUT)/jobs' || echo KF_SPLIT_FAILED)
ifneq ($(filter KF_SPLIT_FAILED,$(NAMES)),)
$(error cannot split $(JOBS) into $(OUT)/jobs)
endif

all: $(OUT)/summary.tsv $(OUT)/report.html

# jobs/.names, the list of jobs (rewritten by the split when it changed),
# makes a job removed from JOBS rewrite the summary.
$(OUT)/summary.tsv: $(NAMES:%=$(OUT)/%.json) $(OUT)/jobs/.names
	'$(PIPELINES)/kf-sweep-summary' '$(OUT)' $(NAMES) > '$@.tmp'
	mv -f '$@.tmp' '$@'

# The page to look at, beside the summary: kf-report over the same records,
# REPORT_FLAGS its options. A record it cannot draw is listed as failed on
# the page (status 1), which does not fail the make.
$(OUT)/report.html: $(NAMES:%=$(OUT)/%.json) $(OUT)/jobs/.names
	$(BIN)kf-report -T 'kf sweep' $(REPORT_FLAGS) $(NAMES:%='$(OUT)/%.json') > '$@.tmp' || [ $$? -eq 1 ]
	mv -f '$@.tmp' '$@'

# One job: its earlier outputs removed, then the six stages, the profiler's
# files in OUT/runs/NAME/ID/PASS (NAME apart from ID: two jobs may share an
# id). Only kf-run
# holds a GPU. The finish step keeps the record (or writes one that says
# the pipeline failed) and the feedback text; it does not fail the make.
$(OUT)/%.json: $(OUT)/jobs/%.job
	@echo 'kf-sweep: $*'
	@rm -rf '$(OUT)/runs/$*'
	@$(BIN)kf-select $(SELECT_FLAGS) '$<' 2> '$(OUT)/$*.log' \
	| $(BIN)kf-wrap -o '$(OUT)/runs/$*' $(WRAP_FLAGS) 2>> '$(OUT)/$*.log' \
	| $(GPULOCK) $(BIN)kf-run $(RUN_FLAGS) 2>> '$(OUT)/$*.log' \
	| $(BIN)kf-read 2>> '$(OUT)/$*.log' \
	| $(BIN)kf-collate 2>> '$(OUT)/$*.log' \
	| $(BIN)kf-feedback $(FEEDBACK_FLAGS) > '$@.tmp' 2>> '$(OUT)/$*.log'; \
	'$(PIPELINES)/kf-sweep-finish' '$*' '$@.tmp' '$@' '$(OUT)/$*.feedback.txt' '$(OUT)/$*.log'

# The jobs that failed, one id a line; exits 1 when there is any.
failed: $(OUT)/summary.tsv
	@awk -F'\t' '$$3 == "failed" { print $$1; n++ } END { exit n > 0 }' '$(OUT)/summary.tsv'

clean:
	rm -rf '$(OUT)'

.PHONY: all failed clean
.SUFFIXES:
.DELETE_ON_ERROR:
