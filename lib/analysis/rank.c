/* Kernels ranked by their share of GPU time, the framework machinery
 * (share/kf/machinery.tsv) set aside after the program's own kernels, each
 * with a shown name that no other kernel of the ranking shares. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "feedback.h"
#include "program.h"
#include "record.h"
#include "map.h"
#include "buf.h"
#include "err.h"
#include "mem.h"

void
kf_rank_add(struct kf_rank *r, const char *name, double ns, long launches)
{
	struct kf_map *idx = r->index;
	struct kf_map_ent *e;
	int created;
	size_t k;

	if (name == NULL)	/* a record's kernel without one */
		name = "unnamed kernel";
	if (idx == NULL)
		idx = r->index = xcalloc(1, sizeof *idx);
	e = kf_map_slot(idx, name, &created);
	if (created) {
		KF_GROW(r->v, r->n, r->cap, 16);
		memset(&r->v[r->n], 0, sizeof r->v[r->n]);
		r->v[r->n].name = xstrdup(name);
		e->val = (void *)(r->n + 1);
		r->n++;
	}
	k = (size_t)e->val - 1;
	r->v[k].total_ns += ns;
	r->v[k].launches += launches;
	r->total_ns += ns;
	if (launches != 1)
		r->v[k].grouped = 1;
	else if (ns < KF_SHORT_LAUNCH_NS) {
		r->v[k].short_launches++;
		r->v[k].short_ns += ns;
	}
}

static int
by_time(const void *a, const void *b)
{
	const struct kf_rank_ent *x = a, *y = b;

	if ((x->machine == NULL) != (y->machine == NULL))
		return x->machine ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->name, y->name);
}

static void
set_shown(struct kf_rank *r)
{
	const char **names = xcalloc(r->n + 1, sizeof *names);
	char **shown;
	size_t i;

	for (i = 0; i < r->n; i++)
		names[i] = r->v[i].name;
	shown = kf_kernel_shorts(names, r->n, 60);
	for (i = 0; i < r->n; i++) {
		free(r->v[i].shown);
		r->v[i].shown = shown[i];
	}
	free(shown);
	free(names);
}

void
kf_rank_sort(struct kf_rank *r)
{
	struct kf_map *idx = r->index;
	size_t i;
	int created;

	for (i = 0; i < r->n; i++)
		r->v[i].machine = kf_machinery_find(r->v[i].name);
	if (r->n > 1)
		kf_sort(r->v, r->n, sizeof *r->v, by_time);
	/* The index follows the entries to their places. */
	for (i = 0; i < r->n; i++) {
		r->v[i].share = r->total_ns > 0 ? 100 * r->v[i].total_ns / r->total_ns : 0;
		kf_map_slot(idx, r->v[i].name, &created)->val = (void *)(i + 1);
	}
	set_shown(r);
}

const struct kf_rank_ent *
kf_rank_find(const struct kf_rank *r, const char *name, size_t *place)
{
	size_t k = name && r->index ? (size_t)kf_map_get(r->index, name) : 0;

	if (k == 0)
		return NULL;
	/* The program's own kernels come first, machinery after them. */
	if (place)
		*place = r->v[k - 1].machine ? 0 : k;
	return &r->v[k - 1];
}

size_t
kf_rank_own(const struct kf_rank *r)
{
	size_t i, own = 0;

	for (i = 0; i < r->n; i++)
		own += r->v[i].machine == NULL;
	return own;
}

char *
kf_rank_shown(const struct kf_rank *r, const char *name)
{
	const struct kf_rank_ent *e = kf_rank_find(r, name, NULL);

	return e && e->shown ? xstrdup(e->shown) : kf_kernel_short(name ? name : "", 60);
}

static int
matches_name(const char *want, const struct kf_rank_ent *e)
{
	return strcmp(want, e->name) == 0 || strcmp(want, e->shown) == 0 ||
	    fnmatch(want, e->name, 0) == 0 || strcasestr(e->name, want) != NULL;
}

const struct kf_rank_ent *
kf_rank_pick(const struct kf_rank *r, const char *want, enum kf_focus_how *how,
    size_t *matches)
{
	const struct kf_rank_ent *best = NULL;
	size_t i;

	*matches = 0;
	*how = KF_FOCUS_TIME;
	if (want && strcmp(want, "longest") == 0)
		*how = KF_FOCUS_LONGEST;
	else if (want && strcmp(want, "time") != 0) {
		for (i = 0; i < r->n; i++) {
			if (matches_name(want, &r->v[i])) {
				if (best == NULL)
					best = &r->v[i];
				(*matches)++;
			}
		}
		*how = best ? KF_FOCUS_NAMED : KF_FOCUS_UNMATCHED;
	}
	return best ? best : r->n ? &r->v[0] : NULL;
}

const char *
kf_focus_how_name(enum kf_focus_how how)
{
	static const char *const names[] = {
		"most_time", "longest_launch", "named", "unmatched",
	};

	return names[how];
}

static void
put_ent(struct buf *b, double share, double ns, long launches)
{
	kf_fmt_pct(b, share);
	buf_puts(b, ", ");
	kf_fmt_ns(b, ns);
	buf_printf(b, " over %ld launch%s", launches, launches == 1 ? "" : "es");
}

void
kf_rank_text(const struct kf_rank *r, struct buf *b, int top)
{
	size_t i, own = kf_rank_own(r);
	size_t shown = top > 0 && (size_t)top < own ? (size_t)top : own;
	long launches = 0, l = 0;
	double rest = 0;

	for (i = 0; i < r->n; i++)
		launches += r->v[i].launches;
	buf_printf(b, "Kernels by total GPU time (%zu kernel%s, %ld launch%s, ",
	    r->n, r->n == 1 ? "" : "s", launches, launches == 1 ? "" : "es");
	kf_fmt_ns(b, r->total_ns);
	buf_puts(b, " in all):");
	for (i = 0; i < shown; i++) {
		buf_printf(b, "\n%zu. %s: ", i + 1, r->v[i].shown);
		put_ent(b, r->v[i].share, r->v[i].total_ns, r->v[i].launches);
	}
	if (shown < own) {
		for (i = shown; i < own; i++) {
			rest += r->v[i].total_ns;
			l += r->v[i].launches;
		}
		buf_printf(b, "\n   %zu other kernel%s: ", own - shown,
		    own - shown == 1 ? "" : "s");
		put_ent(b, r->total_ns > 0 ? 100 * rest / r->total_ns : 0, rest, l);
	}
	if (own < r->n) {
		for (i = own, rest = 0, l = 0; i < r->n; i++) {
			rest += r->v[i].total_ns;
			l += r->v[i].launches;
		}
		buf_printf(b, "\n   %zu machinery kernel%s set aside: ", r->n - own,
		    r->n - own == 1 ? "" : "s");
		put_ent(b, r->total_ns > 0 ? 100 * rest / r->total_ns : 0, rest, l);
	}
}

void
kf_rank_machinery_text(const struct kf_rank *r, struct buf *b)
{
	size_t i, own = kf_rank_own(r);
	double ns = 0;
	long l = 0;

	if (own == r->n)
		return;
	for (i = own; i < r->n; i++) {
		ns += r->v[i].total_ns;
		l += r->v[i].launches;
	}
	buf_printf(b, "Set aside as framework machinery, not the program's work "
	    "(share/kf/machinery.tsv): %zu kernel%s, ", r->n - own, r->n - own == 1 ? "" : "s");
	put_ent(b, r->total_ns > 0 ? 100 * ns / r->total_ns : 0, ns, l);
	buf_putc(b, ':');
	for (i = own; i < r->n; i++) {
		buf_printf(b, "\n- %s (%s %s): ", r->v[i].shown, r->v[i].machine->framework,
		    r->v[i].machine->what);
		put_ent(b, r->v[i].share, r->v[i].total_ns, r->v[i].launches);
	}
}

static cJSON *
ent_json(const struct kf_rank_ent *e)
{
	cJSON *k = cJSON_CreateObject();

	cJSON_AddStringToObject(k, "name", e->name);
	cJSON_AddStringToObject(k, "short_name", e->shown);
	cJSON_AddNumberToObject(k, "total_ns", e->total_ns);
	cJSON_AddNumberToObject(k, "launches", (double)e->launches);
	cJSON_AddNumberToObject(k, "share_pct", e->share);
	if (e->machine) {
		cJSON_AddStringToObject(k, "framework", e->machine->framework);
		cJSON_AddStringToObject(k, "what", e->machine->what);
	}
	return k;
}

/* "kernels": the top of the program's own kernels; "others": the rest of
 * them summed; "machinery": what was set aside. */
/* The time of the program's own kernels, machinery left out. */
static double
own_ns(const struct kf_rank *r)
{
	double ns = 0;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].machine == NULL)
			ns += r->v[i].total_ns;
	return ns;
}

/* Where e stands: "X% of the profiled GPU time (N launches), rank R of K". */
static void
put_place(const struct kf_rank *r, const struct kf_rank_ent *e, struct buf *b)
{
	size_t place;

	kf_rank_find(r, e->name, &place);
	buf_puts(b, "it takes ");
	kf_fmt_pct(b, e->share);
	buf_printf(b, " of the profiled GPU time (%ld launch%s)", e->launches,
	    e->launches == 1 ? "" : "es");
	if (place && kf_rank_own(r) > 1)
		buf_printf(b, ", rank %zu of %zu", place, kf_rank_own(r));
	if (place != 1 && r->n && r->v[0].machine == NULL && e != &r->v[0]) {
		buf_printf(b, "; the kernel with the most GPU time is %s (", r->v[0].shown);
		kf_fmt_pct(b, r->v[0].share);
		buf_putc(b, ')');
	}
}

/* --focus NAME that matches no kernel: a typo, most likely. The kernels
 * that are there, named in the text and in a warning, and the exit status
 * 1: the feedback is whole, but not about the kernel asked for. */
static void
say_unmatched(const struct kf_rank *r, const char *want, struct buf *b)
{
	struct buf names = {0};
	size_t i, k, said = 0;

	/* Function names (what --focus matches best), distinct, most time first. */
	for (i = 0; i < r->n && said < 6; i++) {
		const char *s = r->v[i].shown;
		size_t len = strcspn(s, "<(");

		for (k = 0; k < i; k++)
			if (strncmp(r->v[k].shown, s, len) == 0 &&
			    strcspn(r->v[k].shown, "<(") == len)
				break;
		if (k < i)
			continue;
		buf_printf(&names, "%s%.*s", said++ ? ", " : "", (int)len, s);
	}
	if (i < r->n)
		buf_printf(&names, " and %zu more", r->n - i);
	buf_printf(b, "no kernel matches --focus \"%s\" (the kernels, most GPU time "
	    "first: %s), so ", want, names.s ? names.s : "none");
	kf_warn("%s%s--focus \"%s\" matches no kernel; the feedback is about the one "
	    "with the most GPU time. Kernels: %s", kf_where(), kf_where()[0] ? ": " : "",
	    want, names.s ? names.s : "none");
	kf_set_failed();
	buf_free(&names);
}

void
kf_rank_why(const struct kf_rank *r, const struct kf_rank_ent *e, enum kf_focus_how how,
    const char *want, size_t matches, struct buf *b)
{
	size_t own = kf_rank_own(r);

	buf_puts(b, "Why this kernel: ");
	if (how == KF_FOCUS_UNMATCHED)
		say_unmatched(r, want, b);
	if (how == KF_FOCUS_NAMED) {
		buf_printf(b, "--focus \"%s\" names it", want);
		if (matches > 1)
			buf_printf(b, " (the one with the most time of %zu that match)", matches);
		buf_puts(b, "; ");
		put_place(r, e, b);
	} else if (how == KF_FOCUS_LONGEST) {
		buf_puts(b, "it ran the longest launch (--focus longest); over all its launches ");
		put_place(r, e, b);
	} else if (e->machine) {
		buf_puts(b, "every kernel profiled is framework machinery; this one has the "
		    "most GPU time: ");
		put_ent(b, e->share, e->total_ns, e->launches);
	} else if (r->n == 1) {
		buf_printf(b, "the only kernel profiled (%ld launch%s)", e->launches,
		    e->launches == 1 ? "" : "es");
	} else if (own < r->n) {
		buf_printf(b, "it has the most GPU time of the program's %zu kernel%s: ",
		    own, own == 1 ? "" : "s");
		kf_fmt_pct(b, own_ns(r) > 0 ? 100 * e->total_ns / own_ns(r) : 0);
		buf_puts(b, " of their time, ");
		kf_fmt_ns(b, e->total_ns);
		buf_printf(b, " over %ld launch%s (", e->launches, e->launches == 1 ? "" : "es");
		kf_fmt_pct(b, e->share);
		buf_printf(b, " of all: %zu machinery kernel%s set aside)", r->n - own,
		    r->n - own == 1 ? "" : "s");
	} else {
		buf_printf(b, "it has the most GPU time of the program's %zu kernel%s: ",
		    own, own == 1 ? "" : "s");
		put_ent(b, e->share, e->total_ns, e->launches);
	}
	buf_putc(b, '.');
}

const struct kf_rank_ent *
kf_fb_pick_totals(const struct kf_fb *fb, const struct kf_rank *r, enum kf_focus_how *how,
    size_t *matches, struct buf *why)
{
	const struct kf_rank_ent *e;
	const char *want = fb->opt ? fb->opt->focus : NULL;
	int longest = want && strcmp(want, "longest") == 0;

	e = kf_rank_pick(r, longest ? NULL : want, how, matches);
	if (e == NULL)
		return NULL;
	kf_rank_why(r, e, *how, want, *matches, why);
	if (longest) {
		why->s[--why->len] = '\0';
		buf_puts(why, " (--focus longest needs each launch's duration, which this "
		    "profiler's summary does not give, so the focus is by total time).");
	}
	return e;
}

cJSON *
kf_rank_json(const struct kf_rank *r, int top)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "kernels");
	size_t i, own = kf_rank_own(r);
	size_t shown = top > 0 && (size_t)top < own ? (size_t)top : own;
	double rest = 0, mns = 0;
	long l = 0, ml = 0;

	cJSON_AddNumberToObject(o, "total_ns", r->total_ns);
	cJSON_AddNumberToObject(o, "kernel_count", (double)r->n);
	for (i = 0; i < own; i++) {
		if (i < shown) {
			cJSON_AddItemToArray(a, ent_json(&r->v[i]));
		} else {
			rest += r->v[i].total_ns;
			l += r->v[i].launches;
		}
	}
	if (shown < own) {
		cJSON *o2 = cJSON_AddObjectToObject(o, "others");

		cJSON_AddNumberToObject(o2, "kernel_count", (double)(own - shown));
		cJSON_AddNumberToObject(o2, "total_ns", rest);
		cJSON_AddNumberToObject(o2, "launches", (double)l);
		cJSON_AddNumberToObject(o2, "share_pct",
		    r->total_ns > 0 ? 100 * rest / r->total_ns : 0);
	}
	if (own < r->n) {
		cJSON *m = cJSON_AddObjectToObject(o, "machinery");
		cJSON *mk = cJSON_AddArrayToObject(m, "kernels");

		for (i = own; i < r->n; i++) {
			mns += r->v[i].total_ns;
			ml += r->v[i].launches;
			cJSON_AddItemToArray(mk, ent_json(&r->v[i]));
		}
		cJSON_AddNumberToObject(m, "kernel_count", (double)(r->n - own));
		cJSON_AddNumberToObject(m, "total_ns", mns);
		cJSON_AddNumberToObject(m, "launches", (double)ml);
		cJSON_AddNumberToObject(m, "share_pct", r->total_ns > 0 ? 100 * mns / r->total_ns : 0);
	}
	if (kf_machinery_error())
		cJSON_AddStringToObject(o, "machinery_error", kf_machinery_error());
	return o;
}

void
kf_rank_free(struct kf_rank *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].shown);
	}
	free(r->v);
	if (r->index) {
		kf_map_free(r->index);
		free(r->index);
	}
	memset(r, 0, sizeof *r);
}
