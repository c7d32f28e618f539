/* kf: paths: joining, making directories, and finding kf's data and
 * helper files beside the program or where they were installed (path.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mem.h"
#include "path.h"

#ifndef KF_DATADIR_DEFAULT
#define KF_DATADIR_DEFAULT "/usr/local/share/kf"
#endif
#ifndef KF_LIBEXECDIR_DEFAULT
#define KF_LIBEXECDIR_DEFAULT "/usr/local/libexec/kf"
#endif

char *
kf_path_join(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (b[0] == '/' || n == 0)
		return xstrdup(b);
	return xasprintf("%s%s%s", a, a[n - 1] == '/' ? "" : "/", b);
}

int
kf_mkdirs(const char *path, int mode)
{
	char *p = xstrdup(path), *s;
	struct stat st;
	int rc = 0;

	for (s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, (mode_t)mode) != 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (c == '\0')
				break;
		}
	}
	if (rc == 0 && stat(path, &st) != 0)
		rc = -1;
	else if (rc == 0 && !S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		rc = -1;
	}
	free(p);
	return rc;
}

const char *
kf_exe_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;
	char *slash;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof dir - 1);
	if (n <= 0) {
		strcpy(dir, ".");
		return dir;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	return dir;
}

const char *
kf_base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

int
kf_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int
kf_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *
first_existing(const char *const *dirs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char *p;

		if (dirs[i] == NULL)
			continue;
		p = kf_path_join(dirs[i], name);
		if (access(p, R_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

/* The folder above the running program's: PREFIX for PREFIX/bin/kf-read
 * and for a helper in PREFIX/libexec/kf (kf-ncu), as make install lays them
 * out, and the tree's root for bin/ and libexec/kf/ of a build in place. */
static char *
exe_prefix(void)
{
	const char *d = kf_exe_dir();
	size_t n = strlen(d);

	if (n >= 11 && strcmp(d + n - 11, "/libexec/kf") == 0)
		return kf_path_join(d, "../..");
	return kf_path_join(d, "..");
}

char *
kf_data_file(const char *name)
{
	char *pre = exe_prefix(), *share = kf_path_join(pre, "share/kf");
	const char *dirs[] = { getenv("KF_DATADIR"), share, KF_DATADIR_DEFAULT };
	char *p = first_existing(dirs, 3, name);

	free(share);
	free(pre);
	return p;
}

char *
kf_libexec_file(const char *name)
{
	char *pre = exe_prefix(), *dir = kf_path_join(pre, "libexec/kf");
	const char *dirs[] = { getenv("KF_LIBEXECDIR"), dir, KF_LIBEXECDIR_DEFAULT };
	char *p = first_existing(dirs, 3, name);

	free(dir);
	free(pre);
	return p;
}

char *
kf_libexec_where(void)
{
	char *pre = exe_prefix(), *dir = kf_path_join(pre, "libexec/kf"), *s;
	const char *env = getenv("KF_LIBEXECDIR");

	s = env ? xasprintf("%s (KF_LIBEXECDIR), %s or %s", env, dir, KF_LIBEXECDIR_DEFAULT) :
	    xasprintf("%s or %s", dir, KF_LIBEXECDIR_DEFAULT);
	free(dir);
	free(pre);
	return s;
}
