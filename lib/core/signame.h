/* kf: signal names for messages and records (signame.c). */
#ifndef KF_SIGNAME_H
#define KF_SIGNAME_H

/* "SIGKILL"; NULL for a number that is no signal. */
const char *kf_signame(int sig);

#endif
