/* kf-ncu's output directory and its account: the paths in it, ncu's
 * argv, the seconds by part (NCU_TIMINGS). ncu_chain.h says which file of
 * the chain does what; every part of it uses these. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "mem.h"
#include "ncu_chain.h"
#include "ncu_files.h"
#include "path.h"
#include "proc.h"
#include "record.h"

char *
ncu_out_path(const struct ncu_chain *c, const char *name)
{
	return kf_path_join(c->dir, name);
}

/* src's bytes into dst, made anew. 0, or -1 after saying why. */
static int
copy_file(const char *src, const char *dst)
{
	FILE *in = fopen(src, "rb"), *out;
	char b[8192];
	size_t n;
	int bad = 0;

	if (in == NULL) {
		fprintf(stderr, "kf-ncu: %s: %s\n", src, strerror(errno));
		return -1;
	}
	if ((out = fopen(dst, "wb")) == NULL) {
		fprintf(stderr, "kf-ncu: %s: %s\n", dst, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(b, 1, sizeof b, in)) > 0)
		if (fwrite(b, 1, n, out) != n)
			bad = 1;
	if (ferror(in))
		bad = 1;
	fclose(in);
	if (fclose(out) != 0 || bad) {
		fprintf(stderr, "kf-ncu: copying %s to %s failed\n", src, dst);
		return -1;
	}
	return 0;
}

int
ncu_sampled_sections(struct ncu_chain *c)
{
	const char *on = getenv("KF_NCU_SAMPLED_SOURCE");
	char *restore[] = { (char *)c->ncu, "--section-folder", NULL, "--section-folder-restore",
		NULL };
	char *data, *dst, *stock;
	double t = kf_now();
	int h, fd, st, ok, i;

	if (on == NULL || strcmp(on, "1") != 0 || c->sections)
		return 0;
	c->sections = ncu_out_path(c, NCU_SECTIONS_DIR);
	restore[2] = c->sections;
	/* ncu's line about the folder is no part of the program's output */
	if ((fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		kf_die(1, "/dev/null: %s", strerror(errno));
	h = ncu_proc_start(restore, &c->env, -1, fd, -1, 0);
	close(fd);
	if (ncu_proc_wait(h, kf_now() + 60) != 1) {
		ncu_proc_end(h);
		fprintf(stderr, "kf-ncu: --sampled-source: %s --section-folder %s "
		    "--section-folder-restore did not end within 60 s, or kf-ncu was stopped\n",
		    c->ncu, c->sections);
		return -1;
	}
	st = ncu_proc_status(h);
	stock = kf_path_join(c->sections, "SpeedOfLight.section");
	ok = st == 0 && kf_is_file(stock);
	free(stock);
	if (!ok) {
		fprintf(stderr, "kf-ncu: --sampled-source: %s --section-folder %s "
		    "--section-folder-restore exited with status %d%s: the detailed run needs "
		    "ncu's own sections in that folder beside kf's\n", c->ncu, c->sections, st,
		    st == 0 ? " and wrote no SpeedOfLight.section" : "");
		return -1;
	}
	if ((data = kf_data_file(NCU_SAMPLED_DATA)) == NULL) {
		fprintf(stderr, "kf-ncu: --sampled-source: cannot find %s in kf's data "
		    "(share/kf; KF_DATADIR)\n", NCU_SAMPLED_DATA);
		return -1;
	}
	dst = kf_path_join(c->sections, NCU_SAMPLED_SECTION);
	st = copy_file(data, dst);
	free(data);
	free(dst);
	if (st != 0)
		return -1;
	c->own_dargs = xreallocarray(NULL, (size_t)c->ndargs + 3, sizeof *c->own_dargs);
	c->own_dargs[0] = "--section-folder";
	c->own_dargs[1] = c->sections;
	for (i = 0; i < c->ndargs; i++)
		c->own_dargs[i + 2] = c->dargs[i];
	c->own_dargs[c->ndargs + 2] = NULL;
	c->dargs = c->own_dargs;
	c->ndargs += 2;
	ncu_time_add(c, "sections_s", kf_now() - t);
	return 0;
}

void
ncu_time_add(struct ncu_chain *c, const char *name, double seconds)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(c->timings, name);
	double t = (cJSON_IsNumber(v) ? v->valuedouble : 0) + seconds;

	kf_set_num(c->timings, name, round(t * 1000) / 1000);
}

int
ncu_file_nonempty(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static void
argv_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	KF_GROW(*v, *n + 1, *cap, 32);
	(*v)[(*n)++] = (char *)s;
	(*v)[*n] = NULL;
}

char **
ncu_argv(const struct ncu_chain *c, const char *const *pre, int with_sel, int args,
    int with_cmd)
{
	char **v = NULL, *p;
	size_t n = 0, cap = 0;
	int i;

	argv_push(&v, &n, &cap, c->ncu);
	for (i = 0; pre && pre[i]; i++)
		argv_push(&v, &n, &cap, pre[i]);
	if (with_sel && c->sel.len) {
		/* the filter's lines, NUL-separated in place */
		for (p = c->sel.s; p < c->sel.s + c->sel.len; p += strlen(p) + 1)
			argv_push(&v, &n, &cap, p);
	}
	for (i = 0; args == 't' && i < c->ntargs; i++)
		argv_push(&v, &n, &cap, c->targs[i]);
	for (i = 0; args == 'd' && i < c->ndargs; i++)
		argv_push(&v, &n, &cap, c->dargs[i]);
	for (i = 0; with_cmd && i < c->ncmd; i++)
		argv_push(&v, &n, &cap, c->cmd[i]);
	return v;
}

void
ncu_timings_write(struct ncu_chain *c)
{
	long launches, passes;
	double connected, first, last;
	char *p = ncu_out_path(c, NCU_TIMINGS), *text;
	FILE *f;

	ncu_proc_passes(&launches, &passes);
	ncu_proc_marks(&connected, &first, &last);
	/* ncu's own lines split the detailed run: its start (to the program
	 * connected), the program's run to the first launch profiled (its
	 * replay included), the replays of the others */
	if (c->detail_at > 0 && connected >= c->detail_at)
		ncu_time_add(c, "ncu_connect_s", connected - c->detail_at);
	if (connected > 0 && first >= connected)
		ncu_time_add(c, "to_first_profiled_s", first - connected);
	if (first > 0 && last >= first)
		ncu_time_add(c, "profiling_s", last - first);
	if (last > 0 && c->program_end >= last)
		ncu_time_add(c, "after_last_profiled_s", c->program_end - last);
	ncu_time_add(c, "total_s", kf_now() - c->t0);
	if (ncu_gpu_alone() >= 0)
		ncu_time_add(c, "gpu_held_s", ncu_gpu_alone());
	if (ncu_gpu_shared() >= 0)
		ncu_time_add(c, "gpu_shared_s", ncu_gpu_shared());
	kf_set_num(c->timings, "launches_profiled", (double)launches);
	kf_set_num(c->timings, "replay_passes", (double)passes);
	if (ncu_proc_host_backups() > 0)
		kf_set_num(c->timings, "replay_host_backups", (double)ncu_proc_host_backups());
	text = cJSON_PrintUnformatted(c->timings);
	if ((f = fopen(p, "w")) == NULL || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0)
		kf_warn("cannot write %s:", p);
	free(text);
	free(p);
}

int
ncu_attach_start(const struct ncu_chain *c, int port, const char *out, const struct buf *asel,
    const struct kf_env *env, int log)
{
	char p[16], **argv = NULL, *s;
	const char *pre[] = { "--mode", "attach", "--hostname", "127.0.0.1", "--port", p,
		"--max-connections", NCU_HELD_MAXC, "-o", out, "-f", "--import-source", "yes", NULL };
	size_t n = 0, cap = 0, i;
	int h;

	snprintf(p, sizeof p, "%d", port);
	KF_GROW(argv, n + 1, cap, 64);
	argv[n++] = (char *)c->ncu;
	for (i = 0; pre[i]; i++) {
		KF_GROW(argv, n + 1, cap, 64);
		argv[n++] = (char *)pre[i];
	}
	for (s = asel->s; s && s < asel->s + asel->len; s += strlen(s) + 1) {
		KF_GROW(argv, n + 1, cap, 64);
		argv[n++] = s;
	}
	for (i = 0; i < (size_t)c->ndargs; i++) {
		KF_GROW(argv, n + 1, cap, 64);
		argv[n++] = c->dargs[i];
	}
	KF_GROW(argv, n + 1, cap, 64);
	argv[n] = NULL;
	h = log >= 0 ? ncu_proc_start(argv, env ? env : &c->env, -1, log, log, 0) :
	    ncu_proc_start(argv, env ? env : &c->env, -1, -1, -1, 1);
	free(argv);
	return h;
}
