# quiver: the two commands a newcomer needs are `make demo` and `make test`.
# Each installs missing Debian packages (scripts/deps.sh), configures and
# builds with CMake, then runs the demo or every test.

BUILD    ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
PREFIX   ?= /usr/local
CMAKE_FLAGS ?=
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build demo pyenv pyext pypackage pypackage-check test test-c test-python lance-coverage asan tsan install bench fuzz clean clean-demo

all: build

deps:
	@scripts/deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(BUILD)/quiver demo

pyenv:
	@scripts/pyenv.sh

# The Python package quiver (pyproject.toml, python/) built by pip with the
# project's CMake and installed into .venv; its build tree (build-py/) is kept,
# so a second run rebuilds only what changed.  CMAKE_ARGS passes CMAKE_FLAGS
# (e.g. -DQV_WERROR=ON in CI) to that build.  `make test` does not need it
# (it tests the extension built in $(BUILD)); CI runs `make pypackage-check`,
# which installs the package this way and runs the package tests against it.
pypackage: pyenv
	@echo "pypackage: pip install . into .venv (the extension builds in build-py/)"
	CMAKE_ARGS="$(CMAKE_FLAGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) .venv/bin/pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps .

pypackage-check: pypackage
	cd tests && QV_BUILD_DIR=$(abspath $(BUILD)) ../.venv/bin/python -c 'import quiver, sys; print("installed:", quiver.__file__); sys.exit("site-packages" not in quiver.__file__)'
	QV_BUILD_DIR=$(abspath $(BUILD)) .venv/bin/python -m pytest -q tests/python/test_package.py

test: build pyenv test-c test-python

test-c: build
	@echo "test-c: the C suite (ctest)"
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The extension quiver._quiver is built in $(BUILD) beside the library, from
# the same objects (so the library is compiled once), and the tests import
# the package from $(BUILD)/python.
pyext: build pyenv
	@echo "pyext: building quiver._quiver in $(BUILD)/python"
	@cmake -S . -B $(BUILD) -DQV_PYTHON=ON -DPython_EXECUTABLE=$(abspath .venv/bin/python) > /dev/null
	cmake --build $(BUILD) -j $(JOBS) --target _quiver

test-python: pyext
	@echo "test-python: pytest tests/python tests/peers"
	PYTHONPATH=$(abspath $(BUILD))/python QV_BUILD_DIR=$(abspath $(BUILD)) .venv/bin/python -m pytest -q tests/python tests/peers
	@echo "test-python: the openCypher TCK on the engine (ctest graph_tck_exec: it needs the extension, so test-c may not have had it)"
	cd $(BUILD) && ctest --output-on-failure -R '^graph_tck_exec(_hash)?$$'

# Regenerates docs/lance-pushdown.md (quiver's Lance pushdown next to polars-pylance's, judged by pylance).
lance-coverage: pyext
	PYTHONPATH=$(abspath $(BUILD))/python QV_BUILD_DIR=$(abspath $(BUILD)) .venv/bin/python tests/peers/lance_coverage.py

# The whole C suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
asan: deps
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DQV_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS)

# The tests that run work on the worker pool (src/base/pool.c: scans, the
# exec operators, the CSR build), under
# ThreadSanitizer.  (die_after_fork=0: test_pool forks on purpose.)
tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DQV_SANITIZE_THREAD=ON $(CMAKE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS)
	cd $(TSAN_BUILD) && TSAN_OPTIONS=die_after_fork=0:halt_on_error=1 \
		ctest --output-on-failure -j $(JOBS) -R 'pool|block_cache|parallel|scan_test|storage_test_partial|storage_test_roundtrip|cli_golden|exec_test|graph_test_graph'

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

bench: build pyenv
	$(BUILD)/bench/bench_scan_pushdown --quiver $(BUILD)/quiver --json $(BUILD)/bench-scan-pushdown.json

# libFuzzer targets (clang); run one with e.g. build-fuzz/fuzz/fuzz_lance_filter -max_total_time=60
fuzz:
	@scripts/deps.sh --dev
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DQV_FUZZ=ON -DQV_SANITIZE=ON
	cmake --build build-fuzz -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz build-py

# The demo's dataset (demo-data/, about 550 MB at the default 2M rows).
clean-demo:
	rm -rf demo-data
