/* Before and after: one record's analysis against its baseline record's.
 * Every number said comes from the two analyses; a time is only called
 * faster or slower beyond the noise threshold, a share of peak only said to
 * have moved beyond KF_MOVE_PTS points. Fields absent on either side (roof,
 * source_lines, a metric the profiler did not give) are left out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "buf.h"
#include "delta.h"
#include "delta_int.h"
#include "err.h"
#include "mem.h"
#include "num.h"
#include "profiler.h"
#include "record.h"

struct kent {
	const char *name;
	double ns;
	int used;
};

struct cmp {
	const struct kf_baseline *b;
	const struct kf_cmp *p;
	const cJSON *before, *after;	/* the analyses */
	const struct kf_diag *diag;	/* after's findings, not yet in it */
	cJSON *delta;
	struct buf moved;		/* "What moved" lines */
	int top;
	int complete_before, complete_after;	/* the ranking lists every kernel */
};

/* Values */

static const cJSON *
at(const cJSON *o, const char *path)
{
	char key[64];
	const char *s = path, *e;

	while (o && *s) {
		size_t n;

		e = strchr(s, '/');
		n = e ? (size_t)(e - s) : strlen(s);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, s, n);
		key[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		s += n + (e != NULL);
	}
	return o;
}

static int
num_at(const cJSON *o, const char *path, double *v)
{
	const cJSON *x = at(o, path);

	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return 0;
	*v = x->valuedouble;
	return 1;
}

static cJSON *
pair(double before, double after)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "before", before);
	cJSON_AddNumberToObject(o, "after", after);
	return o;
}

/* The noise on a time of ns: the larger of noise_pct of it and the floor
 * (kf-feedback(1): short launches vary by a fixed amount more than by a
 * share). */
static double
noise_ns(double ns, double noise_pct)
{
	double rel = fabs(ns) * noise_pct / 100;

	return rel > KF_NOISE_FLOOR_NS ? rel : KF_NOISE_FLOOR_NS;
}

/* faster, slower, unchanged (within noise), or NULL when not comparable. */
static const char *
verdict(double before, double after, double noise_pct)
{
	if (!(before > 0) || !(after > 0))
		return NULL;
	if (fabs(after - before) <= noise_ns(before, noise_pct))
		return "unchanged";
	return after < before ? "faster" : "slower";
}

/* "1.31x faster in total GPU time (3.13 ms -> 2.38 ms)"; what may be "". */
static void
say_change(struct buf *b, double before, double after, const char *v, double noise,
    const char *what)
{
	if (v == NULL) {
		buf_printf(b, "not comparable%s", what);
	} else if (strcmp(v, "faster") == 0) {
		buf_printf(b, "%.2fx faster%s", before / after, what);
	} else if (strcmp(v, "slower") == 0) {
		buf_printf(b, "%.2fx slower%s", after / before, what);
	} else if (noise_ns(before, noise) > KF_NOISE_FLOOR_NS) {
		buf_printf(b, "unchanged%s within the %.3g%% noise", what, noise);
	} else {
		buf_printf(b, "unchanged%s within the noise of ", what);
		kf_fmt_ns(b, KF_NOISE_FLOOR_NS);
	}
	buf_puts(b, " (");
	kf_fmt_ns(b, before);
	buf_puts(b, " -> ");
	kf_fmt_ns(b, after);
	buf_putc(b, ')');
}

static const cJSON *
focus_of(const cJSON *a)
{
	return kf_obj(a, "focus");
}

static const cJSON *
kernel_named(const cJSON *a, const char *name)
{
	const cJSON *k;

	cJSON_ArrayForEach(k, kf_arr(a, "kernels"))
		if (kf_str(k, "name") && strcmp(kf_str(k, "name"), name) == 0)
			return k;
	return NULL;
}

static char *
short_name(const char *name)
{
	return kf_kernel_short(name ? name : "unnamed kernel", 60);
}

/* Total GPU time and the verdict */

static void
say_total(struct cmp *c, struct buf *head)
{
	double before, after, noise = c->b->noise_pct;
	int ok = num_at(c->before, "ranking/total_ns", &before) &&
	    num_at(c->after, "ranking/total_ns", &after);
	const char *v = ok ? verdict(before, after, noise) : NULL;

	buf_printf(head, "Compared with the baseline (%s): ", c->b->path);
	if (!ok) {
		buf_puts(head, "the total GPU time is missing from one of the two analyses, "
		    "so there is no verdict.");
		cJSON_AddNullToObject(c->delta, "total_gpu_time_ns");
		cJSON_AddNullToObject(c->delta, "speedup");
		cJSON_AddNullToObject(c->delta, "verdict");
		return;
	}
	say_change(head, before, after, v, noise, " in total GPU time");
	buf_putc(head, '.');
	cJSON_AddItemToObject(c->delta, "total_gpu_time_ns", pair(before, after));
	if (v)
		cJSON_AddNumberToObject(c->delta, "speedup", before / after);
	else
		cJSON_AddNullToObject(c->delta, "speedup");
	if (v)
		cJSON_AddStringToObject(c->delta, "verdict", v);
	else
		cJSON_AddNullToObject(c->delta, "verdict");
}

/* Metrics of one kernel, in the profiler's terms */

/* o[path] = v, making the objects on the way: the delta mirrors the
 * analysis's shape with {before, after} leaves. */
static void
set_at(cJSON *o, const char *path, cJSON *v)
{
	const char *e;

	while ((e = strchr(path, '/')) != NULL) {
		char *key = xstrndup(path, (size_t)(e - path));
		cJSON *sub = cJSON_GetObjectItemCaseSensitive(o, key);

		if (!cJSON_IsObject(sub))
			sub = cJSON_AddObjectToObject(o, key);
		free(key);
		o = sub;
		path = e + 1;
	}
	kf_set(o, path, v);
}

static void
sep(struct buf *b)
{
	if (b->len)
		buf_puts(b, ", ");
}

/* One metric: into o, and into moved or same for the text. */
static void
compare_metric(const struct kf_cmp_metric *m, const cJSON *kb, const cJSON *ka, cJSON *o,
    struct buf *moved, struct buf *same, double noise)
{
	double vb, va;

	if (m->kind == KF_CMP_STR) {
		const cJSON *sb = at(kb, m->path), *sa = at(ka, m->path);
		cJSON *p;

		if (!cJSON_IsString(sb) || !cJSON_IsString(sa))
			return;
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "before", sb->valuestring);
		cJSON_AddStringToObject(p, "after", sa->valuestring);
		set_at(o, m->path, p);
		if (strcmp(sb->valuestring, sa->valuestring) != 0) {
			sep(moved);
			buf_printf(moved, "%s %s -> %s", m->label, sb->valuestring, sa->valuestring);
		} else {
			sep(same);
			buf_printf(same, "%s (%s)", m->label, sa->valuestring);
		}
		return;
	}
	if (!num_at(kb, m->path, &vb) || !num_at(ka, m->path, &va))
		return;
	set_at(o, m->path, pair(vb, va));
	if ((m->kind == KF_CMP_PCT && fabs(va - vb) >= KF_MOVE_PTS) ||
	    (m->kind == KF_CMP_NUM && va != vb) ||
	    (m->kind == KF_CMP_GBPS && fabs(va - vb) > fabs(vb) * noise / 100)) {
		sep(moved);
		if (m->kind == KF_CMP_PCT)
			buf_printf(moved, "%s %.1f%% -> %.1f%%", m->label, vb, va);
		else if (m->kind == KF_CMP_GBPS)
			buf_printf(moved, "%s %.1f GB/s -> %.1f GB/s", m->label, vb, va);
		else
			buf_printf(moved, "%s %.4g -> %.4g", m->label, vb, va);
	} else {
		sep(same);
		buf_puts(same, m->label);
	}
}

/* VTune's stall reasons: every "stall_REASON_pct" of the after side. */
static void
compare_stalls(const cJSON *kb, const cJSON *ka, cJSON *o, struct buf *moved,
    struct buf *same, double noise)
{
	const cJSON *x;

	cJSON_ArrayForEach(x, ka) {
		const char *k = x->string;
		size_t n = k ? strlen(k) : 0;
		struct kf_cmp_metric m;
		char *label;

		if (n < 11 || !kf_startswith(k, "stall_") || !kf_endswith(k, "_pct"))
			continue;
		label = xasprintf("%.*s stalls", (int)(n - 10), k + 6);
		m.path = k;
		m.label = label;
		m.kind = KF_CMP_PCT;
		compare_metric(&m, kb, ka, o, moved, same, noise);
		free(label);
	}
}

static void
say_metrics(struct cmp *c, const cJSON *kb, const cJSON *ka, cJSON *o)
{
	struct buf moved = {0}, same = {0};
	const struct kf_cmp_metric *m;

	for (m = c->p ? c->p->m : NULL; m && m->path; m++)
		compare_metric(m, kb, ka, o, &moved, &same, c->b->noise_pct);
	if (c->p && c->p->stalls)
		compare_stalls(kb, ka, o, &moved, &same, c->b->noise_pct);
	if (moved.len)
		buf_printf(&c->moved, "\n- Its metrics that moved: %s.", moved.s);
	if (same.len)
		buf_printf(&c->moved, "\n- Unchanged (the same, or shares of peak within %.3g points): %s.",
		    KF_MOVE_PTS, same.s);
	buf_free(&moved);
	buf_free(&same);
}

/* The focus kernel: its time, then its metrics. */
static void
say_focus(struct cmp *c)
{
	const cJSON *kb = focus_of(c->before), *ka = focus_of(c->after);
	const char *nb = kf_str(kb, "name"), *na = kf_str(ka, "name");
	double tb, ta;
	char *sb, *sa;
	cJSON *o;

	if (kb == NULL || ka == NULL || !num_at(kb, "time_ns", &tb) || !num_at(ka, "time_ns", &ta)) {
		cJSON_AddNullToObject(c->delta, "focus_duration_ns");
		if (kb == NULL || ka == NULL)
			return;
		tb = ta = NAN;
	} else {
		cJSON_AddItemToObject(c->delta, "focus_duration_ns", pair(tb, ta));
	}
	o = cJSON_AddObjectToObject(c->delta, "focus");
	sb = short_name(nb);
	sa = short_name(na);
	cJSON_AddStringToObject(o, "name", na ? na : "");
	cJSON_AddStringToObject(o, "baseline_name", nb ? nb : "");
	cJSON_AddStringToObject(o, "matched_by", nb && na && strcmp(nb, na) == 0 ? "name" : "time");
	buf_printf(&c->moved, "\n- Focus kernel %s", sa);
	if (nb && na && strcmp(nb, na) != 0)
		buf_printf(&c->moved, " (names differ: the baseline's focus was %s; compared as "
		    "the kernels the feedback focuses on)", sb);
	if (isfinite(tb)) {
		const char *v = verdict(tb, ta, c->b->noise_pct);

		buf_printf(&c->moved, ", %s: ", kf_str(ka, "time_label") ? kf_str(ka, "time_label") :
		    "time");
		say_change(&c->moved, tb, ta, v, c->b->noise_pct, "");
		if (v)
			cJSON_AddStringToObject(o, "verdict", v);
	} else {
		buf_puts(&c->moved, "; its time is missing from one of the two analyses");
	}
	buf_putc(&c->moved, '.');
	say_metrics(c, kb, ka, o);
	free(sb);
	free(sa);
}

/* Kernels, matched by name, else by their rank in GPU time */

static int
ranking_complete(const cJSON *a)
{
	double n;

	return num_at(a, "ranking/kernel_count", &n) &&
	    n <= cJSON_GetArraySize(at(a, "ranking/kernels"));
}

static struct kent *
kents(const cJSON *a, size_t *n)
{
	struct kent *v = NULL;
	const cJSON *k;
	double ns;

	*n = 0;
	cJSON_ArrayForEach(k, at(a, "ranking/kernels")) {
		if (kf_str(k, "name") == NULL || !num_at(k, "total_ns", &ns))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof *v);
		v[*n].name = kf_str(k, "name");
		v[*n].ns = ns;
		v[*n].used = 0;
		(*n)++;
	}
	return v;
}

static cJSON *
kernel_pair(struct cmp *c, const struct kent *kb, const struct kent *ka, const char *by,
    struct buf *t)
{
	cJSON *o = cJSON_CreateObject();
	const char *v = kb && ka ? verdict(kb->ns, ka->ns, c->b->noise_pct) : NULL;
	char *s = short_name(ka ? ka->name : kb->name);

	cJSON_AddStringToObject(o, "name", ka ? ka->name : kb->name);
	if (kb && ka && strcmp(kb->name, ka->name) != 0)
		cJSON_AddStringToObject(o, "baseline_name", kb->name);
	if (by)
		cJSON_AddStringToObject(o, "matched_by", by);
	else
		cJSON_AddNullToObject(o, "matched_by");
	/* A kernel outside the other run's top --top may still have run. */
	if (kb == NULL)
		v = c->complete_before ? "new" : "entered_top";
	else if (ka == NULL)
		v = c->complete_after ? "gone" : "left_top";
	if (kb && ka)
		cJSON_AddItemToObject(o, "total_ns", pair(kb->ns, ka->ns));
	else
		cJSON_AddNumberToObject(o, ka ? "after_ns" : "before_ns", ka ? ka->ns : kb->ns);
	cJSON_AddItemToObject(o, "verdict", v ? cJSON_CreateString(v) : cJSON_CreateNull());
	buf_printf(t, "\n  - %s", s);
	if (kb && ka && strcmp(by, "time") == 0) {
		char *sb = short_name(kb->name);

		buf_printf(t, " (was %s: names differ, matched by GPU time)", sb);
		free(sb);
	}
	buf_puts(t, ": ");
	if (kb && ka) {
		say_change(t, kb->ns, ka->ns, v, c->b->noise_pct, "");
	} else {
		if (strcmp(v, "new") == 0 || strcmp(v, "gone") == 0)
			buf_puts(t, ka ? "new, " : "gone, it took ");
		else
			buf_printf(t, ka ? "new in the top %d, " : "left the top %d, it took ",
			    c->top);
		kf_fmt_ns(t, ka ? ka->ns : kb->ns);
	}
	free(s);
	return o;
}

/* Extra per-kernel numbers in the profiler's terms (median time, bound). */
static void
kernel_terms(struct cmp *c, cJSON *o, const char *nb, const char *na, struct buf *t)
{
	const cJSON *kb = kernel_named(c->before, nb), *ka = kernel_named(c->after, na);
	struct buf moved = {0}, same = {0};
	const struct kf_cmp_metric *m;
	double tb, ta;

	if (kb == NULL || ka == NULL || c->p == NULL)
		return;
	if (c->p->kernel_terms && num_at(kb, "time_ns", &tb) && num_at(ka, "time_ns", &ta)) {
		set_at(o, "time_ns", pair(tb, ta));
		buf_printf(t, "; %s ", kf_str(ka, "time_label") ? kf_str(ka, "time_label") : "time");
		kf_fmt_ns(t, tb);
		buf_puts(t, " -> ");
		kf_fmt_ns(t, ta);
	}
	for (m = c->p->m; m->path; m++)
		if (m->kind == KF_CMP_STR)
			compare_metric(m, kb, ka, o, &moved, &same, c->b->noise_pct);
	if (moved.len)
		buf_printf(t, "; %s", moved.s);
	buf_free(&moved);
	buf_free(&same);
}

/* A rewrite renames its kernel: when names differ, the kernels that carry
 * the time are taken for each other (and the text says so), but only where
 * that is unambiguous: the one kernel left unmatched on each side, or the
 * kernels with the most GPU time of both runs. Others are new or gone. */
static void
match_by_time(struct kent *kb, size_t nb, struct kent *ka, size_t na, size_t *pair_of)
{
	size_t i, j, ub = 0, ua = 0, lb = nb, la = na;

	for (j = 0; j < nb; j++)
		if (!kb[j].used && ub++ == 0)
			lb = j;
	for (i = 0; i < na; i++)
		if (pair_of[i] == nb && ua++ == 0)
			la = i;
	if (ub == 0 || ua == 0 || !((ub == 1 && ua == 1) || (lb == 0 && la == 0)))
		return;
	pair_of[la] = lb;
	kb[lb].used = 1;
}

static void
say_kernels(struct cmp *c)
{
	size_t nb, na, i, j, *pair_of;
	struct kent *kb = kents(c->before, &nb), *ka = kents(c->after, &na);
	cJSON *arr = cJSON_AddArrayToObject(c->delta, "kernels"), *o;
	struct buf t = {0};

	c->complete_before = ranking_complete(c->before);
	c->complete_after = ranking_complete(c->after);
	pair_of = xcalloc(na + 1, sizeof *pair_of);
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb && (kb[j].used || strcmp(kb[j].name, ka[i].name)); j++)
			;
		pair_of[i] = j;
		if (j < nb)
			kb[j].used = 1;
	}
	match_by_time(kb, nb, ka, na, pair_of);
	for (i = 0; i < na; i++) {
		j = pair_of[i];
		o = kernel_pair(c, j < nb ? &kb[j] : NULL, &ka[i], j == nb ? NULL :
		    strcmp(kb[j].name, ka[i].name) == 0 ? "name" : "time", &t);
		if (j < nb)
			kernel_terms(c, o, kb[j].name, ka[i].name, &t);
		cJSON_AddItemToArray(arr, o);
	}
	for (j = 0; j < nb; j++)
		if (!kb[j].used)
			cJSON_AddItemToArray(arr, kernel_pair(c, &kb[j], NULL, NULL, &t));
	if (na > 1 || nb > 1)
		buf_printf(&c->moved, "\n- Kernels by total GPU time (the top %d of each run):%s",
		    c->top, t.s);
	buf_free(&t);
	free(pair_of);
	free(kb);
	free(ka);
}

/* The profiler's advice (analysis.advice: ncu's rules, VTune's
 * recommendations): resolved, new, changed, by name. */

static const cJSON *
advice_named(const cJSON *list, const char *name)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, list)
		if (kf_str(r, "name") && strcmp(kf_str(r, "name"), name) == 0)
			return r;
	return NULL;
}

/* " (estimated global speedup 12.5%)" and the like, or nothing. */
static void
speedup_text(struct buf *b, const cJSON *r, const char *open, const char *close)
{
	const char *st = kf_str(r, "speedup_type");
	double sp;

	if (num_at(r, "speedup_pct", &sp)) {
		buf_printf(b, "%sestimated %s%sspeedup ", open, st ? st : "", st ? " " : "");
		kf_fmt_pct(b, sp);
		buf_puts(b, close);
	}
}

static void
advice_text(struct buf *b, const cJSON *r)
{
	const char *type = kf_str(r, "type");
	double sp;

	sep(b);
	buf_puts(b, kf_str(r, "name"));
	if (type)
		buf_printf(b, " [%s", type);
	speedup_text(b, r, type ? ", " : " [", "");
	if (type || num_at(r, "speedup_pct", &sp))
		buf_putc(b, ']');
}

/* r, advice of one run, came from a section (ncu's) that the other run's
 * analysis says it did not collect: its absence there says nothing. */
static int
uncollected(const cJSON *r, const cJSON *other)
{
	const cJSON *secs = cJSON_GetObjectItemCaseSensitive(other, "sections"), *s;
	const char *sec = kf_str(r, "section");

	if (sec == NULL || !cJSON_IsArray(secs))
		return 0;
	cJSON_ArrayForEach(s, secs)
		if (cJSON_IsString(s) && strcmp(s->valuestring, sec) == 0)
			return 0;
	return 1;
}

/* Names in a that b lacks, into arr and text t; those from a section the
 * other analysis did not collect into unc (reported_in: in) and text u. */
static void
advice_only(const cJSON *a, const cJSON *b, const cJSON *other, cJSON *arr, struct buf *t,
    cJSON *unc, struct buf *u, const char *in)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, a) {
		const char *n = kf_str(r, "name");

		if (n == NULL || advice_named(b, n))
			continue;
		if (uncollected(r, other)) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "name", n);
			cJSON_AddStringToObject(o, "section", kf_str(r, "section"));
			cJSON_AddStringToObject(o, "reported_in", in);
			cJSON_AddItemToArray(unc, o);
			sep(u);
			buf_printf(u, "%s (%s)", n, kf_str(r, "section"));
			continue;
		}
		cJSON_AddItemToArray(arr, cJSON_CreateString(n));
		advice_text(t, r);
	}
}

static void
advice_changed(const cJSON *rb, const cJSON *ra, cJSON *arr, struct buf *t)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, ra) {
		const char *n = kf_str(r, "name"), *ta = kf_str(r, "type"), *tb;
		const cJSON *old = n ? advice_named(rb, n) : NULL;
		cJSON *o, *ty;

		if (old == NULL || (tb = kf_str(old, "type")) == NULL || ta == NULL ||
		    strcmp(ta, tb) == 0)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", n);
		ty = cJSON_AddObjectToObject(o, "type");
		cJSON_AddStringToObject(ty, "before", tb);
		cJSON_AddStringToObject(ty, "after", ta);
		cJSON_AddItemToArray(arr, o);
		sep(t);
		buf_printf(t, "%s %s -> %s", n, tb, ta);
		speedup_text(t, r, " (", ")");
	}
}

static void
say_advice(struct cmp *c)
{
	const cJSON *rb = kf_arr(c->before, "advice"), *ra = kf_arr(c->after, "advice");
	const char *what = kf_core_advice_word(ra && ra->child ? ra : rb);
	struct buf res = {0}, nw = {0}, ch = {0}, ub = {0}, ua = {0};
	cJSON *o, *unc;

	if (rb == NULL || ra == NULL)
		return;
	o = cJSON_AddObjectToObject(c->delta, "advice");
	unc = cJSON_CreateArray();
	advice_only(rb, ra, c->after, cJSON_AddArrayToObject(o, "resolved"), &res, unc, &ub,
	    "baseline");
	advice_only(ra, rb, c->before, cJSON_AddArrayToObject(o, "new"), &nw, unc, &ua,
	    "this_run");
	advice_changed(rb, ra, cJSON_AddArrayToObject(o, "changed"), &ch);
	cJSON_AddItemToObject(o, "not_compared", unc);
	if (res.len)
		buf_printf(&c->moved, "\n- %c%s resolved (no longer reported): %s.",
		    what[0] - 32, what + 1, res.s);
	if (nw.len)
		buf_printf(&c->moved, "\n- New %s: %s.", what, nw.s);
	if (ch.len)
		buf_printf(&c->moved, "\n- %c%s whose type changed: %s.", what[0] - 32, what + 1, ch.s);
	/* a rule of a section one run did not collect is neither gone nor new */
	if (ub.len)
		buf_printf(&c->moved, "\n- %c%s of the baseline not compared, their section not "
		    "collected in this run: %s.", what[0] - 32, what + 1, ub.s);
	if (ua.len)
		buf_printf(&c->moved, "\n- %c%s of this run not compared, their section not "
		    "collected in the baseline: %s.", what[0] - 32, what + 1, ua.s);
	if (!res.len && !nw.len && !ch.len && !ub.len && !ua.len && cJSON_GetArraySize(ra) > 0)
		buf_printf(&c->moved, "\n- The same %d %s as in the baseline.",
		    cJSON_GetArraySize(ra), what);
	buf_free(&res);
	buf_free(&nw);
	buf_free(&ch);
	buf_free(&ub);
	buf_free(&ua);
}

/* Roofline position and hot source lines, when both analyses have them */

/* "552 GB/s", "5.49 TFLOP/s": v in the unit that fits. */
static void
fmt_rate(struct buf *b, double v, const char *unit)
{
	static const char *const pre[] = { "", "k", "M", "G", "T", "P" };
	size_t i = 0;

	while (fabs(v) >= 1000 && i + 1 < sizeof pre / sizeof pre[0])
		v /= 1000, i++;
	buf_printf(b, "%.3g %s%s", v, pre[i], unit);
}

/* "memory-bound at 11.5% of its roof": the roof's bound, its first point's
 * share of the roof. */
static void
roof_pos(struct buf *b, const cJSON *r)
{
	double pct;

	buf_printf(b, "%s-bound", kf_str(r, "bound") ? kf_str(r, "bound") : "?");
	if (num_at(cJSON_GetArrayItem(at(r, "points"), 0), "pct_of_roof", &pct))
		buf_printf(b, " at %.1f%% of its roof", pct);
}

/* A unit of the core's limiter as the text names it: "l2" is "L2". */
static void
put_unit(struct buf *b, const char *unit)
{
	size_t i, n = strlen(unit);

	for (i = 0; i < n; i++)
		buf_putc(b, n <= 4 && unit[i] >= 'a' && unit[i] <= 'z' ? unit[i] - 32 : unit[i]);
}

/* The limiter before and after: "; closest to its peak: L2 82.9% -> L2 82.9%";
 * a change of unit where either run's limiter had a tie (limiter.tie)
 * says so. */
static void
say_limiter(struct cmp *c, cJSON *o, struct buf *t)
{
	const cJSON *lb = kf_obj(focus_of(c->before), "limiter");
	const cJSON *la = kf_obj(focus_of(c->after), "limiter");
	double x, y;
	int tb, ta;

	if (!kf_str(lb, "unit") || !kf_str(la, "unit") || !num_at(lb, "pct", &x) ||
	    !num_at(la, "pct", &y))
		return;
	set_at(o, "limiter", cJSON_CreateStringArray((const char *[]){
	    kf_str(lb, "unit"), kf_str(la, "unit") }, 2));
	set_at(o, "limiter_pct", pair(x, y));
	buf_puts(t, "; closest to its peak: ");
	put_unit(t, kf_str(lb, "unit"));
	buf_printf(t, " %.1f%% -> ", x);
	put_unit(t, kf_str(la, "unit"));
	buf_printf(t, " %.1f%%", y);
	tb = kf_obj(lb, "tie") != NULL;
	ta = kf_obj(la, "tie") != NULL;
	if (tb || ta) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddBoolToObject(p, "before", tb);
		cJSON_AddBoolToObject(p, "after", ta);
		set_at(o, "limiter_tie", p);
	}
	if (strcmp(kf_str(lb, "unit"), kf_str(la, "unit")) != 0 && (tb || ta))
		buf_printf(t, " (%s had a unit of the other side within a few points "
		    "(limiter.tie): the kernel is at both limits, and which one leads can change "
		    "from run to run)", tb && ta ? "both runs" : tb ? "the baseline" : "this run");
}

/* The focus's roof (analysis.h): its bound, and its first point's place,
 * performance and memory traffic. */
static void
say_roof(struct cmp *c)
{
	static const char *const nums[] = {
		"intensity", "performance", "bytes_per_s", "pct_of_roof",
	};
	const cJSON *rb = kf_obj(focus_of(c->before), "roof");
	const cJSON *ra = kf_obj(focus_of(c->after), "roof");
	const cJSON *qb = cJSON_GetArrayItem(at(rb, "points"), 0);
	const cJSON *qa = cJSON_GetArrayItem(at(ra, "points"), 0);
	const char *bb = kf_str(rb, "bound"), *ba = kf_str(ra, "bound");
	const char *name = kf_str(qa, "label"), *mem = kf_str(ra, "memory_name");
	const char *yu = kf_str(ra, "y_unit");
	double x, y, fb = 0, fa = 0, db = 0, da = 0, pb = 0, pa = 0;
	struct buf t = {0};
	cJSON *o;
	size_t i;

	if (qb == NULL || qa == NULL)
		return;
	o = cJSON_AddObjectToObject(c->delta, "roof");
	for (i = 0; i < sizeof nums / sizeof nums[0]; i++)
		if (num_at(qb, nums[i], &x) && num_at(qa, nums[i], &y))
			set_at(o, nums[i], pair(x, y));
	if (bb && ba)
		set_at(o, "bound", cJSON_CreateStringArray((const char *[]){ bb, ba }, 2));
	num_at(qb, "pct_of_roof", &pb);
	num_at(qa, "pct_of_roof", &pa);
	num_at(qb, "performance", &fb);
	num_at(qa, "performance", &fa);
	num_at(qb, "bytes_per_s", &db);
	num_at(qa, "bytes_per_s", &da);
	if (name == NULL || *name == '\0')
		name = kf_str(cJSON_GetArrayItem(at(ra, "compute_peaks"), 0), "name");
	if (fabs(pa - pb) < KF_MOVE_PTS && strcmp(bb ? bb : "", ba ? ba : "") == 0) {
		buf_puts(&c->moved, "\n- Roofline position unchanged: ");
		roof_pos(&c->moved, ra);
		buf_putc(&c->moved, '.');
		say_limiter(c, o, &t);
		buf_free(&t);
		return;
	}
	roof_pos(&t, rb);
	buf_puts(&t, " -> ");
	roof_pos(&t, ra);
	buf_printf(&t, "; %s ", mem ? mem : "memory");
	fmt_rate(&t, db, "B/s");
	buf_puts(&t, " -> ");
	fmt_rate(&t, da, "B/s");
	if (fb > 0 || fa > 0) {
		buf_printf(&t, "; %s ", name ? name : "");
		fmt_rate(&t, fb, yu ? yu : "");
		buf_puts(&t, " -> ");
		fmt_rate(&t, fa, yu ? yu : "");
	}
	say_limiter(c, o, &t);
	buf_printf(&c->moved, "\n- Roofline: %s.", t.s);
	buf_free(&t);
}

/* "bench.cu:80": a hot source line's file (its last part) and line, the
 * same across runs from other folders; NULL when it has no line. */
static char *
line_id(const cJSON *l)
{
	const char *f = kf_str(l, "file"), *slash;
	double n;

	if (!num_at(l, "line", &n))
		return NULL;
	if (f && (slash = strrchr(f, '/')) != NULL)
		f = slash + 1;
	return xasprintf("%s:%.0f", f ? f : "line", n);
}

/* The line of lines with id, or NULL. */
static const cJSON *
find_line(const cJSON *lines, const char *id)
{
	const cJSON *l;

	cJSON_ArrayForEach(l, lines) {
		char *x = line_id(l);
		int same = x && strcmp(x, id) == 0;

		free(x);
		if (same)
			return l;
	}
	return NULL;
}

enum { HOT_LINES = 3 };	/* lines compared: the hottest of each run */

/* "bench.cu:93 (33.9% of stall samples, 58.7 M excessive L2 sectors)" */
static void
say_line(struct buf *t, const char *id, const cJSON *l, const char *was)
{
	double pct, ex;

	sep(t);
	buf_printf(t, "%s (%s", id, was);
	if (num_at(l, "stall_pct", &pct))
		buf_printf(t, "%.1f%% of stall samples", pct);
	if (num_at(l, "l2_excessive_sectors", &ex) && ex > 0)
		buf_printf(t, ", %.3g M excessive L2 sectors", ex / 1e6);
	buf_putc(t, ')');
}

/* Lines among the first HOT_LINES of a that are not among b's lines. */
static void
lines_only(const cJSON *a, const cJSON *b, cJSON *arr, struct buf *t, const char *was)
{
	const cJSON *l;
	int k = 0;

	cJSON_ArrayForEach(l, a) {
		char *id = line_id(l);

		if (id && k++ < HOT_LINES && !find_line(b, id)) {
			cJSON_AddItemToArray(arr, cJSON_CreateString(id));
			say_line(t, id, l, was);
		}
		free(id);
	}
}

/* Hot lines in both: their share of stall samples before and after. */
static void
lines_both(const cJSON *lb, const cJSON *la, cJSON *arr, struct buf *t)
{
	const cJSON *l, *m;
	double x, y;
	int k = 0;

	cJSON_ArrayForEach(l, la) {
		char *id = line_id(l);

		if (id && k++ < HOT_LINES && (m = find_line(lb, id)) != NULL &&
		    num_at(m, "stall_pct", &x) && num_at(l, "stall_pct", &y)) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "line", id);
			cJSON_AddItemToObject(e, "stall_pct", pair(x, y));
			cJSON_AddItemToArray(arr, e);
			sep(t);
			buf_printf(t, "%s %.1f%% -> %.1f%% of stall samples", id, x, y);
		}
		free(id);
	}
}

static void
say_lines(struct cmp *c)
{
	const cJSON *lb = kf_arr(focus_of(c->before), "source_lines");
	const cJSON *la = kf_arr(focus_of(c->after), "source_lines");
	struct buf gone = {0}, nw = {0}, both = {0};
	cJSON *o;

	if (lb == NULL || la == NULL || (!cJSON_GetArraySize(lb) && !cJSON_GetArraySize(la)))
		return;
	o = cJSON_AddObjectToObject(c->delta, "source_lines");
	lines_only(la, lb, cJSON_AddArrayToObject(o, "new"), &nw, "");
	lines_only(lb, la, cJSON_AddArrayToObject(o, "gone"), &gone, "was ");
	lines_both(lb, la, cJSON_AddArrayToObject(o, "both"), &both);
	if (both.len)
		buf_printf(&c->moved, "\n- Hot source lines in both: %s.", both.s);
	if (nw.len)
		buf_printf(&c->moved, "\n- Newly hot source lines: %s.", nw.s);
	if (gone.len)
		buf_printf(&c->moved, "\n- No longer among the hot lines: %s.", gone.s);
	buf_free(&gone);
	buf_free(&nw);
	buf_free(&both);
}

/* The sections added since first go before all others. */
static void
to_front(struct kf_fb *fb, size_t first)
{
	size_t k = fb->n - first;
	struct kf_fb_sec *tmp;

	if (k == 0 || first == 0)
		return;
	tmp = xmalloc(k * sizeof *tmp);
	memcpy(tmp, fb->sec + first, k * sizeof *tmp);
	memmove(fb->sec + k, fb->sec, first * sizeof *tmp);
	memcpy(fb->sec, tmp, k * sizeof *tmp);
	free(tmp);
}

/* What is compared for profiler prof: its descriptor's, or NULL. */
static const struct kf_cmp *
pdesc_of(const char *prof)
{
	const struct kf_profiler *p = kf_profiler_find(prof);

	return p ? p->cmp : NULL;
}

static void
compare(struct cmp *c, struct kf_fb *fb)
{
	struct buf head = {0};

	cJSON_AddStringToObject(c->delta, "status", "ok");
	cJSON_AddNumberToObject(c->delta, "noise_pct", c->b->noise_pct);
	cJSON_AddNumberToObject(c->delta, "noise_floor_ns", KF_NOISE_FLOOR_NS);
	say_total(c, &head);
	kf_fb_add_buf(fb, FB_HEAD, &head);
	say_focus(c);
	say_kernels(c);
	kf_delta_levers(c->before, c->after, c->diag, c->delta, &c->moved);
	say_advice(c);
	say_roof(c);
	say_lines(c);
	if (c->moved.len)
		kf_fb_add(fb, FB_KEY, "What moved, against the baseline:%s", c->moved.s);
	buf_free(&c->moved);
}

void
kf_delta(const struct kf_baseline *b, const cJSON *rec, struct kf_fb *fb)
{
	const char *st = kf_str(fb->analysis, "status");
	const char *prof = kf_str(fb->analysis, "profiler");
	struct buf msg = {0};
	size_t first = fb->n;
	struct cmp c;

	if (b == NULL || st == NULL || strcmp(st, "ok") != 0)
		return;
	memset(&c, 0, sizeof c);
	c.b = b;
	c.p = pdesc_of(prof);
	c.after = fb->analysis;
	c.diag = &fb->diag;
	c.top = fb->opt->top;
	c.delta = cJSON_AddObjectToObject(fb->analysis, "delta");
	cJSON_AddStringToObject(c.delta, "baseline", b->path);
	c.before = kf_baseline_find(b, kf_str(rec, "id"), prof, &msg);
	if (c.before == NULL) {
		cJSON_AddStringToObject(c.delta, "status", "no_baseline");
		cJSON_AddStringToObject(c.delta, "message", msg.s);
		if (b->error == NULL) {
			kf_warn("%s: --baseline: %s", kf_where(), msg.s);
			kf_set_failed();
		}
		kf_fb_add(fb, FB_HEAD, "No comparison with the baseline: %s.", msg.s);
	} else {
		compare(&c, fb);
	}
	buf_free(&msg);
	to_front(fb, first);
}
