/* kf: tables of kernel-name patterns kept as data in share/kf
 * (machinery.tsv, kernel_classes.tsv): one PATTERN<TAB>FIELD... line a row,
 * PATTERN a shell glob matched against the whole kernel name, the first
 * row that matches winning. Lines starting with # and blank lines are
 * ignored. A table is read once, on first use; its rows and strings are
 * the table's for the whole run. */
#ifndef KF_GLOBTAB_H
#define KF_GLOBTAB_H

#include <stddef.h>

#define KF_GLOBTAB_MAXCOLS 4

struct kf_globrow {
	char *col[KF_GLOBTAB_MAXCOLS];	/* col[0] is the pattern */
	char *mangled;	/* the pattern for a mangled name ("_Z..."): each
			 * "::" of it matches anything */
	size_t line;
};

struct kf_globtab {
	const char *file;	/* in share/kf */
	const char *what;	/* "the table of framework kernels" */
	const char *form;	/* "PATTERN<TAB>FRAMEWORK<TAB>WHAT" */
	int ncols;		/* columns every row has */
	int casefold;		/* patterns ignore case */
	/* read on first use */
	struct kf_globrow *v;
	size_t n;
	int loaded;
	char *err;
};

/* The first row of t whose pattern matches name (demangled, or mangled),
 * or NULL. */
const struct kf_globrow *kf_globtab_find(struct kf_globtab *t, const char *name);
/* Why t could not be read (or its first bad line), or NULL. */
const char *kf_globtab_error(struct kf_globtab *t);

#endif
