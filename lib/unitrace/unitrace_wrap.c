/* The unitrace path: kf-wrap's command for one pass (a metric group, or
 * OpenCL sampling through libexec/kf/kf-unitrace-ocl) under
 * libexec/kf/kf-unitrace, which gives unitrace the dot-free -o prefix that
 * keeps its files in output_dir; and its environment. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mem.h"
#include "path.h"
#include "profiler.h"
#include "record.h"
#include "unitrace.h"

/* A session id nobody else uses: 128 random bits in hex. */
static char *
session_id(void)
{
	unsigned char r[16];
	char *s = xmalloc(2 * sizeof r + 1);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	size_t i;

	if (fd < 0 || read(fd, r, sizeof r) != (ssize_t)sizeof r) {
		unsigned long x = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);

		for (i = 0; i < sizeof r; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			r[i] = (unsigned char)(x >> 56);
		}
	}
	if (fd >= 0)
		close(fd);
	for (i = 0; i < sizeof r; i++)
		snprintf(s + 2 * i, 3, "%02x", r[i]);
	return s;
}

/* The unitrace options every pass shares, before the group's own. */
static void
common_args(cJSON *argv, const struct kf_wrap_opts *o, const char *session)
{
	if (!kf_wrap_opt(o, "no-timeline")) {
		kf_push_str(argv, "--chrome-kernel-logging");
		kf_push_str(argv, "--chrome-itt-logging");
	}
	kf_push_str(argv, "--start-paused");
	kf_push_str(argv, "--session");
	kf_push_str(argv, session);
}

/* kf-unitrace runs the OpenCL retry helper from its own folder. */
static int
ocl_beside(const char *script)
{
	const char *slash = strrchr(script, '/');
	char *p = xasprintf("%.*skf-unitrace-ocl", slash ? (int)(slash - script + 1) : 0, script);
	int ok = kf_is_file(p);

	free(p);
	return ok;
}

int
unitrace_wrap(cJSON *rec, char *const *cmd, int ncmd, const struct kf_wrap_opts *o)
{
	const char *dir = kf_str(rec, "output_dir"), *group = kf_str(rec, "group");
	const char *mode = kf_str(rec, "mode");
	const char *tool = o->tool ? o->tool : "unitrace";
	const cJSON *marker = cJSON_GetObjectItemCaseSensitive(rec, "end_marker");
	int sampling = mode && strcmp(mode, "sampling") == 0;
	cJSON *argv, *env;
	char *script, *sess;
	int i;

	if (dir == NULL || group == NULL) {
		kf_fail(rec, "bad_record", "unitrace pass without \"%s\"", dir ? "group" : "output_dir");
		kf_fail_hint(rec, "unitrace passes come from kf-select: one per metric group");
		return -1;
	}
	if ((script = kf_libexec_file("kf-unitrace")) == NULL ||
	    (sampling && !ocl_beside(script))) {
		kf_fail(rec, "missing_helper", "%s, the helper of unitrace's runs, is not installed",
		    script ? "kf-unitrace-ocl" : "kf-unitrace");
		kf_fail_hint(rec, "install kf (make install) or set KF_LIBEXECDIR to its libexec/kf");
		free(script);
		return -1;
	}
	sess = session_id();
	argv = cJSON_CreateArray();
	if (o->sudo) {
		kf_push_str(argv, "sudo");
		kf_push_str(argv, "-E");
	}
	/* kf-unitrace TOOL DIR GROUP MODE [TOOL-ARG...] -- CMD...: it adds -o
	 * (or runs kf-unitrace-ocl) with the dot-free prefix */
	kf_push_str(argv, script);
	kf_push_str(argv, tool);
	kf_push_str(argv, dir);
	kf_push_str(argv, group);
	kf_push_str(argv, sampling ? "sampling" : "query");
	common_args(argv, o, sess);
	for (i = 0; i < o->nargs; i++)
		kf_push_arg(argv, o->args[i]);
	kf_push_str(argv, "--");
	for (i = 0; i < ncmd; i++)
		kf_push_arg(argv, cmd[i]);
	kf_set(rec, "argv", argv);
	env = cJSON_CreateObject();
	cJSON_AddStringToObject(env, "KERNELFOUNDRY_PROFILER", "unitrace");
	cJSON_AddStringToObject(env, "KERNELFOUNDRY_unitrace_cmd", tool);
	kf_set(rec, "env", env);
	if (sampling)
		kf_set_str(rec, "end_marker", "UNITRACE_DONE");
	else if (!cJSON_IsString(marker))
		kf_set(rec, "end_marker", cJSON_CreateNull());
	free(script);
	free(sess);
	return 0;
}
