/*
 * nvpw_passes CHIP < NAMES: the replay passes NVIDIA's profiler host
 * library (libnvperf_host, NVPW, part of CUPTI) plans for the hardware
 * counters of the metrics named on standard input (one a line; blank lines
 * and lines starting with # are ignored), for chip CHIP (GH100: H100 and
 * H200), with no GPU. Prints "metrics K unknown U raw R passes P": K names
 * it knows, U it does not (SASS-patched and sampled metrics, launch__ and
 * device__ attributes: no counters), R raw counters they need, P passes.
 * With a third argument, each unknown name on standard error.
 * nvpw_passes list: the chips it knows.
 * Built by model.sh; for issue 46 (what a collection's passes follow).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nvperf_host.h>
#include <nvperf_cuda_host.h>

static void check(NVPA_Status s, const char *what)
{
	if (s != NVPA_STATUS_SUCCESS) {
		fprintf(stderr, "nvpw_passes: %s: NVPA status %d\n", what, (int)s);
		exit(1);
	}
}

static void *xrealloc(void *p, size_t n)
{
	if ((p = realloc(p, n)) == NULL) {
		perror("nvpw_passes");
		exit(1);
	}
	return p;
}

/* names: the raw counters so far, without duplicates */
struct names {
	char **v;
	size_t n, cap;
};

static void add_name(struct names *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], name) == 0)
			return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	if ((s->v[s->n++] = strdup(name)) == NULL) {
		perror("nvpw_passes");
		exit(1);
	}
}

static NVPW_MetricsEvaluator *evaluator(const char *chip)
{
	NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params sz = {
		.structSize = NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE
	};
	sz.pChipName = chip;
	check(NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&sz), chip);
	NVPW_CUDA_MetricsEvaluator_Initialize_Params in = {
		.structSize = NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE
	};
	in.scratchBufferSize = sz.scratchBufferSize;
	in.pScratchBuffer = xrealloc(NULL, sz.scratchBufferSize);
	in.pChipName = chip;
	check(NVPW_CUDA_MetricsEvaluator_Initialize(&in), "the metrics evaluator");
	return in.pMetricsEvaluator;
}

/* Adds the raw counters NAME needs to RAW; 0 when NAME is not a metric
 * the evaluator knows. */
static int raw_of(NVPW_MetricsEvaluator *ev, const char *name, struct names *raw)
{
	NVPW_MetricEvalRequest req;
	NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params cv = {
		.structSize = NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest_Params_STRUCT_SIZE
	};
	cv.pMetricsEvaluator = ev;
	cv.pMetricName = name;
	cv.pMetricEvalRequest = &req;
	cv.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
	if (NVPW_MetricsEvaluator_ConvertMetricNameToMetricEvalRequest(&cv) != NVPA_STATUS_SUCCESS)
		return 0;
	NVPW_MetricsEvaluator_GetMetricRawDependencies_Params rd = {
		.structSize = NVPW_MetricsEvaluator_GetMetricRawDependencies_Params_STRUCT_SIZE
	};
	rd.pMetricsEvaluator = ev;
	rd.pMetricEvalRequests = &req;
	rd.numMetricEvalRequests = 1;
	rd.metricEvalRequestStructSize = NVPW_MetricEvalRequest_STRUCT_SIZE;
	rd.metricEvalRequestStrideSize = sizeof req;
	check(NVPW_MetricsEvaluator_GetMetricRawDependencies(&rd), name);
	const char **deps = xrealloc(NULL, (rd.numRawDependencies + 1) * sizeof *deps);
	rd.ppRawDependencies = deps;
	check(NVPW_MetricsEvaluator_GetMetricRawDependencies(&rd), name);
	for (size_t i = 0; i < rd.numRawDependencies; i++)
		add_name(raw, deps[i]);
	free(deps);
	return 1;
}

static size_t passes(const char *chip, const struct names *raw)
{
	NVPW_CUDA_RawMetricsConfig_Create_V2_Params cr = {
		.structSize = NVPW_CUDA_RawMetricsConfig_Create_V2_Params_STRUCT_SIZE
	};
	cr.activityKind = NVPA_ACTIVITY_KIND_PROFILER;
	cr.pChipName = chip;
	check(NVPW_CUDA_RawMetricsConfig_Create_V2(&cr), "the raw metrics config");
	NVPW_RawMetricsConfig_BeginPassGroup_Params bg = {
		.structSize = NVPW_RawMetricsConfig_BeginPassGroup_Params_STRUCT_SIZE
	};
	bg.pRawMetricsConfig = cr.pRawMetricsConfig;
	check(NVPW_RawMetricsConfig_BeginPassGroup(&bg), "the pass group");
	NVPA_RawMetricRequest *rq = xrealloc(NULL, (raw->n + 1) * sizeof *rq);
	memset(rq, 0, (raw->n + 1) * sizeof *rq);
	for (size_t i = 0; i < raw->n; i++) {
		rq[i].structSize = NVPA_RAW_METRIC_REQUEST_STRUCT_SIZE;
		rq[i].pMetricName = raw->v[i];
		rq[i].isolated = 1;
		rq[i].keepInstances = 1;
	}
	NVPW_RawMetricsConfig_AddMetrics_Params am = {
		.structSize = NVPW_RawMetricsConfig_AddMetrics_Params_STRUCT_SIZE
	};
	am.pRawMetricsConfig = cr.pRawMetricsConfig;
	am.pRawMetricRequests = rq;
	am.numMetricRequests = raw->n;
	check(NVPW_RawMetricsConfig_AddMetrics(&am), "the raw counters");
	NVPW_RawMetricsConfig_EndPassGroup_Params eg = {
		.structSize = NVPW_RawMetricsConfig_EndPassGroup_Params_STRUCT_SIZE
	};
	eg.pRawMetricsConfig = cr.pRawMetricsConfig;
	check(NVPW_RawMetricsConfig_EndPassGroup(&eg), "the pass group");
	NVPW_RawMetricsConfig_GenerateConfigImage_Params gi = {
		.structSize = NVPW_RawMetricsConfig_GenerateConfigImage_Params_STRUCT_SIZE
	};
	gi.pRawMetricsConfig = cr.pRawMetricsConfig;
	check(NVPW_RawMetricsConfig_GenerateConfigImage(&gi), "the config image");
	NVPW_RawMetricsConfig_GetNumPasses_V2_Params np = {
		.structSize = NVPW_RawMetricsConfig_GetNumPasses_V2_Params_STRUCT_SIZE
	};
	np.pRawMetricsConfig = cr.pRawMetricsConfig;
	check(NVPW_RawMetricsConfig_GetNumPasses_V2(&np), "the passes");
	NVPW_RawMetricsConfig_Destroy_Params de = {
		.structSize = NVPW_RawMetricsConfig_Destroy_Params_STRUCT_SIZE
	};
	de.pRawMetricsConfig = cr.pRawMetricsConfig;
	NVPW_RawMetricsConfig_Destroy(&de);
	free(rq);
	return np.numPasses;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: nvpw_passes CHIP [-v] < NAMES | nvpw_passes list\n");
		return 2;
	}
	NVPW_InitializeHost_Params ih = { .structSize = NVPW_InitializeHost_Params_STRUCT_SIZE };
	check(NVPW_InitializeHost(&ih), "libnvperf_host");
	if (strcmp(argv[1], "list") == 0) {
		NVPW_GetSupportedChipNames_Params c = { .structSize = NVPW_GetSupportedChipNames_Params_STRUCT_SIZE };
		check(NVPW_GetSupportedChipNames(&c), "the chips");
		for (size_t i = 0; i < c.numChipNames; i++)
			printf("%s\n", c.ppChipNames[i]);
		return 0;
	}
	NVPW_MetricsEvaluator *ev = evaluator(argv[1]);
	struct names raw = { 0 };
	int known = 0, unknown = 0;
	char line[1024];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (raw_of(ev, line, &raw))
			known++;
		else {
			unknown++;
			if (argc > 2)
				fprintf(stderr, "unknown %s\n", line);
		}
	}
	printf("metrics %d unknown %d raw %zu passes %zu\n", known, unknown, raw.n,
	       raw.n ? passes(argv[1], &raw) : (size_t)0);
	return 0;
}
