/* libFuzzer target: record lines through kf_parse_line (what kf_in_next
 * does with each line), kf_emit, and kf-collate's and kf-feedback's code:
 * records written by scripts reach them with any shape. */
#include <stdlib.h>
#include <string.h>

#include "collate.h"
#include "fuzz.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

int
LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
	const char *s = (const char *)d, *end = s + n, *nl;
	long line = 0;
	cJSON *recs[3];
	int nrec = 0, i;

	fz_init("kf-collate");
	for (; s < end; s = nl + 1) {
		cJSON *rec;

		if ((nl = memchr(s, '\n', (size_t)(end - s))) == NULL)
			nl = end;
		rec = kf_parse_line(s, (size_t)(nl - s), NULL, ++line);
		if (rec == NULL)
			continue;
		if (!cJSON_IsObject(rec))
			abort();
		kf_emit(rec);
		if (nrec < 3)
			recs[nrec++] = rec;
		else
			cJSON_Delete(rec);
	}
	/* The lines as passes of one job, as kf-collate takes them. */
	if (nrec > 0) {
		cJSON *job = kf_collate_job(recs, nrec);

		fz_feedback(job, (int)(n & 1));
		cJSON_Delete(job);
		/* And the first alone, as kf-feedback takes a record that was
		 * read but not collated. */
		for (i = 0; i < nrec; i++)
			if (kf_str(recs[i], "profiler"))
				break;
		if (i < nrec) {
			cJSON *one = cJSON_Duplicate(recs[i], 1);

			job = kf_collate_job(&one, 1);
			cJSON_Delete(one);
			fz_feedback(job, (int)(n & 1) ^ 1);
			cJSON_Delete(job);
		}
	}
	for (i = 0; i < nrec; i++)
		cJSON_Delete(recs[i]);
	return 0;
}
