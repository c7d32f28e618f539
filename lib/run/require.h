/* kf: before a job starts, whether the programs its record names can be
 * started at all: kf-wrap writes them as "requires", an object of roles
 * ({"profiler": "ncu", "program": "./bench"}), and kf-run looks each one up
 * as execvp(3) will, in the job's directory with the job's PATH. A job
 * whose profiler or program is not there is not started: its record says
 * which and the path that was tried (man/kf.7, "Errors").
 *
 * Ownership: what is said goes into the caller's buffer. */
#ifndef KF_REQUIRE_H
#define KF_REQUIRE_H

#include <cJSON.h>

#include "buf.h"

/* 0 when every member of requires (a JSON object of strings; NULL: none)
 * names a program that can be started from cwd (NULL: here) with env's
 * PATH (env: NAME=VALUE strings, NULL-terminated). Else -1 with *role the
 * member's name, *code 127 (not found) or 126 (not executable, as a shell
 * says it), the message in msg and what to do in hint. A requires that is
 * not an object of strings is no requirement: 0. */
int kf_require_check(const cJSON *requires, char *const *env, const char *cwd,
    const char **role, int *code, struct buf *msg, struct buf *hint);

#endif
