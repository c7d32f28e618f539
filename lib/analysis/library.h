/* kf: whose code a kernel is (library.c), from its name through
 * share/kf/libraries.tsv: a library's or a compiler's kernel, whose
 * kernel-level fix is for its authors, and what the program can change
 * instead (man/kf.7, "Whose kernel"). The strings are the table's. */
#ifndef KF_LIBRARY_H
#define KF_LIBRARY_H

struct kf_library {
	const char *name;	/* "cuDNN" */
	const char *lever;	/* what the program can change instead */
};

/* The library that wrote kernel name (demangled or mangled), or NULL: the
 * program's own (or not known). */
const struct kf_library *kf_library_of(const char *name);
/* Why the table could not be read (or its first bad line), or NULL. */
const char *kf_library_error(void);

#endif
