# The two commands (see README.md): `make demo` and `make test`. Everything else is a helper.
BUILD      ?= build
BUILD_ASAN ?= build-asan
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
MAKEFLAGS  += --no-print-directory
CMAKE_FLAGS ?=

BUILD_FUZZ ?= build-fuzz
FUZZ_SECONDS ?= 60

.PHONY: all deps build build-asan test test-fast demo bench fuzz format clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/CMakeCache.txt:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

$(BUILD_ASAN)/CMakeCache.txt:
	@cmake -S . -B $(BUILD_ASAN) -DCMAKE_BUILD_TYPE=Debug -DREVPERF_SANITIZE=ON $(CMAKE_FLAGS) >/dev/null

build: deps $(BUILD)/CMakeCache.txt
	@cmake --build $(BUILD) -j $(JOBS)

build-asan: deps $(BUILD_ASAN)/CMakeCache.txt
	@cmake --build $(BUILD_ASAN) -j $(JOBS)

# The whole suite, then again under AddressSanitizer + UndefinedBehaviorSanitizer.
test: build build-asan
	@echo "== tests (RelWithDebInfo)"
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)
	@echo "== tests (ASan + UBSan)"
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --test-dir $(BUILD_ASAN) --output-on-failure -j $(JOBS)

test-fast: build
	@ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

demo: build
	@./examples/demo.sh $(BUILD)/revperf

bench: build
	@./bench/run-all.sh $(BUILD)/revperf

# Not part of `make test`: fuzzes the ELF and symbol reader, the JSON importers (hyperfine,
# Google Benchmark) and the profile readers (CCT runtime, callgrind, folded stacks, I/O), for
# FUZZ_SECONDS each (clang).
fuzz: deps
	@cmake -S . -B $(BUILD_FUZZ) -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DREVPERF_FUZZ=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD_FUZZ) -j $(JOBS) --target fuzz_elf fuzz_import fuzz_cct_file \
		fuzz_callgrind fuzz_folded fuzz_io_profile
	@./tests/fuzz/run.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_elf $(FUZZ_SECONDS)
	@./tests/fuzz/run_import.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_import $(FUZZ_SECONDS)
	@./tests/fuzz/run_cct_file.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_cct_file $(FUZZ_SECONDS)
	@./tests/fuzz/run_reader.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_callgrind $(FUZZ_SECONDS) \
		tests/data/callgrind/*.callgrind tests/data/callgrind/*.out
	@./tests/fuzz/run_reader.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_folded $(FUZZ_SECONDS) \
		tests/data/folded/*.folded
	@./tests/fuzz/run_reader.sh $(BUILD_FUZZ)/tests/fuzz/fuzz_io_profile $(FUZZ_SECONDS) \
		tests/data/io/*.io.json

format:
	@clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_FUZZ)
