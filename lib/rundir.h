/* kf: a directory of its own for each profiling run, so that a second run of
 * a job never writes over the profile an earlier record points at.
 *
 * Ownership: kf_run_dir() returns a string the caller frees. */
#ifndef KF_RUNDIR_H
#define KF_RUNDIR_H

/* Create the directory path for one run: path itself when mkdir(2) makes it
 * (its parents made as needed), else the first of path.2, path.3, ... that
 * mkdir(2) makes: mkdir fails on a directory that exists, so two runs, even
 * at once, never get the same one. NULL with errno when none can be made. */
char *kf_run_dir(const char *path);

/* 1 when path is a directory that holds anything; 0 when it is empty or
 * does not exist; -1 with errno when it cannot be read. */
int kf_dir_used(const char *path);

#endif
