/* kf: a directory of its own for each profiling run, so that a second run of
 * a job never writes over the profile an earlier record points at.
 *
 * Ownership: kf_run_dir() returns a string the caller frees. */
#ifndef KF_RUNDIR_H
#define KF_RUNDIR_H

/* The directory for one run: path itself when it is free, else the first
 * free one of path.2, path.3, ... Free: mkdir(2) makes it now (its parents
 * made as needed), or it exists, is empty (no run wrote into it) and this
 * process has not given it out before. NULL with errno when none can be
 * made. */
char *kf_run_dir(const char *path);

/* 1 when path is a directory that holds anything; 0 when it is empty or
 * does not exist; -1 with errno when it cannot be read. */
int kf_dir_used(const char *path);

/* mkdir -p, each folder it makes noted, for kf_run_dir_made. */
int kf_run_mkdirs(const char *path);
/* The outermost folder of path (path itself or a parent, as written) that
 * this process made, or NULL: what a run that never started leaves behind.
 * Static until the next call. */
const char *kf_run_dir_made(const char *path);
/* After a run that did not start: path, then its parents up to made (a
 * folder of path, kf_run_dir_made's answer), removed while they are empty.
 * Relative paths are relative to cwd (NULL: here). Nothing else is ever
 * removed. */
void kf_run_dir_unmake(const char *path, const char *made, const char *cwd);

#endif
