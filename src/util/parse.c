#include "util/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	while (*s == ' ')
		s++;
	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	while (*end == ' ')
		end++;
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_double_suffix(const char *s, double *out, const char **suffix)
{
	char *end;
	double v;
	while (*s == ' ')
		s++;
	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	while (*end == ' ')
		end++;
	*out = v;
	*suffix = end;
	return 0;
}

int parse_percent(const char *s, double *out)
{
	const char *suffix;
	double v;
	if (parse_double_suffix(s, &v, &suffix))
		return -1;
	if (!strcmp(suffix, "%"))
		v /= 100.0;
	else if (*suffix || v > 1)
		return -1; /* "2" is not 2% (nor 200%): parse_percent_hint() */
	if (v < 0 || v >= 10)
		return -1;
	*out = v;
	return 0;
}

int parse_percent_hint(const char *s, struct strbuf *hint)
{
	const char *suffix;
	double v;
	int len;
	if (parse_double_suffix(s, &v, &suffix) || *suffix || v <= 1 || v >= 1e6)
		return 0;
	while (*s == ' ')
		s++;
	len = (int)strcspn(s, " ");
	strbuf_addf(hint, "a bare number is a fraction (%.*s would be %g%%); write %.*s%% for "
		    "%.*s percent", len, s, v * 100, len, s, len, s);
	return 1;
}

int parse_duration(const char *s, ns_t *out)
{
	const char *suffix;
	double v, scale;
	if (parse_double_suffix(s, &v, &suffix))
		return -1;
	if (!*suffix || !strcmp(suffix, "s"))
		scale = 1e9;
	else if (!strcmp(suffix, "ms"))
		scale = 1e6;
	else if (!strcmp(suffix, "us"))
		scale = 1e3;
	else if (!strcmp(suffix, "m") || !strcmp(suffix, "min"))
		scale = 60e9;
	else if (!strcmp(suffix, "h"))
		scale = 3600e9;
	else if (!strcmp(suffix, "d"))
		scale = 86400e9;
	else
		return -1;
	if (v < 0 || v * scale > 9e18)
		return -1;
	*out = (ns_t)(v * scale);
	return 0;
}

int parse_run_range(const char *s, size_t *min, size_t *max)
{
	const char *dots = strstr(s, "..");
	uint64_t lo, hi;
	if (!dots) {
		if (parse_u64(s, &lo))
			return -1;
		hi = lo;
	} else {
		char *left = xstrndup(s, (size_t)(dots - s));
		int bad = parse_u64(left, &lo) || parse_u64(dots + 2, &hi);
		free(left);
		if (bad)
			return -1;
	}
	if (lo < 2 || hi < lo || hi > 10000)
		return -1;
	*min = lo;
	*max = hi;
	return 0;
}

int parse_http_url(const char *s)
{
	size_t scheme = !strncasecmp(s, "https://", 8) ? 8 : !strncasecmp(s, "http://", 7) ? 7 : 0;
	const unsigned char *p;
	if (!scheme || !s[scheme] || strchr("/?#", s[scheme]))
		return -1; /* no host */
	/* Nothing a browser would strip or read differently: no space, no control character. */
	for (p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return -1;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct {
		const char *suffix;
		double scale;
	} units[] = { { "", 1048576.0 },  { "B", 1.0 },	     { "K", 1024.0 },
		      { "KiB", 1024.0 }, { "M", 1048576.0 }, { "MiB", 1048576.0 },
		      { "G", 1073741824.0 }, { "GiB", 1073741824.0 } };
	const char *suffix;
	double v;
	if (parse_double_suffix(s, &v, &suffix) || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(suffix, units[i].suffix))
			continue;
		if (v * units[i].scale > 1099511627776.0) /* 1 TiB */
			return -1;
		*out = (uint64_t)(v * units[i].scale);
		return 0;
	}
	return -1;
}
