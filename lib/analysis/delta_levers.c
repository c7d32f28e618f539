/* Before and after, between kernels: what became of the baseline's
 * program-level findings. A fusion that landed shows as its kernels gone
 * from the ranking, and its finding's stake fallen or the finding gone. */
#include <math.h>
#include <string.h>

#include "delta_int.h"
#include "diagnosis.h"
#include "feedback.h"
#include "record.h"

static const enum kf_find_kind levers[] = {
	KF_FUSION, KF_LAYOUT_COPY, KF_FP32_MATMUL, KF_LAUNCH_BOUND,
};

static const cJSON *
finding(const cJSON *a, const char *kind)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, kf_arr(a, "diagnosis"))
		if (kf_str(f, "kind") && strcmp(kf_str(f, "kind"), kind) == 0)
			return f;
	return NULL;
}

/* Kernel name in the after run's whole ranking: 1, 0 (gone), -1 (not
 * known: the after run lists no whole ranking). */
static int
still_there(const cJSON *after, const char *name)
{
	const cJSON *ks = kf_arr(kf_obj(after, "program"), "kernels"), *k;

	if (ks == NULL)
		return -1;
	cJSON_ArrayForEach(k, ks)
		if (kf_str(k, "name") && strcmp(kf_str(k, "name"), name) == 0)
			return 1;
	return 0;
}

static double
share_before(const cJSON *before, const char *name)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, kf_arr(kf_obj(before, "program"), "kernels"))
		if (kf_str(k, "name") && strcmp(kf_str(k, "name"), name) == 0)
			return kf_num(k, "share_pct", 0);
	return 0;
}

static void
put_stake(struct buf *b, const cJSON *f)
{
	double v = kf_num(f, "impact_pct", NAN);

	if (isnan(v)) {
		buf_puts(b, "not estimated");
		return;
	}
	kf_fmt_pct(b, v);
	buf_puts(b, strcmp(kf_str(f, "impact_basis") ? kf_str(f, "impact_basis") : "",
	    "traced_window") == 0 ? " of the traced window" : " of the GPU time");
}

static void
one(const cJSON *before, const cJSON *after, const char *kind, cJSON *arr, struct buf *t)
{
	const cJSON *fb = finding(before, kind), *fa = finding(after, kind), *k;
	cJSON *o, *gone, *left;
	double gone_share = 0;
	int ngone = 0, nleft = 0, known = 1;

	if (fb == NULL && fa == NULL)
		return;
	o = cJSON_CreateObject();
	kf_set_str(o, "kind", kind);
	kf_set(o, "before_pct", fb && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fb,
	    "impact_pct")) ? cJSON_CreateNumber(kf_num(fb, "impact_pct", 0)) : cJSON_CreateNull());
	kf_set(o, "after_pct", fa && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(fa,
	    "impact_pct")) ? cJSON_CreateNumber(kf_num(fa, "impact_pct", 0)) : cJSON_CreateNull());
	gone = cJSON_AddArrayToObject(o, "kernels_gone");
	left = cJSON_AddArrayToObject(o, "kernels_left");
	cJSON_ArrayForEach(k, kf_arr(fb, "kernels")) {
		int there;

		if (!cJSON_IsString(k))
			continue;
		if ((there = still_there(after, k->valuestring)) < 0) {
			known = 0;
			break;
		}
		if (there) {
			nleft++;
			cJSON_AddItemToArray(left, cJSON_CreateString(k->valuestring));
		} else {
			ngone++;
			gone_share += share_before(before, k->valuestring);
			cJSON_AddItemToArray(gone, cJSON_CreateString(k->valuestring));
		}
	}
	if (!known) {
		cJSON_DeleteItemFromObjectCaseSensitive(o, "kernels_gone");
		cJSON_DeleteItemFromObjectCaseSensitive(o, "kernels_left");
		cJSON_AddNullToObject(o, "kernels_gone");
		cJSON_AddNullToObject(o, "kernels_left");
	}
	buf_printf(t, "\n  - %s: ", kind);
	if (fb && fa) {
		put_stake(t, fb);
		buf_puts(t, " at stake before, ");
		put_stake(t, fa);
		buf_puts(t, " now");
	} else if (fb) {
		buf_puts(t, "no longer found (");
		put_stake(t, fb);
		buf_puts(t, " at stake before)");
	} else {
		buf_puts(t, "new, ");
		put_stake(t, fa);
		buf_puts(t, " at stake");
	}
	if (known && ngone > 0) {
		buf_printf(t, "; %d of its %d kernel%s no longer run%s (by name), ", ngone,
		    ngone + nleft, ngone + nleft == 1 ? "" : "s", ngone == 1 ? "s" : "");
		kf_fmt_pct(t, gone_share);
		buf_puts(t, " of the baseline's GPU time");
	}
	cJSON_AddItemToArray(arr, o);
}

void
kf_delta_levers(const cJSON *before, const cJSON *after, const struct kf_diag *diag,
    cJSON *delta, struct buf *moved)
{
	cJSON *arr = cJSON_AddArrayToObject(delta, "levers");
	cJSON *ad = cJSON_CreateObject();
	struct buf t = {0};
	size_t i;

	/* after's findings as the analysis will hold them */
	cJSON_AddItemToObject(ad, "diagnosis", kf_diag_json(diag));
	cJSON_AddItemReferenceToObject(ad, "program", (cJSON *)kf_obj(after, "program"));
	for (i = 0; i < sizeof levers / sizeof levers[0]; i++)
		one(before, ad, kf_find_kind_name(levers[i]), arr, &t);
	cJSON_Delete(ad);
	if (t.len)
		buf_printf(moved, "\n- Between kernels (the program-level findings):%s", t.s);
	buf_free(&t);
}
