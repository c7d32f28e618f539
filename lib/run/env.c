/* A program's environment: the base less secrets, then a record's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "mem.h"
#include "num.h"

extern char **environ;

int
kf_secret_name(const char *kv)
{
	const char *eq = strchr(kv, '=');
	size_t n = eq ? (size_t)(eq - kv) : strlen(kv);
	char up[256];
	size_t i;

	if (n >= sizeof up)
		n = sizeof up - 1;
	for (i = 0; i < n; i++)
		up[i] = (char)(kv[i] >= 'a' && kv[i] <= 'z' ? kv[i] - 32 : kv[i]);
	up[n] = '\0';
	return strstr(up, "PASSWORD") || strstr(up, "SECRET") ||
	    kf_endswith(up, "_TOKEN") || kf_endswith(up, "_USERNAME");
}

char **
kf_env_base(int pass_secrets)
{
	char **base;
	size_t n = 0, i;

	for (i = 0; environ[i]; i++)
		;
	base = xcalloc(i + 1, sizeof *base);
	for (i = 0; environ[i]; i++)
		if (pass_secrets || !kf_secret_name(environ[i]))
			base[n++] = environ[i];
	return base;
}

void
kf_env_set(struct kf_env *e, const char *name, const char *val)
{
	size_t nl = strlen(name), i, j;
	char *kv;

	for (i = j = 0; i < e->n; i++)
		if (!(strncmp(e->v[i], name, nl) == 0 && e->v[i][nl] == '='))
			e->v[j++] = e->v[i];
	e->n = j;
	if (e->v)
		e->v[e->n] = NULL;
	if (val == NULL)
		return;
	kv = xasprintf("%s=%s", name, val);
	e->owned = xrealloc(e->owned, (e->nowned + 1) * sizeof *e->owned);
	e->owned[e->nowned++] = kv;
	KF_GROW(e->v, e->n + 1, e->cap, e->n + 16);	/* and the NULL */
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
}

void
kf_env_free(struct kf_env *e)
{
	size_t i;

	for (i = 0; i < e->nowned; i++)
		free(e->owned[i]);
	free(e->owned);
	free(e->v);
	memset(e, 0, sizeof *e);	/* empty, to be built again */
}

const char *
kf_env_build(struct kf_env *e, char *const base[], const cJSON *renv)
{
	const cJSON *v;
	size_t i;

	for (i = 0; base[i]; i++)
		;
	e->cap = i + 16;
	e->v = xcalloc(e->cap, sizeof *e->v);
	memcpy(e->v, base, i * sizeof *e->v);
	e->n = i;
	cJSON_ArrayForEach(v, renv) {
		char num[64];

		if (!v->string || !*v->string || strchr(v->string, '='))
			return "env: a variable name is empty or holds '='";
		if (cJSON_IsString(v))
			kf_env_set(e, v->string, v->valuestring);
		else if (cJSON_IsNumber(v)) {
			snprintf(num, sizeof num, "%.17g", v->valuedouble);
			kf_env_set(e, v->string, num);
		} else if (cJSON_IsNull(v))
			kf_env_set(e, v->string, NULL);
		else
			return "env: values must be strings or numbers (null unsets a variable)";
	}
	return NULL;
}
