/* Profiler selection and the architecture table. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "record.h"
#include "buf.h"
#include "mem.h"
#include "num.h"

/*
 * Architectures. A row's word is matched against the words of an arch
 * string (runs of letters and digits, lower case), exactly, or as the head
 * of a word whose rest changes between letters and digits ("rtx4090",
 * "h100nvl", "max1550", "xe2lpg"), never of "arch" or "a1000".
 */
#define NV KF_VENDOR_NVIDIA
#define IN KF_VENDOR_INTEL
static const struct kf_arch arch_table[] = {
	/* NVIDIA families, and "native" as nvcc and the reference mean it */
	{ "kepler", NV, "family", "Kepler" },
	{ "maxwell", NV, "family", "Maxwell" },
	{ "pascal", NV, "family", "Pascal" },
	{ "volta", NV, "family", "Volta" },
	{ "turing", NV, "family", "Turing" },
	{ "ampere", NV, "family", "Ampere" },
	{ "ada", NV, "family", "Ada" },
	{ "lovelace", NV, "family", "Ada" },
	{ "hopper", NV, "family", "Hopper" },
	{ "blackwell", NV, "family", "Blackwell" },
	{ "native", NV, "family", "native" },
	/* NVIDIA GPUs */
	{ "k80", NV, "gpu", "K80" },
	{ "p100", NV, "gpu", "P100" },
	{ "p40", NV, "gpu", "P40" },
	{ "v100", NV, "gpu", "V100" },
	{ "t4", NV, "gpu", "T4" },
	{ "a100", NV, "gpu", "A100" },
	{ "a800", NV, "gpu", "A800" },
	{ "a40", NV, "gpu", "A40" },
	{ "a30", NV, "gpu", "A30" },
	{ "a10", NV, "gpu", "A10" },
	{ "a10g", NV, "gpu", "A10G" },
	{ "a16", NV, "gpu", "A16" },
	{ "a2000", NV, "gpu", "RTX A2000" },
	{ "a4000", NV, "gpu", "RTX A4000" },
	{ "a4500", NV, "gpu", "RTX A4500" },
	{ "a5000", NV, "gpu", "RTX A5000" },
	{ "a6000", NV, "gpu", "RTX A6000" },
	{ "h100", NV, "gpu", "H100" },
	{ "h800", NV, "gpu", "H800" },
	{ "h200", NV, "gpu", "H200" },
	{ "h20", NV, "gpu", "H20" },
	{ "gh200", NV, "gpu", "GH200" },
	{ "l4", NV, "gpu", "L4" },
	{ "l20", NV, "gpu", "L20" },
	{ "l40", NV, "gpu", "L40" },
	{ "l40s", NV, "gpu", "L40S" },
	{ "b100", NV, "gpu", "B100" },
	{ "b200", NV, "gpu", "B200" },
	{ "gb200", NV, "gpu", "GB200" },
	{ "b300", NV, "gpu", "B300" },
	{ "gb300", NV, "gpu", "GB300" },
	{ "jetson", NV, "gpu", "Jetson" },
	{ "orin", NV, "gpu", "Jetson Orin" },
	{ "rtx", NV, "product", "RTX" },
	{ "gtx", NV, "product", "GeForce GTX" },
	{ "titan", NV, "product", "TITAN" },
	{ "geforce", NV, "product", "GeForce" },
	{ "quadro", NV, "product", "Quadro" },
	{ "tesla", NV, "product", "Tesla" },
	{ "dgx", NV, "product", "DGX" },
	{ "nvidia", NV, "vendor", "NVIDIA" },
	{ "cuda", NV, "vendor", "NVIDIA" },
	/* Intel codenames */
	{ "lnl", IN, "codename", "Lunar Lake" },
	{ "lunar", IN, "codename", "Lunar Lake" },
	{ "ptl", IN, "codename", "Panther Lake" },
	{ "panther", IN, "codename", "Panther Lake" },
	{ "bmg", IN, "codename", "Battlemage" },
	{ "battlemage", IN, "codename", "Battlemage" },
	{ "dg2", IN, "codename", "Alchemist" },
	{ "acm", IN, "codename", "Alchemist" },
	{ "alchemist", IN, "codename", "Alchemist" },
	{ "dg1", IN, "codename", "DG1" },
	{ "pvc", IN, "codename", "Ponte Vecchio" },
	{ "ponte", IN, "codename", "Ponte Vecchio" },
	{ "vecchio", IN, "codename", "Ponte Vecchio" },
	{ "mtl", IN, "codename", "Meteor Lake" },
	{ "meteor", IN, "codename", "Meteor Lake" },
	{ "arl", IN, "codename", "Arrow Lake" },
	{ "arrow", IN, "codename", "Arrow Lake" },
	{ "tgl", IN, "codename", "Tiger Lake" },
	{ "adl", IN, "codename", "Alder Lake" },
	{ "rpl", IN, "codename", "Raptor Lake" },
	{ "xe", IN, "family", "Xe" },
	{ "xe2", IN, "family", "Xe2" },
	{ "xe3", IN, "family", "Xe3" },
	{ "xelp", IN, "family", "Xe-LP" },
	{ "xelpg", IN, "family", "Xe-LPG" },
	{ "xehpg", IN, "family", "Xe-HPG" },
	{ "xehpc", IN, "family", "Xe-HPC" },
	/* Intel products */
	{ "b580", IN, "gpu", "Arc B580" },
	{ "b570", IN, "gpu", "Arc B570" },
	{ "a770", IN, "gpu", "Arc A770" },
	{ "a750", IN, "gpu", "Arc A750" },
	{ "a580", IN, "gpu", "Arc A580" },
	{ "a380", IN, "gpu", "Arc A380" },
	{ "a310", IN, "gpu", "Arc A310" },
	{ "258v", IN, "gpu", "Core Ultra 7 258V" },
	{ "268v", IN, "gpu", "Core Ultra 7 268V" },
	{ "arc", IN, "product", "Arc" },
	{ "max", IN, "product", "Data Center GPU Max" },
	{ "flex", IN, "product", "Data Center GPU Flex" },
	{ "iris", IN, "product", "Iris Xe" },
	{ "uhd", IN, "product", "UHD Graphics" },
	{ "ultra", IN, "product", "Core Ultra" },
	{ "intel", IN, "vendor", "Intel" },
	{ NULL, KF_VENDOR_UNKNOWN, NULL, NULL },
};

/* Compute capabilities (sm_XX, compute_XX, "8.6") by family. */
static const struct {
	int lo, hi;
	const char *family;
} cc_table[] = {
	{ 30, 37, "kepler" },
	{ 50, 53, "maxwell" },
	{ 60, 62, "pascal" },
	{ 70, 72, "volta" },
	{ 73, 75, "turing" },
	{ 80, 87, "ampere" },
	{ 88, 89, "ada" },
	{ 90, 99, "hopper" },
	{ 100, 129, "blackwell" },
};

/* Specific names beat product lines, which beat vendor words. */
static int
weight(const struct kf_arch *a)
{
	if (strcmp(a->kind, "vendor") == 0)
		return 1;
	if (strcmp(a->kind, "product") == 0)
		return 2;
	return 3;
}

const struct kf_arch *
kf_arch_table(void)
{
	return arch_table;
}

const char *
kf_vendor_name(enum kf_vendor v)
{
	switch (v) {
	case KF_VENDOR_NVIDIA:
		return "nvidia";
	case KF_VENDOR_INTEL:
		return "intel";
	default:
		return NULL;
	}
}

static const struct kf_arch *
row_named(const char *word)
{
	const struct kf_arch *a;

	for (a = arch_table; a->word; a++)
		if (strcmp(a->word, word) == 0)
			return a;
	return NULL;
}

static const struct kf_arch *
row_for_cc(long cc)
{
	size_t i;

	for (i = 0; i < sizeof cc_table / sizeof cc_table[0]; i++)
		if (cc >= cc_table[i].lo && cc <= cc_table[i].hi)
			return row_named(cc_table[i].family);
	return NULL;
}

static int
class_changes(const char *word, size_t n)
{
	return word[n] != '\0' &&
	    !!isdigit((unsigned char)word[n - 1]) != !!isdigit((unsigned char)word[n]);
}

static const struct kf_arch *
row_for_word(const char *word)
{
	const struct kf_arch *a, *best = NULL;
	size_t n, bestn = 0;

	for (a = arch_table; a->word; a++) {
		n = strlen(a->word);
		if (strcmp(a->word, word) == 0)
			return a;
		if (n > bestn && strncmp(a->word, word, n) == 0 && class_changes(word, n)) {
			best = a;
			bestn = n;
		}
	}
	return best;
}

static int
all_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/*
 * A compute capability among the words: "sm90", "sm90a", "compute_86",
 * "sm_100", "cc 8.6", "compute capability 9.0"; dot[i] says word i came
 * after a '.'. Returns the number (86, 90, 100) or -1.
 */
static long
cc_number(char **w, const int *dot, int n, int i)
{
	static const char *const prefixes[] = { "sm", "compute", "cc", "capability" };
	size_t k, len;
	char *end;
	long v;

	for (k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
		len = strlen(prefixes[k]);
		if (strncmp(w[i], prefixes[k], len) != 0)
			continue;
		if (w[i][len] != '\0') {
			v = strtol(w[i] + len, &end, 10);
			if (end == w[i] + len || (*end != '\0' &&
			    !(islower((unsigned char)*end) && end[1] == '\0')))
				continue;
			if (*end == '\0' && i + 1 < n && dot[i + 1] &&
			    isdigit((unsigned char)w[i + 1][0]))
				v = v * 10 + (w[i + 1][0] - '0');
			return v;
		}
		if (i + 1 >= n || !isdigit((unsigned char)w[i + 1][0]))
			continue;
		v = strtol(w[i + 1], &end, 10);
		if (*end != '\0' && !(islower((unsigned char)*end) && end[1] == '\0'))
			continue;
		if (*end == '\0' && i + 2 < n && dot[i + 2] &&
		    isdigit((unsigned char)w[i + 2][0]))
			v = v * 10 + (w[i + 2][0] - '0');
		return v;
	}
	return -1;
}

const struct kf_arch *
kf_arch_classify(const char *arch)
{
	const struct kf_arch *best = NULL, *a;
	size_t len, i;
	char *copy, **w;
	int *dot, n = 0, k;
	char *end;
	long cc;

	if (arch == NULL)
		return NULL;
	len = strlen(arch);
	copy = xmalloc(len + 1);
	w = xcalloc(len / 2 + 2, sizeof *w);
	dot = xcalloc(len / 2 + 2, sizeof *dot);
	for (i = 0; i < len; i++)
		copy[i] = (char)(isalnum((unsigned char)arch[i]) ?
		    tolower((unsigned char)arch[i]) : '\0');
	copy[len] = '\0';
	for (i = 0; i < len; i++) {
		if (copy[i] && (i == 0 || copy[i - 1] == '\0')) {
			dot[n] = i > 0 && arch[i - 1] == '.';
			w[n++] = copy + i;
		}
	}
	/* A bare "8.6" or "9.0" is a compute capability. */
	if (n == 2 && dot[1] && all_digits(w[0]) && strlen(w[1]) == 1 &&
	    isdigit((unsigned char)w[1][0]) && strspn(arch, "0123456789. \t") == len)
		best = row_for_cc(strtol(w[0], &end, 10) * 10 + (w[1][0] - '0'));
	for (k = 0; k < n && best == NULL; k++)
		if ((cc = cc_number(w, dot, n, k)) >= 0)
			best = row_for_cc(cc);
	for (k = 0; k < n && (best == NULL || weight(best) < 3); k++)
		if ((a = row_for_word(w[k])) && (best == NULL || weight(a) > weight(best)))
			best = a;
	free(copy);
	free(w);
	free(dot);
	return best;
}

/*
 * Languages: their names. Which profilers profile each, in which mode and
 * which by default, is in the profilers' descriptors (struct kf_prof_lang).
 */
struct kf_lang {
	const char *name;
	const char *alias;
	char *list;		/* "unitrace, vtune", made on first use */
};

static struct kf_lang langs[] = {
	{ "sycl", NULL, NULL },
	{ "ocl", "opencl", NULL },
	{ "cuda", NULL, NULL },
	{ "pytorch", "torch", NULL },
	{ "triton", NULL, NULL },
};

static struct kf_lang *
lang_find(const char *name)
{
	size_t i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < sizeof langs / sizeof langs[0]; i++)
		if (kf_strieq(langs[i].name, name) ||
		    (langs[i].alias && kf_strieq(langs[i].alias, name)))
			return &langs[i];
	return NULL;
}

const char *
kf_language_names(void)
{
	return "sycl, ocl, cuda, pytorch, triton";
}

/* Order of a language's profilers: its default (rank 1), the next (2),
 * then those chosen by vendor (0) in the descriptors' order. */
static int
order(int rank)
{
	return rank == 0 ? 3 : rank;
}

/* "unitrace, vtune": the profilers of l, in order. */
static const char *
lang_list(struct kf_lang *l)
{
	struct buf b = {0};
	const struct kf_prof_lang *u;
	int o;
	size_t i;

	if (l->list)
		return l->list;
	for (o = 1; o <= 3; o++)
		for (i = 0; kf_profilers[i]; i++)
			if ((u = kf_profiler_lang(kf_profilers[i], l->name)) && order(u->rank) == o)
				buf_printf(&b, "%s%s", b.len ? ", " : "", kf_profilers[i]->name);
	l->list = buf_take(&b);
	return l->list;
}

const char *
kf_language_profilers(const char *language)
{
	struct kf_lang *l = lang_find(language);

	return l ? lang_list(l) : NULL;
}

const char *
kf_profiling_language(const char *language, const char *reference_language)
{
	if (reference_language == NULL || kf_strieq(reference_language, "pytorch"))
		return language;
	return reference_language;
}

/* The default profiler of l: its rank-1 profiler; else the one of the
 * arch's vendor; else (vendor unknown) the one marked as the fallback. */
static const struct kf_profiler *
lang_default(const struct kf_lang *l, const struct kf_arch *arch)
{
	const char *vendor = arch ? kf_vendor_name(arch->vendor) : NULL;
	const struct kf_prof_lang *u;
	size_t i;

	for (i = 0; kf_profilers[i]; i++)
		if ((u = kf_profiler_lang(kf_profilers[i], l->name)) && u->rank == 1)
			return kf_profilers[i];
	for (i = 0; vendor && kf_profilers[i]; i++)
		if ((u = kf_profiler_lang(kf_profilers[i], l->name)) && u->rank == 0 &&
		    kf_strieq(kf_profilers[i]->vendor, vendor))
			return kf_profilers[i];
	for (i = 0; kf_profilers[i]; i++)
		if ((u = kf_profiler_lang(kf_profilers[i], l->name)) && u->fallback)
			return kf_profilers[i];
	return NULL;
}

static int
has_default(const struct kf_lang *l)
{
	const struct kf_prof_lang *u;
	size_t i;

	for (i = 0; kf_profilers[i]; i++)
		if ((u = kf_profiler_lang(kf_profilers[i], l->name)) && u->rank == 1)
			return 1;
	return 0;
}

int
kf_select(const char *language, const char *reference_language,
    const char *arch, const char *profiler, struct kf_choice *c,
    const char **kind, struct buf *err)
{
	const char *lname = kf_profiling_language(language, reference_language);
	struct kf_lang *l = lang_find(lname);
	const struct kf_profiler *p;
	const struct kf_prof_lang *u;

	memset(c, 0, sizeof *c);
	c->arch = kf_arch_classify(arch);
	if (l == NULL) {
		*kind = "unknown_language";
		buf_printf(err, "unknown language '%s'%s (one of %s)", lname,
		    lname != language ? " (the job's reference_language)" : "",
		    kf_language_names());
		return -1;
	}
	c->language = l->name;
	if (profiler == NULL && !has_default(l) && arch == NULL) {
		*kind = "no_arch";
		buf_printf(err, "language %s needs \"arch\" to choose between %s",
		    l->name, lang_list(l));
		return -1;
	}
	c->by_arch = profiler == NULL && !has_default(l);
	p = profiler ? kf_profiler_find(profiler) : lang_default(l, c->arch);
	if (p == NULL || (u = kf_profiler_lang(p, l->name)) == NULL) {
		*kind = "no_profiler";
		buf_printf(err, "profiler '%s' cannot profile %s: it allows %s",
		    profiler ? profiler : "", l->name, lang_list(l));
		return -1;
	}
	c->profiler = p;
	c->mode = u->mode;
	return 0;
}

cJSON *
kf_pass_record(const cJSON *job, const struct kf_choice *c, int i)
{
	const struct kf_profiler *p = c->profiler;
	cJSON *rec = cJSON_Duplicate(job, 1);
	char *pass = xasprintf("%s.%03d", p->name, i);

	kf_set_str(rec, "profiler", p->name);
	kf_set_str(rec, "pass", pass);
	if (p->groups)
		kf_set_str(rec, "group", p->groups[i]);
	kf_set_str(rec, "mode", c->mode);
	kf_set_num(rec, "passes_total", p->npasses);
	if (c->language)
		kf_set_str(rec, "profile_language", c->language);
	if (c->arch)
		kf_set_str(rec, "vendor", kf_vendor_name(c->arch->vendor));
	free(pass);
	return rec;
}
