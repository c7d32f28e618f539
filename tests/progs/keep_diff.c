/* keep_diff [N [SEED]]: kf_json_parse_keep's promise on N random values
 * (numbers of every shape: integers, decimals, exponents, leading and
 * trailing zeros, 1 to 20 digits; strings with escapes, controls, UTF-8,
 * invalid bytes; arrays and objects of them): a value comes back as text
 * exactly when kf_json_buf writes that text for its tree. Also the paths:
 * a value is kept only where a path names it; and kf_json_number_written
 * says yes only for what the writer writes as it is. Exit 1 at the first
 * difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "err.h"
#include "record.h"

static unsigned long long rng;

static unsigned
rnd(unsigned n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(rng >> 33) % n;
}

static void
digits(struct buf *b, int n, int lead0)
{
	int i;

	for (i = 0; i < n; i++)
		buf_putc(b, (char)('0' + (i == 0 && !lead0 ? 1 + rnd(9) : rnd(10))));
}

static void
number(struct buf *b)
{
	int shape = (int)rnd(8);

	if (rnd(4) == 0)
		buf_putc(b, '-');
	if (rnd(3) == 0)
		buf_putc(b, '0');
	else
		digits(b, 1 + (int)rnd(shape == 0 ? 20 : 16), 0);
	if (shape >= 2) {
		buf_putc(b, '.');
		if (rnd(2))
			buf_add(b, "000000", rnd(7));
		digits(b, 1 + (int)rnd(shape == 7 ? 20 : 15), 1);
		if (rnd(5) == 0)
			buf_putc(b, '0');
	}
	if (shape == 1 || shape == 6) {
		buf_putc(b, "eE"[rnd(2)]);
		if (rnd(2))
			buf_putc(b, "+-"[rnd(2)]);
		digits(b, 1 + (int)rnd(3), 1);
	}
}

static void
string(struct buf *b)
{
	static const char *const parts[] = {
		"a", "Duration", " ", "\\\"", "\\\\", "\\n", "\\t", "\\r", "\\/",
		"\\b", "\\f", "\\u0001", "\\u001f", "\\u001F", "\\u007f", "\\u0041",
		"\\u00e9", "\\u0000", "\\ud83d\\ude00", "\\ud800", "\xc3\xa9",
		"\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xff", "\x7f", "\x01",
		"\xed\xa0\x80", "\xc0\x80", "abcdefghijklmnop",
	};
	int i, n = (int)rnd(6);

	buf_putc(b, '"');
	for (i = 0; i < n; i++)
		buf_puts(b, parts[rnd(sizeof parts / sizeof parts[0])]);
	buf_putc(b, '"');
}

static void
value(struct buf *b, int depth)
{
	int i, n;

	switch (depth > 2 ? rnd(3) : rnd(6)) {
	case 0: case 1: number(b); break;
	case 2: string(b); break;
	case 3: buf_puts(b, rnd(2) ? "true" : "null"); break;
	case 4:
		buf_putc(b, '[');
		for (i = 0, n = (int)rnd(4); i < n; i++) {
			if (i)
				buf_putc(b, ',');
			value(b, depth + 1);
		}
		buf_putc(b, ']');
		break;
	default:
		buf_putc(b, '{');
		for (i = 0, n = (int)rnd(4); i < n; i++) {
			if (i)
				buf_putc(b, ',');
			string(b);
			buf_putc(b, ':');
			value(b, depth + 1);
		}
		buf_putc(b, '}');
	}
	if (rnd(20) == 0)	/* blanks the writer would not write */
		buf_putc(b, ' ');
}

static int
check(const char *text, size_t n)
{
	static const char *const paths[] = { "data", "x/*/y", NULL };
	struct buf rec = {0}, w = {0};
	cJSON *kept, *tree, *v, *t;
	int ok = 1;

	buf_puts(&rec, "{\"data\":");
	buf_add(&rec, text, n);
	buf_puts(&rec, ",\"x\":[{\"y\":");
	buf_add(&rec, text, n);
	buf_puts(&rec, ",\"z\":");
	buf_add(&rec, text, n);
	buf_puts(&rec, "}],\"y\":");
	buf_add(&rec, text, n);
	buf_putc(&rec, '}');
	kept = kf_json_parse_keep(rec.s, rec.len, paths);
	tree = kf_json_parse(rec.s, rec.len);
	if ((kept == NULL) != (tree == NULL)) {
		fprintf(stderr, "keep_diff: parses one way only: %s\n", rec.s);
		ok = 0;
		goto out;
	}
	if (tree == NULL)
		goto out;
	kf_json_buf(&w, cJSON_GetObjectItemCaseSensitive(tree, "data"));
	while (n > 0 && text[n - 1] == ' ')	/* around the value, not in it */
		n--;
	while (n > 0 && text[0] == ' ')
		text++, n--;
	v = cJSON_GetObjectItemCaseSensitive(kept, "data");
	t = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(kept, "x"), 0), "y");
	if (cJSON_IsRaw(v) != (w.len == n && memcmp(w.s, text, n) == 0) ||
	    cJSON_IsRaw(t) != cJSON_IsRaw(v) ||
	    cJSON_IsRaw(cJSON_GetObjectItemCaseSensitive(kept, "y")) ||
	    cJSON_IsRaw(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
	    cJSON_GetObjectItemCaseSensitive(kept, "x"), 0), "z"))) {
		fprintf(stderr, "keep_diff: %.*s: kept %d, written %s\n", (int)n, text,
		    cJSON_IsRaw(v), w.s);
		ok = 0;
	}
	if (kf_json_number_written(text, n) && !(w.len == n && memcmp(w.s, text, n) == 0)) {
		fprintf(stderr, "keep_diff: %.*s: said written as it is, written %s\n",
		    (int)n, text, w.s);
		ok = 0;
	}
	/* Parsed back, the kept record is the tree. */
	kf_json_unkeep_all(kept);
	buf_reset(&w);
	kf_json_buf(&w, kept);
	{
		struct buf w2 = {0};

		kf_json_buf(&w2, tree);
		if (strcmp(w.s, w2.s) != 0) {
			fprintf(stderr, "keep_diff: unkept %s, parsed %s\n", w.s, w2.s);
			ok = 0;
		}
		buf_free(&w2);
	}
out:
	cJSON_Delete(kept);
	cJSON_Delete(tree);
	buf_free(&rec);
	buf_free(&w);
	return ok;
}

int
main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 100000;
	struct buf b = {0};

	static const char *const no[] = {
		"01", "1.", ".5", "-", "", "1e5", "1.50", "0.00001", "1234567890123456",
		"1,056", " 1", "1 ", "+1", "0x10", "1.5%", "nan", "-01", "00",
	};
	static const char *const yes[] = {
		"0", "-0", "7", "18368", "20.21", "-0.5", "0.0001", "123456789012345",
		"0.00012345678901", "99999999999999.9",
	};
	size_t k;

	rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
	kf_init("keep_diff");
	for (k = 0; k < sizeof no / sizeof no[0]; k++)
		if (kf_json_number_written(no[k], strlen(no[k])) || !check(no[k], strlen(no[k]))) {
			fprintf(stderr, "keep_diff: %s: said written as it is\n", no[k]);
			return 1;
		}
	for (k = 0; k < sizeof yes / sizeof yes[0]; k++)
		if (!kf_json_number_written(yes[k], strlen(yes[k])) || !check(yes[k], strlen(yes[k]))) {
			fprintf(stderr, "keep_diff: %s: not said written as it is\n", yes[k]);
			return 1;
		}
	for (i = 0; i < n; i++) {
		buf_reset(&b);
		value(&b, 0);
		if (!check(b.s, b.len))
			return 1;
	}
	buf_free(&b);
	return 0;
}
