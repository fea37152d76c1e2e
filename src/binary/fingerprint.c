/* The fingerprint of a build's programs and libraries (fingerprint.h). */
#include "binary/fingerprint.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"

/* A 64-bit running hash, fed in 8-byte words; fingerprint_finish() mixes in the length. */
struct fp_hash {
	uint64_t h, len;
	unsigned char tail[8];
	size_t nr_tail;
};

static uint64_t fp_mix(uint64_t h, uint64_t w)
{
	h ^= w * 0x9e3779b97f4a7c15ULL;
	h = (h << 31 | h >> 33) * 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

static void fp_add(struct fp_hash *fh, const void *data, size_t n)
{
	const unsigned char *p = data;
	fh->len += n;
	while (n) {
		size_t take = 8 - fh->nr_tail < n ? 8 - fh->nr_tail : n;
		memcpy(fh->tail + fh->nr_tail, p, take);
		fh->nr_tail += take;
		p += take;
		n -= take;
		if (fh->nr_tail == 8) {
			uint64_t w;
			memcpy(&w, fh->tail, 8);
			fh->h = fp_mix(fh->h, w);
			fh->nr_tail = 0;
		}
	}
}

static void fp_add_u64(struct fp_hash *fh, uint64_t v)
{
	fp_add(fh, &v, sizeof(v));
}

static uint64_t fp_finish(struct fp_hash *fh)
{
	uint64_t w = 0, h;
	memcpy(&w, fh->tail, fh->nr_tail);
	h = fp_mix(fp_mix(fh->h, w), fh->len);
	/* splitmix64's finalizer */
	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/* The whole file from fd's current offset: 0 or -1 (errno). */
static int hash_whole(int fd, struct fp_hash *fh)
{
	char buf[65536];
	ssize_t n;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fp_add(fh, buf, (size_t)n);
	return n < 0 ? -1 : 0;
}

/*
 * The allocated sections of an ELF executable or shared object: 1 hashed, 0 when it is
 * another kind of ELF file (an object file: not run), -1 when libelf cannot read it (the
 * caller hashes the file whole).
 */
static int hash_loaded(int fd, struct fp_hash *fh)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	Elf_Scn *scn = NULL;
	size_t shstrndx, nr_sections = 0;
	int ret = -1;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		goto out;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		ret = 0;
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	fp_add_u64(fh, eh.e_machine);
	fp_add_u64(fh, eh.e_entry);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh))
			goto out;
		nr_sections++;
		if (!(sh.sh_flags & SHF_ALLOC) || sh.sh_type == SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		fp_add(fh, name ? name : "", name ? strlen(name) + 1 : 1);
		fp_add_u64(fh, sh.sh_type);
		fp_add_u64(fh, sh.sh_flags);
		fp_add_u64(fh, sh.sh_addr);
		fp_add_u64(fh, sh.sh_size);
		if (sh.sh_type == SHT_NOBITS)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d && sh.sh_size)
			goto out;
		if (d && d->d_buf)
			fp_add(fh, d->d_buf, d->d_size);
	}
	ret = nr_sections ? 1 : -1;
out:
	elf_end(elf);
	return ret;
}

struct fp_entry {
	char *path; /* relative to the tree */
	uint64_t hash;
};

struct fp_walk {
	const char *root;
	struct fp_entry *v;
	size_t nr, alloc;
};

/* The file at rel: an entry when it is an ELF program or library. 0 or -1 (printed). */
static int visit_file(struct fp_walk *w, const char *path, const char *rel)
{
	unsigned char magic[4];
	struct fp_hash fh = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK), kind;
	if (fd < 0)
		return error("cannot fingerprint %s: %s", path, strerror(errno));
	if (read(fd, magic, 4) != 4 || memcmp(magic, ELFMAG, SELFMAG)) {
		close(fd);
		return 0;
	}
	kind = hash_loaded(fd, &fh);
	if (kind < 0) {
		memset(&fh, 0, sizeof(fh));
		if (hash_whole(fd, &fh)) {
			int err = errno;
			close(fd);
			return error("cannot fingerprint %s: %s", path, strerror(err));
		}
	}
	close(fd);
	if (kind == 0)
		return 0;
	ALLOC_GROW(w->v, w->nr + 1, w->alloc);
	w->v[w->nr].path = xstrdup(rel);
	w->v[w->nr++].hash = fp_finish(&fh);
	return 0;
}

static int walk(struct fp_walk *w, const char *rel)
{
	struct strbuf path = STRBUF_INIT, sub = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = -1;
	strbuf_addf(&path, "%s%s%s", w->root, *rel ? "/" : "", rel);
	d = opendir(path.buf);
	if (!d) {
		error("cannot fingerprint %s: %s", path.buf, strerror(errno));
		goto out;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!*rel && !strcmp(de->d_name, ".git"))
			continue;
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno == ENOENT)
				continue; /* removed meanwhile */
			error("cannot fingerprint %s/%s: %s", path.buf, de->d_name,
			      strerror(errno));
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			if (walk(w, sub.buf))
				goto out;
		} else if (S_ISREG(st.st_mode) && st.st_size >= 4) {
			struct strbuf full = STRBUF_INIT;
			int r;
			strbuf_addf(&full, "%s/%s", path.buf, de->d_name);
			r = visit_file(w, full.buf, sub.buf);
			strbuf_release(&full);
			if (r)
				goto out;
		}
	}
	ret = 0;
out:
	if (d)
		closedir(d);
	strbuf_release(&path);
	strbuf_release(&sub);
	return ret;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fp_entry *)a)->path, ((const struct fp_entry *)b)->path);
}

int fingerprint_tree(const char *dir, struct strbuf *out)
{
	struct fp_walk w = { .root = dir };
	int ret;
	elf_version(EV_CURRENT);
	ret = walk(&w, "");
	if (!ret) {
		if (w.nr) /* qsort's base may not be NULL, even for no element */
			qsort(w.v, w.nr, sizeof(*w.v), entry_cmp);
		for (size_t i = 0; i < w.nr; i++) {
			strbuf_addf(out, "%016" PRIx64 " ", w.v[i].hash);
			for (const char *p = w.v[i].path; *p; p++)
				strbuf_addch(out, *p == '\n' ? '?' : *p);
			strbuf_addch(out, '\n');
		}
	}
	for (size_t i = 0; i < w.nr; i++)
		free(w.v[i].path);
	free(w.v);
	return ret;
}

/* One line of a fingerprint text: its hash (16 digits) and path; false at the end. */
static bool next_line(const char **p, const char **hash, const char **path, size_t *path_len)
{
	const char *nl;
	while (**p && (strlen(*p) < 18 || (*p)[16] != ' ')) { /* not ours: skipped */
		nl = strchr(*p, '\n');
		*p = nl ? nl + 1 : *p + strlen(*p);
	}
	if (!**p)
		return false;
	*hash = *p;
	*path = *p + 17;
	nl = strchr(*path, '\n');
	*path_len = nl ? (size_t)(nl - *path) : strlen(*path);
	*p = nl ? nl + 1 : *path + *path_len;
	return true;
}

bool fingerprint_describe_change(const char *old_fp, const char *new_fp, struct strbuf *what)
{
	const char *po = old_fp ? old_fp : "", *pn = new_fp ? new_fp : "";
	const char *ho = NULL, *fo = NULL, *hn = NULL, *fn = NULL;
	size_t lo = 0, ln = 0, changed = 0;
	bool have_o = next_line(&po, &ho, &fo, &lo), have_n = next_line(&pn, &hn, &fn, &ln);
	while (have_o || have_n) {
		int c = !have_o ? 1 : !have_n ? -1 : strncmp(fo, fn, lo < ln ? lo : ln);
		if (have_o && have_n && !c && lo != ln)
			c = lo < ln ? -1 : 1;
		if (c == 0 && !strncmp(ho, hn, 16)) {
			have_o = next_line(&po, &ho, &fo, &lo);
			have_n = next_line(&pn, &hn, &fn, &ln);
			continue;
		}
		if (!changed++) {
			if (c <= 0)
				strbuf_addf(what, "%.*s: %.12s -> ", (int)lo, fo, ho);
			else
				strbuf_addf(what, "%.*s: (none) -> ", (int)ln, fn);
			if (c >= 0)
				strbuf_addf(what, "%.12s", hn);
			else
				strbuf_addstr(what, "(none)");
		}
		if (c <= 0)
			have_o = next_line(&po, &ho, &fo, &lo);
		if (c >= 0)
			have_n = next_line(&pn, &hn, &fn, &ln);
	}
	if (changed > 1)
		strbuf_addf(what, ", and %zu more file%s", changed - 1, changed > 2 ? "s" : "");
	return changed > 0;
}
