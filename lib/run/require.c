/* kf: can a job's programs be started (require.h)? */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "buf.h"
#include "mem.h"
#include "path.h"
#include "record.h"
#include "require.h"

/* What execvp uses when the environment has no PATH (confstr _CS_PATH). */
#define DEFAULT_PATH "/bin:/usr/bin"

static const char *
env_path(char *const *env)
{
	for (; env && *env; env++)
		if (strncmp(*env, "PATH=", 5) == 0)
			return *env + 5;
	return NULL;
}

/* 0: path is a file that may be executed; else the errno execve would
 * give (ENOENT, EACCES, ...). */
static int
runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	return access(path, X_OK) == 0 ? 0 : errno;
}

/* dir/name made absolute against cwd when it is relative. */
static char *
at(const char *cwd, const char *dir, const char *name)
{
	char *p, *abs;

	while (dir == NULL && name[0] == '.' && name[1] == '/')
		for (name += 2; *name == '/'; name++)
			;
	p = dir ? kf_path_join(dir, name) : xstrdup(name);
	if (p[0] == '/' || cwd == NULL)
		return p;
	abs = kf_path_join(cwd, p);
	free(p);
	return abs;
}

/* Where path stops existing: "check the program's path: /opt/x has no
 * bin" (the last folder of path that is one, and the name it lacks). */
static void
missing_part(struct buf *hint, const char *role, const char *path)
{
	char *d = xstrdup(path), *slash;
	const char *lacks = NULL;

	buf_printf(hint, "check the %s's path", role);
	while ((slash = strrchr(d, '/')) != NULL) {
		lacks = path + (slash - d) + 1;
		*slash = '\0';
		if (kf_is_dir(d[0] ? d : "/")) {
			buf_printf(hint, ": %s has no %.*s", d[0] ? d : "/",
			    (int)strcspn(lacks, "/"), lacks);
			break;
		}
		if (access(d, F_OK) == 0) {
			buf_printf(hint, ": %s is a file, not a folder", d);
			break;
		}
	}
	free(d);
}

/* A name with a slash: that file, relative to cwd. */
static int
check_path(const char *role, const char *name, const char *cwd, struct buf *msg,
    struct buf *hint)
{
	char *p = at(cwd, NULL, name);
	int e = runnable(p);

	if (e == 0) {
		free(p);
		return 0;
	}
	buf_printf(msg, "the %s %s", role, p);
	if (strcmp(p, name) != 0)
		buf_printf(msg, " ('%s' in %s)", name, cwd);
	if (e != ENOENT && e != ENOTDIR && e != EISDIR && e != EACCES)
		buf_putc(msg, ':');
	buf_printf(msg, " %s", e == ENOENT || e == ENOTDIR ? "does not exist" :
	    e == EISDIR ? "is a directory" : e == EACCES ? "is not executable" : strerror(e));
	if (e == ENOENT || e == ENOTDIR)
		missing_part(hint, role, p);
	else
		buf_printf(hint, "make %s an executable file (chmod +x), or name "
		    "the one to run", p);
	free(p);
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
}

/* A name without a slash: the first runnable file of that name in a PATH
 * folder (an empty folder is the job's own), as execvp looks. */
static int
check_name(const char *role, const char *name, const char *path, const char *cwd,
    struct buf *msg, struct buf *hint)
{
	char *dirs = xstrdup(path), *d = dirs, *end, *p, *denied = NULL;
	int found = 0;

	for (;;) {
		end = strchr(d, ':');
		if (end)
			*end = '\0';
		p = at(cwd, *d ? d : NULL, name);
		if (runnable(p) == 0)
			found = 1;
		else if (denied == NULL && access(p, F_OK) == 0)
			denied = xstrdup(p);
		free(p);
		if (found || end == NULL)
			break;
		d = end + 1;
	}
	free(dirs);
	if (found) {
		free(denied);
		return 0;
	}
	if (denied) {
		buf_printf(msg, "the %s %s, the only %s on PATH, is not executable", role,
		    denied, name);
		buf_printf(hint, "make %s executable (chmod +x), or put the folder of "
		    "the %s to run first on PATH", denied, name);
		free(denied);
		return 126;
	}
	buf_printf(msg, "the %s %s is not on PATH (%s)", role, name, path);
	if (strcmp(role, "program") == 0)
		buf_printf(hint, "check the command: a program in the job's directory "
		    "is ./%s; a name without a slash is looked for on PATH", name);
	else
		buf_printf(hint, "install %s, or add the folder that holds it to PATH",
		    name);
	return 127;
}

int
kf_require_check(const cJSON *requires, char *const *env, const char *cwd,
    const char **role, int *code, struct buf *msg, struct buf *hint)
{
	const char *path = env_path(env);
	const cJSON *r;
	char *here = NULL;
	int ret = 0;

	if (!cJSON_IsObject(requires))
		return 0;
	/* A relative name is said as the path it stands for. */
	if (cwd == NULL)
		cwd = here = getcwd(NULL, 0);
	cJSON_ArrayForEach(r, requires) {
		const char *name = cJSON_IsString(r) ? r->valuestring : NULL;
		int c;

		if (name == NULL || name[0] == '\0' || r->string == NULL)
			continue;
		c = strchr(name, '/') ? check_path(r->string, name, cwd, msg, hint) :
		    check_name(r->string, name, path ? path : DEFAULT_PATH, cwd, msg, hint);
		if (c != 0) {
			*role = r->string;
			*code = c;
			ret = -1;
			break;
		}
	}
	free(here);
	return ret;
}
