/* The nearest candidates to a mistyped word: an edit distance and a threshold. */
#include "util/suggest.h"

#include <string.h>

#include "util/common.h"

#define MAX_LEN 256

size_t edit_distance(const char *a, const char *b)
{
	/* three rows of the dynamic programme: i - 2, i - 1 and i */
	size_t rows[3][MAX_LEN + 1];
	size_t la = strnlen(a, MAX_LEN), lb = strnlen(b, MAX_LEN), i, j;
	for (j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j] + 1; /* deletion */
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1; /* insertion */
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost; /* substitution */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1; /* adjacent swap */
			cur[j] = d;
		}
	}
	return rows[la % 3][lb];
}

/* The largest distance still suggested for candidate c of word. */
static size_t threshold(const char *word, const char *c)
{
	size_t t = strlen(c) < 5 ? 1 : 2;
	size_t by_word = strlen(word) / 3 + 1;
	return t < by_word ? t : by_word;
}

size_t suggest_nearest(const char *word, const char *const *cands, size_t nr_cands,
		       const char **out, size_t max_out)
{
	size_t best = (size_t)-1, n = 0, i, wl = strlen(word);
	for (i = 0; i < nr_cands; i++) {
		size_t d;
		if (!strcmp(cands[i], word))
			continue;
		d = edit_distance(word, cands[i]);
		if (d > threshold(word, cands[i]) || d > best)
			continue;
		if (d < best) {
			best = d;
			n = 0;
		}
		if (n < max_out)
			out[n++] = cands[i];
	}
	if (n || wl < 2)
		return n;
	for (i = 0; i < nr_cands && n < max_out; i++)
		if (!strncmp(cands[i], word, wl) && strcmp(cands[i], word))
			out[n++] = cands[i];
	return n;
}
