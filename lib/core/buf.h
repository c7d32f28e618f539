/* kf: struct buf, a growable byte buffer, always NUL-terminated (buf.c).
 *
 * Ownership: the buffer owns its string until buf_take() hands it over or
 * buf_free() frees it. */
#ifndef KF_BUF_H
#define KF_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *s;
	size_t len, cap;
};
void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_putc(struct buf *b, int c);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);
/* Hand the string over to the caller and leave b empty. */
char *buf_take(struct buf *b);

#endif
