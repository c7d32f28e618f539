# kf fuzzing: libFuzzer targets, one per parser.
#
#   make fuzz [FUZZ_SECONDS=60]       build and run every target (from the top)
#   make -f fuzz/fuzz.mk build        only build them, into fuzz/build/
#   make -f fuzz/fuzz.mk check        each target once over its corpus and regress inputs
#   make -f fuzz/fuzz.mk run-ncu      one target for FUZZ_SECONDS
#
# The targets and the whole library are built with clang
# -fsanitize=fuzzer,address,undefined. New inputs go to fuzz/build/corpus/T
# (not committed); the seeds are fuzz/corpus/T; a crash is written to
# fuzz/build/crash-T-*: reduce it, fix it, and keep it in fuzz/regress/T.

FUZZ_CC ?= clang
ifeq ($(FUZZ_SECONDS),)
override FUZZ_SECONDS := 60
endif
FUZZ_FLAGS ?= -max_len=65536 -close_fd_mask=2 -timeout=10 -rss_limit_mb=2048

TARGETS = record ncu ncuraw ncusource utcsv unitrace chrome vtune report trace mcp

FB = fuzz/build
CJSON_CFLAGS := $(shell pkg-config --cflags libcjson 2>/dev/null || echo -I/usr/include/cjson)
CJSON_LIBS := $(shell pkg-config --libs libcjson 2>/dev/null || echo -lcjson)
FUZZ_SANITIZE = -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
CFLAGS_FUZZ = -std=c11 $(WARN) -g -O1 -fno-omit-frame-pointer $(FUZZ_SANITIZE) -D_GNU_SOURCE -Ilib/core -Ilib/run -Ilib/stage -Ilib/analysis -Ilib/report -Ilib/ncu -Ilib/unitrace -Ilib/vtune -Ilib/trace -Ilib/mcp \
	$(CJSON_CFLAGS) -DKF_VERSION='"fuzz"' -DFUZZ_DATADIR='"$(CURDIR)/share/kf"' \
	-DKF_DATADIR_DEFAULT='"$(CURDIR)/share/kf"' \
	-DKF_LIBEXECDIR_DEFAULT='"$(CURDIR)/libexec/kf"'
LIBS = $(CJSON_LIBS) -lcsv -lm

LIBSRC = $(wildcard lib/*.c lib/*/*.c)
LIBOBJ = $(patsubst lib/%.c,$(FB)/obj/%.o,$(LIBSRC))
LIBHDR = $(wildcard lib/*.h lib/*/*.h)
COMMON = $(FB)/obj/fuzz-common.o
BINS = $(TARGETS:%=$(FB)/fuzz_%)

all: build run

build: $(BINS)

$(FB)/obj/%.o: lib/%.c $(LIBHDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS_FUZZ) -c -o $@ $<

$(COMMON): fuzz/common.c fuzz/fuzz.h $(LIBHDR)
	@mkdir -p $(FB)/obj
	$(FUZZ_CC) $(CFLAGS_FUZZ) -c -o $@ fuzz/common.c

$(FB)/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz.h fuzz/ncu_details.h $(COMMON) $(LIBOBJ)
	$(FUZZ_CC) $(CFLAGS_FUZZ) -Ifuzz -o $@ $< $(COMMON) $(LIBOBJ) $(LIBS)

# Each target for FUZZ_SECONDS, one after the other.
run: $(TARGETS:%=run-%)

run-%: $(FB)/fuzz_%
	@mkdir -p $(FB)/corpus/$*
	$(FB)/fuzz_$* $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
		-artifact_prefix=$(FB)/crash-$*- \
		$(FB)/corpus/$* fuzz/corpus/$* $(wildcard fuzz/regress/$*)

# Each target once over its seeds and regress inputs (what make check does).
check: $(TARGETS:%=check-%)

check-%: $(FB)/fuzz_%
	$(FB)/fuzz_$* -close_fd_mask=2 -runs=0 -artifact_prefix=$(FB)/crash-$*- \
		fuzz/corpus/$* $(wildcard fuzz/regress/$*)

clean:
	rm -rf $(FB)

.PHONY: all build run check clean
.SECONDARY: $(LIBOBJ) $(COMMON)
