/* kf: whose code a kernel is, from share/kf/libraries.tsv. */
#include <stddef.h>

#include "globtab.h"
#include "library.h"
#include "mem.h"

static struct kf_globtab table = {
	.file = "libraries.tsv", .what = "the table of library kernels",
	.form = "PATTERN<TAB>LIBRARY<TAB>LEVER", .ncols = 3, .casefold = 1,
};

static struct kf_library *libs;	/* one per row of table */

const struct kf_library *
kf_library_of(const char *name)
{
	const struct kf_globrow *r = name ? kf_globtab_find(&table, name) : NULL;
	size_t i;

	if (r == NULL)
		return NULL;
	if (libs == NULL) {
		libs = xcalloc(table.n + 1, sizeof *libs);
		for (i = 0; i < table.n; i++) {
			libs[i].name = table.v[i].col[1];
			libs[i].lever = table.v[i].col[2];
		}
	}
	return &libs[r - table.v];
}

const char *
kf_library_error(void)
{
	return kf_globtab_error(&table);
}
