#ifndef REVPERF_PROFILE_SAMPLE_IMPL_H
#define REVPERF_PROFILE_SAMPLE_IMPL_H

/*
 * Private to the sample profile's builder (sample_build.c) and unwinder (sample_unwind.c):
 * a process image as the kernel's records describe it at one moment, and the unwinder.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "binary/symbolize.h"
#include "profile/sample_raw.h"

/*
 * The code mapped into a process (or shared by processes forked from one without an exec):
 * its executable mappings, from MMAP2 records. Copied when a process that shares it maps
 * more (copy on write).
 */
struct sample_image {
	struct proc_maps maps;
	unsigned refs;	     /* processes using it */
	unsigned generation; /* changes with maps */
	/* The unwinder's session of this image (libdwfl), NULL until a stack is unwound. */
	void *dwfl;
	unsigned dwfl_generation;
	bool attached;
	/* Per mapping (parallel to maps, valid while cache_generation == generation): the
	 * module id and the ELF virtual address of the mapping's start. */
	uint32_t *map_module;
	uint64_t *map_vaddr;
	size_t cache_alloc;
	unsigned cache_generation;
};

/* Why a stack ended where it did, counted over the samples for the report. */
struct sample_unwind_note {
	bool no_regs;	/* the sample has no user registers (the thread was in the kernel) */
	bool truncated; /* the unwinder needed stack beyond the copy */
	bool spliced;	/* the kernel's frame-pointer chain continued where CFI ended */
};

struct sample_unwinder;

/* An unwinder naming modules through `sym` (borrowed). Free with sample_unwinder_free(). */
struct sample_unwinder *sample_unwinder_new(struct symbolizer *sym);
void sample_unwinder_free(struct sample_unwinder *u);

/* Ends the image's libdwfl session (before the image is freed). */
void sample_unwind_image_release(struct sample_image *img);

/*
 * The frames of sample s of a process with image img, unwound from its registers and
 * stack copy with the modules' call frame information (libdwfl), continued with the
 * kernel's frame-pointer chain where the call frame information ends early: run-time
 * addresses in pcs[] (innermost first), is_return[] true for return addresses (their call
 * is the byte before), from_chain[] true for the frames the chain gave. Returns the number of
 * frames (at most max; 0 when the sample cannot be unwound, e.g. it has no registers: the caller
 * uses the chain then).
 */
size_t sample_unwind(struct sample_unwinder *u, struct sample_image *img,
		     const struct sample_raw_sample *s, uint64_t regs_mask, uint64_t *pcs,
		     bool *is_return, bool *from_chain, size_t max,
		     struct sample_unwind_note *note);

/* Whether module `path` has call frame information (.eh_frame or .debug_frame) as far as
 * the unwinder has seen it: 1 yes, 0 no, -1 not opened by the unwinder. */
int sample_unwind_module_cfi(struct sample_unwinder *u, const char *path);

#endif
