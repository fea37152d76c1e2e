/*
 * "Did you mean ...?": the edit distance (optimal string alignment) and which candidates
 * are near enough to suggest (util/suggest.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/common.h"
#include "util/suggest.h"

static void test_edit_distance(void **state)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} cases[] = {
	    {"", "", 0},
	    {"", "abc", 3},
	    {"abc", "", 3},
	    {"compare", "compare", 0},
	    {"kitten", "sitting", 3},  /* the textbook Levenshtein example */
	    {"comapre", "compare", 1}, /* one swap of neighbours */
	    {"ca", "abc", 3},	       /* OSA, not full Damerau (which gives 2) */
	    {"tolerence", "tolerance", 1},
	    {"no-colour", "no-color", 1},
	    {"histroy", "history", 1},
	    {"json", "jsno", 1},
	    {"flaw", "lawn", 2},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t d = edit_distance(cases[i].a, cases[i].b);
		if (d != cases[i].d)
			fail_msg("edit_distance('%s', '%s') = %zu, expected %zu", cases[i].a,
				 cases[i].b, d, cases[i].d);
		assert_int_equal(edit_distance(cases[i].b, cases[i].a), d); /* symmetric */
	}
}

static void test_suggest_nearest(void **state)
{
	static const char *const commands[] = {
	    "compare", "bindiff", "diff",   "profile", "chart",	 "run",	 "predict", "train",
	    "history", "bisect",  "report", "ci",      "import", "init", "help",    "version"};
	static const struct {
		const char *word, *want1, *want2; /* NULL: no suggestion */
	} cases[] = {
	    {"comapre", "compare", NULL},
	    {"compre", "compare", NULL},
	    {"histroy", "history", NULL},
	    {"bisetc", "bisect", NULL},
	    {"dif", "diff", NULL},
	    {"frobnicate", NULL, NULL},
	    {"x", NULL, NULL},
	    {"comp", "compare", NULL}, /* too far, but a prefix */
	    {"in", "init", NULL},      /* "ci" is 2 edits from "in", too far for 2 letters */
	    {"trian", "train", NULL},
	    {"repot", "report", NULL},
	    {"compare", NULL, NULL}, /* the word itself is never suggested */
	    {"prof", "profile", NULL},
	    {"c", "ci", NULL},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *out[2] = {NULL, NULL};
		size_t n = suggest_nearest(cases[i].word, commands, ARRAY_SIZE(commands), out, 2);
		size_t want = cases[i].want1 ? (cases[i].want2 ? 2 : 1) : 0;
		if (n != want || (n && strcmp(out[0], cases[i].want1)) ||
		    (n > 1 && strcmp(out[1], cases[i].want2)))
			fail_msg("'%s': %zu suggestion(s) (%s, %s), expected %zu (%s, %s)",
				 cases[i].word, n, n ? out[0] : "-", n > 1 ? out[1] : "-", want,
				 cases[i].want1 ? cases[i].want1 : "-",
				 cases[i].want2 ? cases[i].want2 : "-");
	}
}

static void test_suggest_ties(void **state)
{
	static const char *const opts[] = {"runs", "rung", "seed"};
	const char *out[3];
	(void)state;
	/* both at distance 1, in table order; max_out caps them */
	assert_int_equal(suggest_nearest("rune", opts, 3, out, 3), 2);
	assert_string_equal(out[0], "runs");
	assert_string_equal(out[1], "rung");
	assert_int_equal(suggest_nearest("rune", opts, 3, out, 1), 1);
	assert_string_equal(out[0], "runs");
	/* a nearer one replaces the farther ones found before it */
	static const char *const opts2[] = {"warmups", "warmup"};
	assert_int_equal(suggest_nearest("warmu", opts2, 2, out, 3), 1);
	assert_string_equal(out[0], "warmup");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_edit_distance),
	    cmocka_unit_test(test_suggest_nearest),
	    cmocka_unit_test(test_suggest_ties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
