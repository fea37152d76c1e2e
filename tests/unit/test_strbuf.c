/*
 * The escapes of util/strbuf: XML (the HTML report, SVG charts and JUnit XML), printable
 * (everything revperf prints to a terminal) and Markdown (history, compare and ci).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "util/common.h"

static void test_xml_escaped(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"", ""},
	    {"plain text", "plain text"},
	    {"<script>alert('x') & \"y\"</script>",
	     "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;"},
	    {"tab\tand\nnewline", "tab\tand\nnewline"},
	    {"bell\a esc\x1b del\x7f", "bell&#xFFFD; esc&#xFFFD; del&#xFFFD;"},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82",
	     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x99\x82"},
	    {"cut \xc3", "cut &#xFFFD;"},		/* truncated sequence */
	    {"bad \xc3(", "bad &#xFFFD;("},		/* continuation missing */
	    {"over \xc0\xaf", "over &#xFFFD;&#xFFFD;"}, /* overlong encoding */
	    {"\xff", "&#xFFFD;"},
	    {"surrogate \xed\xa0\x80", "surrogate &#xFFFD;&#xFFFD;&#xFFFD;"},
	    {"overlong esc \xe0\x80\x9b", "overlong esc &#xFFFD;&#xFFFD;&#xFFFD;"},
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, "[");
		strbuf_add_xml_escaped(&sb, cases[i].in);
		strbuf_addstr(&sb, "]");
		if (strncmp(sb.buf + 1, cases[i].want, strlen(cases[i].want)) ||
		    strcmp(sb.buf + 1 + strlen(cases[i].want), "]"))
			fail_msg("case %zu: got '%s', want '[%s]'", i, sb.buf, cases[i].want);
		strbuf_release(&sb);
	}
}

/* Runs fn on each case, with brackets around so that trailing text is checked too. */
static void check_cases(void (*fn)(struct strbuf *, const char *), const char *const (*cases)[2],
			size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
		strbuf_addstr(&sb, "[");
		fn(&sb, cases[i][0]);
		strbuf_addstr(&sb, "]");
		strbuf_addf(&want, "[%s]", cases[i][1]);
		if (strcmp(sb.buf, want.buf))
			fail_msg("case %zu: got '%s', want '%s'", i, sb.buf, want.buf);
		strbuf_release(&sb);
		strbuf_release(&want);
	}
}

static void test_printable(void **state)
{
	static const char *const cases[][2] = {
	    {"", ""},
	    {"plain text, caf\xc3\xa9 \xe2\x82\xac", "plain text, caf\xc3\xa9 \xe2\x82\xac"},
	    /* a title change, a bell and a clear screen: what a benchmark may print */
	    {"\033]0;pwned\007\033[2J", "\\x1b]0;pwned\\x07\\x1b[2J"},
	    {"tab\tnew\nline\rcr del\x7f", "tab\\tnew\\nline\\rcr del\\x7f"},
	    {"csi \xc2\x9b""31m", "csi \\u009b31m"},       /* C1 CSI, valid UTF-8 */
	    {"raw \x9b""31m", "raw \\x9b31m"},             /* C1 CSI, a lone byte */
	    {"rlo \xe2\x80\xae""txt", "rlo \\u202etxt"}, /* right-to-left override */
	    {"bad \xff\xc3(", "bad \\xff\\xc3("},
	    {"over \xc0\xaf", "over \\xc0\\xaf"},
	    {"cut \xe2\x82", "cut \\xe2\\x82"},
	};
	(void)state;
	check_cases(strbuf_add_printable, cases, ARRAY_SIZE(cases));
}

static void add_lines(struct strbuf *sb, const char *s)
{
	strbuf_add_printable_lines(sb, s, strlen(s));
}

static void test_printable_lines(void **state)
{
	static const char *const cases[][2] = {
	    {"one\n\ttwo\n", "one\n\ttwo\n"},
	    {"\033[2Jcleared\r\n", "\\x1b[2Jcleared\\r\n"},
	};
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	check_cases(add_lines, cases, ARRAY_SIZE(cases));
	strbuf_add_printable_lines(&sb, "a\0b", 3);
	assert_string_equal(sb.buf, "a\\x00b");
	assert_string_equal(strbuf_printable(&sb, "\033"), "\\x1b");
	strbuf_release(&sb);
}

static void test_md_escaped(void **state)
{
	static const char *const cases[][2] = {
	    {"", ""},
	    {"fix: faster lookups", "fix: faster lookups"},
	    /* raw HTML, a javascript: link, an image and a table cell break */
	    {"<script>alert(1)</script> [x](javascript:alert(1)) | a",
	     "&lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](javascript:alert(1)) &#124; a"},
	    {"![img](http://e.x/p.png)", "\\!\\[img\\](http://e.x/p.png)"},
	    {"<http://e.x> & <b>", "&lt;http://e.x&gt; &amp; &lt;b&gt;"},
	    {"*em* _em_ `code` ~~del~~ $x$ \\",
	     "\\*em\\* \\_em\\_ \\`code\\` \\~\\~del\\~\\~ \\$x\\$ \\\\"},
	    {"# heading", "\\# heading"},
	    {"- item - x", "\\- item - x"},
	    {"12. item 3.", "12\\. item 3."},
	    {"two\nlines \033[2J", "two\\\\nlines \\\\x1b\\[2J"},
	};
	(void)state;
	check_cases(strbuf_add_md_escaped, cases, ARRAY_SIZE(cases));
}

/* After other text on the line: only what opens inline markup or HTML is escaped. */
static void test_md_escaped_inline(void **state)
{
	static const char *const cases[][2] = {
	    {"6.18.44-fc-v669", "6.18.44-fc-v669"},
	    {"12. item 3.", "12. item 3."},
	    {"- x # y", "- x # y"},
	    {"*em* <b> | a_b", "\\*em\\* &lt;b&gt; &#124; a\\_b"},
	};
	(void)state;
	check_cases(strbuf_add_md_escaped_inline, cases, ARRAY_SIZE(cases));
}

static void test_md_code(void **state)
{
	static const char *const cases[][2] = {
	    {"main..feature", "`main..feature`"},
	    {"a`b", "``a`b``"},
	    {"`x", "`` `x ``"},
	    {"<b>\033", "`<b>\\x1b`"},
	};
	(void)state;
	check_cases(strbuf_add_md_code, cases, ARRAY_SIZE(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xml_escaped),
	    cmocka_unit_test(test_printable),
	    cmocka_unit_test(test_printable_lines),
	    cmocka_unit_test(test_md_escaped),
	    cmocka_unit_test(test_md_escaped_inline),
	    cmocka_unit_test(test_md_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
