# The two commands of the README: `make run` and `make test`. Both install any
# missing Debian packages first, then build with -j2 through ccache. `make test`
# also installs what only the tests need: chromium and Node.js (Debian), and the
# browser tests' npm packages (tests/browser, pinned by its lockfile) when they
# are missing or the lockfile changed.
BUILD_DIR ?= build
JOBS ?= 2
LISTEN ?= 127.0.0.1:7070
STORE ?= sqlite:./redrive-data/redrive.db

# Let a clean clone in another folder reuse the objects in ccache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_COMPILERCHECK := content

.PHONY: all deps test-deps configure build browser-deps run install package test test-sanitize \
        test-tsan bench bench-pg-soak soak clean fuzz-build fuzz

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test

# Warnings are errors here, the developer's and CI's entry point (`make run`
# and `make test` share BUILD_DIR, so both build with it); a plain `cmake`
# leaves them warnings. `make WERROR=OFF ...` turns it off.
WERROR ?= ON

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DREDRIVE_WERROR=$(WERROR)

# Reconfigures a build folder made before the option, or with the other value.
configure: $(BUILD_DIR)/CMakeCache.txt
	@grep -qx 'REDRIVE_WERROR:BOOL=$(WERROR)' $(BUILD_DIR)/CMakeCache.txt || \
	  cmake -S . -B $(BUILD_DIR) -DREDRIVE_WERROR=$(WERROR)

build: deps configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

# Only what the server needs: the `redrive` target, not the tests and bench.
run: deps configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target redrive
	@mkdir -p redrive-data
	$(BUILD_DIR)/redrive serve --listen $(LISTEN) --store $(STORE)

# `make install` builds what it installs (cmake/install.cmake: the target
# redrive_dist, not the tests), then installs under $(DESTDIR)$(PREFIX):
# bin/redrive (stripped; `make install STRIP=` keeps its debug info), its man
# page, README and docs, and the C++ SDK (headers, static libraries, the CMake
# package for find_package(Redrive)). `make package` builds the Debian
# packages redrive and libredrive-dev into $(BUILD_DIR)/packages.
PREFIX ?= /usr/local
DESTDIR ?=
STRIP ?= --strip

install: deps configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target redrive_dist
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD_DIR) --prefix "$(PREFIX)" $(STRIP)

package: deps configure
	cmake --build $(BUILD_DIR) -j$(JOBS) --target redrive_dist
	cpack --config $(BUILD_DIR)/CPackConfig.cmake -B $(BUILD_DIR)/packages

# npm ci writes node_modules/.package-lock.json; it is the stamp. The
# browser is Debian's chromium (scripts/install-deps.sh): playwright-core
# never downloads one.
BROWSER_TESTS := tests/browser
$(BROWSER_TESTS)/node_modules/.package-lock.json: $(BROWSER_TESTS)/package-lock.json | test-deps
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix $(BROWSER_TESTS) --no-audit --no-fund
	@touch $@

browser-deps: $(BROWSER_TESTS)/node_modules/.package-lock.json

test: test-deps build browser-deps
	ctest --test-dir $(BUILD_DIR) -j$(JOBS) --output-on-failure --timeout 600
	$(MAKE) fuzz FUZZ_SECONDS=$(TEST_FUZZ_SECONDS)

# The libFuzzer targets of fuzz/ (fuzz/README.md) in a build folder of their
# own, with clang++, coverage instrumentation, ASan and UBSan; only the
# libraries they use are built. `make fuzz` runs each for FUZZ_SECONDS, one
# after another, and fails on any finding (fuzz/run.sh); `make test` gives
# each TEST_FUZZ_SECONDS. Clang warns where GCC does not (-Wmissing-braces),
# so warnings stay warnings here; `make build` is the -Werror build.
FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 300
TEST_FUZZ_SECONDS ?= 20
FUZZ_TARGETS ?= http_request json_decoders time_parsing

$(FUZZ_DIR)/CMakeCache.txt: | test-deps
	cmake -S . -B $(FUZZ_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DREDRIVE_FUZZ=ON -DREDRIVE_WERROR=OFF

fuzz-build: test-deps $(FUZZ_DIR)/CMakeCache.txt
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_targets

fuzz: fuzz-build
	fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Sanitizer builds, each in its own folder (REDRIVE_SANITIZE in CMakeLists.txt).
# -O1 -g without NDEBUG: -O1 compiles the instrumented tree much faster than
# -O2 on two cores, runs the I/O-bound tests about as fast, keeps stack traces
# exact, and leaves the asserts on. GCC's warnings under -fsanitize include
# known false positives, so these builds do not make them errors; `make build`
# still does.
ASAN_DIR ?= build-asan
TSAN_DIR ?= build-tsan
SANITIZE_CMAKE = -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DREDRIVE_WERROR=OFF
# A report ends the process (halt_on_error, and -fno-sanitize-recover=all for
# UBSan) and so fails its test. The processes a test starts (`redrive`, the
# examples) inherit these, and their reports fail the test too
# (tests/e2e/support/sanitizer_reports.h).
# No suppressions: none has been needed.
SANITIZER_OPTIONS = ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

$(ASAN_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(ASAN_DIR) $(SANITIZE_CMAKE) -DREDRIVE_SANITIZE=address,undefined

$(TSAN_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(TSAN_DIR) $(SANITIZE_CMAKE) -DREDRIVE_SANITIZE=thread

# ASan+UBSan: the unit, store (both stores) and end-to-end tests (e2e, SDK,
# CLI, on both stores): all of `make test` but the browser tests and the source
# checks (labels `browser` and `check`).
test-sanitize: test-deps $(ASAN_DIR)/CMakeCache.txt
	cmake --build $(ASAN_DIR) -j$(JOBS)
	$(SANITIZER_OPTIONS) ctest --test-dir $(ASAN_DIR) -j$(JOBS) --output-on-failure -LE '^(browser|check)$$'

# TSan: the engine's tests (group commit, waiters, thread pools, background
# loop), the API's and the SDK's (client and worker threads against a live
# server). Only the binaries those need are built.
TSAN_TARGETS := redrive_engine_test redrive_api_test redrive_sdk_test sdk_client_test \
  sdk_client_schedules_test sdk_client_workflows_test sdk_worker_test sdk_examples_test
test-tsan: test-deps $(TSAN_DIR)/CMakeCache.txt
	cmake --build $(TSAN_DIR) -j$(JOBS) --target $(TSAN_TARGETS)
	$(SANITIZER_OPTIONS) ctest --test-dir $(TSAN_DIR) -j$(JOBS) --output-on-failure -L '^(engine|api|sdk)$$'

# A fresh server on a free loopback port, then redrive-bench against it
# (BENCH_ARGS are passed on, e.g. BENCH_ARGS="--mode batch --jobs 50000").
bench: build
	REDRIVE_BIN=$(BUILD_DIR)/redrive REDRIVE_BENCH_BIN=$(BUILD_DIR)/bench/redrive-bench bench/run.sh $(BENCH_ARGS)

# Mixed load for SOAK_SECONDS (default 30 min) with memory, open files, WAL
# and latency sampled (bench/soak.sh).
soak: build
	REDRIVE_BIN=$(BUILD_DIR)/redrive REDRIVE_BENCH_BIN=$(BUILD_DIR)/bench/redrive-bench bench/soak.sh

# Claim latency on PostgreSQL from 0 to 2 million finished jobs (several
# minutes; FINISHED_LEVELS and SAMPLES tune it, see bench/pg-soak.sh).
bench-pg-soak: build
	REDRIVE_BIN=$(BUILD_DIR)/redrive bench/pg-soak.sh

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) $(ASAN_DIR) $(TSAN_DIR)
