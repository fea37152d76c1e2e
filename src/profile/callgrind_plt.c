/* PLT entries named in callgrind profiles (profile/callgrind_plt.h). */
#include "profile/callgrind_plt.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binary/binfile.h"
#include "util/common.h"

#define PAGE_BYTES 4096u

void callgrind_plt_release(struct callgrind_plt *c)
{
	for (size_t i = 0; i < c->nr; i++)
		binfile_plt_release(&c->plts[i]);
	free(c->plts);
	strmap_release(&c->ids);
	memset(c, 0, sizeof(*c));
}

/* True for a path to a regular file that starts like an ELF file. */
static bool elf_file(const char *path)
{
	char magic[4];
	struct stat st;
	bool ok;
	int fd;
	if (path[0] != '/' || stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return false;
	ok = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return ok;
}

/* The PLT of the object at path, read on first use; NULL when it has none. */
static const struct binfile_plt *plt_of(struct callgrind_plt *c, const char *path)
{
	bool added;
	size_t i = *strmap_put(&c->ids, path, c->nr, &added);
	if (added) {
		ALLOC_GROW(c->plts, c->nr + 1, c->alloc);
		memset(&c->plts[c->nr], 0, sizeof(c->plts[0]));
		if (elf_file(path) && binfile_plt_read(path, &c->plts[c->nr]))
			binfile_plt_release(&c->plts[c->nr]);
		c->nr++;
	}
	return c->plts[i].nr || c->plts[i].nr_unsized || c->plts[i].entry ? &c->plts[i] : NULL;
}

/* callgrind's name of a function without a symbol: "0x" and hex digits. */
static bool address_name(const char *name, uint64_t *addr)
{
	uint64_t v = 0;
	size_t n = 0;
	if (name[0] != '0' || name[1] != 'x')
		return false;
	for (name += 2; *name; name++, n++) {
		int d = *name >= '0' && *name <= '9'   ? *name - '0'
			: *name >= 'a' && *name <= 'f' ? *name - 'a' + 10
						       : -1;
		if (d < 0 || n >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return n > 0;
}

static char *plt_name(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s@plt", name);
	return strbuf_detach(&sb);
}

/*
 * The load offset of one calling object: among the offsets (address - entry) that put a
 * callee of the object on one of its PLT entries, the one that does so for the most
 * callees; 0 with *found false when there is none or two tie.
 */
/*
 * The function symbols of size 0 of the object loaded at off, for addresses in "???":
 * _init and _fini are called by the dynamic loader, from its own object, so no PLT of the
 * object names them.
 */
static void name_unsized(const struct binfile_plt *plt, uint64_t off, size_t nr_funcs,
			 char **names, const uint64_t *addr, const bool *unknown,
			 const bool *conflict)
{
	for (size_t f = 0; f < nr_funcs; f++) {
		const char *name;
		if (unknown[f] && !conflict[f] && !names[f] &&
		    (name = binfile_plt_unsized(plt, addr[f] - off)))
			names[f] = xstrdup(name);
	}
}

static uint64_t best_offset(const struct binfile_plt *plt, const uint64_t *addrs, size_t n,
			    bool *found)
{
	uint64_t best = 0;
	size_t best_votes = 0;
	bool tie = false;
	*found = false;
	for (size_t i = 0; i < n; i++) {
		for (size_t e = 0; e < plt->nr; e++) {
			uint64_t off = addrs[i] - plt->entries[e].addr;
			size_t votes = 0;
			if (off % PAGE_BYTES || (best_votes && off == best))
				continue;
			for (size_t j = 0; j < n; j++)
				votes += binfile_plt_name(plt, addrs[j] - off) != NULL;
			if (votes > best_votes) {
				best = off;
				best_votes = votes;
				tie = false;
			} else if (votes == best_votes) {
				tie = true;
			}
		}
	}
	*found = best_votes && !tie;
	return best;
}

/*
 * Names the "???" addresses that functions of `object` call; an address that callers in
 * another object named otherwise is marked in conflict[] and keeps its address.
 */
static void name_from_caller(struct callgrind_plt *c, const struct callgrind_func_info *funcs,
			     size_t nr_funcs, const uint32_t (*calls)[2], size_t nr_calls,
			     const char *object, char **names, const uint64_t *addr,
			     const bool *unknown, bool *conflict)
{
	const struct binfile_plt *plt = plt_of(c, object);
	uint64_t *addrs, off;
	size_t n = 0;
	bool found;

	if (!plt)
		return;
	addrs = xcalloc(nr_calls ? nr_calls : 1, sizeof(*addrs));
	for (size_t k = 0; k < nr_calls; k++)
		if (unknown[calls[k][1]] && !strcmp(funcs[calls[k][0]].object, object))
			addrs[n++] = addr[calls[k][1]];
	off = best_offset(plt, addrs, n, &found);
	free(addrs);
	if (!found)
		return;
	for (size_t k = 0; k < nr_calls; k++) {
		uint32_t f = calls[k][1];
		const char *name;
		if (!unknown[f] || strcmp(funcs[calls[k][0]].object, object) ||
		    !(name = binfile_plt_name(plt, addr[f] - off)))
			continue;
		if (conflict[f])
			continue;
		if (!names[f]) {
			names[f] = plt_name(name);
		} else if (strncmp(names[f], name, strlen(name)) ||
			   strcmp(names[f] + strlen(name), "@plt")) {
			free(names[f]); /* callers in two objects disagree: keep the address */
			names[f] = NULL;
			conflict[f] = true;
		}
	}
	name_unsized(plt, off, nr_funcs, names, addr, unknown, conflict);
}

void callgrind_plt_rename(const struct callgrind_func_info *funcs, size_t nr_funcs,
			  const uint32_t (*calls)[2], size_t nr_calls, char **names, void *arg)
{
	struct callgrind_plt *c = arg;
	uint64_t *addr = xcalloc(nr_funcs ? nr_funcs : 1, sizeof(*addr));
	bool *unknown = xcalloc(nr_funcs ? nr_funcs : 1, sizeof(*unknown));
	bool *conflict = xcalloc(nr_funcs ? nr_funcs : 1, sizeof(*conflict));
	struct strmap callers = STRMAP_INIT;
	bool any = false;

	for (size_t i = 0; i < nr_funcs; i++) {
		const struct binfile_plt *plt;
		const char *name;
		if (!address_name(funcs[i].name, &addr[i]))
			continue;
		if (!strcmp(funcs[i].object, "???") || !*funcs[i].object) {
			unknown[i] = any = true;
		} else if ((plt = plt_of(c, funcs[i].object))) {
			/* the object's own address */
			if ((name = binfile_plt_name(plt, addr[i])))
				names[i] = plt_name(name);
			else if ((name = binfile_plt_unsized(plt, addr[i])))
				names[i] = xstrdup(name);
			else if (plt->entry && addr[i] == plt->entry)
				/* the entry point without a symbol: the dynamic loader's,
				 * the root of every path ("0x000000000001ab70" before) */
				names[i] = xstrdup("_start");
		}
	}
	for (size_t k = 0; any && k < nr_calls; k++) {
		const char *object = funcs[calls[k][0]].object;
		bool added;
		if (!unknown[calls[k][1]] || object[0] != '/')
			continue;
		strmap_put(&callers, object, 0, &added);
		if (added)
			name_from_caller(c, funcs, nr_funcs, calls, nr_calls, object, names, addr,
					 unknown, conflict);
	}
	strmap_release(&callers);
	free(conflict);
	free(unknown);
	free(addr);
}
