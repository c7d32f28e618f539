/* kf: what kind of work a kernel does (kclass.c), from its name through
 * share/kf/kernel_classes.tsv: the classes every ranked kernel carries
 * (man/kf.7, "Kernel classes"). The strings are the table's or static. */
#ifndef KF_KCLASS_H
#define KF_KCLASS_H

/* The words of the record contract, in this order (kf_kclass_name). */
enum kf_kclass {
	KF_KC_MATRIX,		/* GEMM, convolution, attention */
	KF_KC_ELEMENTWISE,	/* a result per element, one pass */
	KF_KC_REDUCTION,	/* reductions and normalisations */
	KF_KC_LAYOUT,		/* transposes, conversions, copies, fills */
	KF_KC_COMMUNICATION,	/* collectives */
	KF_KC_OTHER,
	KF_KC_N
};

/* Where a matrix kernel's arithmetic runs, as its name (or its measured
 * pipes) tell; none: a form the tensor cores do not take (depthwise and
 * grouped convolutions, matrix-vector products), whatever it measures. */
enum kf_kmath { KF_KM_UNKNOWN, KF_KM_TENSOR, KF_KM_FMA, KF_KM_NONE };

struct kf_kclass_of {
	enum kf_kclass cls;
	enum kf_kmath math;
	const char *what;	/* "layer normalisation"; "" when no line matched */
	const char *pattern;	/* the line that matched; NULL: none */
};

/* The class of kernel name (demangled or mangled); other when no line of
 * the table matches. */
struct kf_kclass_of kf_kclass_of(const char *name);
const char *kf_kclass_name(enum kf_kclass c);
const char *kf_kmath_name(enum kf_kmath m);	/* "tensor", "fma", "none", NULL */
/* Why the table could not be read (or its first bad line), or NULL. */
const char *kf_kclass_error(void);

#endif
