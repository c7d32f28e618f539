/* The unitrace path: kf-wrap's command for one pass (a metric group, or
 * OpenCL sampling through libexec/kf/kf-unitrace-ocl), its environment and
 * the dot-free -o prefix that keeps unitrace's files in output_dir. */
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

/* The -o prefix. unitrace names its files by inserting ".<pid>" before the
 * last dot of the prefix and ".metrics" after the first dot of that, so a
 * dot anywhere in the directory ("./out", "unitrace.000") sends them
 * elsewhere. Give it the absolute path when that has no dot, else a
 * dot-free symbolic link to the directory. NULL after kf_fail(). */
static char *
out_prefix(cJSON *rec, const char *dir)
{
	char *real = realpath(dir, NULL), *link, *p, *id;

	if (real == NULL) {
		kf_fail(rec, "bad_output_dir", "output_dir %s: %s", dir, strerror(errno));
		return NULL;
	}
	if (strchr(real, '.') == NULL) {
		p = kf_path_join(real, "trace");
		free(real);
		return p;
	}
	id = session_id();
	link = xasprintf("/tmp/kf-unitrace-%s", id);
	free(id);
	if (symlink(real, link) != 0 && errno != EEXIST) {
		kf_fail(rec, "bad_output_dir", "output_dir %s has a dot in its path, which makes "
		    "unitrace misname its files, and the link %s cannot be made: %s", real, link,
		    strerror(errno));
		kf_fail_hint(rec, "use an output directory whose absolute path has no '.'");
		free(real);
		free(link);
		return NULL;
	}
	p = kf_path_join(link, "trace");
	/* kf-read removes it once the files are read. */
	kf_set_str(rec, "unitrace_link", link);
	free(real);
	free(link);
	return p;
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
	char *prefix, *script = NULL, *sess;
	int i;

	if (dir == NULL || group == NULL) {
		kf_fail(rec, "bad_record", "unitrace pass without \"%s\"", dir ? "group" : "output_dir");
		kf_fail_hint(rec, "unitrace passes come from kf-select: one per metric group");
		return -1;
	}
	if (sampling && (script = kf_libexec_file("kf-unitrace-ocl")) == NULL) {
		kf_fail(rec, "missing_helper", "kf-unitrace-ocl, the OpenCL retry helper, is not installed");
		kf_fail_hint(rec, "install kf (make install) or set KF_LIBEXECDIR to its libexec/kf");
		return -1;
	}
	sess = session_id();
	if ((prefix = out_prefix(rec, dir)) == NULL) {
		free(sess);
		free(script);
		return -1;
	}
	argv = cJSON_CreateArray();
	if (o->sudo) {
		kf_push_str(argv, "sudo");
		kf_push_str(argv, "-E");
	}
	if (sampling) {
		/* kf-unitrace-ocl TOOL DIR PREFIX GROUP [TOOL-ARG...] -- CMD... */
		kf_push_str(argv, script);
		kf_push_str(argv, tool);
		kf_push_str(argv, dir);
		kf_push_str(argv, prefix);
		kf_push_str(argv, group);
		common_args(argv, o, sess);
		for (i = 0; i < o->nargs; i++)
			kf_push_arg(argv, o->args[i]);
		kf_push_str(argv, "--");
	} else {
		kf_push_str(argv, tool);
		common_args(argv, o, sess);
		kf_push_str(argv, "--group");
		kf_push_str(argv, group);
		kf_push_str(argv, "--metric-query");
		kf_push_str(argv, "--output-dir-path");
		kf_push_str(argv, dir);
		kf_push_str(argv, "-o");
		kf_push_str(argv, prefix);
		for (i = 0; i < o->nargs; i++)
			kf_push_arg(argv, o->args[i]);
	}
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
	free(prefix);
	free(script);
	free(sess);
	return 0;
}
