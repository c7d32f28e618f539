/* kf: numbers from text, and small string tests (num.c). */
#ifndef KF_NUM_H
#define KF_NUM_H

#include <stddef.h>

/* A number as profilers print it: optional sign, "," thousands separators,
 * decimals, exponent, surrounding blanks, a trailing "%". 1 if the whole
 * string is one, else 0 (n/a, words, empty). */
int kf_parse_number(const char *s, double *out);
int kf_parse_number_n(const char *s, size_t n, double *out);
/* m * 10^e10 (m of nd significant digits; negated when neg) when it is
 * exact without strtod: 1 and *out, else 0 (use strtod). */
int kf_decimal_exact(unsigned long long m, int nd, int e10, int neg, double *out);

/* Case-insensitive equality and prefix. */
int kf_strieq(const char *a, const char *b);
int kf_startswith(const char *s, const char *prefix);
int kf_endswith(const char *s, const char *suffix);
/* Remove leading and trailing blanks in place; returns s. */
char *kf_trim(char *s);

#endif
