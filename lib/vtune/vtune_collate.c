/* The Intel VTune path: kf-collate's merge (one pass). */
#include "record.h"
#include "vtune.h"

/* One pass: its data is the collated data (SIMD variants were merged by
 * vtune_read). A job with several vtune passes keeps the first good one. */
cJSON *
vtune_collate(cJSON *out, cJSON *const *passes, int n)
{
	const cJSON *d = n > 0 ? cJSON_GetObjectItemCaseSensitive(passes[0], "data") : NULL;
	cJSON *c;

	if (!cJSON_IsObject(d)) {
		kf_fail(out, "no_data", "the vtune pass has no \"data\" object: run kf-read first");
		return NULL;
	}
	c = cJSON_Duplicate(d, 1);
	if (kf_str(passes[0], "pass"))
		cJSON_AddStringToObject(c, "pass", kf_str(passes[0], "pass"));
	return c;
}
