/* kf: kernel classes from share/kf/kernel_classes.tsv. */
#include <string.h>

#include "globtab.h"
#include "kclass.h"
#include "mem.h"

static struct kf_globtab table = {
	.file = "kernel_classes.tsv", .what = "the table of kernel classes",
	.form = "PATTERN<TAB>CLASS<TAB>MATH<TAB>WHAT", .ncols = 4, .casefold = 1,
};

static const char *const names[KF_KC_N] = {
	[KF_KC_MATRIX] = "matrix",
	[KF_KC_ELEMENTWISE] = "elementwise",
	[KF_KC_REDUCTION] = "reduction",
	[KF_KC_LAYOUT] = "layout",
	[KF_KC_COMMUNICATION] = "communication",
	[KF_KC_OTHER] = "other",
};

const char *
kf_kclass_name(enum kf_kclass c)
{
	return (unsigned)c < KF_KC_N ? names[c] : "other";
}

const char *
kf_kmath_name(enum kf_kmath m)
{
	return m == KF_KM_TENSOR ? "tensor" : m == KF_KM_FMA ? "fma" : m == KF_KM_NONE ? "none" :
	    NULL;
}

/* A row's class or math that is not one of the words: the row's error. */
static char *bad_word;

static int
class_word(const char *w)
{
	int i;

	for (i = 0; i < KF_KC_N; i++)
		if (strcmp(w, names[i]) == 0)
			return i;
	return -1;
}

struct kf_kclass_of
kf_kclass_of(const char *name)
{
	struct kf_kclass_of k = { KF_KC_OTHER, KF_KM_UNKNOWN, "", NULL };
	const struct kf_globrow *r = kf_globtab_find(&table, name);
	int c;

	if (r == NULL)
		return k;
	if ((c = class_word(r->col[1])) >= 0)
		k.cls = c;
	k.math = strcmp(r->col[2], "tensor") == 0 ? KF_KM_TENSOR :
	    strcmp(r->col[2], "fma") == 0 ? KF_KM_FMA :
	    strcmp(r->col[2], "none") == 0 ? KF_KM_NONE : KF_KM_UNKNOWN;
	k.what = r->col[3];
	k.pattern = r->col[0];
	return k;
}

const char *
kf_kclass_error(void)
{
	static int checked;
	size_t i;

	if (kf_globtab_error(&table))
		return kf_globtab_error(&table);
	for (i = 0; !checked && i < table.n; i++) {
		const struct kf_globrow *r = &table.v[i];

		if (class_word(r->col[1]) < 0 || (strcmp(r->col[2], "tensor") &&
		    strcmp(r->col[2], "fma") && strcmp(r->col[2], "none") &&
		    strcmp(r->col[2], "-"))) {
			bad_word = xasprintf("%s:%zu: \"%s\" is not a class (matrix, elementwise, "
			    "reduction, layout, communication, other), or \"%s\" not a math "
			    "(tensor, fma, none, -)", table.file, r->line, r->col[1], r->col[2]);
			break;
		}
	}
	checked = 1;
	return bad_word;
}
