# The front door: make (build), make test (install prerequisites, build, run every test), make demo.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: all build deps test test-host test-sanitize test-cross test-firmware firmware size fuzz demo clean

all: build

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@bash .ci/install-deps.sh

test: deps
	@$(MAKE) --no-print-directory test-host
	@$(MAKE) --no-print-directory test-sanitize
	@$(MAKE) --no-print-directory test-cross
	@$(MAKE) --no-print-directory test-firmware
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(if $(filter true,$(CI)),60,10)
	@echo "all tests passed"

test-host: build
	@cd $(BUILD) && ctest --output-on-failure

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (clang); any report fails.
test-sanitize:
	@cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DAUSPEX_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD)-sanitize -j $(JOBS)
	@cd $(BUILD)-sanitize && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure

# ---- cross ----
test-cross:
	@echo "cross builds: not set up yet"
# ---- end cross ----

# ---- firmware ----
firmware:
	@echo "firmware: not set up yet"
test-firmware:
	@echo "firmware tests: not set up yet"
size:
	@echo "size: not set up yet"
# ---- end firmware ----

# ---- fuzz ----
fuzz:
	@echo "fuzz targets: not set up yet"
# ---- end fuzz ----

# Convert the bundled example forecaster, forecast the held-out tail of its series, compare with the truth.
demo: build
	@mkdir -p $(BUILD)/demo
	@$(BUILD)/auspex convert models/example/forecaster.pt --config models/example/config.json -o $(BUILD)/demo/forecaster.axm
	@$(BUILD)/auspex forecast $(BUILD)/demo/forecaster.axm --input models/example/history.csv --horizon 24 \
		--truth models/example/truth.csv -o $(BUILD)/demo/forecast.csv --plot $(BUILD)/demo/forecast.svg
	@echo "forecast written to $(BUILD)/demo/forecast.csv, plot to $(BUILD)/demo/forecast.svg"

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-aarch64 $(BUILD)-armhf
