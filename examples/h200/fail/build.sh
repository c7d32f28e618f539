#!/bin/bash
# Build kf in this tree on the H200 machine, which has CUDA (the tracer
# builds against its CUPTI) but not Debian's libcjson and libcsv: their
# headers and libraries travel in .dev/ (ignored by git; made on the build
# machine from /usr/include and /usr/lib/x86_64-linux-gnu).
# usage: build.sh [PREFIX]   (in the tree's root; with PREFIX, installed
# there too, as make install lays it out)
set -e
d=$PWD/.dev
flags=(NODEPS=1 CJSON_CFLAGS="-I$d/include/cjson" CPPFLAGS="-I$d/include"
	LDFLAGS="-L$d/lib -Wl,-rpath,$d/lib")
make -j"$(nproc)" "${flags[@]}" >/tmp/kf-build.log 2>&1 || { tail -30 /tmp/kf-build.log; exit 1; }
[ -z "${1:-}" ] || make "${flags[@]}" PREFIX="$1" install >>/tmp/kf-build.log 2>&1 ||
	{ tail -30 /tmp/kf-build.log; exit 1; }
grep '^kf:' /tmp/kf-build.log || true
ls -l libexec/kf/libkftrace.so
