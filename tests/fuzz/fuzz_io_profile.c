/*
 * libFuzzer target for the I/O profile reader (src/profile/io_profile.c): arbitrary bytes
 * through io_profile_parse(). Any input gives a profile or RP_EINPUT, never a crash or a
 * sanitizer report. A profile that parses is written back as JSON and read again: the same
 * document (the writer's promise), and its spectra runs are accepted by the analysis
 * (the reader refuses what the analysis would). Built by `make fuzz`.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/io_spectra.h"
#include "profile/io_profile.h"
#include "util/common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct io_profile p, again;
	struct spectra_run run;
	json_t *doc, *doc2;
	char *text;

	if (io_profile_parse("fuzz", (const char *)data, size, &p)) {
		io_profile_release(&p);
		return 0;
	}
	doc = io_profile_to_json(&p);
	text = json_dumps(doc, JSON_PRESERVE_ORDER);
	if (!text || io_profile_parse("fuzz (written back)", text, strlen(text), &again))
		abort();
	doc2 = io_profile_to_json(&again);
	if (!json_equal(doc, doc2))
		abort();
	for (int dir = IOTRACE_WRITE; dir <= IOTRACE_READ; dir++) {
		if (io_profile_to_spectra(&p, (enum iotrace_dir)dir, NULL, &run))
			abort();
		spectra_run_release(&run);
	}
	json_decref(doc);
	json_decref(doc2);
	free(text);
	io_profile_release(&again);
	io_profile_release(&p);
	return 0;
}
