/* kf: framework machinery (machinery.c): kernels a framework launches for
 * itself, from share/kf/machinery.tsv; the entries are the table's. */
#ifndef KF_MACHINERY_H
#define KF_MACHINERY_H


/* Framework machinery (share/kf/machinery.tsv): kernels a framework
 * launches for itself. The table is read once. */
struct kf_machine {
	const char *pattern, *framework, *what;
	const char *mangled;	/* the pattern for a mangled name ("_Z...") */
};
/* The entry whose pattern matches name (demangled, or mangled), or NULL. */
const struct kf_machine *kf_machinery_find(const char *name);
/* Whether name is a kernel of XLA's autotuner (the table's XLA rows). */
int kf_machinery_xla(const char *name);
/* The set-aside entry of a process's launches up to the last of XLA's
 * autotuner: its timed runs of candidates, and all before (the table's row
 * of that name; man/kf.7). */
#define KF_XLA_TUNE_NAME "XLA autotuning: the launches before the steady state"
/* Why the table could not be read (or a bad line), or NULL. */
const char *kf_machinery_error(void);

#endif
