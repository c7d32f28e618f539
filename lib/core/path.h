/* kf: paths: joining, making directories, and finding kf's data and
 * helper files (path.c).
 *
 * Ownership: what is returned is the caller's, except kf_exe_dir() (the
 * program's, for the whole run) and kf_base_name() (a pointer into path). */
#ifndef KF_PATH_H
#define KF_PATH_H

/* a/b (b absolute: b). */
char *kf_path_join(const char *a, const char *b);
/* mkdir -p; 0, or -1 with errno. */
int kf_mkdirs(const char *path, int mode);
/* The directory of the running program (from /proc/self/exe). */
const char *kf_exe_dir(void);
/* Find a file the project installs: $KF_DATADIR/name, EXE/../share/kf/name,
 * KF_DATADIR_DEFAULT/name. NULL if none exists. */
char *kf_data_file(const char *name);
/* Find a helper script: $KF_LIBEXECDIR/name, EXE/../libexec/kf/name,
 * KF_LIBEXECDIR_DEFAULT/name. */
char *kf_libexec_file(const char *name);
/* Where kf_libexec_file() looks, said as a list ("A, B or C"). */
char *kf_libexec_where(void);
/* The last part of path: "bench.cu" of "/src/bench.cu"; path itself when
 * it has no '/' or ends in one. Points into path. */
const char *kf_base_name(const char *path);
/* A path that is a regular readable file. */
int kf_is_file(const char *path);
int kf_is_dir(const char *path);

#endif
