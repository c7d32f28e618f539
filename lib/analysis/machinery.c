/* kf: framework machinery, the kernels a framework launches for itself
 * (autotuner timers, buffer checks), read from share/kf/machinery.tsv so
 * that every profiler's feedback can set them aside. */
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "globtab.h"
#include "mem.h"

static struct kf_globtab table = {
	.file = "machinery.tsv", .what = "the table of framework kernels",
	.form = "PATTERN<TAB>FRAMEWORK<TAB>WHAT", .ncols = 3,
};
static struct kf_machine *machines;	/* one per row of table */

const struct kf_machine *
kf_machinery_find(const char *name)
{
	const struct kf_globrow *r = kf_globtab_find(&table, name);
	size_t i;

	if (r == NULL)
		return NULL;
	if (machines == NULL) {
		machines = xcalloc(table.n, sizeof *machines);
		for (i = 0; i < table.n; i++) {
			machines[i].pattern = table.v[i].col[0];
			machines[i].framework = table.v[i].col[1];
			machines[i].what = table.v[i].col[2];
			machines[i].mangled = table.v[i].mangled;
		}
	}
	return &machines[r - table.v];
}

const char *
kf_machinery_error(void)
{
	return kf_globtab_error(&table);
}

int
kf_machinery_xla(const char *name)
{
	const struct kf_machine *m = kf_machinery_find(name);

	return m && strcmp(m->framework, "XLA") == 0;
}
