/* kf: ncu's raw page (ncu_raw.csv) and source page (ncu_source.csv), read
 * beside the details page, and the feedback made of them: the roofline and
 * the hottest source lines.
 *
 * The readers stream: kf-read asks for each launch in the order the details
 * page gives them, and a reader goes forward in its file only as far as that
 * launch, so memory grows with one launch, not with the file. A reader owns
 * its state; ncu_*_close frees it. */
#ifndef KF_NCU_PAGES_H
#define KF_NCU_PAGES_H

#include <cJSON.h>

#include "buf.h"
#include "feedback.h"
#include "ncu_files.h"


/* The raw page: NULL when dir has no ncu_raw.csv. */
struct ncu_raw *ncu_raw_open(const char *dir);
/* Append ,"roofline_inputs":{...} (the counters a roofline needs, in base
 * units: bytes, seconds, Hz, per cycle) for the launch with this ID; nothing
 * when the page has no row for it. */
void ncu_raw_put(struct ncu_raw *r, double id, struct buf *out);
/* What went wrong, as strings added to notes; then free r. */
void ncu_raw_close(struct ncu_raw *r, cJSON *notes);

/* The source page: NULL when dir has no ncu_source.csv. */
struct ncu_src *ncu_src_open(const char *dir);
/* Append ,"source":{...} (the launch's hottest lines and SASS) for the next
 * launch of the kernel called name; nothing when the page's next block is
 * another kernel's. */
void ncu_src_put(struct ncu_src *s, const char *name, struct buf *out);
void ncu_src_close(struct ncu_src *s, cJSON *notes);

/* A number into b as JSON: whole numbers without a fraction. */
void ncu_put_num(struct buf *b, double v);

/* Feedback: ncu_roof_say (ncu_diag.h) writes the roofline paragraph and
 * analysis.focus.roof from the launch's roofline_inputs. */
/* The text's name of a unit ("the tensor pipe", "DRAM"). */
const char *ncu_unit_label(const char *unit);
/* The same for analysis.focus.source_lines from its source. */
int ncu_lines_say(struct kf_fb *fb, const cJSON *k, cJSON *focus);

#endif
