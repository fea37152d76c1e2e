/* What revperf gc removed (report/gc_report.h). */
#include "report/gc_report.h"

#include <jansson.h>

#include "util/common.h"
#include "util/strbuf.h"
#include "util/units.h"

/* As text; json: as a JSON name. */
static const char *gc_kind_name(enum gc_kind k, bool json)
{
	switch (k) {
	case GC_WORKTREE: return "worktree";
	case GC_LOG: return "log";
	case GC_LOG_DIR: return json ? "log_directory" : "log directory";
	case GC_PROFILES: return "profiles";
	case GC_DYNAMIC: return json ? "dynamic" : "dynamic data";
	case GC_DYNAMIC_DIR: return json ? "dynamic_directory" : "dynamic data directory";
	}
	return "?";
}

static bool gc_kind_emptied(enum gc_kind k)
{
	return k == GC_LOG_DIR || k == GC_DYNAMIC_DIR;
}

static const char *gc_reason_name(enum gc_reason r)
{
	return r == GC_OLD ? "older" : "unused";
}

/* "12.3 KiB, 4 files, 2 directories" */
static void gc_sizes_add(struct strbuf *sb, uint64_t bytes, uint64_t files, uint64_t dirs)
{
	units_bytes_add(sb, (double)bytes);
	strbuf_addstr(sb, ", ");
	units_count_add(sb, files, "file", "files");
	strbuf_addstr(sb, ", ");
	units_count_add(sb, dirs, "directory", "directories");
}

int gc_report_text(FILE *f, const struct gc_result *res, const struct gc_options *opt)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < res->nr; i++) {
		const struct gc_item *it = &res->items[i];
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s %s %s (%s)", opt->dry_run ? "would remove" : "removed",
			    gc_kind_name(it->kind, false), it->path,
			    gc_kind_emptied(it->kind) ? "emptied"
			    : it->reason == GC_OLD    ? "its results are older than --older-than"
						      : "no stored result needs it");
		if (!gc_kind_emptied(it->kind))
			strbuf_addstr(&sb, ": ");
		if (it->kind == GC_LOG)
			units_bytes_add(&sb, (double)it->bytes);
		else if (!gc_kind_emptied(it->kind))
			gc_sizes_add(&sb, it->bytes, it->files, it->dirs);
		fprintf_printable(f, "%s\n", sb.buf);
	}
	strbuf_reset(&sb);
	strbuf_addstr(&sb, opt->dry_run ? "would free " : "freed ");
	gc_sizes_add(&sb, res->bytes, res->files, res->dirs);
	if (opt->dry_run)
		strbuf_addstr(&sb, " (dry run: nothing removed)");
	fprintf_printable(f, "%s\n", sb.buf);
	strbuf_release(&sb);
	return ferror(f) ? -1 : 0;
}

int gc_report_json(FILE *f, const struct gc_result *res, const struct gc_options *opt)
{
	json_t *root = json_object(), *items = json_array();
	int ret;
	json_object_set_new(root, "revperf_version", json_string(REVPERF_VERSION));
	json_object_set_new(root, "schema", json_string("revperf-gc/2"));
	json_object_set_new(root, "dry_run", json_boolean(opt->dry_run));
	json_object_set_new(root, "older_than_s",
			    opt->older_than
				? json_real((double)opt->older_than_ns / 1e9)
				: json_null());
	for (size_t i = 0; i < res->nr; i++) {
		const struct gc_item *it = &res->items[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string(gc_kind_name(it->kind, true)));
		json_object_set_new(o, "path", json_string(it->path));
		json_object_set_new(o, "reason", json_string(gc_reason_name(it->reason)));
		json_object_set_new(o, "bytes", json_integer((json_int_t)it->bytes));
		json_object_set_new(o, "files", json_integer((json_int_t)it->files));
		json_object_set_new(o, "directories", json_integer((json_int_t)it->dirs));
		json_array_append_new(items, o);
	}
	json_object_set_new(root, "removed", items);
	json_object_set_new(root, "bytes", json_integer((json_int_t)res->bytes));
	json_object_set_new(root, "files", json_integer((json_int_t)res->files));
	json_object_set_new(root, "directories", json_integer((json_int_t)res->dirs));
	json_object_set_new(root, "in_use", json_integer((json_int_t)res->in_use));
	json_object_set_new(root, "recent", json_integer((json_int_t)res->recent));
	json_object_set_new(root, "recent_directories", json_integer((json_int_t)res->recent_dirs));
	json_object_set_new(root, "failed", json_integer((json_int_t)res->failed));
	ret = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
	return ret || ferror(f) ? -1 : 0;
}
