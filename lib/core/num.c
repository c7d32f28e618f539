/* kf: numbers from text (exact decimal fast path, then strtod) and small
 * string tests (num.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "num.h"

/* Plain decimals with at most 15 significant digits and a power of ten
 * within 10^22 are exact as one product or quotient of two exact doubles
 * (Clinger's fast path): the value strtod gives, much sooner. */
int
kf_decimal_exact(unsigned long long m, int nd, int e10, int neg, double *out)
{
	static const double p10[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
		1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
		1e21, 1e22 };
	double d;

	if (nd > 15 || e10 < -22 || e10 > 22)
		return 0;
	d = m == 0 ? 0 : e10 < 0 ? (double)m / p10[-e10] : (double)m * p10[e10];
	*out = neg ? -d : d;
	return 1;
}

/* [+-]digits[.digits], as kf_decimal_exact can take it; else 0. */
static int
plain_decimal(const char *s, double *out)
{
	unsigned long long m = 0;
	int neg = 0, nd = 0, e10 = 0, dot = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; *s; s++) {
		if (*s == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (*s < '0' || *s > '9' || nd >= 16)
			return 0;
		if (m != 0 || *s != '0')
			m = m * 10 + (unsigned)(*s - '0'), nd++;
		e10 -= dot;
	}
	return kf_decimal_exact(m, nd, e10, neg, out);
}

int
kf_parse_number_n(const char *s, size_t n, double *out)
{
	char tmp[128];
	size_t i = 0, j = 0, digits = 0;
	char *end;
	double d;

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i < n && s[n - 1] == '%')
		n--;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		tmp[j++] = s[i++];
	for (; i < n && j < sizeof tmp - 1; i++) {
		char c = s[i];

		if (c == ',') {
			/* A separator sits between digits: "1,024", never ",5" or "5,". */
			if (digits == 0 || i + 1 >= n || !isdigit((unsigned char)s[i + 1]))
				return 0;
			continue;
		}
		if (isdigit((unsigned char)c))
			digits++;
		else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+')
			return 0;
		tmp[j++] = c;
	}
	if (i < n || digits == 0)
		return 0;
	tmp[j] = '\0';
	if (plain_decimal(tmp, out))
		return 1;
	d = strtod(tmp, &end);
	if (*end || isnan(d) || isinf(d))
		return 0;
	*out = d;
	return 1;
}

int
kf_parse_number(const char *s, double *out)
{
	return kf_parse_number_n(s, strlen(s), out);
}

int
kf_strieq(const char *a, const char *b)
{
	return strcasecmp(a, b) == 0;
}

int
kf_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int
kf_endswith(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

char *
kf_trim(char *s)
{
	char *p = s, *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	memmove(s, p, (size_t)(e - p));
	s[e - p] = '\0';
	return s;
}
