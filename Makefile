# The two commands of the README: `make run` and `make test`. Both install any
# missing Debian packages first, then build with -j2 through ccache.
BUILD_DIR ?= build
JOBS ?= 2
LISTEN ?= 127.0.0.1:7070
STORE ?= sqlite:./redrive-data/redrive.db

# Let a clean clone in another folder reuse the objects in ccache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_COMPILERCHECK := content

.PHONY: all deps configure build run test bench clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD_DIR)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo

configure: $(BUILD_DIR)/CMakeCache.txt

build: deps configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

run: build
	@mkdir -p redrive-data
	$(BUILD_DIR)/redrive serve --listen $(LISTEN) --store $(STORE)

test: build
	ctest --test-dir $(BUILD_DIR) -j$(JOBS) --output-on-failure --timeout 600

# A fresh server on a free loopback port, then redrive-bench against it
# (BENCH_ARGS are passed on, e.g. BENCH_ARGS="--mode batch --jobs 50000").
bench: build
	REDRIVE_BIN=$(BUILD_DIR)/redrive REDRIVE_BENCH_BIN=$(BUILD_DIR)/bench/redrive-bench bench/run.sh $(BENCH_ARGS)

clean:
	rm -rf $(BUILD_DIR)
