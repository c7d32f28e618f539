/* kf: the profiler-neutral core of analysis (analysis.h). */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "record.h"

/* o[key] = v, returning v. */
static cJSON *
put(cJSON *o, const char *key, cJSON *v)
{
	kf_set(o, key, v);
	return v;
}

static cJSON *
str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *
kf_core_focus(struct kf_fb *fb)
{
	cJSON *f = cJSON_GetObjectItemCaseSensitive(fb->analysis, "focus");

	if (!cJSON_IsObject(f))
		f = put(fb->analysis, "focus", cJSON_CreateObject());
	return f;
}

void
kf_core_time(cJSON *o, double ns, const char *label)
{
	kf_set(o, "time_ns", kf_json_num(ns));
	kf_set(o, "time_label", str_or_null(label));
}

void
kf_core_limiter(cJSON *o, const char *bound, const char *unit, double pct,
    const char *verdict, const char *metric)
{
	cJSON *l = cJSON_CreateObject();

	cJSON_AddItemToObject(l, "bound", str_or_null(bound));
	cJSON_AddItemToObject(l, "unit", str_or_null(unit));
	cJSON_AddItemToObject(l, "pct", kf_json_num(pct));
	cJSON_AddItemToObject(l, "verdict", str_or_null(verdict ? verdict : bound));
	cJSON_AddItemToObject(l, "metric", str_or_null(metric));
	kf_set(o, "limiter", l);
}

void
kf_core_limiter_tie(cJSON *o, const char *unit, double pct, double within, const char *metric)
{
	cJSON *l = cJSON_GetObjectItemCaseSensitive(o, "limiter"), *t;

	if (!cJSON_IsObject(l))
		return;
	t = cJSON_CreateObject();
	cJSON_AddItemToObject(t, "unit", str_or_null(unit));
	cJSON_AddItemToObject(t, "pct", kf_json_num(pct));
	cJSON_AddItemToObject(t, "within_points", kf_json_num(within));
	cJSON_AddItemToObject(t, "metric", str_or_null(metric));
	kf_set(l, "tie", t);
}

void
kf_core_advice(struct kf_fb *fb, const char *source, const char *kind,
    const char *name, const char *type, double speedup_pct, const char *speedup_type,
    const char *text, const char *section)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(fb->analysis, "advice");
	cJSON *o = cJSON_CreateObject();

	if (!cJSON_IsArray(arr))
		arr = put(fb->analysis, "advice", cJSON_CreateArray());
	cJSON_AddItemToObject(o, "source", str_or_null(source));
	cJSON_AddItemToObject(o, "kind", str_or_null(kind));
	cJSON_AddItemToObject(o, "name", str_or_null(name));
	cJSON_AddItemToObject(o, "type", str_or_null(type));
	cJSON_AddItemToObject(o, "speedup_pct", kf_json_num(speedup_pct));
	cJSON_AddItemToObject(o, "speedup_type", str_or_null(speedup_type));
	cJSON_AddItemToObject(o, "text", str_or_null(text));
	if (section)
		cJSON_AddStringToObject(o, "section", section);
	cJSON_AddItemToArray(arr, o);
}

const char *
kf_core_advice_word(const cJSON *advice)
{
	const char *kind = kf_str(cJSON_GetArrayItem(advice, 0), "kind");

	if (kind && strcmp(kind, "rule") == 0)
		return "rules";
	if (kind && strcmp(kind, "recommendation") == 0)
		return "recommendations";
	return "advice";
}

cJSON *
kf_core_extras(struct kf_fb *fb)
{
	const char *prof = kf_str(fb->analysis, "profiler");
	cJSON *x;

	if (prof == NULL)
		prof = "profiler";
	x = cJSON_GetObjectItemCaseSensitive(fb->analysis, prof);
	if (!cJSON_IsObject(x))
		x = put(fb->analysis, prof, cJSON_CreateObject());
	return x;
}

void
kf_roof_init(cJSON *o, const char *x_unit, const char *y_unit, double memory_peak,
    const char *memory_name)
{
	kf_set_str(o, "x_unit", x_unit);
	kf_set_str(o, "y_unit", y_unit);
	kf_set(o, "memory_peak", kf_json_num(memory_peak));
	kf_set(o, "memory_name", str_or_null(memory_name));
	kf_set(o, "compute_peaks", cJSON_CreateArray());
	kf_set(o, "points", cJSON_CreateArray());
}

void
kf_roof_peak(cJSON *o, const char *name, double peak, double ridge)
{
	cJSON *p = cJSON_CreateObject();
	double bw = kf_num(o, "memory_peak", NAN);

	if (!isfinite(ridge) && bw > 0)
		ridge = peak / bw;
	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddItemToObject(p, "peak", kf_json_num(peak));
	cJSON_AddItemToObject(p, "ridge", kf_json_num(ridge));
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(o, "compute_peaks"), p);
}

void
kf_roof_point(cJSON *o, const char *label, double x, double y, double bytes_per_s,
    double pct)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "label", label ? label : "");
	cJSON_AddItemToObject(p, "intensity", kf_json_num(x));
	cJSON_AddItemToObject(p, "performance", kf_json_num(y));
	cJSON_AddItemToObject(p, "bytes_per_s", kf_json_num(bytes_per_s));
	cJSON_AddItemToObject(p, "pct_of_roof", kf_json_num(pct));
	cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(o, "points"), p);
}

/* The ranking's entry for name, or NULL. */
static const cJSON *
ranked(const cJSON *an, const char *name)
{
	const cJSON *rk = kf_obj(an, "ranking"), *k;

	cJSON_ArrayForEach(k, kf_arr(rk, "kernels"))
		if (name && kf_str(k, "name") && strcmp(kf_str(k, "name"), name) == 0)
			return k;
	cJSON_ArrayForEach(k, kf_arr(kf_obj(rk, "machinery"), "kernels"))
		if (name && kf_str(k, "name") && strcmp(kf_str(k, "name"), name) == 0)
			return k;
	return NULL;
}

/* f[key] from the ranking's entry e when f lacks it (null without one). */
static void
fill(cJSON *f, const cJSON *e, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);

	if (cJSON_GetObjectItemCaseSensitive(f, key))
		return;
	cJSON_AddItemToObject(f, key, v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
}

void
kf_core_finish(struct kf_fb *fb)
{
	static const char *const keys[] = {
		"name", "short_name", "reason", "time_ns", "time_label", "limiter",
	};
	cJSON *f = cJSON_GetObjectItemCaseSensitive(fb->analysis, "focus");
	const cJSON *e;
	size_t i;

	if (!cJSON_IsObject(f))
		return;
	e = ranked(fb->analysis, kf_str(f, "name"));
	fill(f, e, "total_ns");
	fill(f, e, "launches");
	fill(f, e, "share_pct");
	fill(f, e, "short_name");
	if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(f, "short_name")) && kf_str(f, "name"))
		kf_set_str(f, "short_name", kf_str(f, "name"));
	for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!cJSON_GetObjectItemCaseSensitive(f, keys[i]))
			cJSON_AddNullToObject(f, keys[i]);
	if (!cJSON_GetObjectItemCaseSensitive(fb->analysis, "advice"))
		cJSON_AddArrayToObject(fb->analysis, "advice");
}
