# The two commands (see README.md): `make demo` and `make test`, which install the Debian
# packages revperf needs (scripts/install-deps.sh) and build. A plain `make` only builds
# (a missing library is one message naming `make deps`); `make install` copies the build
# under PREFIX (and DESTDIR), `make uninstall` removes it again (docs/install.md).
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS  += --no-print-directory
CMAKE_FLAGS ?=
PREFIX     ?= /usr/local
DESTDIR    ?=
# The developer builds (these, and so `make test` and CI) treat warnings as errors; a plain
# `cmake` build does not (REVPERF_WERROR, CMakeLists.txt).
DEV_FLAGS  := -DREVPERF_WERROR=ON

BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps build build-asan build-fuzz test test-fast demo bench fuzz format clean \
	install uninstall

all: build

deps:
	@./scripts/install-deps.sh

# Configured once, and again (keeping the build and its settings: `make install
# BUILD=build-asan` leaves that one a sanitizer build) when this Makefile changes.
$(BUILD)/CMakeCache.txt: Makefile
	@if [ -f $@ ]; then cmake $(BUILD) $(DEV_FLAGS) $(CMAKE_FLAGS) >/dev/null; \
	else cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(DEV_FLAGS) $(CMAKE_FLAGS) \
		>/dev/null; fi
	@touch $@

$(BUILD_ASAN)/CMakeCache.txt: Makefile
	@cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
		-DREVPERF_SANITIZE=ON $(DEV_FLAGS) \
		$(CMAKE_FLAGS) >/dev/null
	@touch $@

# The libFuzzer targets of tests/fuzz/ (clang), linked against the instrumented engine.
$(BUILD_FUZZ)/CMakeCache.txt: Makefile
	@cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DREVPERF_FUZZ=ON $(DEV_FLAGS) $(CMAKE_FLAGS) >/dev/null
	@touch $@

build: $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: $(BUILD_ASAN)/CMakeCache.txt
	@cmake --build $(BUILD_ASAN) -j $(JOBS)

# Everything with clang, the fuzz targets included: `make test` keeps the tree compiling
# with both compilers.
build-fuzz: $(BUILD_FUZZ)/CMakeCache.txt
	@cmake --build $(BUILD_FUZZ) -j $(JOBS)

# The sanitizer build is -O1, as AddressSanitizer's documentation advises: its unit tests
# took 69 s at -O1 against 91 s at -O0 (ctest -L unit -j2, 2 cores, load 3).
#
# The whole suite, then again under AddressSanitizer + UndefinedBehaviorSanitizer (without
# the tests labelled `slow` in tests/CMakeLists.txt: they wait, or measure other programs);
# then the fuzz targets (the clang build) run once on each of their seeds, so that they keep
# building and keep running. The packages first, then the builds (never beside the installation).
test: deps
	@$(MAKE) build build-asan build-fuzz
	@echo "== tests (RelWithDebInfo)"
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@echo "== tests (ASan + UBSan)"
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS) -LE slow
	@echo "== fuzz targets (clang), their seeds"
	@./tests/fuzz/run_all.sh $(BUILD_FUZZ) 0 >$(BUILD_FUZZ)/seeds.log 2>&1 || \
		{ cat $(BUILD_FUZZ)/seeds.log; echo "fuzz seeds failed: $(BUILD_FUZZ)/seeds.log"; exit 1; }

test-fast: deps
	@$(MAKE) build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: deps
	@$(MAKE) build
	@./examples/demo.sh $(BUILD)/revperf

bench: deps
	@$(MAKE) build
	@./bench/run-all.sh $(BUILD)/revperf

# PREFIX/bin/revperf, PREFIX/libexec/revperf/revperf-spawn, PREFIX/lib/revperf/ (the
# runtimes), the manual pages and the bash completion made from the option tables, the
# licence; under DESTDIR when set (a package's staging directory). The build first, as
# the user who runs make: `make && sudo make install` builds nothing as root.
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)" >/dev/null
	@echo "installed under $(DESTDIR)$(PREFIX): $$("$(DESTDIR)$(PREFIX)/bin/revperf" -V)"

# What install put there, and nothing else: the directories of revperf's own, the pages
# named revperf(1) and revperf-*(1), the completion named revperf.
uninstall:
	@root="$(DESTDIR)$(PREFIX)"; \
	rm -f "$$root/bin/revperf" "$$root/share/bash-completion/completions/revperf" \
		"$$root/share/man/man1/revperf.1" "$$root"/share/man/man1/revperf-*.1 && \
	rm -rf "$$root/libexec/revperf" "$$root/lib/revperf" "$$root/share/doc/revperf" && \
	echo "removed revperf from $$root"

# Fuzzing itself is not part of `make test` (which only runs the seeds): fuzzes the ELF and
# symbol reader, the JSON importers (hyperfine, Google Benchmark) and the profile readers
# (CCT runtime, callgrind, folded stacks, I/O), for FUZZ_SECONDS each (clang).
fuzz: deps
	@$(MAKE) build-fuzz
	@./tests/fuzz/run_all.sh $(BUILD_FUZZ) $(FUZZ_SECONDS)

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
