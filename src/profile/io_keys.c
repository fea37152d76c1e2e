/*
 * The names an I/O profile's frames, stacks and files go by (profile/io_profile.h): the
 * keys of the spectrum analysis, where the program itself asked for the I/O, and which
 * frames are the program's rather than a system library's.
 */
#include <inttypes.h>
#include <string.h>

#include "profile/io_profile.h"
#include "util/common.h"
#include "util/strmap.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

void io_frame_name(const struct io_frame *f, struct strbuf *sb)
{
	if (f->function)
		strbuf_addstr(sb, f->function);
	else
		strbuf_addf(sb, "%s+0x%" PRIx64, base_name(f->module), f->addr);
}

void io_entry_stack_key(const struct io_entry *e, struct strbuf *sb)
{
	if (!e->nr_frames) {
		strbuf_addstr(sb, "[no stack]");
		return;
	}
	for (size_t i = e->nr_frames; i-- > 0;) {
		io_frame_name(&e->frames[i], sb);
		if (i)
			strbuf_addch(sb, ';');
	}
}

void io_entry_file_key(const struct io_profile *p, const struct io_entry *e, struct strbuf *sb)
{
	static const char *const kinds[] = {"pipe:[", "socket:[", "anon_inode:"};
	const char *f = e->file;
	size_t n;

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		size_t k = strlen(kinds[i]);
		if (strncmp(f, kinds[i], k))
			continue;
		if (i < 2) {
			strbuf_addch(sb, '[');
			strbuf_add(sb, kinds[i], k - 2);
			strbuf_addch(sb, ']');
		} else if (f[k] == '[') {
			strbuf_addstr(sb, f + k); /* anon_inode:[eventfd] */
		} else {
			strbuf_addf(sb, "[%s]", f + k); /* anon_inode:inotify */
		}
		return;
	}
	if (p->cwd && (n = strlen(p->cwd)) > 1 && !strncmp(f, p->cwd, n) && f[n] == '/') {
		strbuf_addch(sb, '.');
		strbuf_addstr(sb, f + n);
		return;
	}
	strbuf_addstr(sb, f);
}

static bool system_module(const char *m)
{
	static const char *const dirs[] = {"/lib/", "/usr/lib/", "/lib64/", "/usr/lib64/",
					   "/usr/local/lib/"};
	if (!strcmp(m, "[vdso]"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (!strncmp(m, dirs[i], strlen(dirs[i])))
			return true;
	return false;
}

const struct io_frame *io_entry_origin(const struct io_entry *e)
{
	/* Debian's libraries carry no DWARF (it is in separate debug packages): in a static
	 * binary, the first frame with a source line is the program's own code. */
	for (size_t i = 0; i < e->nr_frames; i++)
		if (e->frames[i].source && !system_module(e->frames[i].module))
			return &e->frames[i];
	for (size_t i = 0; i < e->nr_frames; i++)
		if (!system_module(e->frames[i].module))
			return &e->frames[i];
	return NULL;
}

static void frame_kinds(const struct io_profile *p, struct strmap *kinds, struct strbuf *name)
{
	for (size_t i = 0; i < p->nr_entries; i++) {
		const struct io_entry *e = &p->entries[i];
		bool with_lines = false;
		for (size_t k = 0; k < e->nr_frames && !with_lines; k++)
			with_lines = e->frames[k].source && !system_module(e->frames[k].module);
		for (size_t k = 0; k < e->nr_frames; k++) {
			const struct io_frame *f = &e->frames[k];
			bool own = !system_module(f->module) && (!with_lines || f->source);
			size_t *v;
			strbuf_reset(name);
			io_frame_name(f, name);
			v = strmap_put(kinds, name->buf, own, NULL);
			if (own)
				*v = 1;
		}
	}
}

void io_profiles_frame_kinds(const struct io_profile *p, size_t n, struct strmap *kinds)
{
	struct strbuf name = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		frame_kinds(&p[i], kinds, &name);
	strbuf_release(&name);
}
