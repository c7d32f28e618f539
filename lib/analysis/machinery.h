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
/* Why the table could not be read (or a bad line), or NULL. */
const char *kf_machinery_error(void);

#endif
