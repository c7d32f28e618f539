/* kf: the values the shell completes, from the programs' own tables. */
#include <stdlib.h>
#include <string.h>

#include "complete.h"
#include "gpu_roofs.h"
#include "mem.h"
#include "profiler.h"
#include "record.h"
#include "select.h"

void
kf_say_profilers(kf_say_fn *say)
{
	int i;

	for (i = 0; kf_profilers[i]; i++)
		say(kf_profilers[i]->name);
}

/* kf_language_names() is the list users read in messages: "a, b, c". */
void
kf_say_languages(kf_say_fn *say)
{
	const char *p = kf_language_names();
	char *w;
	size_t n;

	while (*p) {
		n = strcspn(p, ", ");
		w = xstrndup(p, n);
		say(w);
		free(w);
		p += n;
		p += strspn(p, ", ");
	}
}

void
kf_say_archs(kf_say_fn *say)
{
	const struct kf_arch *a;

	for (a = kf_arch_table(); a->word; a++)
		say(a->word);
}

/* A name the shell can take as one word. */
static int
one_word(const char *s)
{
	return s && *s && strpbrk(s, " \t()[]'\"") == NULL;
}

void
kf_say_gpus(kf_say_fn *say)
{
	const cJSON *g, *a;
	int n;

	cJSON_ArrayForEach(g, kf_gpu_roofs_all(NULL)) {
		n = 0;
		if (one_word(kf_str(g, "name")) && ++n)
			say(kf_str(g, "name"));
		cJSON_ArrayForEach(a, kf_arr(g, "aliases"))
			if (cJSON_IsString(a) && one_word(a->valuestring) && ++n)
				say(a->valuestring);
		if (n == 0 && kf_str(g, "name"))
			say(kf_str(g, "name"));
	}
}

void
kf_complete_profilers(void)
{
	const struct kf_profiler *p;
	const struct kf_popt *o;
	const struct kf_tool_opt *t;
	const char *const *v;
	char *name;
	int i;

	for (i = 0; (p = kf_profilers[i]) != NULL; i++) {
		for (o = p->opts; o && o->name; o++) {
			name = xasprintf("--%s", o->name);
			kf_complete_line(p->name, name, o->arg ? KF_ARG_VALUE : 0, NULL);
			free(name);
		}
		for (t = p->tool_opts; t && t->name; t++) {
			kf_complete_line(p->name, t->name, KF_ARG_WORDS, NULL);
			for (v = t->values; *v; v++)
				kf_complete_line(p->name, t->name, 0, *v);
		}
	}
}
