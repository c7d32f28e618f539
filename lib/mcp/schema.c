/* A check of values against the part of JSON Schema kf-mcp's tools use
 * (see rpc.h): the schema they publish is the one arguments are held to. */
#include <math.h>
#include <string.h>

#include "buf.h"
#include "record.h"
#include "rpc.h"

static int
type_is(const cJSON *v, const char *type)
{
	if (strcmp(type, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(type, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(type, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(type, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(type, "number") == 0)
		return cJSON_IsNumber(v) && isfinite(v->valuedouble);
	if (strcmp(type, "integer") == 0)
		return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
		    v->valuedouble == floor(v->valuedouble);
	return 1;
}

static const char *
a_an(const char *type)
{
	return strchr("aeiou", type[0]) ? "an" : "a";
}

static int
check_enum(const cJSON *v, const cJSON *e, const char *path, struct buf *err)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, e)
		if (cJSON_IsString(w) && cJSON_IsString(v) &&
		    strcmp(w->valuestring, v->valuestring) == 0)
			return 0;
	buf_printf(err, "%s: not one of", path);
	cJSON_ArrayForEach(w, e)
		if (cJSON_IsString(w))
			buf_printf(err, "%s %s", w == e->child ? "" : ",", w->valuestring);
	return -1;
}

static int
check_object(const cJSON *v, const cJSON *schema, const char *path, struct buf *err)
{
	const cJSON *props = kf_obj(schema, "properties"), *w, *sub;
	const cJSON *extra = cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
	struct buf p = {0};
	int ret = 0;

	cJSON_ArrayForEach(w, kf_arr(schema, "required"))
		if (cJSON_IsString(w) && !cJSON_GetObjectItemCaseSensitive(v, w->valuestring)) {
			sub = props ? cJSON_GetObjectItemCaseSensitive(props, w->valuestring) : NULL;
			buf_printf(err, "%s: \"%s\" is missing", path, w->valuestring);
			if (kf_str(sub, "description"))
				buf_printf(err, " (%s)", kf_str(sub, "description"));
			return -1;
		}
	cJSON_ArrayForEach(w, v) {
		sub = props ? cJSON_GetObjectItemCaseSensitive(props, w->string) : NULL;
		buf_reset(&p);
		buf_printf(&p, "%s.%s", path, w->string);
		if (sub == NULL) {
			if (cJSON_IsFalse(extra)) {
				buf_printf(err, "%s: no such argument", p.s);
				ret = -1;
				break;
			}
			continue;
		}
		if ((ret = kf_schema_check(w, sub, p.s, err)) != 0)
			break;
	}
	buf_free(&p);
	return ret;
}

static int
check_array(const cJSON *v, const cJSON *schema, const char *path, struct buf *err)
{
	const cJSON *items = kf_obj(schema, "items"), *w;
	long min = kf_num_long(schema, "minItems", 0, 0, 1L << 30), i = 0;
	struct buf p = {0};
	int ret = 0;

	if (cJSON_GetArraySize(v) < min) {
		buf_printf(err, "%s: fewer than %ld element%s", path, min, min == 1 ? "" : "s");
		return -1;
	}
	cJSON_ArrayForEach(w, v) {
		buf_reset(&p);
		buf_printf(&p, "%s[%ld]", path, i++);
		if (items && (ret = kf_schema_check(w, items, p.s, err)) != 0)
			break;
	}
	buf_free(&p);
	return ret;
}

int
kf_schema_check(const cJSON *v, const cJSON *schema, const char *path, struct buf *err)
{
	const char *type = kf_str(schema, "type");
	const cJSON *e;

	if (type && !type_is(v, type)) {
		buf_printf(err, "%s: not %s %s", path, a_an(type), type);
		return -1;
	}
	if ((e = kf_arr(schema, "enum")) != NULL && check_enum(v, e, path, err) != 0)
		return -1;
	if (cJSON_IsNumber(v)) {
		e = cJSON_GetObjectItemCaseSensitive(schema, "minimum");
		if (cJSON_IsNumber(e) && v->valuedouble < e->valuedouble) {
			buf_printf(err, "%s: less than %g", path, e->valuedouble);
			return -1;
		}
		e = cJSON_GetObjectItemCaseSensitive(schema, "maximum");
		if (cJSON_IsNumber(e) && v->valuedouble > e->valuedouble) {
			buf_printf(err, "%s: more than %g", path, e->valuedouble);
			return -1;
		}
	}
	if (cJSON_IsString(v) && strlen(v->valuestring) <
	    (size_t)kf_num_long(schema, "minLength", 0, 0, 1L << 30)) {
		buf_printf(err, "%s: empty", path);
		return -1;
	}
	if (cJSON_IsObject(v))
		return check_object(v, schema, path, err);
	if (cJSON_IsArray(v))
		return check_array(v, schema, path, err);
	return 0;
}
