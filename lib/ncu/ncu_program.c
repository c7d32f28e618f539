/* kf-feedback's ncu parts: what the program as a whole needs of an ncu
 * report (levers.h, program.h): how its launches are spread in time
 * (launch_bound, machinery), each ranked kernel as measured, the timeline
 * and the launch order's chains, and the GPU whose roofs apply. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "chains.h"
#include "gpu_roofs.h"
#include "levers.h"
#include "mem.h"
#include "ncu_diag.h"
#include "ncu_fb.h"
#include "program.h"
#include "rank.h"
#include "record.h"

const cJSON *
ncu_find_gpu(const cJSON *rec, const struct kf_fb *fb, const cJSON *k)
{
	const char *via, *name;
	struct buf msg = {0};
	const cJSON *g = kf_gpu_roofs_for(rec, NULL, fb->opt->gpu, fb->opt->gpus_file, &via, &name,
	    &msg);
	double sms;

	buf_free(&msg);
	if (g == NULL && ncu_in(k, "launch__sm_count", &sms))
		g = kf_gpu_roofs_find_arch(kf_str(k, "cc"), sms, fb->opt->gpus_file);
	return g;
}

/* launch_bound and machinery (program.h): from the timing run's
 * gpu__time_duration.sum, each kernel's launches with the short ones
 * counted (its mean where a record has no count), else each launch
 * profiled in detail by its own Duration. */
static void
findings(struct kf_fb *fb, const cJSON *data, const struct kf_rank *rank,
    const struct ncu_timed *l, size_t nl, int timed)
{
	struct kf_launches ls = { .metric = timed ? "gpu__time_duration.sum" :
	    "GPU Speed Of Light Throughput: Duration" };
	const cJSON *k, *tk = timed ? kf_arr(kf_obj(data, "timing"), "kernels") : NULL;
	size_t i;

	cJSON_ArrayForEach(k, tk) {
		double total = kf_num(k, "total_ns", NAN);
		long n = (long)kf_num(k, "launches", 0);

		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(k, "short_launches")))
			kf_launches_add_counted(&ls, total, n, kf_num(k, "short_ns", NAN),
			    (long)kf_num(k, "short_launches", -1));
		else if (n > 0)
			kf_launches_add(&ls, total / (double)n, n);
	}
	for (i = 0; !timed && i < nl; i++)
		if (l[i].has_ns)
			kf_launches_add(&ls, l[i].ns, 1);
	kf_prog_findings(fb, rank, &ls);
	kf_launches_free(&ls);
}

static double
unit_pct(const struct ncu_roof *r, const char *unit)
{
	size_t i;

	for (i = 0; i < r->nunits; i++)
		if (strcmp(r->units[i].unit, unit) == 0)
			return r->units[i].pct;
	return NAN;
}

/* What the program as a whole needs of ncu (levers.h): each ranked
 * kernel's longest launch with a raw page, as measured; the launch order's
 * chains (the timing run's, else the launches profiled, in ID order); a
 * traced timing run's timeline; the GPU. */
static void
measured(struct kf_fb *fb, const cJSON *rec, const cJSON *data,
    const struct kf_rank *rank, const struct ncu_timed *l, size_t nl)
{
	const cJSON *t = kf_obj(data, "timing"), *gpu = NULL;
	struct kf_chains *c;
	size_t i, j;

	for (i = 0; i < rank->n; i++) {
		const struct ncu_timed *best = NULL;
		struct ncu_roof r;
		struct kf_kmeas m;

		for (j = 0; j < nl; j++) {
			const char *n = kf_str(l[j].k, "name");

			if (n && strcmp(n, rank->v[i].name) == 0 && kf_obj(l[j].k, "roofline_inputs") &&
			    (best == NULL || l[j].ns > best->ns))
				best = &l[j];
		}
		if (best == NULL)
			continue;
		if (gpu == NULL)
			kf_prog_gpu(fb, gpu = ncu_find_gpu(rec, fb, best->k));
		if (!ncu_roof_of(best->k, gpu, &r))
			continue;
		m.bound = r.bound;
		m.unit = r.limiter ? r.limiter->unit : NULL;
		m.unit_pct = r.limiter ? r.limiter->pct : NAN;
		m.tensor_pct = unit_pct(&r, "tensor");
		m.fma_pct = unit_pct(&r, "fma");
		m.flops = r.flops;
		m.bytes_per_s = r.bw;
		m.peak_bytes_per_s = r.peak_bw;
		m.metric = "ncu raw page: sm__pipe_{tensor,fma}_cycles_active, dram__bytes";
		kf_prog_measured(fb, rank->v[i].name, &m);
		ncu_roof_free(&r);
	}
	if (kf_obj(t, "timeline"))
		kf_prog_timeline(fb, kf_obj(t, "timeline"));
	if (kf_obj(t, "chains")) {
		kf_prog_chains(fb, kf_obj(t, "chains"));
	} else if (t == NULL && nl > 1) {
		cJSON *cj;

		c = kf_chains_new();
		for (i = 0; i < nl; i++) {
			char *key = xasprintf("%.0f/%.0f", kf_num(l[i].k, "process_id", 0),
			    kf_num(l[i].k, "stream", 0));

			if (kf_str(l[i].k, "name"))
				kf_chains_launch(c, key, kf_str(l[i].k, "name"), l[i].ns);
			free(key);
		}
		cj = kf_chains_json(c, "ncu: the launches profiled, in the order of their IDs on "
		    "each stream");
		kf_prog_chains(fb, cj);
		cJSON_Delete(cj);
		kf_chains_free(c);
	}
}

void
ncu_program(struct kf_fb *fb, const cJSON *rec, const cJSON *data,
    const struct kf_rank *rank, const struct ncu_timed *l, size_t nl, int timed)
{
	findings(fb, data, rank, l, nl, timed);
	measured(fb, rec, data, rank, l, nl);
}
