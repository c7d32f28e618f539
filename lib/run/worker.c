/* The machine a job ran on: host, CPU, memory and GPUs. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "lines.h"
#include "mem.h"
#include "num.h"
#include "proc.h"
#include "record.h"
#include "worker.h"

#ifndef KF_VERSION
#define KF_VERSION "0"
#endif

#define CAPTURE_TIMEOUT 10.0
#define CAPTURE_MAX 65536

static cJSON *
str_or_null(const char *s)
{
	return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* The value of the first "key : value" line with that key, or NULL. */
static char *
keyed_value(const char *path, const char *key, char sep)
{
	struct kf_lines l;
	char *val = NULL;

	if (kf_lines_open(&l, path) != 0)
		return NULL;
	while (val == NULL && kf_lines_next(&l) > 0) {
		char *p = strchr(l.s, sep);

		if (p == NULL)
			continue;
		*p = '\0';
		if (strcmp(kf_trim(l.s), key) == 0 && *kf_trim(p + 1))
			val = xstrdup(kf_trim(p + 1));
	}
	kf_lines_close(&l);
	return val;
}

/* Lines of a program's output, blanks trimmed, empty ones left out. */
static cJSON *
capture_lines(char *const argv[])
{
	struct buf b = {0};
	cJSON *a;
	char *p, *nl;

	if (kf_capture(argv, CAPTURE_TIMEOUT, CAPTURE_MAX, &b) != 0) {
		buf_free(&b);
		return NULL;
	}
	a = cJSON_CreateArray();
	for (p = b.s; p && *p; p = nl) {
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		else
			nl = p + strlen(p);
		if (*kf_trim(p))
			cJSON_AddItemToArray(a, cJSON_CreateString(kf_trim(p)));
	}
	buf_free(&b);
	if (cJSON_GetArraySize(a) == 0) {
		cJSON_Delete(a);
		return NULL;
	}
	return a;
}

static int
nvidia_gpus(cJSON *w)
{
	char *names[] = {"nvidia-smi", "--query-gpu=name", "--format=csv,noheader", NULL};
	char *caps[] = {"nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", NULL};
	cJSON *a = capture_lines(names), *c;

	if (a == NULL)
		return 0;
	kf_set_str(w, "gpu_name", cJSON_GetArrayItem(a, 0)->valuestring);
	kf_set(w, "gpus", a);
	kf_set_str(w, "gpu_vendor", "nvidia");
	/* Older drivers do not know compute_cap: then it stays null. */
	if ((c = capture_lines(caps)) != NULL) {
		kf_set_str(w, "compute_capability", cJSON_GetArrayItem(c, 0)->valuestring);
		cJSON_Delete(c);
	}
	return 1;
}

struct intel_gpu {
	char slot[64];		/* PCI address, 0000:03:00.0 */
	char devid[16];		/* 0xe20b */
	int integrated;
};

static char *
sysfs_path(const char *fmt, const char *card)
{
	const char *root = getenv("KF_SYSFS");
	char *rel = xasprintf(fmt, card), *p;

	p = xasprintf("%s%s", root && *root ? root : "/sys", rel);
	free(rel);
	return p;
}

static char *
sysfs_line(const char *fmt, const char *card)
{
	char *path = sysfs_path(fmt, card), *s = NULL;
	struct kf_lines l;

	if (kf_lines_open(&l, path) == 0) {
		if (kf_lines_next(&l) > 0)
			s = xstrdup(kf_trim(l.s));
		kf_lines_close(&l);
	}
	free(path);
	return s;
}

/* An iGPU has no VRAM of its own, or else sits on the root bus. */
static int
is_integrated(const char *card, const char *slot)
{
	char *vram = sysfs_line("/class/drm/%s/device/mem_info_vram_total", card);
	int r;

	if (vram) {
		r = strtoull(vram, NULL, 0) == 0;
		free(vram);
		return r;
	}
	return strncmp(slot, "0000:00:", 8) == 0;
}

static int
intel_card(const char *card, struct intel_gpu *g)
{
	char *path = sysfs_path("/class/drm/%s/device/uevent", card);
	char *driver = keyed_value(path, "DRIVER", '=');
	char *slot = keyed_value(path, "PCI_SLOT_NAME", '=');
	char *dev = sysfs_line("/class/drm/%s/device/device", card);
	int ok = driver && slot && dev &&
	    (strcmp(driver, "xe") == 0 || strcmp(driver, "i915") == 0);

	if (ok) {
		snprintf(g->slot, sizeof g->slot, "%s", slot);
		snprintf(g->devid, sizeof g->devid, "%s", dev);
		g->integrated = is_integrated(card, slot);
	}
	free(path);
	free(driver);
	free(slot);
	free(dev);
	return ok;
}

/* "03:00.0 VGA compatible controller: Intel Corporation X (rev 01)" */
static char *
lspci_name(const char *slot)
{
	char *argv[] = {"lspci", "-s", (char *)slot, NULL};
	cJSON *a = capture_lines(argv);
	char *name = NULL, *p, *rev;

	if (a && (p = strstr(cJSON_GetArrayItem(a, 0)->valuestring, ": ")) != NULL) {
		name = xstrdup(p + 2);
		if ((rev = strstr(name, " (rev ")) != NULL)
			*rev = '\0';
	}
	cJSON_Delete(a);
	return name;
}

static int
cardname(const char *s)
{
	if (strncmp(s, "card", 4) != 0 || !s[4])
		return 0;
	for (s += 4; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int
intel_gpus(cJSON *w)
{
	char *dirpath = sysfs_path("%s", "/class/drm");
	struct intel_gpu best = {{0}, {0}, 1}, g;
	int found = 0;
	struct dirent *d;
	cJSON *names;
	char *name;
	DIR *dir;

	dir = opendir(dirpath);
	free(dirpath);
	if (dir == NULL)
		return 0;
	names = cJSON_CreateArray();
	while ((d = readdir(dir)) != NULL) {
		if (!cardname(d->d_name) || !intel_card(d->d_name, &g))
			continue;
		/* The discrete GPU, where there is one, is the one that runs. */
		if (!found || (best.integrated && !g.integrated))
			best = g;
		found = 1;
		name = lspci_name(g.slot);
		cJSON_AddItemToArray(names, cJSON_CreateString(name ? name : g.devid));
		free(name);
	}
	closedir(dir);
	if (!found) {
		cJSON_Delete(names);
		return 0;
	}
	name = lspci_name(best.slot);
	kf_set(w, "gpu_name", str_or_null(name));
	kf_set_str(w, "gpu_vendor", "intel");
	kf_set_str(w, "device_id", best.devid);
	kf_set(w, "gpus", names);
	free(name);
	return 1;
}

cJSON *
kf_worker_info(void)
{
	cJSON *w = cJSON_CreateObject();
	char host[256] = "", *cpu;
	long n, pages, psize;

	if (gethostname(host, sizeof host - 1) != 0)
		host[0] = '\0';
	kf_set(w, "kf_version", cJSON_CreateString(KF_VERSION));
	kf_set(w, "hostname", str_or_null(host));
	cpu = keyed_value("/proc/cpuinfo", "model name", ':');
	kf_set(w, "cpu_info", str_or_null(cpu));
	free(cpu);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	kf_set(w, "cpu_count", n > 0 ? cJSON_CreateNumber((double)n) : cJSON_CreateNull());
	pages = sysconf(_SC_PHYS_PAGES);
	psize = sysconf(_SC_PAGESIZE);
	kf_set(w, "memory_kb", pages > 0 && psize > 0 ?
	    cJSON_CreateNumber((double)pages * (double)psize / 1024) : cJSON_CreateNull());
	kf_set(w, "gpu_name", cJSON_CreateNull());
	kf_set(w, "gpu_vendor", cJSON_CreateNull());
	kf_set(w, "gpus", cJSON_CreateArray());
	if (!nvidia_gpus(w))
		intel_gpus(w);
	return w;
}

cJSON *
kf_worker_for_gpu(const cJSON *worker, const char *gpu)
{
	cJSON *w = cJSON_Duplicate(worker, 1);
	const cJSON *names = kf_arr(worker, "gpus");
	char *end;
	long k;

	if (gpu == NULL)
		return w;
	k = strtol(gpu, &end, 10);
	if (*gpu && !*end && k >= 0 && k < cJSON_GetArraySize(names))
		kf_set(w, "gpu_name", cJSON_Duplicate(cJSON_GetArrayItem(names, (int)k), 1));
	return w;
}
