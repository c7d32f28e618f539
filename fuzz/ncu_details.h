/* kf fuzzing: a fixed details page (two launches, of the kernels the page
 * fixtures hold) for the targets that fuzz ncu's other pages beside it. */
#ifndef KF_FUZZ_NCU_DETAILS_H
#define KF_FUZZ_NCU_DETAILS_H

static const char fz_ncu_details[] =
	"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
	"\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
	"\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n"
	"\"0\",\"9490\",\"bench\",\"127.0.0.1\",\"transpose_naive_k(const float *, float *, int)\","
	"\"1\",\"7\",\"(32, 8, 1)\",\"(256, 1024, 1)\",\"0\",\"9.0\","
	"\"GPU Speed Of Light Throughput\",\"Duration\",\"us\",\"993.31\"\n"
	"\"1\",\"9490\",\"bench\",\"127.0.0.1\","
	"\"sgemm_naive_k(const float *, const float *, float *, int)\",\"1\",\"7\","
	"\"(16, 16, 1)\",\"(128, 128, 1)\",\"0\",\"9.0\","
	"\"GPU Speed Of Light Throughput\",\"Duration\",\"ms\",\"3.13\"\n";

#endif
