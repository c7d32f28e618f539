/* Writing cJSON trees as strict JSON, whatever bytes their strings hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

void
kf_json_quote(struct buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, k;

	buf_putc(b, '"');
	while (i < n) {
		unsigned c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run)
			buf_add(b, (const char *)s + i - run, run);
		run = 0;
		switch (c) {
		case '"': buf_puts(b, "\\\""); i++; continue;
		case '\\': buf_puts(b, "\\\\"); i++; continue;
		case '\n': buf_puts(b, "\\n"); i++; continue;
		case '\t': buf_puts(b, "\\t"); i++; continue;
		case '\r': buf_puts(b, "\\r"); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			buf_printf(b, "\\u%04x", c);
			i++;
		} else if (c == 0xc0 && i + 1 < n && s[i + 1] == 0x80) {
			buf_puts(b, "\\u0000");
			i += 2;
		} else if ((k = utf8_len(s + i, n - i)) > 0) {
			buf_add(b, (const char *)s + i, k);
			i += k;
		} else {
			buf_puts(b, "\\ufffd");
			i++;
		}
	}
	if (run)
		buf_add(b, (const char *)s + i - run, run);
	buf_putc(b, '"');
}

static void
put_number(struct buf *b, double d)
{
	char tmp[64];

	if (isnan(d) || isinf(d)) {
		buf_puts(b, "null");
		return;
	}
	if (d == floor(d) && fabs(d) < 1e15) {
		buf_printf(b, "%.0f", d);
		return;
	}
	snprintf(tmp, sizeof tmp, "%.15g", d);
	if (strtod(tmp, NULL) != d)
		snprintf(tmp, sizeof tmp, "%.17g", d);
	buf_puts(b, tmp);
}

void
kf_json_buf(struct buf *b, const cJSON *v)
{
	const cJSON *c;

	if (v == NULL) {
		buf_puts(b, "null");
		return;
	}
	switch (v->type & 0xff) {
	case cJSON_False: buf_puts(b, "false"); break;
	case cJSON_True: buf_puts(b, "true"); break;
	case cJSON_NULL: buf_puts(b, "null"); break;
	case cJSON_Number: put_number(b, v->valuedouble); break;
	case cJSON_Raw:
		buf_puts(b, v->valuestring ? v->valuestring : "null");
		break;
	case cJSON_String:
		kf_json_quote(b, v->valuestring ? v->valuestring : "",
		    v->valuestring ? strlen(v->valuestring) : 0);
		break;
	case cJSON_Array:
		buf_putc(b, '[');
		for (c = v->child; c; c = c->next) {
			kf_json_buf(b, c);
			if (c->next)
				buf_putc(b, ',');
		}
		buf_putc(b, ']');
		break;
	case cJSON_Object:
		buf_putc(b, '{');
		for (c = v->child; c; c = c->next) {
			const char *k = c->string ? c->string : "";

			kf_json_quote(b, k, strlen(k));
			buf_putc(b, ':');
			kf_json_buf(b, c);
			if (c->next)
				buf_putc(b, ',');
		}
		buf_putc(b, '}');
		break;
	default:
		buf_puts(b, "null");
	}
}

/* Stream large arrays and objects member by member so that writing a big
 * record never needs a second copy of it in memory. */
void
kf_json_write(FILE *f, const cJSON *v)
{
	struct buf b = {0};
	const cJSON *c;
	int type = v ? (v->type & 0xff) : cJSON_NULL;

	if (type == cJSON_Array || type == cJSON_Object) {
		fputc(type == cJSON_Array ? '[' : '{', f);
		for (c = v->child; c; c = c->next) {
			if (type == cJSON_Object) {
				const char *k = c->string ? c->string : "";

				buf_reset(&b);
				kf_json_quote(&b, k, strlen(k));
				buf_putc(&b, ':');
				fwrite(b.s, 1, b.len, f);
			}
			kf_json_write(f, c);
			if (c->next)
				fputc(',', f);
		}
		fputc(type == cJSON_Array ? ']' : '}', f);
	} else {
		kf_json_buf(&b, v);
		fwrite(b.s, 1, b.len, f);
	}
	buf_free(&b);
}

char *
kf_bytes_dup(const char *s, size_t len)
{
	size_t i, nul = 0;
	char *p, *q;

	for (i = 0; i < len; i++)
		nul += s[i] == '\0';
	p = q = xmalloc(len + nul + 1);
	for (i = 0; i < len; i++) {
		if (s[i] == '\0') {
			*q++ = (char)0xc0;
			*q++ = (char)0x80;
		} else {
			*q++ = s[i];
		}
	}
	*q = '\0';
	return p;
}
