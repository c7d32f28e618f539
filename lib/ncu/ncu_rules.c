/* kf-feedback's ncu parts: ncu's rules of a launch (its "rules" as
 * kf-read kept them from the details page): their texts without links,
 * ranked (those an author can act on first, by estimated speedup; the
 * rules that never lead, share/kf/ncu_rules.tsv, apart), one rule repeated
 * per unit merged into one line, and the estimates and pipe names other
 * parts read from them (where an uncoalesced-access rule did not run, its
 * estimate made by kf from the same counters). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "feedback.h"
#include "lines.h"
#include "mem.h"
#include "ncu_diag.h"
#include "ncu_fb.h"
#include "path.h"
#include "record.h"

struct rule {
	const cJSON *r;
	char *desc;		/* cleaned */
	double speedup;
	int has_speedup, global, order;
	struct rule *alt;	/* the same rule for other units, merged here */
	size_t nalt;
};

static const cJSON *
rules(const cJSON *k)
{
	const cJSON *r = kf_json_lazy(k, "rules");

	return cJSON_IsArray(r) ? r : NULL;
}

static int
has_url(const char *s, size_t n)
{
	return memmem(s, n, "http://", 7) || memmem(s, n, "https://", 8);
}

static int
is_link_sentence(const char *s, size_t n)
{
	static const char *const says[] = {
		"for more", "more details", "more information", "additional information",
	};
	size_t i;

	for (i = 0; i < sizeof says / sizeof says[0]; i++)
		if (memmem(s, n, says[i], strlen(says[i])))
			return 1;
	return n >= 4 && memcmp(s, "See ", 4) == 0;
}

/* A sentence that stays, with any URL (and the parentheses around it) out. */
static void
put_sentence(struct buf *b, const char *s, size_t n)
{
	size_t i = 0;

	if (b->len)
		buf_putc(b, ' ');
	while (i < n) {
		if (n - i > 8 && (memcmp(s + i, "http://", 7) == 0 || memcmp(s + i, "https://", 8) == 0)) {
			int paren = b->len > 0 && b->s[b->len - 1] == '(';

			while (i < n && !isspace((unsigned char)s[i]) && s[i] != ')')
				i++;
			if (paren) {
				b->s[--b->len] = '\0';
				if (i < n && s[i] == ')')
					i++;
			}
			while (b->len && b->s[b->len - 1] == ' ' && i < n && s[i] == ' ')
				i++;
			continue;
		}
		buf_putc(b, s[i++]);
	}
	while (b->len && b->s[b->len - 1] == ' ')
		b->s[--b->len] = '\0';
}

/* The description without "See ... (URL) for more ..." sentences and
 * without URLs; a caller-owned string. */
static char *
clean_desc(const char *s)
{
	struct buf b = {0};

	buf_puts(&b, "");
	while (*s) {
		const char *end = strstr(s, ". ");
		size_t n;

		while (*s == ' ')
			s++;
		n = end ? (size_t)(end - s) + 1 : strlen(s);
		if (n == 0)
			break;
		if (!(has_url(s, n) && is_link_sentence(s, n)))
			put_sentence(&b, s, n);
		s += n;
	}
	return buf_take(&b);
}

static const cJSON *
find_rule(const cJSON *k, const char *name)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, rules(k)) {
		const char *n = kf_str(r, "name");

		if (n && strcmp(n, name) == 0 && kf_str(r, "description"))
			return r;
	}
	return NULL;
}

int
ncu_rule_speedup(const cJSON *k, const char *name, double *v)
{
	const cJSON *r;
	int found = 0;

	cJSON_ArrayForEach(r, rules(k)) {
		const char *n = kf_str(r, "name");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(r, "speedup");

		if (n && strcmp(n, name) == 0 && cJSON_IsNumber(sp) && isfinite(sp->valuedouble) &&
		    (!found || sp->valuedouble > *v)) {
			*v = sp->valuedouble;
			found = 1;
		}
	}
	return found;
}

/* share/kf/ncu_rules.tsv: the rules that never lead, read once. */
static char **never_lead;
static size_t nnever;
static int rules_loaded;

static void
load_rule_table(void)
{
	char *path = kf_data_file("ncu_rules.tsv");
	struct kf_lines l;

	rules_loaded = 1;
	if (path == NULL || kf_lines_open(&l, path) != 0) {
		free(path);
		return;
	}
	while (kf_lines_next(&l) > 0) {
		char *tab1 = strchr(l.s, '\t'), *tab2;

		if (l.s[0] == '#' || tab1 == NULL)
			continue;
		*tab1 = '\0';
		tab2 = strchr(tab1 + 1, '\t');
		if (tab2)
			*tab2 = '\0';
		if (strcmp(tab1 + 1, "no") == 0) {
			never_lead = xrealloc(never_lead, (nnever + 1) * sizeof *never_lead);
			never_lead[nnever++] = xstrdup(l.s);
		}
	}
	kf_lines_close(&l);
	free(path);
}

static int
may_lead(const char *name)
{
	size_t i;

	if (!rules_loaded)
		load_rule_table();
	for (i = 0; i < nnever; i++)
		if (strcmp(never_lead[i], name) == 0)
			return 0;
	return 1;
}

static int
is_inf(const struct rule *r)
{
	const char *type = kf_str(r->r, "type");

	return type && strcmp(type, "INF") == 0;
}

/* Rules ranked: those an author can act on with an estimate of 1% or
 * more first, by estimate (global and local on one scale: both are shares
 * of the kernel's time), then OPT and WRN without one, then the rules that
 * never lead (ncu_rules.tsv) and those under 1%, then [INF]. */
static int
rule_class(const struct rule *r)
{
	const char *type = kf_str(r->r, "type");

	if (is_inf(r))
		return 4;
	if (!may_lead(kf_str(r->r, "name")) || (r->has_speedup && r->speedup < 1))
		return 3;
	if (r->has_speedup)
		return 0;
	if (type && strcmp(type, "OPT") == 0)
		return 1;
	return 2;
}

static int
by_speedup(const void *a, const void *b)
{
	const struct rule *x = a, *y = b;
	int cx = rule_class(x), cy = rule_class(y);

	if (cx != cy)
		return cx - cy;
	if (x->has_speedup != y->has_speedup)
		return y->has_speedup - x->has_speedup;
	if (x->has_speedup && x->speedup != y->speedup)
		return x->speedup < y->speedup ? 1 : -1;
	return x->order - y->order;
}

/* A WRN that only says a metric could not be collected tells the
 * optimiser nothing about its kernel. */
static int
is_noise(const cJSON *r)
{
	const char *type = kf_str(r, "type"), *d = kf_str(r, "description");
	const char *name = kf_str(r, "name");

	if (name && (strcmp(name, "SOLBottleneck") == 0 || strcmp(name, "SOLFPRoofline") == 0))
		return 1;
	return type && strcmp(type, "WRN") == 0 && d && strstr(d, "could not be found");
}

/* The unit a per-unit rule speaks of: "SMSPs" in "One or more SMSPs have";
 * NULL if none. */
static char *
rule_unit(const char *desc)
{
	const char *p = strstr(desc, "One or more "), *q;

	if (p == NULL)
		return NULL;
	p += strlen("One or more ");
	q = strstr(p, " have");
	return q && q > p && q - p <= 40 ? xstrndup(p, (size_t)(q - p)) : NULL;
}

/* Two rows of one rule (name and type) that each name a unit. */
static int
same_rule(const struct rule *a, const struct rule *b)
{
	const char *ta = kf_str(a->r, "type"), *tb = kf_str(b->r, "type");
	char *ua, *ub;
	int same;

	if (strcmp(kf_str(a->r, "name"), kf_str(b->r, "name")) != 0 ||
	    strcmp(ta ? ta : "", tb ? tb : "") != 0)
		return 0;
	ua = rule_unit(a->desc);
	ub = rule_unit(b->desc);
	same = ua && ub;
	free(ua);
	free(ub);
	return same;
}

/* ncu repeats some rules once per unit (WorkloadImbalance for SMSPs, SMs,
 * L1 and L2 slices): the rows of one rule name and type that name a unit,
 * after the first (the best, as v is sorted), become its alternatives.
 * Returns the count left. */
static size_t
merge_units(struct rule *v, size_t n)
{
	size_t i, j, out = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < out; j++)
			if (same_rule(&v[j], &v[i]))
				break;
		if (j < out) {
			v[j].alt = xrealloc(v[j].alt, (v[j].nalt + 1) * sizeof *v[j].alt);
			v[j].alt[v[j].nalt++] = v[i];
		} else {
			v[out++] = v[i];
		}
	}
	return out;
}

/* "max 30.64% above, min 100.00% below the average" from a rule text. */
static void
put_extremes(struct buf *b, const char *desc)
{
	const char *mx = strstr(desc, "Maximum instance value is ");
	const char *mn = strstr(desc, "minimum instance value is ");
	double x, y;

	if (mx && mn && sscanf(mx, "Maximum instance value is %lf%%", &x) == 1 &&
	    sscanf(mn, "minimum instance value is %lf%%", &y) == 1)
		buf_printf(b, ", max %.2f%% above and min %.2f%% below the average", x, y);
}

/* One line for a rule and its alternatives: "[OPT] WorkloadImbalance
 * (estimated global speedup up to 19.55%) on SMSPs, SMs and L1 Slices: ..." */
static void
put_rule(struct buf *b, const struct rule *r)
{
	const char *st = kf_str(r->r, "speedup_type");
	char *unit;
	size_t j;

	buf_printf(b, "[%s] %s", kf_str(r->r, "type") ? kf_str(r->r, "type") : "?",
	    kf_str(r->r, "name"));
	if (r->has_speedup) {
		buf_printf(b, " (estimated %s speedup %s", st ? st : "", r->nalt ? "up to " : "");
		kf_fmt_pct(b, r->speedup);
		buf_putc(b, ')');
	}
	if (r->nalt && (unit = rule_unit(r->desc)) != NULL) {
		buf_printf(b, " on %s", unit);
		free(unit);
		for (j = 0; j < r->nalt; j++) {
			unit = rule_unit(r->alt[j].desc);
			buf_printf(b, "%s%s", j + 1 == r->nalt ? " and " : ", ",
			    unit ? unit : "another unit");
			free(unit);
		}
	}
	buf_printf(b, ": %s", r->desc);
	for (j = 0; j < r->nalt; j++) {
		unit = rule_unit(r->alt[j].desc);
		buf_printf(b, "%s%s", j ? "; " : " Also for ", unit ? unit : "another instance");
		if (r->alt[j].has_speedup) {
			buf_puts(b, " (");
			kf_fmt_pct(b, r->alt[j].speedup);
		}
		put_extremes(b, r->alt[j].desc);
		buf_puts(b, r->alt[j].has_speedup ? ")" : "");
		free(unit);
	}
	if (r->nalt)
		buf_putc(b, '.');
}

/* A rule name once: its best row (v is sorted) stays, the others become
 * its alternatives (and their own alternatives with them). */
static size_t
one_per_name(struct rule *v, size_t n)
{
	size_t i, j, a, out = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < out; j++)
			if (strcmp(kf_str(v[j].r, "name"), kf_str(v[i].r, "name")) == 0)
				break;
		if (j == out) {
			v[out++] = v[i];
			continue;
		}
		v[j].alt = xrealloc(v[j].alt, (v[j].nalt + 1 + v[i].nalt) * sizeof *v[j].alt);
		for (a = 0; a < v[i].nalt; a++)
			v[j].alt[v[j].nalt++] = v[i].alt[a];
		free(v[i].alt);
		v[i].alt = NULL;
		v[i].nalt = 0;
		v[j].alt[v[j].nalt++] = v[i];
	}
	return out;
}

static struct rule *
collect_rules(const cJSON *k, size_t *np)
{
	struct rule *v = NULL;
	size_t n = 0, i;
	const cJSON *r;
	int order = 0;

	cJSON_ArrayForEach(r, rules(k)) {
		const char *name = kf_str(r, "name"), *d = kf_str(r, "description");
		const char *st = kf_str(r, "speedup_type");
		const cJSON *sp = cJSON_GetObjectItemCaseSensitive(r, "speedup");
		struct rule nr;

		if (name == NULL || d == NULL || is_noise(r))
			continue;
		memset(&nr, 0, sizeof nr);
		nr.r = r;
		nr.desc = clean_desc(d);
		nr.has_speedup = cJSON_IsNumber(sp);
		nr.speedup = nr.has_speedup ? sp->valuedouble : 0;
		nr.global = st && strcmp(st, "global") == 0;
		nr.order = order++;
		/* The same rule, same text, on several rows: keep the best. */
		for (i = 0; i < n; i++) {
			if (strcmp(kf_str(v[i].r, "name"), name) == 0 &&
			    strcmp(v[i].desc, nr.desc) == 0)
				break;
		}
		if (i < n) {
			if (nr.has_speedup && (!v[i].has_speedup || nr.speedup > v[i].speedup)) {
				nr.order = v[i].order;
				free(v[i].desc);
				v[i] = nr;
			} else {
				free(nr.desc);
			}
			continue;
		}
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = nr;
	}
	if (n > 1)
		kf_sort(v, n, sizeof *v, by_speedup);
	n = merge_units(v, n);
	*np = one_per_name(v, n);
	return v;
}


void
ncu_rule_say(struct kf_fb *fb, int prio, const cJSON *k, int raw, const char *rule,
    const char *title, const char *key, cJSON *focus)
{
	const cJSON *r = find_rule(k, rule);
	char *d;

	if (r == NULL) {
		if (raw)
			kf_fb_add(fb, prio, "%s:\nno %s rule: ncu's raw page (--page raw) has "
			    "no rule texts; the details page has them.", title, rule);
		else
			kf_fb_add(fb, prio, "%s:\nncu reported no %s rule for this kernel.",
			    title, rule);
		cJSON_AddNullToObject(focus, key);
		return;
	}
	d = clean_desc(kf_str(r, "description"));
	kf_fb_add(fb, prio, "%s:\n%s", title, d);
	cJSON_AddStringToObject(focus, key, d);
	free(d);
}

/* The units of a merged rule as data: [{unit, speedup, description}]. */
static cJSON *
rule_units(const struct rule *r)
{
	cJSON *a = cJSON_CreateArray();
	size_t j;

	for (j = 0; j <= r->nalt; j++) {
		const struct rule *x = j ? &r->alt[j - 1] : r;
		cJSON *o = cJSON_CreateObject();
		char *unit = rule_unit(x->desc);

		cJSON_AddItemToObject(o, "unit", unit ? cJSON_CreateString(unit) : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "speedup", kf_json_num(x->has_speedup ? x->speedup : NAN));
		cJSON_AddStringToObject(o, "description", x->desc);
		cJSON_AddItemToArray(a, o);
		free(unit);
	}
	return a;
}

/* share/kf/ncu_section_names.tsv: each section's identifier and the
 * name its rows carry on the details page, read once (sec_found: the table
 * was there). */
static char **sec_id, **sec_name;
static size_t nsec;
static int sec_loaded, sec_found;

static void
load_section_names(void)
{
	char *path = kf_data_file("ncu_section_names.tsv");
	struct kf_lines l;

	sec_loaded = 1;
	if (path == NULL || kf_lines_open(&l, path) != 0) {
		free(path);
		return;
	}
	sec_found = 1;
	while (kf_lines_next(&l) > 0) {
		char *tab = strchr(l.s, '\t');

		if (l.s[0] == '#' || tab == NULL)
			continue;
		*tab = '\0';
		sec_id = xreallocarray(sec_id, nsec + 1, sizeof *sec_id);
		sec_name = xreallocarray(sec_name, nsec + 1, sizeof *sec_name);
		sec_id[nsec] = xstrdup(l.s);
		sec_name[nsec++] = xstrdup(tab + 1);
	}
	kf_lines_close(&l);
	free(path);
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* analysis.sections: the identifiers of the sections the launch's rows say
 * ncu collected (its metrics' sections, by the names the details page
 * gives them, and its rules' sections), sorted, each once. Not made
 * without the table or the launch's metrics: a comparison then claims
 * what it always did. */
static void
put_sections(const cJSON *k, cJSON *analysis)
{
	const cJSON *m = kf_json_lazy(k, "metrics"), *x;
	const char **v = NULL;
	size_t n = 0, cap = 0, i;
	cJSON *arr;

	if (!sec_loaded)
		load_section_names();
	/* a launch without its details' metrics says nothing of what was
	 * collected: no list, rather than one of its rules' sections only */
	if (!sec_found || !cJSON_IsObject(m))
		return;
	cJSON_ArrayForEach(x, m)
		for (i = 0; x->string && i < nsec; i++)
			if (strcmp(x->string, sec_name[i]) == 0) {
				KF_GROW(v, n + 1, cap, 16);
				v[n++] = sec_id[i];
				break;
			}
	cJSON_ArrayForEach(x, rules(k))
		if (kf_str(x, "section")) {
			KF_GROW(v, n + 1, cap, 16);
			v[n++] = kf_str(x, "section");
		}
	kf_sort(v, n, sizeof *v, by_name);
	arr = cJSON_AddArrayToObject(analysis, "sections");
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(v[i], v[i - 1]) != 0)
			cJSON_AddItemToArray(arr, cJSON_CreateString(v[i]));
	free(v);
}

void
ncu_rules_say(struct kf_fb *fb, const cJSON *k, cJSON *analysis)
{
	cJSON *arr = cJSON_AddArrayToObject(analysis, "rules");
	size_t n, i, j, shown, nopt, listed;
	struct rule *v = collect_rules(k, &n);
	struct buf b = {0};
	int max = fb->opt->max_rules;

	put_sections(k, analysis);
	shown = max >= 0 && (size_t)max < n ? (size_t)max : n;
	/* [INF] rules sort last: they are not optimisation rules. */
	for (nopt = 0; nopt < n && !is_inf(&v[nopt]); nopt++)
		;
	listed = shown < nopt ? shown : nopt;
	if (nopt == 0) {
		kf_fb_add(fb, FB_KEY, "ncu reported no optimisation rule for this kernel "
		    "beyond the bottleneck and roofline above.");
	} else if (listed > 0) {
		/* The rules kf cannot act on (and estimates under 1%) are never
		 * ranked among those it can: they follow, apart, unnumbered. */
		size_t nact;

		for (nact = 0; nact < listed && rule_class(&v[nact]) < 3; nact++)
			;
		if (nact > 0) {
			buf_printf(&b, "Rules ncu reported for this kernel that its author can act "
			    "on (evidence, not the verdict), by estimated speedup:");
			for (i = 0; i < nact; i++) {
				buf_printf(&b, "\n%zu. ", i + 1);
				put_rule(&b, &v[i]);
			}
		}
		/* The ranked rules are key; those kf does not rank are detail,
		 * the first left out when the text must be short. */
		if (nact < listed) {
			struct buf u = {0};

			buf_printf(&u, "Rules ncu reported that kf does not rank (not actionable "
			    "by the kernel's author, share/kf/ncu_rules.tsv, or estimated under 1%%):");
			for (i = nact; i < listed; i++) {
				buf_puts(&u, "\n- ");
				put_rule(&u, &v[i]);
			}
			if (listed < nopt)
				buf_printf(&u, "\n(%zu more rule%s left out)", nopt - listed,
				    nopt - listed == 1 ? "" : "s");
			kf_fb_add_buf(fb, FB_KEY, &b);
			kf_fb_add_buf(fb, FB_DETAIL, &u);
		} else {
			if (listed < nopt)
				buf_printf(&b, "\n(%zu more rule%s left out)", nopt - listed,
				    nopt - listed == 1 ? "" : "s");
			kf_fb_add_buf(fb, FB_KEY, &b);
		}
	}
	for (i = 0; i < n; i++) {
		if (i < shown) {
			cJSON *o = cJSON_CreateObject();
			const char *keys[] = { "name", "type", "section", "speedup_type" };

			for (j = 0; j < 4; j++) {
				const char *s = kf_str(v[i].r, keys[j]);

				cJSON_AddItemToObject(o, keys[j], s ? cJSON_CreateString(s) : cJSON_CreateNull());
			}
			cJSON_AddItemToObject(o, "speedup", kf_json_num(v[i].has_speedup ? v[i].speedup : NAN));
			cJSON_AddStringToObject(o, "description", v[i].desc);
			kf_core_advice(fb, "ncu", "rule", kf_str(v[i].r, "name"), kf_str(v[i].r, "type"),
			    v[i].has_speedup ? v[i].speedup : NAN, kf_str(v[i].r, "speedup_type"),
			    v[i].desc, kf_str(v[i].r, "section"));
			if (v[i].nalt)
				cJSON_AddItemToObject(o, "units", rule_units(&v[i]));
			cJSON_AddItemToArray(arr, o);
		}
		for (j = 0; j < v[i].nalt; j++)
			free(v[i].alt[j].desc);
		free(v[i].alt);
		free(v[i].desc);
	}
	free(v);
}

/* The pipe ncu's HighPipeUtilization rule names ("FMA is the
 * highest-utilized pipeline (60.6%)"), as ncu_roof.c's unit, and its
 * share: 1, or 0 when the rule names none. */
int
ncu_rule_pipe(const cJSON *k, const char **unit, char *name, size_t nname, double *pct)
{
	static const struct { const char *ncu, *unit; } pipes[] = {
		{ "FMA", "fma" }, { "ALU", "alu" }, { "FP64", "fp64" }, { "XU", "xu" },
		{ "LSU", "lsu" }, { "Tensor", "tensor" }, { "FP16", "fma" },
	};
	const cJSON *r = find_rule(k, "HighPipeUtilization");
	const char *d = r ? kf_str(r, "description") : NULL, *q;
	char word[32];
	size_t i;

	if (d == NULL || (q = strstr(d, " is the highest-utilized pipeline (")) == NULL ||
	    sscanf(q, " is the highest-utilized pipeline (%lf%%)", pct) != 1 ||
	    sscanf(d, "%31s", word) != 1)
		return 0;
	/* The Shared pipe is the sum of FP64 and tensor pipes: the rule says
	 * which sub-pipeline dominates it. */
	if (strcmp(word, "Shared") == 0 && (q = strstr(d, "dominated by its ")) != NULL)
		sscanf(q, "dominated by its %31s", word);
	*unit = NULL;
	for (i = 0; i < sizeof pipes / sizeof pipes[0]; i++)
		if (strncmp(word, pipes[i].ncu, strlen(pipes[i].ncu)) == 0)
			*unit = pipes[i].unit;
	snprintf(name, nname, "%s", word);
	return 1;
}

/* ncu's own estimate for a latency-bound launch: the best of its rules
 * on issue slots and stalls. */
int
ncu_rule_latency(const cJSON *k, const char **name, double *v)
{
	static const char *const names[] = { "CPIStall", "IssueSlotUtilization" };
	double x;
	size_t i;
	int found = 0;

	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (ncu_rule_speedup(k, names[i], &x) && (!found || x > *v)) {
			*v = x;
			*name = names[i];
			found = 1;
		}
	return found;
}

/* What uncoalesced global accesses (shared: shared-memory bank conflicts)
 * cost, as ncu's UncoalescedGlobalAccess (UncoalescedSharedAccess) rule
 * estimates it, for a record without the rule (a collection without
 * SourceCounters, kf-wrap ncu --sampled-source's): the share of the L2
 * sectors (shared wavefronts) beyond the ideal, times the share of the run
 * L2 (L1/TEX) was active. Its evidence's words in *how. */
static int
access_estimate(const cJSON *k, int shared, double *v, const char **how)
{
	static const char *const m[2][4] = {
		{ "memory_l2_theoretical_sectors_global",
		  "derived__memory_l2_theoretical_sectors_global_excessive",
		  "lts__cycles_active.sum", "lts__cycles_elapsed.sum" },
		{ "memory_l1_wavefronts_shared", "derived__memory_l1_wavefronts_shared_excessive",
		  "l1tex__cycles_active.sum", "l1tex__cycles_elapsed.sum" },
	};
	double total, excess, active, elapsed;

	if (!ncu_in(k, m[shared][0], &total) || !ncu_in(k, m[shared][1], &excess) ||
	    !ncu_in(k, m[shared][2], &active) || !ncu_in(k, m[shared][3], &elapsed) ||
	    !(total > 0) || !(excess > 0) || !(elapsed > 0))
		return 0;
	*v = 100 * (active / elapsed) * (excess / total);
	*how = shared ? "100 x l1tex__cycles_active.sum / l1tex__cycles_elapsed.sum x "
	    "derived__memory_l1_wavefronts_shared_excessive / memory_l1_wavefronts_shared "
	    "(the wavefronts its accesses waste, as ncu's UncoalescedSharedAccess rule "
	    "estimates it; ncu gave no such rule; more than the headroom to the level's roof)" :
	    "100 x lts__cycles_active.sum / lts__cycles_elapsed.sum x "
	    "derived__memory_l2_theoretical_sectors_global_excessive / "
	    "memory_l2_theoretical_sectors_global (the sectors its accesses waste, as ncu's "
	    "UncoalescedGlobalAccess rule estimates it; ncu gave no such rule; more than the "
	    "headroom to the level's roof)";
	return 1;
}

void
ncu_limiter_rules(struct kf_diag *d, const cJSON *k)
{
	/* own: the rule's estimate kf makes itself without it (-1: none) */
	static const struct { const char *unit, *rule; enum kf_find_kind cause; int own; } t[] = {
		{ "l1", "MemoryCacheAccessPattern", KF_UNCOALESCED_GLOBAL, -1 },
		{ "l1", "UncoalescedGlobalAccess", KF_UNCOALESCED_GLOBAL, 0 },
		{ "l2", "MemoryCacheAccessPattern", KF_UNCOALESCED_GLOBAL, -1 },
		{ "l2", "UncoalescedGlobalAccess", KF_UNCOALESCED_GLOBAL, 0 },
		{ "dram", "MemoryCacheAccessPattern", KF_UNCOALESCED_GLOBAL, -1 },
		{ "dram", "UncoalescedGlobalAccess", KF_UNCOALESCED_GLOBAL, 0 },
		{ "shared", "UncoalescedSharedAccess", KF_SHARED_BANK_CONFLICT, 1 },
	};
	struct kf_finding *f = kf_diag_find(d, KF_MEMORY_BOUND);
	const char *how;
	double v;
	size_t i;

	for (i = 0; f && f->unit && i < sizeof t / sizeof t[0]; i++) {
		if (strcmp(f->unit, t[i].unit) != 0 || kf_diag_find(d, t[i].cause) != NULL)
			continue;
		if (ncu_rule_speedup(k, t[i].rule, &v)) {
			if (v > f->impact_pct)
				kf_finding_impact(f, v, "ncu's %s rule's estimated speedup (the "
				    "bytes its accesses waste; more than the headroom to the level's "
				    "roof)", t[i].rule);
		} else if (t[i].own >= 0 &&
		    access_estimate(k, t[i].own, &v, &how) && v > f->impact_pct)
			kf_finding_impact(f, v, "%s", how);
	}
}
