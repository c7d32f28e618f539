/* kf trace: kf-wrap's command. The program runs as it is; CUDA loads kf's
 * tracer into it (CUDA_INJECTION64_PATH, inherited by every process it
 * starts), which writes output_dir/trace.<pid>.kft. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "path.h"
#include "record.h"
#include "trace.h"

int
trace_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o)
{
	const char *dir = kf_str(rec, "output_dir");
	char *lib, *max;
	cJSON *argv, *env;
	int i;

	if (dir == NULL) {
		kf_fail(rec, "bad_record", "no \"output_dir\": where should the tracer write?");
		return -1;
	}
	if (ncmd < 1) {
		kf_fail(rec, "bad_record", "no command to trace");
		return -1;
	}
	if (o && o->nargs > 0) {
		kf_fail(rec, "bad_option", "the tracer takes no profiler arguments ('%s')",
		    o->args[0]);
		return -1;
	}
	if ((lib = kf_libexec_file(TRACE_LIB)) == NULL) {
		char *where = kf_libexec_where();

		kf_fail(rec, "no_tracer", "kf's tracer " TRACE_LIB " is not in %s: it was not "
		    "built (no CUDA where kf was built) or not installed", where);
		free(where);
		kf_fail_hint(rec, "kf builds it where CUPTI's headers are found: rebuild "
		    "with CUDA_HOME set to the CUDA install (make says where it looked), "
		    "or set KF_LIBEXECDIR to the folder holding " TRACE_LIB);
		return -1;
	}
	argv = cJSON_CreateArray();
	for (i = 0; i < ncmd; i++)
		kf_push_arg(argv, cmd[i]);
	kf_set(rec, "argv", argv);
	env = cJSON_GetObjectItemCaseSensitive(rec, "env");
	if (!cJSON_IsObject(env)) {
		env = cJSON_CreateObject();
		kf_set(rec, "env", env);
	}
	kf_set_str(env, "CUDA_INJECTION64_PATH", lib);
	kf_set_str(env, TRACE_DIR_ENV, dir);
	if (o && kf_wrap_opt(o, "max-mb")) {
		max = xasprintf("%ld", kf_wrap_opt_long(o, "max-mb", 256));
		kf_set_str(env, "KF_TRACE_MAX_MB", max);
		free(max);
	}
	if (cJSON_GetObjectItemCaseSensitive(rec, "end_marker") == NULL)
		kf_set(rec, "end_marker", cJSON_CreateNull());
	free(lib);
	return 0;
}
