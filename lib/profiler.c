#include <string.h>

#include "profiler.h"
#include "record.h"
#include "text.h"

static const char *const unitrace_groups[] = {
	"ComputeBasic", "MemoryProfile", "VectorEngineProfile",
};

static const struct kf_profiler profilers[] = {
	{ "ncu", 1, NULL, ncu_wrap, ncu_read, NULL, ncu_feedback, 1 },
	{ "unitrace", 3, unitrace_groups, unitrace_wrap, unitrace_read,
	  unitrace_collate, unitrace_feedback, 0 },
	{ "vtune", 1, NULL, vtune_wrap, vtune_read, vtune_collate, vtune_feedback, 0 },
};

const struct kf_profiler *
kf_profiler_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < sizeof profilers / sizeof profilers[0]; i++)
		if (kf_strieq(profilers[i].name, name))
			return &profilers[i];
	return NULL;
}

const char *
kf_profiler_names(void)
{
	return "ncu, unitrace, vtune";
}
