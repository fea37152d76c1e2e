/*
 * libFuzzer target for the attribution.json reader (src/report/attribution_json.c): arbitrary
 * bytes through what attribution_read_json() does with a file's text (json_loadb, then
 * attribution_from_json() of its "attribution" member), the way the site reads back what
 * `compare` left under profiles/. Any input gives an attribution or RP_EINPUT, never a crash
 * or a sanitizer report. An attribution that is read is rendered (text, Markdown, HTML, as
 * the site does) and written back as JSON and read again: the same document (the writer's
 * promise). Built by `make fuzz`.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile_attribution.h"
#include "report/attribution_report.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct attribution a, again;
	struct strbuf html = STRBUF_INIT;
	json_error_t jerr;
	json_t *root, *doc, *doc2;
	FILE *f;

	root = json_loadb((const char *)data, size, 0, &jerr);
	if (!root)
		return 0;
	if (attribution_from_json(json_object_get(root, "attribution"), "fuzz", &a)) {
		json_decref(root);
		return 0;
	}
	f = fopen("/dev/null", "w");
	if (f) {
		attribution_text(f, &a, 0, "  ");
		attribution_text(f, &a, 3, "");
		attribution_markdown(f, &a, 0);
		fclose(f);
	}
	attribution_html(&html, &a, 0);
	attribution_html(&html, &a, 2);
	strbuf_release(&html);

	doc = attribution_json(&a);
	if (attribution_from_json(doc, "fuzz (written back)", &again))
		abort();
	doc2 = attribution_json(&again);
	if (!json_equal(doc, doc2))
		abort();
	json_decref(doc);
	json_decref(doc2);
	attribution_release(&again);
	attribution_release(&a);
	json_decref(root);
	return 0;
}
