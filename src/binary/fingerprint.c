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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "binary/binfile_impl.h"
#include "util/common.h"
#include "util/fsutil.h"
#include "util/strmap.h"

/*
 * The running hash of one file: the binary layer's 64-bit hash (binfile_impl.h), each piece
 * hashed whole (binhash_bytes()) and mixed in, in order.
 */
struct fp_hash {
	uint64_t h;
};

static void fp_add(struct fp_hash *fh, const void *data, size_t n)
{
	fh->h = binhash_mix(fh->h, binhash_bytes(data, n));
}

static void fp_add_u64(struct fp_hash *fh, uint64_t v)
{
	fh->h = binhash_mix(fh->h, v);
}

static uint64_t fp_finish(const struct fp_hash *fh)
{
	return binhash_final(fh->h);
}

/* The whole file from fd's current offset: 0 or -1 (errno). */
static int hash_whole(int fd, struct fp_hash *fh)
{
	char buf[65536];
	size_t have = 0;
	ssize_t n = 1;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	/* in whole buffers, so that a short read cannot change the hash */
	while (n > 0) {
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			n = 1;
		else if (n > 0)
			have += (size_t)n;
		if (have == sizeof(buf) || (n == 0 && have)) {
			fp_add(fh, buf, have);
			have = 0;
		}
	}
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

/*
 * What a file was when it was last looked at (its stat) and what it gave: a file whose
 * identity, size, mtime and ctime are unchanged is not read again. One line per file in
 * TREE/.git/revperf-fingerprint, after its CACHE_TAG line: "e HASH16 DEV INO SIZE MS MNS
 * CS CNS\tPATH" (e: an entry; n: not an ELF program or library, no hash). A check on every use of a build
 * otherwise read every program and library of the tree (0.9-2 s for 650 MB of shared
 * objects, each time a history reused a commit).
 */
struct fp_stat {
	char *path;
	bool entry;
	uint64_t hash;
	uint64_t dev, ino, size;
	int64_t ms, mns, cs, cns;
};

struct fp_walk {
	const char *root;
	struct fp_entry *v;
	size_t nr, alloc;
	struct fp_stat *cache; /* read from the cache file, then the files of this walk */
	size_t nr_cache, alloc_cache, nr_old;
	struct strmap by_path; /* path -> index in cache (the old ones) */
	bool changed;	       /* the cache file must be written again */
	time_t now;
};

static void stat_fill(struct fp_stat *c, const struct stat *st)
{
	c->dev = (uint64_t)st->st_dev;
	c->ino = (uint64_t)st->st_ino;
	c->size = (uint64_t)st->st_size;
	c->ms = (int64_t)st->st_mtim.tv_sec;
	c->mns = st->st_mtim.tv_nsec;
	c->cs = (int64_t)st->st_ctim.tv_sec;
	c->cns = st->st_ctim.tv_nsec;
}

static bool stat_same(const struct fp_stat *c, const struct stat *st)
{
	struct fp_stat now;
	stat_fill(&now, st);
	return c->dev == now.dev && c->ino == now.ino && c->size == now.size &&
	       c->ms == now.ms && c->mns == now.mns && c->cs == now.cs && c->cns == now.cns;
}

/* The cache file's first line: the hash it holds (2: binhash, binfile_impl.h). */
#define CACHE_TAG "revperf-fingerprint 2\n"

static void cache_path(struct strbuf *sb, const char *root)
{
	strbuf_addf(sb, "%s/.git/revperf-fingerprint", root);
}

/* Reads the cache file (when there is one); a line that does not parse is skipped. */
static void cache_read(struct fp_walk *w)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	cache_path(&path, w->root);
	strmap_init(&w->by_path);
	/* a cache of another hash (or none) is not read: its files are hashed again */
	if (!strbuf_read_file(&text, path.buf, 64u << 20) &&
	    !strncmp(text.buf, CACHE_TAG, strlen(CACHE_TAG))) {
		for (char *line = text.buf + strlen(CACHE_TAG), *end; *line; line = end) {
			struct fp_stat c = { 0 };
			char kind = 0, *tab;
			unsigned long long h, dev, ino, size;
			long long ms, mns, cs, cns;
			end = strchr(line, '\n');
			end = end ? end + 1 : line + strlen(line);
			tab = memchr(line, '\t', (size_t)(end - line));
			if (!tab || end[-1] != '\n' ||
			    sscanf(line, "%c %llx %llu %llu %llu %lld %lld %lld %lld", &kind, &h, &dev,
				   &ino, &size, &ms, &mns, &cs, &cns) != 9 ||
			    (kind != 'e' && kind != 'n'))
				continue;
			c.path = xstrndup(tab + 1, (size_t)(end - 1 - (tab + 1)));
			c.entry = kind == 'e';
			c.hash = h;
			c.dev = dev;
			c.ino = ino;
			c.size = size;
			c.ms = ms;
			c.mns = mns;
			c.cs = cs;
			c.cns = cns;
			ALLOC_GROW(w->cache, w->nr_cache + 1, w->alloc_cache);
			strmap_put(&w->by_path, c.path, w->nr_cache, NULL);
			w->cache[w->nr_cache++] = c;
		}
	}
	w->nr_old = w->nr_cache;
	strbuf_release(&path);
	strbuf_release(&text);
}

/*
 * Writes the files this walk saw (those after nr_old) as the new cache, when anything
 * changed; a file changed in the last 2 seconds is left out (a timestamp's granularity
 * could hide a write right after this look), so it is read again next time. A cache that
 * cannot be written is no error: the next walk reads the files.
 */
static void cache_write(struct fp_walk *w)
{
	struct strbuf path = STRBUF_INIT;
	struct whole_file f;
	if (!w->changed)
		goto out;
	cache_path(&path, w->root);
	if (whole_file_open(&f, path.buf))
		goto out;
	fputs(CACHE_TAG, f.f);
	for (size_t i = w->nr_old; i < w->nr_cache; i++) {
		const struct fp_stat *c = &w->cache[i];
		if (c->ms >= (int64_t)w->now - 2 || c->cs >= (int64_t)w->now - 2 ||
		    strchr(c->path, '\n'))
			continue;
		fprintf(f.f, "%c %016" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64
			     " %" PRId64 " %" PRId64 " %" PRId64 "\t%s\n",
			c->entry ? 'e' : 'n', c->hash, c->dev, c->ino, c->size, c->ms, c->mns,
			c->cs, c->cns, c->path);
	}
	if (whole_file_commit(&f))
		unlink(path.buf);
out:
	strbuf_release(&path);
}

static void remember(struct fp_walk *w, const char *rel, const struct stat *st, bool entry,
		     uint64_t hash)
{
	struct fp_stat c = { 0 };
	c.path = xstrdup(rel);
	c.entry = entry;
	c.hash = hash;
	stat_fill(&c, st);
	ALLOC_GROW(w->cache, w->nr_cache + 1, w->alloc_cache);
	w->cache[w->nr_cache++] = c;
}

static void add_entry(struct fp_walk *w, const char *rel, uint64_t hash)
{
	ALLOC_GROW(w->v, w->nr + 1, w->alloc);
	w->v[w->nr].path = xstrdup(rel);
	w->v[w->nr++].hash = hash;
}

/* The file at rel: an entry when it is an ELF program or library. 0 or -1 (printed). */
static int visit_file(struct fp_walk *w, const char *path, const char *rel,
		      const struct stat *st)
{
	unsigned char magic[4];
	struct fp_hash fh = { 0 };
	size_t *cached = strmap_get(&w->by_path, rel);
	int fd, kind;
	if (cached && *cached < w->nr_old && stat_same(&w->cache[*cached], st)) {
		const struct fp_stat *c = &w->cache[*cached];
		if (c->entry)
			add_entry(w, rel, c->hash);
		remember(w, rel, st, c->entry, c->hash);
		return 0;
	}
	w->changed = true;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return error("cannot fingerprint %s: %s", path, strerror(errno));
	if (read(fd, magic, 4) != 4 || memcmp(magic, ELFMAG, SELFMAG)) {
		close(fd);
		remember(w, rel, st, false, 0);
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
	if (kind == 0) {
		remember(w, rel, st, false, 0);
		return 0;
	}
	add_entry(w, rel, fp_finish(&fh));
	remember(w, rel, st, true, w->v[w->nr - 1].hash);
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
			r = visit_file(w, full.buf, sub.buf, &st);
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
	w.now = time(NULL);
	cache_read(&w);
	ret = walk(&w, "");
	/* a file of the old cache no longer there: written again without it */
	if (!ret && w.nr_cache - w.nr_old != w.nr_old)
		w.changed = true;
	if (!ret)
		cache_write(&w);
	if (!ret) {
		bin_sort(w.v, w.nr, sizeof(*w.v), entry_cmp);
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
	for (size_t i = 0; i < w.nr_cache; i++)
		free(w.cache[i].path);
	free(w.cache);
	strmap_release(&w.by_path);
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
