/*
 * I/O profiles: a traced run with its stacks symbolized, as a versioned JSON file
 * (docs/io-profile.md), and its conversion into a spectra_run.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/symbolize.h"
#include "profile/io_profile.h"
#include "util/fsutil.h"
#include "util/common.h"
#include "util/input.h"
#include "util/interrupt.h"

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

int io_profile_status_parse(const char *s)
{
	for (int i = RUN_OK; i <= RUN_INTERRUPTED; i++)
		if (!strcmp(s, run_status_name((enum run_status)i)))
			return i;
	return -1;
}

static char *source_of(const char *file, unsigned line)
{
	struct strbuf sb = STRBUF_INIT;
	if (!file)
		return NULL;
	strbuf_addf(&sb, "%s:%u", file, line);
	return strbuf_detach(&sb);
}

/*
 * Appends the frames of one physical frame: the functions inlined at its address first
 * (innermost first), then the function that holds the code.
 */
static void name_frame(struct symbolizer *sym, const struct iotrace_frame *in, struct io_entry *e,
		       size_t *alloc)
{
	struct sym_loc loc;
	bool named =
	    in->module[0] != '[' && !symbolizer_lookup(sym, in->module, in->file_vaddr, &loc);
	size_t k = named ? loc.nr_inlines : 0;

	ALLOC_GROW(e->frames, e->nr_frames + k + 1, *alloc);
	for (size_t j = 0; j <= k; j++) {
		struct io_frame *f = &e->frames[e->nr_frames++];
		memset(f, 0, sizeof(*f));
		f->module = xstrdup(in->module);
		f->addr = in->file_vaddr;
		if (!named)
			continue; /* [vdso], [unknown] or a module that cannot be read */
		f->inlined = j < k;
		f->function = dup_or_null(j < k ? loc.inlines[j].function : loc.function);
		if (!j)
			f->source = source_of(loc.src_file, loc.line);
		else
			f->source =
			    source_of(loc.inlines[j - 1].call_file, loc.inlines[j - 1].call_line);
	}
}

int io_profile_from_trace(const struct iotrace_result *tr, const struct io_profile_meta *meta,
			  struct io_profile *out)
{
	struct symbolizer *sym = symbolizer_new();
	char cwd[4096];

	symbolizer_set_inlines(sym, true);
	memset(out, 0, sizeof(*out));
	out->command = xstrdup(meta->command ? meta->command : "");
	if (meta->cwd)
		out->cwd = xstrdup(meta->cwd);
	else if (getcwd(cwd, sizeof(cwd)))
		out->cwd = xstrdup(cwd);
	out->log = dup_or_null(meta->log);
	out->started_at = meta->started_at;
	out->reads = meta->reads;
	out->status = tr->status;
	out->exit_code = tr->exit_code;
	out->signal = tr->signal;
	if (tr->status != RUN_OK)
		out->detail = xstrdup(tr->detail);
	out->stragglers_killed = tr->stragglers_killed;
	out->wall_ns = tr->wall_ns > 0 ? (uint64_t)tr->wall_ns : 0;
	out->traced_calls = tr->traced_calls;

	out->nr_entries = tr->nr_entries;
	out->entries = xcalloc(tr->nr_entries ? tr->nr_entries : 1, sizeof(*out->entries));
	for (size_t i = 0; i < tr->nr_entries; i++) {
		const struct iotrace_entry *in = &tr->entries[i];
		struct io_entry *e = &out->entries[i];

		e->dir = in->dir;
		e->syscall = xstrdup(in->syscall);
		e->file = xstrdup(in->file);
		e->truncated = in->truncated;
		e->calls = in->calls;
		e->bytes = in->bytes;
		e->errors = in->errors;
		e->unfinished = in->unfinished;
		e->last_errno = in->last_errno;
		size_t alloc = 0;
		for (size_t f = 0; f < in->nr_frames; f++)
			name_frame(sym, &in->frames[f], e, &alloc);
	}
	out->nr_procs = tr->nr_procs;
	out->procs = xcalloc(tr->nr_procs ? tr->nr_procs : 1, sizeof(*out->procs));
	for (size_t i = 0; i < tr->nr_procs; i++) {
		const struct iotrace_process *in = &tr->procs[i];
		struct io_process *p = &out->procs[i];

		p->pid = in->pid;
		p->ppid = in->ppid;
		p->exe = dup_or_null(in->exe);
		p->execs = in->execs;
		p->exited = in->exited;
		p->wstatus = in->wstatus;
	}
	symbolizer_free(sym);
	return RP_OK;
}

void io_profile_release(struct io_profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nr_entries; i++) {
		struct io_entry *e = &p->entries[i];
		for (size_t f = 0; f < e->nr_frames; f++) {
			free(e->frames[f].module);
			free(e->frames[f].function);
			free(e->frames[f].source);
		}
		free(e->frames);
		free(e->syscall);
		free(e->file);
	}
	free(p->entries);
	for (size_t i = 0; i < p->nr_procs; i++)
		free(p->procs[i].exe);
	free(p->procs);
	free(p->command);
	free(p->cwd);
	free(p->log);
	free(p->detail);
	memset(p, 0, sizeof(*p));
}

/* ---- Writing ---- */

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *u64_json(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *io_profile_to_json(const struct io_profile *p)
{
	json_t *root = json_object(), *entries = json_array(), *procs = json_array();

	json_object_set_new(root, "format", json_string(IO_PROFILE_FORMAT));
	json_object_set_new(root, "version", json_integer(IO_PROFILE_VERSION));
	json_object_set_new(root, "command", json_string(p->command ? p->command : ""));
	json_object_set_new(root, "cwd", str_or_null(p->cwd));
	json_object_set_new(root, "log", str_or_null(p->log));
	json_object_set_new(root, "started_at", json_integer(p->started_at));
	json_object_set_new(root, "status", json_string(run_status_name(p->status)));
	json_object_set_new(root, "exit_code", json_integer(p->exit_code));
	json_object_set_new(root, "signal", json_integer(p->signal));
	json_object_set_new(root, "detail", str_or_null(p->detail));
	json_object_set_new(root, "stragglers_killed", json_boolean(p->stragglers_killed));
	json_object_set_new(root, "wall_ns", u64_json(p->wall_ns));
	json_object_set_new(root, "reads", json_boolean(p->reads));
	json_object_set_new(root, "traced_calls", u64_json(p->traced_calls));
	for (size_t i = 0; i < p->nr_procs; i++) {
		const struct io_process *pr = &p->procs[i];
		json_t *o = json_object();
		json_object_set_new(o, "pid", json_integer(pr->pid));
		json_object_set_new(o, "ppid", json_integer(pr->ppid));
		json_object_set_new(o, "exe", str_or_null(pr->exe));
		json_object_set_new(o, "execs", json_integer(pr->execs));
		json_object_set_new(o, "exited", json_boolean(pr->exited));
		json_object_set_new(o, "wstatus", json_integer(pr->wstatus));
		json_array_append_new(procs, o);
	}
	json_object_set_new(root, "processes", procs);
	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct io_entry *e = &p->entries[i];
		json_t *o = json_object(), *frames = json_array();
		json_object_set_new(o, "dir",
				    json_string(e->dir == IOTRACE_READ ? "read" : "write"));
		json_object_set_new(o, "syscall", json_string(e->syscall));
		json_object_set_new(o, "file", json_string(e->file));
		json_object_set_new(o, "calls", u64_json(e->calls));
		json_object_set_new(o, "bytes", u64_json(e->bytes));
		json_object_set_new(o, "errors", u64_json(e->errors));
		json_object_set_new(o, "last_errno", json_integer(e->last_errno));
		json_object_set_new(o, "unfinished", u64_json(e->unfinished));
		json_object_set_new(o, "truncated", json_boolean(e->truncated));
		for (size_t f = 0; f < e->nr_frames; f++) {
			const struct io_frame *fr = &e->frames[f];
			json_t *fo = json_object();
			char addr[32];
			snprintf(addr, sizeof(addr), "0x%" PRIx64, fr->addr);
			json_object_set_new(fo, "module", json_string(fr->module));
			json_object_set_new(fo, "addr", json_string(addr));
			json_object_set_new(fo, "function", str_or_null(fr->function));
			json_object_set_new(fo, "source", str_or_null(fr->source));
			json_object_set_new(fo, "inlined", json_boolean(fr->inlined));
			json_array_append_new(frames, fo);
		}
		json_object_set_new(o, "frames", frames);
		json_array_append_new(entries, o);
	}
	json_object_set_new(root, "entries", entries);
	return root;
}

int io_profile_write(const struct io_profile *p, const char *path)
{
	json_t *root = io_profile_to_json(p);
	struct whole_file w;
	int ret = RP_OK;

	errno = 0;
	if (whole_file_open(&w, path)) {
		error("cannot write the I/O profile %s: %s", path, fs_strerror(errno));
		ret = RP_EINTERNAL;
	} else if (json_dumpf(root, w.f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII)) {
		error("cannot write the I/O profile %s: %s", path, strerror(errno ? errno : EIO));
		whole_file_abort(&w);
		ret = RP_EINTERNAL;
	} else if (whole_file_commit(&w)) {
		error("cannot write the I/O profile %s: %s", path, strerror(errno));
		ret = RP_EINTERNAL;
	}
	json_decref(root);
	return ret;
}

/* ---- Reading ---- */

struct reader {
	const char *name;
	struct strbuf path; /* JSON path of the value being read, for messages */
	int err;
};

static int bad(struct reader *r, const char *key, const char *what)
{
	if (!r->err && !r->path.len && !key)
		error("%s: %s", r->name, what);
	else if (!r->err)
		error("%s: %s%s%s: %s", r->name, r->path.buf, r->path.len && key ? "." : "",
		      key ? key : "", what);
	r->err = RP_EINPUT;
	return RP_EINPUT;
}

static json_t *field(struct reader *r, json_t *obj, const char *key, bool required)
{
	json_t *v = json_object_get(obj, key);
	if (!v && required)
		bad(r, key, "missing");
	return v;
}

static bool get_u64(struct reader *r, json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = field(r, obj, key, true);
	if (!v)
		return false;
	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		bad(r, key, "expected a non-negative integer");
		return false;
	}
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static bool get_int(struct reader *r, json_t *obj, const char *key, int64_t lo, int64_t hi,
		    int64_t *out)
{
	json_t *v = field(r, obj, key, true);
	char msg[96];
	if (!v)
		return false;
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
		snprintf(msg, sizeof(msg), "expected an integer from %" PRId64 " to %" PRId64, lo,
			 hi);
		bad(r, key, msg);
		return false;
	}
	*out = json_integer_value(v);
	return true;
}

static bool get_bool(struct reader *r, json_t *obj, const char *key, bool *out)
{
	json_t *v = field(r, obj, key, true);
	if (!v)
		return false;
	if (!json_is_boolean(v)) {
		bad(r, key, "expected true or false");
		return false;
	}
	*out = json_is_true(v);
	return true;
}

/* A string (required non-empty unless may_be_empty), or null when nullable. */
static bool get_str(struct reader *r, json_t *obj, const char *key, bool nullable,
		    bool may_be_empty, char **out)
{
	json_t *v = field(r, obj, key, true);
	if (!v)
		return false;
	if (json_is_null(v) && nullable) {
		*out = NULL;
		return true;
	}
	if (!json_is_string(v)) {
		bad(r, key, nullable ? "expected a string or null" : "expected a string");
		return false;
	}
	if (!may_be_empty && !json_string_length(v)) {
		bad(r, key, "expected a non-empty string");
		return false;
	}
	*out = xstrdup(json_string_value(v));
	return true;
}

static void path_push(struct reader *r, const char *key, size_t index, size_t *saved)
{
	*saved = r->path.len;
	strbuf_addf(&r->path, "%s%s[%zu]", r->path.len ? "." : "", key, index);
}

static void path_pop(struct reader *r, size_t saved)
{
	r->path.len = saved;
	r->path.buf[saved] = '\0';
}

static json_t *get_array(struct reader *r, json_t *obj, const char *key)
{
	json_t *v = field(r, obj, key, true);
	if (v && !json_is_array(v)) {
		bad(r, key, "expected an array");
		return NULL;
	}
	return v;
}

static bool read_frame(struct reader *r, json_t *o, struct io_frame *f)
{
	char *addr = NULL, *end;
	bool ok;

	if (!json_is_object(o))
		return !bad(r, NULL, "expected an object");
	ok = get_str(r, o, "module", false, false, &f->module) &&
	     get_str(r, o, "addr", false, false, &addr);
	if (ok) {
		errno = 0;
		f->addr = strtoull(addr, &end, 16);
		if (strncmp(addr, "0x", 2) || errno || *end || end == addr + 2)
			ok = !bad(r, "addr", "expected a hexadecimal address such as \"0x4011a6\"");
	}
	free(addr);
	return ok && get_str(r, o, "function", true, false, &f->function) &&
	       get_str(r, o, "source", true, false, &f->source) &&
	       get_bool(r, o, "inlined", &f->inlined);
}

static bool read_entry(struct reader *r, json_t *o, struct io_entry *e)
{
	char *dir = NULL;
	json_t *frames;
	int64_t last_errno;
	bool ok;

	if (!json_is_object(o))
		return !bad(r, NULL, "expected an object");
	if (!get_str(r, o, "dir", false, false, &dir))
		return false;
	ok = !strcmp(dir, "write") || !strcmp(dir, "read");
	e->dir = strcmp(dir, "read") ? IOTRACE_WRITE : IOTRACE_READ;
	free(dir);
	if (!ok)
		return !bad(r, "dir", "expected \"write\" or \"read\"");
	if (!get_str(r, o, "syscall", false, false, &e->syscall) ||
	    !get_str(r, o, "file", false, false, &e->file) || !get_u64(r, o, "calls", &e->calls) ||
	    !get_u64(r, o, "bytes", &e->bytes) || !get_u64(r, o, "errors", &e->errors) ||
	    !get_u64(r, o, "unfinished", &e->unfinished) ||
	    !get_int(r, o, "last_errno", 0, 4095, &last_errno) ||
	    !get_bool(r, o, "truncated", &e->truncated))
		return false;
	e->last_errno = (int)last_errno;
	if (!e->calls && e->bytes)
		return !bad(r, "bytes", "bytes written by no call (calls is 0)");
	if (e->errors > e->calls || e->unfinished > e->calls)
		return !bad(r, "errors", "more failed or unfinished calls than calls");
	if (!(frames = get_array(r, o, "frames")))
		return false;
	e->nr_frames = json_array_size(frames);
	if (e->nr_frames > IO_PROFILE_MAX_FRAMES)
		return !bad(r, "frames", "more than 65536 frames");
	e->frames = xcalloc(e->nr_frames ? e->nr_frames : 1, sizeof(*e->frames));
	for (size_t i = 0; i < e->nr_frames; i++) {
		size_t saved;
		path_push(r, "frames", i, &saved);
		ok = read_frame(r, json_array_get(frames, i), &e->frames[i]);
		path_pop(r, saved);
		if (!ok)
			return false;
	}
	return true;
}

static bool read_process(struct reader *r, json_t *o, struct io_process *p)
{
	int64_t execs, wstatus;

	if (!json_is_object(o))
		return !bad(r, NULL, "expected an object");
	if (!get_int(r, o, "pid", 0, INT32_MAX, &p->pid) ||
	    !get_int(r, o, "ppid", 0, INT32_MAX, &p->ppid) ||
	    !get_str(r, o, "exe", true, false, &p->exe) ||
	    !get_int(r, o, "execs", 0, UINT32_MAX, &execs) ||
	    !get_bool(r, o, "exited", &p->exited) || !get_int(r, o, "wstatus", 0, 0xffff, &wstatus))
		return false;
	p->execs = (unsigned)execs;
	p->wstatus = (int)wstatus;
	return true;
}

static int read_root(struct reader *r, json_t *root, struct io_profile *out)
{
	json_t *v, *entries, *procs;
	char *status = NULL;
	int64_t n;
	int st;

	if (!json_is_object(root))
		return bad(r, NULL, "expected a JSON object (an I/O profile)");
	v = json_object_get(root, "format");
	if (!json_is_string(v) || strcmp(json_string_value(v), IO_PROFILE_FORMAT)) {
		error("%s: not an I/O profile (no \"format\": \"%s\"); write one with `revperf "
		      "profile --io -d DIR`",
		      r->name, IO_PROFILE_FORMAT);
		return RP_EINPUT;
	}
	v = json_object_get(root, "version");
	if (!json_is_integer(v) || json_integer_value(v) < 1) {
		error("%s: \"version\" must be a positive integer", r->name);
		return RP_EINPUT;
	}
	if (json_integer_value(v) > IO_PROFILE_VERSION) {
		error("%s: I/O profile version %" JSON_INTEGER_FORMAT " is newer than this revperf "
		      "reads (%d): upgrade revperf",
		      r->name, json_integer_value(v), IO_PROFILE_VERSION);
		return RP_EINPUT;
	}
	if (!get_str(r, root, "command", false, true, &out->command) ||
	    !get_str(r, root, "cwd", true, false, &out->cwd) ||
	    !get_str(r, root, "log", true, false, &out->log) ||
	    !get_int(r, root, "started_at", INT64_MIN, INT64_MAX, &out->started_at) ||
	    !get_str(r, root, "status", false, false, &status))
		return r->err;
	st = io_profile_status_parse(status);
	free(status);
	if (st < 0)
		return bad(r, "status",
			   "unknown run status (ok, failed, crashed, timeout, "
			   "not-started, interrupted)");
	out->status = (enum run_status)st;
	if (!get_int(r, root, "exit_code", -1, 255, &n))
		return r->err;
	out->exit_code = (int)n;
	if (!get_int(r, root, "signal", 0, 128, &n))
		return r->err;
	out->signal = (int)n;
	if (!get_str(r, root, "detail", true, true, &out->detail) ||
	    !get_bool(r, root, "stragglers_killed", &out->stragglers_killed) ||
	    !get_u64(r, root, "wall_ns", &out->wall_ns) ||
	    !get_bool(r, root, "reads", &out->reads) ||
	    !get_u64(r, root, "traced_calls", &out->traced_calls))
		return r->err;
	if (!(procs = get_array(r, root, "processes")) ||
	    !(entries = get_array(r, root, "entries")))
		return r->err;
	out->nr_procs = json_array_size(procs);
	out->procs = xcalloc(out->nr_procs ? out->nr_procs : 1, sizeof(*out->procs));
	for (size_t i = 0; i < out->nr_procs; i++) {
		size_t saved;
		path_push(r, "processes", i, &saved);
		if (!read_process(r, json_array_get(procs, i), &out->procs[i]))
			return r->err;
		path_pop(r, saved);
	}
	out->nr_entries = json_array_size(entries);
	out->entries = xcalloc(out->nr_entries ? out->nr_entries : 1, sizeof(*out->entries));
	for (size_t i = 0; i < out->nr_entries; i++) {
		size_t saved;
		path_push(r, "entries", i, &saved);
		if (!read_entry(r, json_array_get(entries, i), &out->entries[i]))
			return r->err;
		path_pop(r, saved);
	}
	return RP_OK;
}

int io_profile_parse(const char *name, const char *text, size_t len, struct io_profile *out)
{
	struct reader r = {name, STRBUF_INIT, RP_OK};
	json_error_t jerr;
	json_t *root;
	int ret;

	memset(out, 0, sizeof(*out));
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		error("%s:%d:%d: not a valid I/O profile (JSON): %s", name, jerr.line, jerr.column,
		      jerr.text);
		return RP_EINPUT;
	}
	ret = read_root(&r, root, out);
	json_decref(root);
	strbuf_release(&r.path);
	return ret;
}

int io_profile_read(const char *path, struct io_profile *out)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = input_read(&sb, path, &input_io_profile))) {
		strbuf_release(&sb);
		return ret;
	}
	ret = io_profile_parse(path, sb.buf, sb.len, out);
	strbuf_release(&sb);
	return ret;
}

bool io_profile_sniff(const char *head, size_t len)
{
	static const char key[] = "\"format\"";
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", head[i]))
		i++;
	if (i == len || head[i] != '{')
		return false;
	for (; i + sizeof(key) - 1 <= len; i++) {
		if (memcmp(head + i, key, sizeof(key) - 1))
			continue;
		i += sizeof(key) - 1;
		while (i < len && strchr(" \t\r\n:", head[i]))
			i++;
		return len - i >= sizeof(IO_PROFILE_FORMAT) + 1 &&
		       !memcmp(head + i, "\"" IO_PROFILE_FORMAT "\"",
			       sizeof(IO_PROFILE_FORMAT) + 1);
	}
	return false;
}

/* ---- Sides: a file or a directory of runs ---- */

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

bool io_profile_path_is_io(const char *path)
{
	struct strbuf why = STRBUF_INIT;
	struct input in;
	char head[4096];
	bool found = false;
	ssize_t len;

	/* Standard input is read once, by the reader of the profile. What cannot be opened
	 * is not I/O: the reader of calling context trees says why. */
	if (!strcmp(path, "-") || input_open_why(&in, path, &input_io_profile, &why)) {
		strbuf_release(&why);
		return false;
	}
	if (in.is_dir) {
		DIR *d = fdopendir(in.fd);
		struct dirent *de;
		if (!d) {
			input_close(&in);
			return false;
		}
		in.fd = -1; /* closedir() closes it */
		while (!found && (de = readdir(d)))
			found = has_suffix(de->d_name, ".io.json");
		closedir(d);
		return found;
	}
	do
		len = read(in.fd, head, sizeof(head));
	while (len < 0 && errno == EINTR && !interrupt_requested());
	input_close(&in);
	return len > 0 && io_profile_sniff(head, (size_t)len);
}

/* "run-2" before "run-10". */
static int natural_cmp(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	while (*x && *y) {
		if (isdigit((unsigned char)*x) && isdigit((unsigned char)*y)) {
			const char *xs = x, *ys = y;
			size_t xl, yl;
			while (*xs == '0' && isdigit((unsigned char)xs[1]))
				xs++;
			while (*ys == '0' && isdigit((unsigned char)ys[1]))
				ys++;
			for (x = xs; isdigit((unsigned char)*x); x++)
				;
			for (y = ys; isdigit((unsigned char)*y); y++)
				;
			xl = (size_t)(x - xs);
			yl = (size_t)(y - ys);
			if (xl != yl)
				return xl < yl ? -1 : 1;
			int c = memcmp(xs, ys, xl);
			if (c)
				return c;
			continue;
		}
		if (*x != *y)
			return (unsigned char)*x < (unsigned char)*y ? -1 : 1;
		x++;
		y++;
	}
	return *x ? 1 : *y ? -1 : 0;
}

void io_profiles_free(struct io_profile *p, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		io_profile_release(&p[i]);
	free(p);
}

int io_profile_load_runs(const char *path, struct io_profile **out, size_t *nr)
{
	struct input in;
	char **names = NULL;
	size_t nr_names = 0, alloc = 0;
	struct strbuf sb = STRBUF_INIT;
	int err = RP_OK;

	*out = NULL;
	*nr = 0;
	if ((err = input_open(&in, path, &input_io_profile)))
		return err;
	if (!in.is_dir) {
		input_close(&in);
		*out = xcalloc(1, sizeof(**out));
		*nr = 1;
		return io_profile_read(path, *out);
	}
	DIR *d = fdopendir(in.fd);
	struct dirent *de;
	if (!d) {
		error("cannot read the directory %s: %s", path, strerror(errno));
		input_close(&in);
		return RP_EINPUT;
	}
	while ((de = readdir(d))) {
		if (!has_suffix(de->d_name, ".io.json"))
			continue;
		ALLOC_GROW(names, nr_names + 1, alloc);
		names[nr_names++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (!nr_names) {
		error("%s: no I/O profile (*.io.json) in this directory: write some with `revperf "
		      "profile --io -d %s -- COMMAND`",
		      path, path);
		return RP_EINPUT;
	}
	qsort(names, nr_names, sizeof(*names), natural_cmp);
	*out = xcalloc(nr_names, sizeof(**out));
	for (size_t i = 0; i < nr_names; i++) {
		if (!err) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%s/%s", path, names[i]);
			err = io_profile_read(sb.buf, &(*out)[i]);
			*nr = i + 1;
		}
		free(names[i]);
	}
	free(names);
	strbuf_release(&sb);
	return err;
}
