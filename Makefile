# FlashPQ — the two commands of the README, and a few more.
#   make demo   install the few Debian packages the demo needs, build the `flashpq` command
#               alone (Release), run the quickstart, draw it
#   make test   install what the tests need, build everything (the Python package's native
#               module too), run the Catch2 tests through ctest and then pytest for the plots,
#               the Python package and its notebook (pytest runs even when ctest fails; the
#               target fails at the end if either did)
#   make python the Python package flashpq in a virtual environment, .venv (pip install .)
#   make paper  the RIPQ paper's figures: experiments/paper/ on all cores, PNG and PDF, README
#   make test-sanitize   the Catch2 tests again under AddressSanitizer + UBSan, built with clang
#                        and libFuzzer's coverage (the same build as make fuzz; CI runs it)
#   make test-tsan   the tests of the parallel sweep and the prefetching reader under
#                    ThreadSanitizer (CI runs it)
#   make fuzz   every fuzz target (fuzz/targets.h) for FUZZ_SECONDS each (default 600), FUZZ_JOBS
#               at once; prints executions and findings (CI: FUZZ_SECONDS=4)
#   make format-check   every C++ source as the checked-in .clang-format wants it (CI runs it)
#   make bench  requests per second of each exact policy (needs ../shared/traces)
#   scripts/bench-verify.sh   verify at scale: 10 GiB written, read back and checked, then a
#               flipped byte found (flashpq device verify)
# Compilations go through ccache when it is installed (CMakeLists.txt, FLASHPQ_CCACHE).

BUILD ?= build
SAN_BUILD ?= build-sanitize
TSAN_BUILD ?= build-tsan
SAN_CXX ?= clang++-14
FUZZ_SECONDS ?= 600
FUZZ_JOBS ?= $(JOBS)
FUZZ_TARGETS ?= $(notdir $(wildcard fuzz/corpus/*))
JOBS ?= $(shell nproc)
# The sanitizer builds: -O1, as the sanitizers' documentation advises, with line tables only
# (file:line in every report, at a fraction of full debug information's compile time).
SAN_FLAGS ?= -O1 -gline-tables-only -DNDEBUG
TSAN_FLAGS ?= -O1 -g1 -DNDEBUG
# Debian's interpreter: it is the one python3-matplotlib and python3-pytest install into.
PYTHON ?= /usr/bin/python3

.PHONY: deps deps-demo deps-python deps-sanitize build build-command demo python paper test \
        test-sanitize \
        test-tsan sanitize-build fuzz format format-check bench clean

deps-demo:
	@scripts/install-deps.sh demo

deps:
	@scripts/install-deps.sh

deps-sanitize:
	@scripts/install-deps.sh sanitize

deps-python:
	@scripts/install-deps.sh python

# The `flashpq` command alone (no test libraries needed).
build-command: deps-demo
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHPQ_BUILD_TESTS=OFF
	cmake --build $(BUILD) -j $(JOBS) --target flashpq

# Everything: the command, the tests, the layering checks, the Python package's native module
# (in $(BUILD)/python/flashpq/, found by the tests through FLASHPQ_EXTENSION_DIR).
build: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DFLASHPQ_BUILD_TESTS=ON \
	  -DFLASHPQ_BUILD_PYTHON=ON
	cmake --build $(BUILD) -j $(JOBS)

# The Python package in a virtual environment, $(VENV) (docs/guide/python.md): pip fetches the
# build backend and numpy, pandas, matplotlib, tqdm; the C++ is built from this tree.
VENV ?= .venv
python: deps-python
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install .

demo: build-command
	./$(BUILD)/flashpq run experiments/quickstart.yaml -o results/quickstart.csv
	$(PYTHON) plots/hit_ratio_wa.py results/quickstart.csv -o results/quickstart.png
	@# The README's figure is this one (the same bytes for the same rows).
	@mkdir -p docs/images && cp results/quickstart.png docs/images/quickstart.png

# The RIPQ paper reproduced (experiments/paper/README.md): every matrix on all cores, every
# figure as PNG and PDF in results/paper/, and the README's tables from those results.
PAPER := results/paper
paper: build-command
	@mkdir -p $(PAPER)
	for m in fig2 fig8 fig8_generated fig9 cache_size block_size; do \
	  ./$(BUILD)/flashpq run experiments/paper/$$m.yaml -o $(PAPER)/$$m.csv --progress 60 || exit $$?; \
	done
	for ext in png pdf; do \
	  $(PYTHON) plots/flash.py wa $(PAPER)/fig2.csv -o $(PAPER)/fig2.$$ext && \
	  $(PYTHON) plots/frameworks.py fidelity $(PAPER)/fig8.csv -o $(PAPER)/fig8_fidelity.$$ext && \
	  $(PYTHON) plots/frameworks.py fidelity --metric byte $(PAPER)/fig8.csv -o $(PAPER)/fig8_byte_fidelity.$$ext && \
	  $(PYTHON) plots/frameworks.py wa $(PAPER)/fig8.csv -o $(PAPER)/fig8_wa.$$ext && \
	  $(PYTHON) plots/frameworks.py k-sensitivity $(PAPER)/fig9.csv -o $(PAPER)/fig9.$$ext && \
	  $(PYTHON) plots/hit_ratio_wa.py $(PAPER)/cache_size.csv -o $(PAPER)/cache_size.$$ext > /dev/null && \
	  $(PYTHON) plots/paper.py block-size $(PAPER)/block_size.csv -o $(PAPER)/block_size.$$ext \
	  || exit $$?; \
	done
	$(PYTHON) plots/paper.py readme $(PAPER) -o experiments/paper/README.md

test: build
	@status=0; \
	(cd $(BUILD) && ctest --output-on-failure -j $(JOBS)) || status=1; \
	FLASHPQ_BINARY=$(abspath $(BUILD))/flashpq FLASHPQ_EXTENSION_DIR=$(abspath $(BUILD))/python \
	  $(PYTHON) -m pytest tests/python -q \
	  -p no:cacheprovider -n $(JOBS) || status=1; \
	if [ $$status -ne 0 ]; then echo "make test: FAILED (see above: ctest, pytest or both)"; fi; \
	exit $$status

# One clang build for the sanitized tests and the fuzzer: ASan + UBSan + libFuzzer's coverage.
sanitize-build: deps-sanitize
	cmake -S . -B $(SAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(SAN_FLAGS)" \
	  -DCMAKE_CXX_COMPILER=$(SAN_CXX) -DFLASHPQ_FUZZ=ON -DFLASHPQ_TEST_SPEC="~[slow] ~[.]"
	cmake --build $(SAN_BUILD) -j $(JOBS) --target flashpq flashpq_tests flashpq_fuzz

# Tests tagged [slow] (long validations on whole traces) run in the Release suite only; the
# others, one process each, on every core (ctest -L catch: the Catch tests alone).
test-sanitize: sanitize-build
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  ctest --test-dir $(SAN_BUILD) -L catch -j $(JOBS) --output-on-failure

fuzz: sanitize-build
	scripts/fuzz.sh $(SAN_BUILD)/flashpq_fuzz $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_TARGETS)

# ThreadSanitizer on the code that runs threads: the sweep's workers (experiments/sweep.cpp)
# and the prefetching trace reader (traces/prefetch_reader.h).
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$(TSAN_FLAGS)" -DFLASHPQ_TSAN=ON
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target flashpq_tsan_tests
	TSAN_OPTIONS=halt_on_error=1 ./$(TSAN_BUILD)/flashpq_tsan_tests "[sweep]~[block],prefetch*"

# Every C++ source formatted with the checked-in .clang-format (CI fails otherwise).
format: deps
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

format-check: deps
	git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror

bench: build-command
	./$(BUILD)/flashpq bench --trace ../shared/traces/converted/w106.oracleGeneral.zst

clean:
	rm -rf $(BUILD) $(SAN_BUILD) $(TSAN_BUILD)
