/* kf: turning a job's command into argv, and its names into paths.
 *
 * Ownership: kf_cmd_argv() returns a NULL-terminated vector the caller frees
 * with kf_argv_free(); kf_path_component() returns a string the caller frees;
 * kf_sudo_argv() returns a new cJSON array the caller owns. */
#ifndef KF_WRAP_H
#define KF_WRAP_H

#include <cJSON.h>

#include "buf.h"

/* A "cmd" value as argv: an array of strings as it is, a string S as
 * sh -c S. NULL with a message in err when it is absent, empty or of any
 * other type. */
char **kf_cmd_argv(const cJSON *cmd, int *argc, struct buf *err);
void kf_argv_free(char **argv);

/* s as one readable path component that stays distinct for distinct s:
 * '%', '/', control bytes, kf's encoded NUL and a leading '.' become %XX;
 * a result over 200 bytes is cut and ends in '~' and a hash of all of s. */
char *kf_path_component(const char *s);

/* argv run under "sudo -E", as the reference runs ncu: sudo drops
 * PYTHONPATH even with -E, so when pythonpath is not NULL it is passed
 * through env(1): sudo -E env PYTHONPATH=VALUE ARGV... */
cJSON *kf_sudo_argv(const cJSON *argv, const char *pythonpath);

#endif
