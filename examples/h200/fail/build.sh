#!/bin/bash
# Build kf in this tree on the H200 machine, which has CUDA (the tracer
# builds against its CUPTI) but not Debian's libcjson and libcsv: their
# headers and libraries travel in .dev/ (ignored by git; made on the build
# machine from /usr/include and /usr/lib/x86_64-linux-gnu).
# usage: build.sh   (in the tree's root; prints kf's prefix: the tree)
set -e
d=$PWD/.dev
make -j"$(nproc)" NODEPS=1 CJSON_CFLAGS="-I$d/include/cjson" CPPFLAGS="-I$d/include" \
	LDFLAGS="-L$d/lib -Wl,-rpath,$d/lib" >/tmp/kf-build.log 2>&1 || { tail -30 /tmp/kf-build.log; exit 1; }
grep '^kf:' /tmp/kf-build.log || true
ls -l libexec/kf/libkftrace.so
