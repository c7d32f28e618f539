/* The Intel VTune path: kf-wrap's command, gpu-hotspots collection then the
 * tab-separated hotspots report, in one run through libexec/kf/kf-vtune. */
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "profiler.h"
#include "record.h"
#include "vtune.h"

/* The reference's column list (its _VTUNE_HOTSPOTS_COLUMNS_PASS1). VTune
 * matches each entry as a substring, so "GPU Memory Bandwidth" brings both
 * its Read and Write columns. */
static const char columns[] =
	"Computing Task:Total Time,Computing Task:Average Time,"
	"Computing Task:Instance Count,Computing Task:SIMD Width,"
	"XVE Array:Active,XVE Array:Stalled,XVE Array:Idle,"
	"XVE Threads Occupancy,"
	"XVE Stall Reasons:Send,XVE Stall Reasons:Barrier,XVE Stall Reasons:SBID,"
	"XVE Stall Reasons:Instruction Fetch,XVE Stall Reasons:Dist or Acc,"
	"XVE Pipelines:ALU0 active,XVE Pipelines:ALU1 active,XVE Pipelines:XMX active,"
	"XVE Instructions:ALU0 Instructions,XVE Instructions:ALU1 Instructions,"
	"XVE Instructions:XMX instructions,"
	"GPU Memory Bandwidth,GPU L3:Busy,GPU L3:Stalled,GPU L3:Miss Ratio,"
	"GPU L3:Average Bandwidth,TLB Misses";

int
vtune_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o)
{
	const char *dir = kf_str(rec, "output_dir");
	const char *tool = o && o->tool ? o->tool : "vtune";
	char *script, *result, *report;
	cJSON *argv, *env;
	int i;

	if (dir == NULL) {
		kf_fail(rec, "bad_record", "no \"output_dir\": nowhere for VTune to write");
		return -1;
	}
	if (ncmd < 1) {
		kf_fail(rec, "bad_record", "no command to profile");
		return -1;
	}
	for (i = 0; o && i < o->nargs; i++) {
		if (strcmp(o->args[i], "--") == 0) {
			kf_fail(rec, "bad_option", "vtune argument '--' would end VTune's "
			    "options before the program");
			return -1;
		}
	}
	if ((script = kf_libexec_file("kf-vtune")) == NULL) {
		kf_fail(rec, "no_helper", "cannot find the helper script kf-vtune");
		kf_fail_hint(rec, "install kf (make install), or set KF_LIBEXECDIR to "
		    "the folder holding kf-vtune");
		return -1;
	}
	result = kf_path_join(dir, VTUNE_RESULT_DIR);
	report = kf_path_join(dir, VTUNE_REPORT_FILE);

	argv = cJSON_CreateArray();
	if (o && o->sudo) {
		cJSON_AddItemToArray(argv, cJSON_CreateString("sudo"));
		cJSON_AddItemToArray(argv, cJSON_CreateString("-E"));
	}
	cJSON_AddItemToArray(argv, cJSON_CreateString(script));
	cJSON_AddItemToArray(argv, cJSON_CreateString(tool));
	cJSON_AddItemToArray(argv, cJSON_CreateString(result));
	cJSON_AddItemToArray(argv, cJSON_CreateString(report));
	cJSON_AddItemToArray(argv, cJSON_CreateString(columns));
	for (i = 0; o && i < o->nargs; i++)
		kf_push_arg(argv, o->args[i]);
	cJSON_AddItemToArray(argv, cJSON_CreateString("--"));
	for (i = 0; i < ncmd; i++)
		kf_push_arg(argv, cmd[i]);
	kf_set(rec, "argv", argv);

	/* The program's harness resumes and pauses the collection around its
	 * timed loop; these tell it how. */
	env = cJSON_GetObjectItemCaseSensitive(rec, "env");
	if (!cJSON_IsObject(env)) {
		env = cJSON_CreateObject();
		kf_set(rec, "env", env);
	}
	kf_set_str(env, "KERNELFOUNDRY_PROFILER", "vtune");
	kf_set_str(env, "KERNELFOUNDRY_vtune_cmd", tool);
	kf_set_str(env, "KERNELFOUNDRY_vtune_result_dir", result);

	if (cJSON_GetObjectItemCaseSensitive(rec, "end_marker") == NULL)
		kf_set_str(rec, "end_marker", "VTUNE_DONE");
	free(script);
	free(result);
	free(report);
	return 0;
}
