/* libFuzzer target: record lines through kf_parse_line (what kf_in_next
 * does with each line), kf_emit, and kf-collate's and kf-feedback's code:
 * records written by scripts reach them with any shape. Each line is also
 * read keeping members as text, as kf-collate and kf-feedback do: it must
 * parse exactly when the plain parser takes it, write the same bytes kept
 * and parsed back, and give the same feedback. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "collate.h"
#include "feedback.h"
#include "fuzz.h"
#include "profiler.h"
#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);

static void
same_kept(const char *s, size_t n, const char *const *paths, int variant)
{
	cJSON *plain = kf_json_parse(s, n), *kept = kf_json_parse_keep(s, n, paths);
	struct buf a = {0}, b = {0};

	if ((plain == NULL) != (kept == NULL))
		abort();
	if (plain == NULL)
		return;
	kf_json_buf(&a, plain);
	kf_json_buf(&b, kept);
	if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0)
		abort();	/* kept text is what the writer writes */
	if (cJSON_IsObject(kept) && paths == kf_profiler_keep_paths()) {
		kf_fb_unkeep(kept);
		fz_feedback(kept, variant);	/* ncu's lazy reads */
	}
	kf_json_unkeep_all(kept);
	buf_reset(&b);
	kf_json_buf(&b, kept);
	if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0)
		abort();
	buf_free(&a);
	buf_free(&b);
	cJSON_Delete(plain);
	cJSON_Delete(kept);
}

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
		same_kept(s, (size_t)(nl - s), kf_collate_keep, 0);
		same_kept(s, (size_t)(nl - s), kf_profiler_keep_paths(), (int)(n & 1));
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
