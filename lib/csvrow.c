/* CSV rows on libcsv, fed a line at a time. */
#include <string.h>

#include "csvrow.h"

static void
on_field(void *s, size_t n, void *data)
{
	struct kf_csvrow *r = data;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 32;
		r->off = xrealloc(r->off, r->cap * sizeof *r->off);
		r->len = xrealloc(r->len, r->cap * sizeof *r->len);
	}
	r->off[r->n] = r->store.len;
	r->len[r->n] = s ? n : 0;
	buf_add(&r->store, s ? s : "", s ? n : 0);
	buf_putc(&r->store, '\0');
	r->n++;
}

static void
on_row(int c, void *data)
{
	(void)c;
	((struct kf_csvrow *)data)->done = 1;
}

/* Only the LF this reader adds ends a row: a stray CR inside a line is
 * data, not a row end that would lose the fields before it. */
static int
is_term(unsigned char c)
{
	return c == '\n';
}

static int
setup(struct kf_csvrow *r, unsigned char delim)
{
	/* REPALL_NL: a blank line is a row of its own, so every line fed
	 * outside quotes ends a row, and "not done" means "inside quotes". */
	if (csv_init(&r->p, CSV_REPALL_NL) != 0)
		return -1;
	csv_set_delim(&r->p, delim);
	csv_set_term_func(&r->p, is_term);
	csv_set_realloc_func(&r->p, xrealloc);
	r->done = 1;
	return 0;
}

int
kf_csvrow_init(struct kf_csvrow *r, unsigned char delim)
{
	memset(r, 0, sizeof *r);
	return setup(r, delim);
}

int
kf_csvrow_feed(struct kf_csvrow *r, const char *line, size_t n)
{
	static const char nl = '\n';

	if (r->done) {
		r->n = 0;
		r->nlines = 0;
		buf_reset(&r->store);
		r->done = 0;
	}
	r->nlines++;
	if (csv_parse(&r->p, line, n, on_field, on_row, r) != n ||
	    csv_parse(&r->p, &nl, 1, on_field, on_row, r) != 1)
		return -1;
	return r->done;
}

int
kf_csvrow_pending(const struct kf_csvrow *r)
{
	return !r->done;
}

void
kf_csvrow_drop(struct kf_csvrow *r)
{
	unsigned char delim = csv_get_delim(&r->p);

	csv_free(&r->p);
	r->n = 0;
	r->nlines = 0;
	buf_reset(&r->store);
	setup(r, delim);
}

const char *
kf_csvrow_field(const struct kf_csvrow *r, size_t i, size_t *len)
{
	if (i >= r->n || !r->done) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = r->len[i];
	return r->store.s + r->off[i];
}

void
kf_csvrow_free(struct kf_csvrow *r)
{
	csv_free(&r->p);
	buf_free(&r->store);
	free(r->off);
	free(r->len);
	memset(r, 0, sizeof *r);
}
