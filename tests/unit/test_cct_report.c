/*
 * Unit tests of the CCT diff reports (docs/cct-diff.md, "Output") on two small trees built
 * with the tree API and a change set, so that all three stages appear: the text groups the
 * differences by stage with the caller (stage 1) and the attribution list nearest first
 * (stage 2), and lists the weight differences with calls; the JSON parses and holds the same
 * values with full paths; the SVG is a well-formed XML document (checked by a real XML
 * parser) whose slower function is red, faster one blue, new frame hatched, vanished context
 * listed, and whose hostile function names are escaped. Also: merged trees show mean ± sd,
 * long paths are shortened in the middle, and per-stage limits.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/cct_diff.h"
#include "report/cct_report.h"
#include "util/common.h"

#define HOSTILE "<script>alert(1)</script>"
#define HOSTILE_ESCAPED "&lt;script&gt;alert(1)&lt;/script&gt;"
#define QUOTES "a&b\"c'd"
#define QUOTES_ESCAPED "a&amp;b&quot;c&#39;d"

/* Adds `excl` weight and `calls` calls to the context `path` ("a;b;c"), creating it. */
static uint32_t add(struct cct *t, const char *path, double excl, double calls)
{
	uint32_t node = CCT_ROOT;
	const char *p = path;
	while (*p) {
		size_t len = strcspn(p, ";");
		node = cct_child(t, node, cct_intern_len(t, p, len), 0);
		assert_int_not_equal(node, CCT_NONE);
		p += len + (p[len] == ';');
	}
	t->nodes[node].excl += excl;
	t->nodes[node].calls += calls;
	return node;
}

/* The node at `path` ("a;b"), every frame at call site 0; it must exist. */
static uint32_t node_of(const struct cct *t, const char *path)
{
	uint32_t node = CCT_ROOT;
	const char *p = path;
	while (*p) {
		size_t len = strcspn(p, ";");
		char *name = xstrndup(p, len);
		node = cct_child_find(t, node, cct_name_find(t, name), 0);
		free(name);
		assert_int_not_equal(node, CCT_NONE);
		p += len + (p[len] == ';');
	}
	return node;
}

/*
 * old -> new: scale 3x slower, helper 2x faster (both modified), format_num slower, scale
 * calls a new callee
 * (stage 2, attributed to scale then compute), fast_path is an added function under parse
 * (stage 1), old_helper a deleted one (stage 1), report's fmt_float vanished and a function
 * with a hostile name appeared (stage 3). Names with quotes and invalid UTF-8 are in both.
 */
static void build_trees(struct cct *a, struct cct *b)
{
	cct_init(a);
	add(a, "main", 10, 1);
	add(a, "main;compute;scale", 100, 10);
	add(a, "main;compute;helper", 100, 20);
	add(a, "main;parse;read_input", 100, 5);
	add(a, "main;old_helper", 30, 3);
	add(a, "main;report;format_num", 50, 7);
	add(a, "main;report;fmt_float", 20, 7);
	add(a, "main;" QUOTES, 10, 1);
	add(a, "main;bad\x01\xff", 10, 1);
	cct_compute_inclusive(a);

	cct_init(b);
	add(b, "main", 10, 1);
	add(b, "main;compute;scale", 300, 10);
	add(b, "main;compute;helper", 50, 20);
	add(b, "main;compute;scale;new_callee", 40, 4);
	add(b, "main;parse;read_input", 100, 5);
	add(b, "main;parse;fast_path", 25, 2);
	add(b, "main;report;format_num", 120, 7);
	add(b, "main;" HOSTILE, 5, 1);
	add(b, "main;" QUOTES, 10, 1);
	add(b, "main;bad\x01\xff", 10, 1);
	cct_compute_inclusive(b);
}

static void changes(struct cct_changes *ch)
{
	cct_changes_init(ch);
	cct_nameset_add(&ch->added, "fast_path");
	cct_nameset_add(&ch->deleted, "old_helper");
	cct_nameset_add(&ch->modified, "compute");
	cct_nameset_add(&ch->modified, "scale");
	cct_nameset_add(&ch->modified, "helper");
}

struct fixture {
	struct cct a, b;
	struct cct_changes ch;
	struct cct_diff d;
};

static void fixture_init(struct fixture *fx)
{
	struct cct_diff_options opts = {.threshold = 100, .max_pairs = 20};
	build_trees(&fx->a, &fx->b);
	changes(&fx->ch);
	assert_int_equal(cct_diff_compute(&fx->a, &fx->b, &fx->ch, &opts, &fx->d), 0);
}

static void fixture_release(struct fixture *fx)
{
	cct_diff_release(&fx->d);
	cct_changes_release(&fx->ch);
	cct_release(&fx->a);
	cct_release(&fx->b);
}

/* Runs one report into *out, a string the caller frees. The stream writes straight into the
 * caller's pointer: a pointer held in a local of this function and returned would, once
 * inlined, look to gcc -O3 like a pointer into this function's dead frame. */
static void render(int (*fn)(FILE *, const struct cct_diff *, const struct cct_report_options *),
		   const struct cct_diff *d, const struct cct_report_options *o, char **out)
{
	size_t len = 0;
	FILE *f;

	*out = NULL;
	f = open_memstream(out, &len);
	assert_non_null(f);
	assert_int_equal(fn(f, d, o), 0);
	assert_int_equal(fclose(f), 0);
}

static void assert_contains(const char *haystack, const char *needle)
{
	if (!strstr(haystack, needle)) {
		/* The needle first: cmocka cuts long messages. */
		print_error("--- expected to contain\n%s\n--- report\n%s\n", needle, haystack);
		fail();
	}
}

static void assert_not_contains(const char *haystack, const char *needle)
{
	if (strstr(haystack, needle)) {
		print_error("--- expected not to contain\n%s\n--- report\n%s\n", needle, haystack);
		fail();
	}
}

/* The line of `text` that contains `needle`, copied into sb. */
static const char *line_with(const char *text, const char *needle, struct strbuf *sb)
{
	const char *p = strstr(text, needle), *start, *end;
	if (!p) {
		print_error("--- report\n%s\n--- no line with\n%s\n", text, needle);
		fail();
	}
	for (start = p; start > text && start[-1] != '\n'; start--)
		;
	end = strchr(p, '\n');
	strbuf_reset(sb);
	strbuf_add(sb, start, end ? (size_t)(end - start) : strlen(start));
	return sb->buf;
}

static void test_text(void **state)
{
	struct fixture fx;
	struct cct_report_options o = {.old_label = "old.folded", .new_label = "new.folded"};
	struct strbuf sb = STRBUF_INIT;
	char *text, buf[64];
	const char *s1, *s2, *s3, *w;
	UNUSED(state);
	fixture_init(&fx);
	render(cct_diff_report_text, &fx.d, &o, &text);

	assert_contains(text, "old: old.folded (12 contexts, total weight 430)\n");
	assert_contains(text, "new: new.folded (13 contexts, total weight 670)\n");
	snprintf(buf, sizeof(buf), "overlap %.2f%% of the common trees", fx.d.overlap);
	assert_contains(text, buf);
	s1 = strstr(text, "stage 1, added or deleted function (attributed to the caller):\n");
	s2 = strstr(text, "stage 2, direct modification (attributed to the modified functions, "
			  "nearest first):\n");
	s3 = strstr(text, "stage 3, side effect or non-determinism:\n");
	w = strstr(text, "weight differences (");
	assert_non_null(s1);
	assert_non_null(s2);
	assert_non_null(s3);
	assert_non_null(w);
	assert_true(s1 < s2 && s2 < s3 && s3 < w);

	/* Stage 1: the added function in the new tree, the deleted one in the old, largest first
	 * (old_helper 30/430 = 6.98% before fast_path 25/670 = 3.73%), with calls and caller. */
	assert_string_equal(line_with(s1, "old_helper", &sb),
			    "  -   6.98%  calls 3  main;old_helper  [caller main]");
	assert_string_equal(line_with(s1, "fast_path", &sb),
			    "  +   3.73%  calls 2  main;parse;fast_path  [caller parse]");
	assert_true(strstr(s1, "old_helper") < strstr(s1, "fast_path"));
	/* Stage 2: nearest modified function first. */
	assert_string_equal(line_with(s2, "new_callee", &sb),
			    "  +   5.97%  calls 4  main;compute;scale;new_callee  "
			    "[modified scale, compute]");
	assert_true(strstr(s2, "new_callee") < s3);
	/* Stage 3 in both directions; the hostile name is text here, printed as it is. */
	assert_contains(line_with(s3, "fmt_float", &sb),
			"  -   4.65%  calls 7  main;report;fmt_float");
	assert_contains(line_with(s3, "alert", &sb), "  +   0.75%  calls 1  main;" HOSTILE);
	/* Weight differences: scale first (the largest change), with calls before and after. */
	line_with(w + strlen("weight differences ("), "main;", &sb);
	assert_contains(sb.buf, "calls 10 -> 10  main;compute;scale");
	snprintf(buf, sizeof(buf), "%6.2f%% -> %6.2f%%  %+7.2f", fx.d.pairs[0].old_pweight,
		 fx.d.pairs[0].new_pweight, fx.d.pairs[0].new_pweight - fx.d.pairs[0].old_pweight);
	assert_contains(sb.buf, buf);
	assert_contains(line_with(w, "helper", &sb), "calls 20 -> 20  main;compute;helper");
	assert_not_contains(text, "±"); /* single profiles: no sd */

	free(text);
	strbuf_release(&sb);
	fixture_release(&fx);
}

static void test_text_limits(void **state)
{
	struct fixture fx;
	struct cct_report_options o = {.max_topo = 1};
	char *text;
	UNUSED(state);
	fixture_init(&fx);
	render(cct_diff_report_text, &fx.d, &o, &text);
	/* Stage 1 and 3 have two differences each: one shown, one counted. */
	assert_contains(text, "old: old (");
	assert_contains(text, "main;old_helper");
	assert_not_contains(text, "fast_path");
	assert_contains(text, "  ... and 1 more\n");
	free(text);
	fixture_release(&fx);
}

static void test_text_identical(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	char *text;
	UNUSED(state);
	build_trees(&a, &b);
	assert_int_equal(cct_diff_compute(&a, &a, NULL, NULL, &d), 0);
	render(cct_diff_report_text, &d, NULL, &text);
	assert_contains(text, "overlap 100.00% of the common trees (12 matched contexts)\n");
	assert_contains(text, "no context in one tree only\n");
	assert_not_contains(text, "weight differences");
	free(text);
	cct_diff_release(&d);
	cct_release(&a);
	cct_release(&b);
}

/* Two runs per side, merged: the text shows mean ± sd for pweights and calls. */
static void test_text_merged_sd(void **state)
{
	struct cct runs[4], a, b;
	const struct cct *ra[2] = {&runs[0], &runs[1]}, *rb[2] = {&runs[2], &runs[3]};
	struct cct_diff d;
	struct strbuf sb = STRBUF_INIT;
	char *text;
	UNUSED(state);
	for (size_t i = 0; i < 4; i++) {
		cct_init(&runs[i]);
		add(&runs[i], "main;scale", i < 2 ? 100 + 10.0 * (double)i : 300 + 20.0 * (double)i,
		    10 + (double)i);
		add(&runs[i], "main;third", 100, 5);
		add(&runs[i], "main;other", 100, 5);
		if (i >= 2)
			add(&runs[i], "main;extra", 10 * (double)i, 1);
		cct_compute_inclusive(&runs[i]);
	}
	assert_int_equal(cct_merge(ra, 2, &a), 0);
	assert_int_equal(cct_merge(rb, 2, &b), 0);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, NULL, &d), 0);
	render(cct_diff_report_text, &d, NULL, &text);
	assert_contains(text, "mean of 2 runs");
	/* extra: 20 and 30 in the runs, mean 25 of a mean total of 575 (4.35%), sd 7.07 -> 1.23. */
	assert_contains(line_with(text, "main;extra", &sb), "  +   4.35% ± 1.23  calls 1 ± 0.00");
	/* scale: calls 10, 11 -> 12, 13. */
	assert_contains(line_with(text, "main;scale", &sb), "calls 10.50 -> 12.50  main;scale");
	/* pweight sd: 34.43 x 7.07 / 105 and 63.64 x 14.14 / 350. */
	assert_contains(sb.buf, " 34.43% ± 2.32 ->  63.64% ± 2.57   +29.21  calls");
	free(text);
	strbuf_release(&sb);
	cct_diff_release(&d);
	cct_release(&a);
	cct_release(&b);
	for (size_t i = 0; i < 4; i++)
		cct_release(&runs[i]);
}

static void test_path_shortening(void **state)
{
	struct cct t;
	struct strbuf path = STRBUF_INIT, sb = STRBUF_INIT;
	uint32_t node = CCT_ROOT;
	UNUSED(state);
	cct_init(&t);
	for (int i = 0; i < 30; i++) {
		char name[16]; /* room for any int: -O1 with ASan cannot bound i */
		snprintf(name, sizeof(name), "f%02d", i);
		node = cct_child(&t, node, cct_intern(&t, name), i == 29 ? 2 : 0);
	}
	cct_path(&t, node, &path);
	cct_report_path(&sb, &t, node, 0);
	assert_string_equal(sb.buf, path.buf);
	strbuf_reset(&sb);
	cct_report_path(&sb, &t, node, path.len);
	assert_string_equal(sb.buf, path.buf);
	strbuf_reset(&sb);
	/* 40 bytes: the first frame, "...", and the last frames that fit, whole. */
	cct_report_path(&sb, &t, node, 40);
	assert_string_equal(sb.buf, "f00;...;f23;f24;f25;f26;f27;f28;f29#2");
	assert_true(sb.len <= 40);
	strbuf_reset(&sb);
	/* Too narrow for anything: names are never cut. */
	cct_report_path(&sb, &t, node, 5);
	assert_string_equal(sb.buf, "f00;...;f29#2");
	strbuf_release(&sb);
	strbuf_release(&path);
	cct_release(&t);
}

static json_t *topo_entry(json_t *topo, int stage, const char *last_frame)
{
	size_t i;
	json_t *e;
	json_array_foreach(topo, i, e)
	{
		json_t *path = json_object_get(e, "path");
		json_t *last = json_array_get(path, json_array_size(path) - 1);
		if (json_integer_value(json_object_get(e, "stage")) == stage &&
		    !strcmp(json_string_value(last), last_frame))
			return e;
	}
	print_error("no stage %d difference ending in %s\n", stage, last_frame);
	fail();
	return NULL;
}

static void test_json(void **state)
{
	struct fixture fx;
	struct cct_report_options o = {.old_label = "old.folded", .new_label = "new.folded"};
	json_error_t jerr;
	json_t *root, *topo, *e, *pairs, *p;
	char *text;
	UNUSED(state);
	fixture_init(&fx);
	render(cct_diff_report_json, &fx.d, &o, &text);
	root = json_loads(text, 0, &jerr);
	if (!root) {
		print_error("%s\n--- line %d: %s\n", text, jerr.line, jerr.text);
		fail();
	}
	assert_string_equal(json_string_value(json_object_get(root, "schema")), "revperf-diff/2");
	assert_int_equal(json_integer_value(json_object_get(root, "exit_code")), 1);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(root, "old"), "label")),
	    "old.folded");
	assert_true(json_is_true(json_object_get(json_object_get(root, "new"), "calls_known")));
	assert_int_equal(
	    json_integer_value(json_object_get(json_object_get(root, "new"), "contexts")), 13);
	assert_true(fabs(json_real_value(json_object_get(root, "overlap")) - fx.d.overlap) < 1e-6);
	assert_int_equal(json_integer_value(json_object_get(root, "matched")), fx.d.nr_matched - 1);

	topo = json_object_get(root, "topological");
	assert_int_equal(json_array_size(topo), fx.d.nr_topo);
	e = topo_entry(topo, 1, "fast_path");
	assert_string_equal(json_string_value(json_object_get(e, "in")), "new");
	assert_int_equal(json_array_size(json_object_get(e, "path")), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "caller"), 1)),
			    "parse");
	assert_int_equal(json_integer_value(json_object_get(e, "calls")), 2);
	assert_true(fabs(json_real_value(json_object_get(e, "pweight")) - 100.0 * 25 / 670) < 1e-6);
	assert_true(json_is_null(json_object_get(e, "pweight_sd")));
	e = topo_entry(topo, 1, "old_helper");
	assert_string_equal(json_string_value(json_object_get(e, "in")), "old");
	e = topo_entry(topo, 2, "new_callee");
	assert_int_equal(json_array_size(json_object_get(e, "attribution")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "attribution"), 0)),
			    "scale");
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "attribution"), 1)),
			    "compute");
	assert_string_equal(json_string_value(json_object_get(e, "stage_name")), "modified");
	e = topo_entry(topo, 3, HOSTILE); /* JSON strings carry the name as it is */
	assert_string_equal(json_string_value(json_object_get(e, "in")), "new");
	topo_entry(topo, 3, "fmt_float");

	pairs = json_object_get(root, "weight_differences");
	assert_int_equal(json_array_size(pairs), fx.d.nr_pairs);
	p = json_array_get(pairs, 0);
	assert_string_equal(json_string_value(json_array_get(json_object_get(p, "path"), 2)),
			    "scale");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(p, "old"), "calls")),
			 10);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(p, "new"), "pweight")) -
			 fx.d.pairs[0].new_pweight) < 1e-6);
	assert_true(json_real_value(json_object_get(p, "change")) > 0);
	assert_true(
	    fabs(json_real_value(json_object_get(json_object_get(p, "new"), "self_weight")) - 300) <
	    1e-9);

	/* The embeddable object has the same body without the version fields. */
	json_t *body = cct_diff_to_json(&fx.d, &o);
	assert_null(json_object_get(body, "schema"));
	assert_int_equal(json_array_size(json_object_get(body, "topological")), fx.d.nr_topo);
	json_decref(body);
	json_decref(root);
	free(text);
	fixture_release(&fx);
}

/* Parses `svg` with a real XML parser (xmllint, else Python's minidom). */
static void assert_well_formed(const char *svg)
{
	char path[] = "/tmp/test_cct_report.XXXXXX";
	struct strbuf cmd = STRBUF_INIT;
	int fd = mkstemp(path), rc;
	FILE *f;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(svg, f);
	assert_int_equal(fclose(f), 0);
	if (system("command -v xmllint >/dev/null 2>&1") == 0)
		strbuf_addf(&cmd, "xmllint --noout '%s'", path);
	else
		strbuf_addf(&cmd,
			    "python3 -c 'import xml.dom.minidom,sys; "
			    "xml.dom.minidom.parse(sys.argv[1])' '%s'",
			    path);
	rc = system(cmd.buf);
	if (rc != 0)
		print_error("%s failed (%d); the document is kept in %s\n", cmd.buf, rc, path);
	else
		unlink(path);
	assert_int_equal(rc, 0);
	strbuf_release(&cmd);
}

/* The fill of the frame whose tooltip starts with `name` + newline. */
static void frame_fill(const char *svg, const char *name, char *out, size_t size)
{
	struct strbuf key = STRBUF_INIT;
	const char *p, *fill, *end;
	strbuf_addf(&key, "<title>%s\n", name);
	p = strstr(svg, key.buf);
	if (!p) {
		print_error("no frame %s in\n%s\n", name, svg);
		fail();
	}
	fill = strstr(p, "fill=\"");
	assert_non_null(fill);
	fill += 6;
	end = strchr(fill, '"');
	snprintf(out, size, "%.*s", (int)(end - fill), fill);
	strbuf_release(&key);
}

static void parse_rgb(const char *fill, int rgb[3])
{
	assert_int_equal(sscanf(fill, "rgb(%d,%d,%d)", &rgb[0], &rgb[1], &rgb[2]), 3);
}

static void test_svg(void **state)
{
	struct fixture fx;
	struct cct_report_options o = {
	    .old_label = "old<1>.folded", .new_label = "new&.folded", .width_px = 900};
	char *svg, fill[64];
	int rgb[3];
	UNUSED(state);
	fixture_init(&fx);
	render(cct_diff_report_svg, &fx.d, &o, &svg);
	assert_well_formed(svg);
	/* As wide as the page, laid out for 900 px. */
	assert_contains(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
			     "width=\"100%\"");
	assert_contains(svg, "viewBox=\"0 0 900 ");
	assert_contains(svg, "data-width=\"900\"");
	/* A search box, an HTML input in a foreignObject. */
	assert_contains(svg, "<foreignObject id=\"search-box\"");
	assert_contains(svg, "id=\"search\" type=\"search\"");
	/* No call sites in these trees: no legend line for them. */
	assert_not_contains(svg, "f#N");
	assert_not_contains(svg, "@FRAMES@");
	assert_not_contains(svg, "@TITLE@");
	assert_not_contains(svg, "@WIDTH@");
	assert_contains(svg, "old&lt;1&gt;.folded -&gt; new&amp;.folded");

	/* Slower and faster functions; an unchanged one stays grey. */
	frame_fill(svg, "scale", fill, sizeof(fill));
	parse_rgb(fill, rgb);
	assert_true(rgb[0] > rgb[2] + 100);
	frame_fill(svg, "helper", fill, sizeof(fill));
	parse_rgb(fill, rgb);
	assert_true(rgb[2] > rgb[0] + 30);
	frame_fill(svg, "compute", fill, sizeof(fill));
	assert_string_equal(fill, "rgb(228,228,228)");
	/* Only in the new tree: hatched, whichever stage. */
	frame_fill(svg, "fast_path", fill, sizeof(fill));
	assert_string_equal(fill, "url(#only-new)");
	frame_fill(svg, "new_callee", fill, sizeof(fill));
	assert_string_equal(fill, "url(#only-new)");
	assert_contains(svg, "only in the new profile (stage 2, modified)");
	/* Tooltips have both inclusive shares and both call counts. */
	assert_contains(svg, "<title>scale\nmain;compute;scale\nchange ranked 1 of the 10 largest "
			     "(list below)\ninclusive: ");
	assert_contains(svg, "calls: 10 -> 10</title>");
	/* Vanished contexts are listed under the graph, largest first. */
	assert_contains(svg, "Only in old&lt;1&gt;.folded (not drawn above): 2 contexts");
	assert_true(strstr(svg, "main;old_helper") < strstr(svg, "main;report;fmt_float"));

	/* Every hostile name escaped, in tooltips and labels. */
	frame_fill(svg, HOSTILE_ESCAPED, fill, sizeof(fill));
	assert_string_equal(fill, "url(#only-new)");
	assert_not_contains(svg, "<script>alert");
	assert_not_contains(svg, "alert(1)</script>");
	frame_fill(svg, QUOTES_ESCAPED, fill, sizeof(fill));
	assert_not_contains(svg, QUOTES);
	/* Invalid UTF-8 and control characters become '?'. */
	frame_fill(svg, "bad??", fill, sizeof(fill));
	assert_not_contains(svg, "\xff");
	free(svg);
	fixture_release(&fx);
}

/* The rows of the ranked list of the largest changes, in order: the frame id each links to
 * ("f12"), or "" for a row without a frame. Returns the number of rows. */
static size_t top_rows(const char *svg, char ids[][16], size_t max)
{
	size_t nr = 0;
	const char *list = strstr(svg, "<g id=\"top\"");
	assert_non_null(list);
	for (const char *p = strstr(list, "<g class=\"top-row"); p && nr < max;
	     p = strstr(p + 1, "<g class=\"top-row")) {
		const char *f = strstr(p, "data-f=\"");
		const char *gt = strchr(p, '>');
		ids[nr][0] = '\0';
		if (f && f < gt)
			snprintf(ids[nr], sizeof(ids[nr]), "%.*s", (int)strcspn(f + 8, "\""),
				 f + 8);
		nr++;
	}
	return nr;
}

/*
 * `svg` with the lines of every paragraph joined again by a space, as one line of text
 * (the paragraphs are wrapped for the image's width). The caller frees it.
 */
static char *unwrapped(const char *svg)
{
	static const char join[] = "</tspan><tspan x=\"10.0\" dy=\"14\">";
	struct strbuf sb = STRBUF_INIT;
	const char *p = svg, *q;
	while ((q = strstr(p, join))) {
		strbuf_add(&sb, p, (size_t)(q - p));
		strbuf_addch(&sb, ' ');
		p = q + strlen(join);
	}
	strbuf_addstr(&sb, p);
	return strbuf_detach(&sb);
}

/* The changed values of the rows, as printed after the rank ("  1. +31.05"). */
static double row_value(const char *svg, size_t k)
{
	struct strbuf key = STRBUF_INIT;
	const char *p;
	double v;
	strbuf_addf(&key, "<tspan class=\"lead\">%2zu. ", k + 1);
	p = strstr(svg, key.buf);
	assert_non_null(p);
	v = strtod(p + key.len, NULL);
	strbuf_release(&key);
	return v;
}

/*
 * The largest changes are listed under the graph, largest first, at most 10, each row
 * linked to its frame, which is drawn and outlined ("f top"); a frame so marked is listed.
 */
static void test_svg_ranked_list(void **state)
{
	struct fixture fx;
	char *svg, ids[16][16];
	size_t nr;
	UNUSED(state);
	fixture_init(&fx);
	render(cct_diff_report_svg, &fx.d, NULL, &svg);
	assert_well_formed(svg);
	nr = top_rows(svg, ids, 16);
	assert_int_equal(nr, 10);
	assert_contains(svg, "The 10 largest changes, in points of the self weight share");
	assert_contains(svg, "one run per side: the run-to-run spread is not known");
	for (size_t k = 0; k < nr; k++) {
		struct strbuf key = STRBUF_INIT;
		assert_true(ids[k][0]);
		strbuf_addf(&key, "<g class=\"f top\" id=\"%s\"", ids[k]);
		assert_contains(svg, key.buf);
		strbuf_release(&key);
		if (k)
			assert_true(fabs(row_value(svg, k)) <= fabs(row_value(svg, k - 1)));
	}
	/* scale gained most (+31 points), it leads; the new subtree under it is listed. */
	assert_contains(svg, "<tspan class=\"lead\"> 1.  +");
	assert_true(strstr(svg, "<tspan class=\"path\">main;compute;scale</tspan>") <
		    strstr(svg, "<tspan class=\"path\">main;compute;helper</tspan>"));
	assert_contains(svg, "only in new  </tspan><tspan class=\"path\">main;compute;scale;"
			     "new_callee</tspan>");
	free(svg);
	fixture_release(&fx);
}

/*
 * A narrow image: frames narrower than the minimum are not drawn and the count says so,
 * but a frame among the largest changes is drawn however narrow (and its ancestors), and
 * listed with a link to it.
 */
static void test_svg_narrow_frames(void **state)
{
	struct cct a, b;
	struct cct_diff d;
	struct cct_diff_options opts = {.threshold = 100};
	struct cct_report_options o = {.width_px = 200, .min_frame_px = 20};
	char *svg, ids[4][16], name[24]; /* room for any int (-O1 with ASan) */
	UNUSED(state);
	cct_init(&a);
	cct_init(&b);
	add(&a, "main;big", 1000, 1);
	add(&b, "main;big", 1000, 1);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "main;s%d", i);
		add(&a, name, 1, 1);
		add(&b, name, 1, 1);
	}
	add(&a, "main;tiny", 1, 1);
	add(&b, "main;tiny", 3, 1);
	cct_compute_inclusive(&a);
	cct_compute_inclusive(&b);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, &opts, &d), 0);
	render(cct_diff_report_svg, &d, &o, &svg);
	assert_well_formed(svg);
	{
		char *text = unwrapped(svg);
		assert_contains(text, "12 contexts narrower than 20 px not drawn");
		free(text);
	}
	assert_not_contains(svg, "<title>s0\n");
	/* tiny (node 15) is 0.5 px wide, and one of the two changes. */
	assert_int_equal(top_rows(svg, ids, 4), 2);
	assert_contains(svg, "<title>tiny\n");
	assert_contains(svg, "<tspan class=\"path\">main;tiny</tspan>");
	assert_true(!strcmp(ids[0], "f15") || !strcmp(ids[1], "f15"));
	assert_contains(svg, "<g class=\"f top\" id=\"f15\"");
	free(svg);
	cct_diff_release(&d);
	cct_release(&a);
	cct_release(&b);
}

/* Merged runs: the list gives the sd of each change; call sites: the legend explains f#N. */
static void test_svg_spread_and_sites(void **state)
{
	struct cct r[4], a, b;
	struct cct_diff d;
	struct cct_diff_options opts = {.threshold = 100};
	char *svg;
	UNUSED(state);
	for (int i = 0; i < 4; i++) {
		cct_init(&r[i]);
		add(&r[i], "main;work", i < 2 ? 100 + i * 10 : 300 + i * 10, 1);
		add(&r[i], "main;idle", 100, 1);
		/* A second call site of work in main. */
		r[i].nodes[cct_child(&r[i], node_of(&r[i], "main"), cct_intern(&r[i], "work"), 1)]
		    .excl += 50;
		cct_compute_inclusive(&r[i]);
	}
	const struct cct *old_runs[] = {&r[0], &r[1]}, *new_runs[] = {&r[2], &r[3]};
	assert_int_equal(cct_merge(old_runs, 2, &a), 0);
	assert_int_equal(cct_merge(new_runs, 2, &b), 0);
	assert_int_equal(cct_diff_compute(&a, &b, NULL, &opts, &d), 0);
	render(cct_diff_report_svg, &d, NULL, &svg);
	assert_well_formed(svg);
	assert_contains(svg, "± one sd over the runs of both sides");
	assert_contains(svg, " ± ");
	assert_contains(svg, "f#N in a path = the call to f from the place of rank N");
	assert_contains(svg, "<tspan class=\"path\">main;work#1</tspan>");
	free(svg);
	cct_diff_release(&d);
	cct_release(&a);
	cct_release(&b);
	for (int i = 0; i < 4; i++)
		cct_release(&r[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),
	    cmocka_unit_test(test_text_limits),
	    cmocka_unit_test(test_text_identical),
	    cmocka_unit_test(test_text_merged_sd),
	    cmocka_unit_test(test_path_shortening),
	    cmocka_unit_test(test_json),
	    cmocka_unit_test(test_svg),
	    cmocka_unit_test(test_svg_ranked_list),
	    cmocka_unit_test(test_svg_narrow_frames),
	    cmocka_unit_test(test_svg_spread_and_sites),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
