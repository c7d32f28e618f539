/* csvrow_diff [ROWS [SEED]]: feed the same random lines (quotes, delimiters,
 * blanks, CR, NUL, letters; rows across lines; lines that begin as the last
 * one did, with the fast splitter reusing 0 to 3 fields) to the fast
 * splitter and to libcsv and exit 1 at the first row where they differ. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csvrow.h"

static void
show(const char *who, const struct kf_csvrow *r, int got)
{
	size_t i, len, k;

	fprintf(stderr, "  %s: %d, %zu fields:", who, got, r->n);
	for (i = 0; i < r->n; i++) {
		const char *f = kf_csvrow_field(r, i, &len);

		fputs(" [", stderr);
		for (k = 0; k < len; k++)
			fprintf(stderr, f[k] >= 32 && f[k] < 127 ? "%c" : "\\x%02x",
			    (unsigned char)f[k]);
		fputc(']', stderr);
	}
	fputc('\n', stderr);
}

static int
same(const struct kf_csvrow *a, const struct kf_csvrow *b)
{
	size_t i, la, lb;

	if (a->done != b->done)
		return 0;
	if (!a->done)	/* the fields of a row in progress are not out yet */
		return 1;
	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		const char *x = kf_csvrow_field(a, i, &la), *y = kf_csvrow_field(b, i, &lb);

		if (la != lb || memcmp(x, y, la) != 0 || x[la] != '\0')
			return 0;
	}
	return 1;
}

int
main(int argc, char **argv)
{
	static const char alpha[] = "\"\",,  \t\tab\r;x\"";
	long rows = argc > 1 ? atol(argv[1]) : 200000, i;
	unsigned delims[] = { ',', '\t', ';' };
	char line[64], prev[64];
	size_t pn = 0;

	srand(argc > 2 ? (unsigned)atol(argv[2]) : 1);
	for (i = 0; i < rows; i++) {
		struct kf_csvrow a, b;
		unsigned char d = (unsigned char)delims[i % 3];
		int k, lines = 1 + rand() % 6;

		kf_csvrow_init(&a, d);
		kf_csvrow_init_libcsv(&b, d);
		kf_csvrow_reuse(&a, (size_t)(rand() % 4));
		for (k = 0; k < lines; k++) {
			size_t n = (size_t)(rand() % (rand() % 2 ? 24 : 64)), j = 0;
			int ga, gb;

			if (k > 0 && rand() % 2)	/* the last line's start */
				for (j = (size_t)rand() % (pn + 1); j > n; n++)
					;
			memcpy(line, prev, j);
			for (; j < n; j++)
				line[j] = rand() % 50 == 0 ? '\0' : alpha[rand() % (sizeof alpha - 1)];
			memcpy(prev, line, n);
			pn = n;
			ga = kf_csvrow_feed(&a, line, n);
			gb = kf_csvrow_feed(&b, line, n);
			if (ga != gb || !same(&a, &b)) {
				fprintf(stderr, "csvrow_diff: row %ld, line %d differs: [%.*s]\n",
				    i, k, (int)n, line);
				show("fast", &a, ga);
				show("libcsv", &b, gb);
				return 1;
			}
			if (rand() % 4 == 0 && kf_csvrow_pending(&a)) {
				kf_csvrow_drop(&a);
				kf_csvrow_drop(&b);
			}
		}
		kf_csvrow_free(&a);
		kf_csvrow_free(&b);
	}
	return 0;
}
