/* A job's command as argv, path-safe names, sudo. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "mem.h"
#include "record.h"
#include "wrap.h"

#define COMPONENT_MAX 200

void
kf_argv_free(char **argv)
{
	char **p;

	if (argv == NULL)
		return;
	for (p = argv; *p; p++)
		free(*p);
	free(argv);
}

static char **
sh_argv(const char *s, int *argc)
{
	char **v = xcalloc(4, sizeof *v);

	v[0] = xstrdup("sh");
	v[1] = xstrdup("-c");
	v[2] = xstrdup(s);
	*argc = 3;
	return v;
}

char **
kf_cmd_argv(const cJSON *cmd, int *argc, struct buf *err)
{
	const cJSON *c;
	char **v;
	int n, i = 0;

	if (cmd == NULL) {
		buf_puts(err, "no \"cmd\": the command to profile, an array of strings");
		return NULL;
	}
	if (cJSON_IsString(cmd)) {
		if (cmd->valuestring[0] == '\0') {
			buf_puts(err, "\"cmd\" is an empty string");
			return NULL;
		}
		return sh_argv(cmd->valuestring, argc);
	}
	if (!cJSON_IsArray(cmd)) {
		buf_puts(err, "\"cmd\" is neither an array of strings nor a string");
		return NULL;
	}
	if ((n = cJSON_GetArraySize(cmd)) == 0) {
		buf_puts(err, "\"cmd\" is an empty array");
		return NULL;
	}
	v = xcalloc((size_t)n + 1, sizeof *v);
	cJSON_ArrayForEach(c, cmd) {
		/* an argument that is not UTF-8 comes as {"hex": ...} */
		if ((v[i] = kf_arg_bytes(c)) == NULL) {
			if (i == 0)
				buf_puts(err, "\"cmd\"[0], the program, is not a non-empty string");
			else
				buf_printf(err, "\"cmd\"[%d] is not a string (or {\"hex\": "
				    "its bytes}): every argument must be one", i);
			kf_argv_free(v);
			return NULL;
		}
		i++;
	}
	if (v[0][0] == '\0') {
		buf_puts(err, "\"cmd\"[0], the program, is not a non-empty string");
		kf_argv_free(v);
		return NULL;
	}
	*argc = n;
	return v;
}

/* FNV-1a: short, stable, enough to keep cut names apart. */
static uint64_t
hash(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

char *
kf_path_component(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	struct buf b = {0};
	const unsigned char *p;
	size_t cut = 0;

	for (p = (const unsigned char *)s; *p; p++) {
		if (b.len <= COMPONENT_MAX - 20 && (*p & 0xC0) != 0x80)
			cut = b.len;	/* never inside an escape or a UTF-8 sequence */
		if (p[0] == 0xC0 && p[1] == 0x80) {
			buf_puts(&b, "%00");
			p++;
		} else if (*p == '/' || *p == '%' || *p < 0x20 || *p == 0x7f ||
		    (*p == '.' && p == (const unsigned char *)s)) {
			buf_putc(&b, '%');
			buf_putc(&b, hex[*p >> 4]);
			buf_putc(&b, hex[*p & 15]);
		} else
			buf_putc(&b, *p);
	}
	if (b.len == 0)
		buf_puts(&b, "%");
	if (b.len > COMPONENT_MAX) {
		b.len = cut;
		b.s[cut] = '\0';
		buf_printf(&b, "~%016llx", (unsigned long long)hash(s));
	}
	return buf_take(&b);
}

cJSON *
kf_sudo_argv(const cJSON *argv, const char *pythonpath)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *c;

	cJSON_AddItemToArray(out, cJSON_CreateString("sudo"));
	cJSON_AddItemToArray(out, cJSON_CreateString("-E"));
	if (pythonpath) {
		char *kv = xasprintf("PYTHONPATH=%s", pythonpath);

		cJSON_AddItemToArray(out, cJSON_CreateString("env"));
		cJSON_AddItemToArray(out, cJSON_CreateString(kv));
		free(kv);
	}
	cJSON_ArrayForEach(c, argv)
		cJSON_AddItemToArray(out, cJSON_Duplicate(c, 1));
	return out;
}
