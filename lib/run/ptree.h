/* kf: process trees: signalling some of this process's descendants and
 * everything under them, found in the process table (lib/run/proc.h) so that
 * a process that left its session or process group is still found.
 *
 * Ownership: nothing is returned that needs freeing; arg is the caller's. */
#ifndef KF_PTREE_H
#define KF_PTREE_H

#include "proc.h"

/* Does p (a descendant of this process) head a tree to signal? */
typedef int kf_ptree_pick(const struct kf_pinfo *p, void *arg);

/* Send sig (0: none) to every living descendant of this process that pick
 * takes, and to everything under those; after SIGTERM, SIGCONT too, so a
 * stopped process can act on it. Returns how many living processes that
 * was (0 when the process table cannot be read). Zombies are not counted:
 * nothing is left of them to end. */
int kf_ptree_signal(kf_ptree_pick *pick, void *arg, int sig);

#endif
