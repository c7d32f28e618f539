# kf: profiling feedback for GPU kernels, as Unix filters.
#
#   make demo     install what is missing (as root), build, replay real profiles
#   make check    the whole test suite (SAN=1: under ASan and UBSan)
#   make bench    speed and memory of every stage
#   make examples every recorded example made again from its recorded
#                 profiler output (examples/regen.sh), and its screenshot
#   make fuzz     libFuzzer targets, FUZZ_SECONDS each

VERSION = 0.1.0

PREFIX ?= /usr/local
MANPREFIX ?= $(PREFIX)/share/man
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share/kf
LIBEXECDIR = $(PREFIX)/libexec/kf
DESTDIR ?=

PROGS = kf-select kf-wrap kf-run kf-read kf-collate kf-feedback kf-report kf kf-mcp
SCRIPTS = $(filter-out %.so %/kf-ncu,$(wildcard libexec/kf/*))
PIPELINES = $(wildcard pipelines/*)
COMPLETIONDIR = $(PREFIX)/share/bash-completion/completions
DATA = $(wildcard share/kf/*)
MAN1 = $(PROGS:%=man/%.1)
MAN7 = man/kf.7

CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null || echo -I/usr/include/cjson)
CJSON_LIBS := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)

# SAN=1 builds everything with AddressSanitizer and UndefinedBehaviorSanitizer.
ifdef SAN
CC = clang
CFLAGS ?= -O1 -g
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FLAVOR = san
else
CFLAGS ?= -O2 -g
SANFLAGS =
FLAVOR = plain
endif

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
KF_CPPFLAGS = -D_GNU_SOURCE $(CJSON_CFLAGS) -DKF_VERSION='"$(VERSION)"' \
	-DKF_DATADIR_DEFAULT='"$(DATADIR)"' -DKF_LIBEXECDIR_DEFAULT='"$(LIBEXECDIR)"'
ALL_CFLAGS = -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) $(KF_CPPFLAGS) $(CPPFLAGS)
LIBS = $(CJSON_LIBS) -lcsv -lm

# O=DIR puts objects and programs under DIR (DIR/bin) instead of build/ and bin/.
ifeq ($(O),)
OUTBIN = bin
BUILD = build
else
OUTBIN = $(O)/bin
BUILD = $(O)/obj
endif
OBJDIR = $(BUILD)/$(FLAVOR)
# The library's layers (lib/README.md): each sees only the headers below it.
# core knows nothing of kf's stages; run is kf-run's engine; stage holds the
# shared stages, analysis what the feedback computes, report kf-report's
# page, and lib/ncu, lib/unitrace, lib/vtune one profiler each.
LIBDIRS = core run stage analysis report ncu unitrace vtune trace mcp
INC_core = -Ilib/core
INC_run = -Ilib/core -Ilib/run
INC_top = -Ilib/core -Ilib/stage -Ilib/analysis
INC_stage = $(INC_top)
INC_analysis = $(INC_top)
INC_report = $(INC_top) -Ilib/report
INC_ncu = $(INC_top) -Ilib/run
INC_unitrace = $(INC_top)
INC_vtune = $(INC_top)
INC_trace = $(INC_top)
INC_mcp = -Ilib/core
INC_bin = -Ilib/core -Ilib/run $(INC_top:-Ilib/core=) -Ilib/report -Ilib/mcp
LIBSRC = $(wildcard $(LIBDIRS:%=lib/%/*.c))
LIBOBJ = $(patsubst lib/%.c,$(OBJDIR)/%.o,$(LIBSRC))
LIBHDR = $(wildcard $(LIBDIRS:%=lib/%/*.h))
LIBKF = $(OBJDIR)/libkf.a
BINS = $(PROGS:%=$(OUTBIN)/%)

# Programs are relinked when the flavour (plain, san) changes.
FLAVOR_STAMP = $(BUILD)/flavor
$(shell mkdir -p $(BUILD) $(OUTBIN); echo $(FLAVOR) | cmp -s - $(FLAVOR_STAMP) || echo $(FLAVOR) > $(FLAVOR_STAMP))

# kf-ncu, kf-wrap ncu's command (lib/ncu/ncu_chain.c and its parts): a
# program of libexec/kf, beside the helper scripts.
NCU_CHAIN = $(OUTBIN)/../libexec/kf/kf-ncu
# Its gates on ncu --mode attach's connection and on the held program's
# profiler range (lib/ncu/gate/kfgate.c, LD_PRELOAD, KF_NCU_GATE=1,
# KF_NCU_RANGE=1): libc only, never sanitized.
NCU_GATE = $(OUTBIN)/../libexec/kf/libkfgate.so

all: deps-build $(BINS) $(NCU_CHAIN) $(NCU_GATE) tracer

$(NCU_GATE): lib/ncu/gate/kfgate.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -fPIC -shared -o $@ $< -ldl -lpthread

$(NCU_CHAIN): libexec/kf-ncu.c $(LIBKF) $(LIBHDR) $(FLAVOR_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(INC_bin) -Ilib/ncu $(LDFLAGS) -o $@ $< $(LIBKF) $(LIBS)

# kf's CUPTI tracer (lib/trace/inject), the library CUDA loads into a traced
# program: built where CUPTI's header is found, skipped (and said) where not.
# CUPTI_DIRS are the CUDA installs looked in; CUPTI_INC and CUPTI_LIB may be
# given instead.
CUPTI_DIRS ?= $(CUDA_HOME) /usr/local/cuda $(sort $(wildcard /usr/local/cuda-*))
CUPTI_SUBDIRS = include targets/x86_64-linux/include extras/CUPTI/include
CUPTI_LOOKED = $(foreach d,$(CUPTI_DIRS),$(CUPTI_SUBDIRS:%=$(d)/%))
CUPTI_INC ?= $(patsubst %/cupti.h,%,$(firstword $(wildcard $(CUPTI_LOOKED:%=%/cupti.h))))
CUPTI_LIBDIRS = $(foreach l,lib64 lib,$(patsubst %/include,%/$(l),$(CUPTI_INC)))
CUPTI_LIB ?= $(patsubst %/libcupti.so,%,$(firstword $(wildcard $(CUPTI_LIBDIRS:%=%/libcupti.so))))
TRACER = $(OUTBIN)/../libexec/kf/libkftrace.so
ifneq ($(and $(CUPTI_INC),$(CUPTI_LIB)),)
tracer: $(TRACER)
$(TRACER): lib/trace/inject/kftrace.c
	@echo "kf: building the tracer with CUPTI from $(CUPTI_INC) and $(CUPTI_LIB)"
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -fPIC -shared -I$(CUPTI_INC) -o $@ $< \
		-L$(CUPTI_LIB) -Wl,-rpath,$(CUPTI_LIB) -lcupti -lstdc++ -lpthread
else
tracer:
	@echo "kf: no CUPTI (cupti.h and libcupti.so) under $(CUPTI_DIRS) (looked in" \
		"$(CUPTI_SUBDIRS) of each): the tracer (kf trace) is not built; set CUDA_HOME"
endif

define libdir_rule
$$(OBJDIR)/$(1)/%.o: lib/$(1)/%.c $$(LIBHDR) | $$(OBJDIR)/$(1)
	$$(CC) $$(ALL_CFLAGS) $$(INC_$(1)) -c -o $$@ $$<
$$(OBJDIR)/$(1):
	mkdir -p $$@
endef
$(foreach d,$(LIBDIRS),$(eval $(call libdir_rule,$(d))))

$(LIBKF): $(LIBOBJ)
	rm -f $@
	ar rcs $@ $(LIBOBJ)

$(OUTBIN)/%: bin/%.c $(LIBKF) $(LIBHDR) $(FLAVOR_STAMP)
	$(CC) $(ALL_CFLAGS) $(INC_bin) $(LDFLAGS) -o $@ $< $(LIBKF) $(LIBS)

# Dependencies: checked (and installed with apt-get when run as root).
# NODEPS=1 skips the check (a machine whose libraries are not Debian packages).
deps-build:
	@$(if $(NODEPS),:,sh mk/deps.sh build)
deps-check:
	@$(if $(NODEPS),:,sh mk/deps.sh check)

check: deps-check
	@$(MAKE) --no-print-directory all
	@sh tests/run

demo: deps-build
	@echo "kf: building (make all; compiler warnings, if any, below)"
	@$(MAKE) --no-print-directory -s all
	@sh examples/demo.sh

bench: all
	@sh tests/bench/run

# Chromium draws examples/report.html into report.png where it is installed.
CHROMIUM = $(shell command -v chromium chromium-browser 2>/dev/null | head -n 1)
examples: all
	@sh examples/regen.sh
	@$(if $(CHROMIUM),sh mk/screenshot.sh '$(CHROMIUM)' examples/report.html examples/report.png,\
		echo 'make examples: no chromium: examples/report.png left as it was')

fuzz: deps-check
	@$(MAKE) --no-print-directory -f fuzz/fuzz.mk FUZZ_SECONDS=$(FUZZ_SECONDS)

lint-man:
	mandoc -Tlint -Wwarning $(MAN1) $(MAN7)

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR) \
		$(DESTDIR)$(MANPREFIX)/man1 $(DESTDIR)$(MANPREFIX)/man7
	cp -f $(BINS) $(DESTDIR)$(BINDIR)/
	for f in $(DATA); do cp -f $$f $(DESTDIR)$(DATADIR)/; done
	for f in $(SCRIPTS); do cp -f $$f $(DESTDIR)$(LIBEXECDIR)/; chmod 755 $(DESTDIR)$(LIBEXECDIR)/$${f##*/}; done
	cp -f $(NCU_CHAIN) $(NCU_GATE) $(DESTDIR)$(LIBEXECDIR)/
	if [ -f $(TRACER) ]; then cp -f $(TRACER) $(DESTDIR)$(LIBEXECDIR)/; fi
	cp -f $(MAN1) $(DESTDIR)$(MANPREFIX)/man1/
	cp -f $(MAN7) $(DESTDIR)$(MANPREFIX)/man7/
	mkdir -p $(DESTDIR)$(DATADIR)/pipelines $(DESTDIR)$(COMPLETIONDIR)
	for f in $(PIPELINES); do cp -f $$f $(DESTDIR)$(DATADIR)/pipelines/; \
		if [ -x $$f ]; then chmod 755 $(DESTDIR)$(DATADIR)/pipelines/$${f##*/}; fi; done
	for p in $(PROGS); do cp -f completion/kf.bash $(DESTDIR)$(COMPLETIONDIR)/$$p; done
	@echo "kf: installed the programs in $(DESTDIR)$(BINDIR), the man pages in $(DESTDIR)$(MANPREFIX) (man 7 kf: the record format)"
	@case ":$$PATH:" in *":$(BINDIR):"*) ;; *) echo "kf: $(BINDIR) is not on PATH: export PATH=$(BINDIR):\$$PATH";; esac

uninstall:
	for p in $(PROGS); do rm -f $(DESTDIR)$(BINDIR)/$$p $(DESTDIR)$(MANPREFIX)/man1/$$p.1; done
	for f in $(DATA); do rm -f $(DESTDIR)$(DATADIR)/$${f##*/}; done
	for f in $(SCRIPTS); do rm -f $(DESTDIR)$(LIBEXECDIR)/$${f##*/}; done
	rm -f $(DESTDIR)$(LIBEXECDIR)/libkftrace.so $(DESTDIR)$(LIBEXECDIR)/kf-ncu \
		$(DESTDIR)$(LIBEXECDIR)/libkfgate.so
	rm -f $(DESTDIR)$(MANPREFIX)/man7/kf.7
	for f in $(PIPELINES); do rm -f $(DESTDIR)$(DATADIR)/pipelines/$${f##*/}; done
	for p in $(PROGS); do rm -f $(DESTDIR)$(COMPLETIONDIR)/$$p; done
	-rmdir $(DESTDIR)$(DATADIR)/pipelines $(DESTDIR)$(COMPLETIONDIR) 2>/dev/null
	-rmdir $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR) 2>/dev/null

clean:
	rm -rf build $(PROGS:%=bin/%) tests/tmp $(TRACER) $(NCU_CHAIN) $(NCU_GATE)

.PHONY: all tracer check demo bench examples fuzz install uninstall clean deps-build deps-check lint-man
.SUFFIXES:
