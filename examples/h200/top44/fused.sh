#!/bin/bash
# examples/h200/top44/fused.sh OUT: issue 46's second kind of problem on one
# H200: an op followed by elementwise ops and normalisations (4-10 launches,
# every kernel detailed), six of examples/h200/levers/ (one step inside
# cudaProfilerStart/Stop by harness.py, --profile-from-start off), swept with
# pipelines/sweep.mk -j3, by default and with RANGE=1 (the GPU held shared
# until each program's range starts): sweep46.sh's two fused sweeps alone.
# Run in the tree's root with .dev/ carried (examples/h200/fail/build.sh).
PLAN="fused_default fused_range" exec bash "$(dirname "$0")/sweep46.sh" "$@"
