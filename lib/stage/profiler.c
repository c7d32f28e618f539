/* kf: the list of profilers, and look-ups over their descriptors. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mem.h"
#include "num.h"
#include "profiler.h"
#include "record.h"

const struct kf_profiler *const kf_profilers[] = {
	&kf_ncu, &kf_unitrace, &kf_vtune, &kf_trace, NULL,
};

const struct kf_profiler *
kf_profiler_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; kf_profilers[i]; i++)
		if (kf_strieq(kf_profilers[i]->name, name))
			return kf_profilers[i];
	return NULL;
}

const char *
kf_profiler_names(void)
{
	static char *names;
	struct buf b = {0};
	size_t i;

	if (names)
		return names;
	for (i = 0; kf_profilers[i]; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", kf_profilers[i]->name);
	names = buf_take(&b);
	return names;
}

const struct kf_prof_lang *
kf_profiler_lang(const struct kf_profiler *p, const char *language)
{
	const struct kf_prof_lang *l;

	for (l = p->langs; l && l->language; l++)
		if (kf_strieq(l->language, language))
			return l;
	return NULL;
}

const char *const *
kf_profiler_keep_paths(void)
{
	static const char *paths[17];
	static const char *const prefixes[] = { "collated/", "data/" };
	size_t i, k, j, n = 0;

	if (n == 0 && paths[0])
		return paths;
	for (k = 0; k < 2; k++)
		for (i = 0; kf_profilers[i]; i++)
			for (j = 0; kf_profilers[i]->keep && kf_profilers[i]->keep[j]; j++)
				if (n < 16)
					paths[n++] = xasprintf("%s%s", prefixes[k],
					    kf_profilers[i]->keep[j]);
	paths[n] = NULL;
	return paths;
}

const char *
kf_wrap_opt(const struct kf_wrap_opts *o, const char *name)
{
	int i;

	for (i = 0; i < o->npopt; i++)
		if (strcmp(o->popt_name[i], name) == 0)
			return o->popt_val[i];
	return NULL;
}

long
kf_wrap_opt_long(const struct kf_wrap_opts *o, const char *name, long def)
{
	const char *v = kf_wrap_opt(o, name);

	return v ? strtol(v, NULL, 10) : def;
}
