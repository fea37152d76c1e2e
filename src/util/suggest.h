#ifndef REVPERF_UTIL_SUGGEST_H
#define REVPERF_UTIL_SUGGEST_H

/*
 * "Did you mean ...?" for a mistyped command, option or value (as git's
 * help.autocorrect): the candidates nearest to what was typed by edit distance.
 * Thread-safe; nothing kept.
 */
#include <stddef.h>

/*
 * The optimal string alignment distance between a and b (Damerau-Levenshtein where each
 * insertion, deletion, substitution or swap of two adjacent characters counts 1, and no
 * substring is edited twice), over bytes. Strings longer than 256 bytes are compared on
 * their first 256.
 */
size_t edit_distance(const char *a, const char *b);

/*
 * Fills out[0..max_out) with the candidates (in their order) nearest to word: those at the
 * smallest distance when it is small for their length (1 below 5 characters, else 2, at
 * most a third of word's length plus one), else those that word begins (a prefix of at
 * least two characters). Returns how many were stored: 0 when none is near enough.
 * Candidates equal to word are not suggested.
 */
size_t suggest_nearest(const char *word, const char *const *cands, size_t nr_cands,
		       const char **out, size_t max_out);

#endif
