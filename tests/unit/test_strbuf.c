/* strbuf_add_xml_escaped(): the one escape of the HTML report, SVG charts and JUnit XML. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_xml_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
