#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

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
