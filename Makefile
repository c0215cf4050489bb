# The front door: make (the CLI build/auspex and the runtime library), make test (install prerequisites, build
# everything, run every test), make demo.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

.PHONY: chronos-bolt-tiny all cli build deps format format-check test test-host test-sanitize test-cross test-firmware firmware size stack insn insn-integer insn-bench insn-signature insn-chronos-bolt bench-mcu fuzz mutate demo clean

# Recursive makes and CMake's own makefiles print no Entering/Leaving directory lines.
MAKEFLAGS += --no-print-directory

all: cli

# The CLI and the library alone: no test suite, so no doctest needed. The tests stay configured when doctest
# is installed, so that switching between make and make build does not reconfigure the tree each time.
AUSPEX_TESTS_IF_DOCTEST = $(if $(wildcard /usr/include/doctest/doctest.h),ON,OFF)
cli:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DAUSPEX_BUILD_TESTS=$(AUSPEX_TESTS_IF_DOCTEST) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target auspex auspex_runtime

# Everything, the test suite too (make test-host runs it).
build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DAUSPEX_BUILD_TESTS=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@bash .ci/install-deps.sh

# One style (.clang-format, clang-format 14): format rewrites every C/C++ file git knows (fixture data
# aside), format-check (run by make test) lists the files that differ and fails (one clang-format --dry-run
# per 64 files: a process per file took 46 s of a CI run).
FORMAT_FILES = $(shell git ls-files '*.cpp' '*.h' '*.c' 2>/dev/null | grep -v '^tests/fixtures/')
format:
	@clang-format -i $(FORMAT_FILES)

format-check:
	@out=$$(printf '%s\n' $(FORMAT_FILES) | xargs -P $(JOBS) -n 64 clang-format --style=file --dry-run 2>&1) || \
		{ echo "$$out" | tail -n 20; echo "format-check: clang-format failed"; exit 1; }; \
	bad=$$(echo "$$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: code should be clang-formatted.*/\1/p' | sort -u); \
	if [ -n "$$bad" ]; then echo "not formatted (make format):"; echo "$$bad" | sed 's/^/  /'; exit 1; fi; \
	echo "format-check: $(words $(FORMAT_FILES)) files formatted"

# Each stage's wall time is printed when it ends ("== stage NAME: S s"), and all of them at the end: the CI
# budget is 40 minutes on a 2-core machine.
TEST_STAGES = format-check test-host test-sanitize test-cross test-firmware fuzz
test: deps
	@start=$$(date +%s); times=""; \
	for stage in $(TEST_STAGES); do \
		t0=$$(date +%s); \
		$(MAKE) --no-print-directory $$stage $(if $(filter true,$(CI)),FUZZ_SECONDS=60,FUZZ_SECONDS=10) || exit 1; \
		t=$$(( $$(date +%s) - t0 )); times="$$times $$stage=$${t}s"; echo "== stage $$stage: $$t s"; \
	done; \
	echo "all tests passed in $$(( $$(date +%s) - start )) s:$$times"

test-host: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer and UndefinedBehaviorSanitizer (clang); any report fails. Debug (assertions
# on) at -O1, as the sanitizers' documentation advises.
test-sanitize:
	@cmake -S . -B $(BUILD)-sanitize -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
		-DCMAKE_C_FLAGS_DEBUG="-g -O1" -DCMAKE_CXX_COMPILER=clang++ -DAUSPEX_SANITIZE=ON >/dev/null
	@cmake --build $(BUILD)-sanitize -j $(JOBS)
	@cd $(BUILD)-sanitize && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# ---- cross ----
# ARM Linux cross builds, each with the whole test suite run by CTest under qemu-user (the toolchain files set
# CMAKE_CROSSCOMPILING_EMULATOR): aarch64 is the ARMv8.0-A baseline on an emulated Cortex-A53 (which would
# SIGILL on any dot-product or i8mm instruction), aarch64-dotprod is ARMv8.2-A+dotprod on qemu's "max" CPU
# (the vdotq_s32 int8 path), armhf is ARMv7-A + NEON on an emulated Cortex-A8. One target alone:
# make test-cross-armhf.
CROSS_TARGETS ?= aarch64 aarch64-dotprod armhf
cross_toolchain_aarch64 := aarch64-linux-gnu
cross_toolchain_aarch64-dotprod := aarch64-linux-gnu-dotprod
cross_toolchain_armhf := arm-linux-gnueabihf

test-cross:
	@for t in $(CROSS_TARGETS); do $(MAKE) --no-print-directory test-cross-$$t || exit 1; done

define cross_rules
.PHONY: test-cross-$(1)
test-cross-$(1):
	@echo "== cross: $(1) ($$(cross_toolchain_$(1)))"
	@cmake -S . -B $$(BUILD)-$(1) -DCMAKE_BUILD_TYPE=Release -DAUSPEX_BUILD_TOOLS=ON -DAUSPEX_BUILD_TESTS=ON \
		-DCMAKE_TOOLCHAIN_FILE=$$(CURDIR)/ports/toolchains/$$(cross_toolchain_$(1)).cmake >/dev/null
	@cmake --build $$(BUILD)-$(1) -j $$(JOBS)
	@cd $$(BUILD)-$(1) && ctest --output-on-failure -j $(JOBS)
endef
$(foreach t,$(CROSS_TARGETS),$(eval $(call cross_rules,$(t))))
# ---- end cross ----

# ---- firmware ----
# Bare-metal Cortex-M on emulated boards (qemu-system-arm): one CMake tree per board in $(BUILD)/firmware/<board>,
# cross-compiled with ports/toolchains/arm-none-eabi.cmake; the host build's auspex makes the model headers.
#   make firmware       forecast.elf, forecast_c.elf (the example, C++ and C API) and the on-board test image
#   make test-firmware  runs them: forecasts against the host's, the doctest image, the heap-free proof
#   make size           text/data/bss of the runtime and the example firmware per target
#   make stack          worst-case stack of the runtime per board (tools/stack/stack_worst_case.py; also in test-firmware)
#   make insn           instructions per forecast and per kernel, generic port against mcu, under a QEMU plugin
#                       (Chronos-Bolt's too: make insn-chronos-bolt)
# Each board is a folder of ports/firmware/boards/ (memory.ld, board.cmake with its core, qemu machine and
# defaults), read by the firmware build alone (ports/firmware/boards.cmake). These variables override the
# boards' defaults for every board built; empty means the default:
#   FIRMWARE_BOARDS            boards to build and test (default: every folder of ports/firmware/boards/)
#   FIRMWARE_EXAMPLE           folder with forecaster.pt, config.json, history.csv (default models/example), and
#                              future.csv (the plan) for a model whose decoder reads inputs known ahead
#   FIRMWARE_WINDOW            history rows the example forecasts from (its last rows; default the model's
#                              training window, all rows for a model stating none)
#   FIRMWARE_HORIZON           steps forecast (default the model's: 24 for an autoregressive one)
#   FIRMWARE_CONVERT           auspex convert options of the example model, used as given (default --dtype int8
#                              --kv-cache int8; no --kv-cache for a model without a decoder)
#   FIRMWARE_STACK             stack bytes at the top of RAM (default 65536; 8192 on stm32f405)
#   FIRMWARE_TESTS             ON or OFF: build and run the on-board doctest image (default ON; OFF on stm32f405)
#   FIRMWARE_STACK_BUDGET      bytes the runtime's computed worst-case stack may reach (make stack; default 3584)
FIRMWARE_DEFAULT_BOARDS := $(notdir $(patsubst %/,%,$(wildcard ports/firmware/boards/*/)))
FIRMWARE_BOARDS ?= $(FIRMWARE_DEFAULT_BOARDS)
FIRMWARE_EXAMPLE ?=
FIRMWARE_WINDOW ?=
FIRMWARE_HORIZON ?=
FIRMWARE_CONVERT ?=
FIRMWARE_STACK ?=
FIRMWARE_TESTS ?=
FIRMWARE_STACK_BUDGET ?=
FIRMWARE_DIR = $(BUILD)/firmware

# $(call firmware_build,BOARDS,TARGETS,CMAKE_OPTIONS): configure (with CMAKE_OPTIONS, if any) and build each
# board's tree (TARGETS empty: everything).
define firmware_build
	@for board in $(1); do \
		echo "firmware: $$board"; \
		cmake --no-warn-unused-cli -S . -B $(FIRMWARE_DIR)/$$board -DCMAKE_TOOLCHAIN_FILE=ports/toolchains/arm-none-eabi.cmake \
			-DCMAKE_BUILD_TYPE=Release -DAUSPEX_FIRMWARE_BOARD=$$board \
			-DAUSPEX_BUILD_FIRMWARE=ON -DAUSPEX_BUILD_TOOLS=OFF -DAUSPEX_BUILD_TESTS=OFF \
			-DAUSPEX_EXAMPLE_DIR="$(if $(FIRMWARE_EXAMPLE),$(abspath $(FIRMWARE_EXAMPLE)))" \
			-DAUSPEX_EXAMPLE_WINDOW="$(FIRMWARE_WINDOW)" -DAUSPEX_EXAMPLE_HORIZON="$(FIRMWARE_HORIZON)" \
			-DAUSPEX_EXAMPLE_CONVERT="$(FIRMWARE_CONVERT)" -DAUSPEX_FIRMWARE_STACK_SIZE="$(FIRMWARE_STACK)" \
			-DAUSPEX_FIRMWARE_TESTS="$(FIRMWARE_TESTS)" -DAUSPEX_STACK_BUDGET="$(FIRMWARE_STACK_BUDGET)" \
			-DAUSPEX_HOST_AUSPEX=$(abspath $(BUILD))/auspex $(3) >/dev/null || exit 1; \
		cmake --build $(FIRMWARE_DIR)/$$board -j $(JOBS) $(if $(2),--target $(2)) || exit 1; \
	done
endef

firmware: build
	$(call firmware_build,$(FIRMWARE_BOARDS),)

test-firmware: firmware
	@for board in $(FIRMWARE_BOARDS); do \
		echo "test-firmware: $$board"; \
		(cd $(FIRMWARE_DIR)/$$board && ctest --output-on-failure -j $(JOBS)) || exit 1; \
		sed -n -e 's/^\(ok: .*\)/  \1/p' -e 's/^\(auspex: .*\)/  \1/p' \
			-e 's/^\([a-z_]* *[a-z0-9]* *arena .*host header.*\)/  \1/p' \
			-e 's/^\(stack: .*runtime worst case.*\)/  \1/p' -e 's/^  \(startup .*painted.*\)/    \1/p' \
			$(FIRMWARE_DIR)/$$board/Testing/Temporary/LastTest.log; \
	done
	@echo "firmware tests passed on: $(FIRMWARE_BOARDS)"

# The runtime's worst-case stack on each board: the compiler's per-function figures (-fcallgraph-info=su)
# over the linked images' call graphs, kernel-table calls resolved to the port tables' functions; the
# example's runs are checked against it (painted stack <= worst case). Fails above FIRMWARE_STACK_BUDGET.
stack:
	@$(MAKE) --no-print-directory firmware >/dev/null
	@for board in $(FIRMWARE_BOARDS); do \
		(cd $(FIRMWARE_DIR)/$$board && ctest -R '^stack_' --output-on-failure -j $(JOBS) >/dev/null) || \
			{ cat $(FIRMWARE_DIR)/$$board/Testing/Temporary/LastTest.log; exit 1; }; \
		sed -n -e '/^stack: .*runtime worst case/,/^<end of output>/p' $(FIRMWARE_DIR)/$$board/Testing/Temporary/LastTest.log \
			| grep -v -e '^<end of output>' -e '^Test time' -e '^-*$$'; \
	done
	@{ echo "| board (core) | C++ API, worst (forecast.elf) | \`ForecastSession::forecast\` | C API, worst (forecast_c.elf) | \`auspex_forecast\` | every family (stack_families.elf) | signature check (stack_signature.elf) |"; \
		echo "|---|---|---|---|---|---|---|"; \
		for board in $(FIRMWARE_BOARDS); do \
			sh tools/stack/stack_table_row.sh python3 $(CURDIR) $(FIRMWARE_DIR)/$$board $$board $$(cut -d" " -f1 $(FIRMWARE_DIR)/$$board/insn_label) arm-none-eabi- || exit 1; \
		done; } > $(FIRMWARE_DIR)/stack.md
	@cat $(FIRMWARE_DIR)/stack.md
	$(call write_doc,stack,$(FIRMWARE_DIR)/stack.md)
	@{ echo "| board (core) | runtime worst case (chronos_bolt_tiny.elf) | \`chronos_bolt_forecast\` | used by the run (painted; startup, main, printf) |"; \
		echo "|---|---|---|---|"; \
		for board in $(FIRMWARE_BOARDS); do \
			[ -f $(FIRMWARE_DIR)/$$board/chronos_bolt_tiny.elf ] || continue; \
			sh ports/firmware/chronos_bolt_rows.sh stack $(FIRMWARE_DIR)/$$board $$board $$(cut -d" " -f1 $(FIRMWARE_DIR)/$$board/insn_label) \
				python3 $(CURDIR) arm-none-eabi- || exit 1; \
		done; } > $(FIRMWARE_DIR)/stack-chronos-bolt.md
	@cat $(FIRMWARE_DIR)/stack-chronos-bolt.md
	$(call write_doc,chronos-bolt-stack,$(FIRMWARE_DIR)/stack-chronos-bolt.md)

size:
	@$(MAKE) --no-print-directory firmware >/dev/null
	@sh ports/firmware/size_report.sh $(FIRMWARE_DIR) $(FIRMWARE_BOARDS) > $(FIRMWARE_DIR)/size.md
	@cat $(FIRMWARE_DIR)/size.md
	$(call write_doc,size,$(FIRMWARE_DIR)/size.md)
	@{ echo "| board (core) | chronos_bolt_tiny.elf: text / data / bss | int8 model in external flash | working memory (.bss) |"; \
		echo "|---|---|---|---|"; \
		for board in $(FIRMWARE_BOARDS); do \
			[ -f $(FIRMWARE_DIR)/$$board/chronos_bolt_tiny.elf ] || continue; \
			sh ports/firmware/chronos_bolt_rows.sh size $(FIRMWARE_DIR)/$$board $$board $$(cut -d" " -f1 $(FIRMWARE_DIR)/$$board/insn_label) || exit 1; \
		done; } > $(FIRMWARE_DIR)/size-chronos-bolt.md
	@cat $(FIRMWARE_DIR)/size-chronos-bolt.md
	$(call write_doc,chronos-bolt-size,$(FIRMWARE_DIR)/size-chronos-bolt.md)

# $(call write_doc,NAME,FILE): FILE becomes the generated block NAME of docs/boards.md, which documents the
# bundled example on every board: only a run with the default boards and example rewrites it.
firmware_custom = $(strip $(FIRMWARE_EXAMPLE)$(FIRMWARE_WINDOW)$(FIRMWARE_HORIZON)$(FIRMWARE_CONVERT)$(FIRMWARE_STACK) \
	$(filter-out $(FIRMWARE_BOARDS),$(FIRMWARE_DEFAULT_BOARDS))$(filter-out $(FIRMWARE_DEFAULT_BOARDS),$(FIRMWARE_BOARDS)))
define write_doc
	@$(if $(firmware_custom),echo "docs/boards.md not rewritten: it shows the bundled example on the default boards", \
		python3 tools/docs/generated.py write docs/boards.md $(1) $(2))
endef

# Instructions per forecast and per kernel, generic port against the best one, counted by a QEMU TCG plugin
# built here (tools/insn/insn_plugin.c): the example forecast (insn.elf) on each board of INSN_BOARDS, and the
# same program cross-built for ARM Linux (INSN_LINUX: toolchains of ports/toolchains/) under qemu-user, with
# the model headers of the first board. Not part of make test. Report: $(BUILD)/insn/insn.md.
INSN_DEFAULT_BOARDS := mps2-an386 mps2-an500 mps3-an547 mps2-an385
INSN_DEFAULT_LINUX := aarch64 aarch64-dotprod armhf
INSN_BOARDS ?= $(INSN_DEFAULT_BOARDS)
INSN_LINUX ?= $(INSN_DEFAULT_LINUX)
INSN_DIR = $(BUILD)/insn

$(INSN_DIR)/insn_plugin.so: tools/insn/insn_plugin.c
	@mkdir -p $(INSN_DIR)
	@gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o $@ $<

insn: build $(INSN_DIR)/insn_plugin.so
	$(call firmware_build,$(INSN_BOARDS),insn)
	@for t in $(INSN_LINUX); do \
		echo "insn: $$t (qemu-user)"; \
		cmake -S . -B $(INSN_DIR)/$$t -DCMAKE_BUILD_TYPE=Release -DAUSPEX_BUILD_TOOLS=OFF -DAUSPEX_BUILD_TESTS=OFF \
			-DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/ports/toolchains/$$(case $$t in aarch64) echo aarch64-linux-gnu;; \
				aarch64-dotprod) echo aarch64-linux-gnu-dotprod;; armhf) echo arm-linux-gnueabihf;; esac).cmake \
			-DAUSPEX_INSN_HEADERS=$(abspath $(FIRMWARE_DIR)/$(firstword $(INSN_BOARDS))/generated) >/dev/null || exit 1; \
		cmake --build $(INSN_DIR)/$$t -j $(JOBS) --target insn >/dev/null || exit 1; \
	done
	@sh tools/insn/insn_report.sh $(INSN_DIR)/insn_plugin.so \
		$(foreach b,$(INSN_BOARDS),"$$(cat $(FIRMWARE_DIR)/$(b)/insn_label):$$(cat $(FIRMWARE_DIR)/$(b)/insn_runner):$(FIRMWARE_DIR)/$(b)/insn.elf") \
		$(foreach t,$(INSN_LINUX),"$(t) (qemu-user):$$(cat $(INSN_DIR)/$(t)/insn_runner):$(INSN_DIR)/$(t)/insn") \
		| tee $(INSN_DIR)/insn.md
	$(call write_insn_doc,insn,$(INSN_DIR)/insn.md)
	@$(MAKE) --no-print-directory insn-integer
	@$(MAKE) --no-print-directory insn-bench
	@$(MAKE) --no-print-directory insn-signature
	@$(MAKE) --no-print-directory insn-chronos-bolt

# A signed model's signature check beside one forecast (forecast_signed.elf, on the board whose RAM holds the
# A/B slots; run by make insn). Report: $(INSN_DIR)/insn-signature.md, and docs/instruction-counts.md.
INSN_SIGNATURE_BOARD := mps2-an386
insn-signature: build $(INSN_DIR)/insn_plugin.so
	$(call firmware_build,$(INSN_SIGNATURE_BOARD),forecast_signed)
	@sh tools/insn/insn_signature.sh $(INSN_DIR)/insn_plugin.so $(INSN_SIGNATURE_BOARD) \
		"$$(cat $(FIRMWARE_DIR)/$(INSN_SIGNATURE_BOARD)/insn_label)" $(FIRMWARE_DIR)/$(INSN_SIGNATURE_BOARD)/forecast_signed.elf \
		$$(sed -n 's/^#define EXAMPLE_SIGNED_V2_SIZE \([0-9]*\).*/\1/p' $(FIRMWARE_DIR)/$(INSN_SIGNATURE_BOARD)/generated/example_signed_v2.h) \
		| tee $(INSN_DIR)/insn-signature.md
	$(call write_insn_doc,insn-signature,$(INSN_DIR)/insn-signature.md)

# The integer-only example (forecast_integer.elf; on the M3 board also forecast_integer_m0plus.elf, compiled
# for a Cortex-M0+) on each board of INSN_BOARDS, beside the int8 figures of make insn's table (run by make insn;
# alone, it reuses the table of the last make insn). Report: $(INSN_DIR)/insn-integer.md.
insn-integer: build $(INSN_DIR)/insn_plugin.so
	@for b in $(INSN_BOARDS); do \
		case "$$(cat $(FIRMWARE_DIR)/$$b/insn_label 2>/dev/null)" in M3*) m0=forecast_integer_m0plus;; *) m0=;; esac; \
		cmake --build $(FIRMWARE_DIR)/$$b -j $(JOBS) --target forecast_integer $$m0 >/dev/null || exit 1; \
	done
	@python3 tools/insn/insn_integer.py $(INSN_DIR)/insn_plugin.so $(INSN_DIR)/insn.md \
		$(foreach b,$(INSN_BOARDS),"$$(cat $(FIRMWARE_DIR)/$(b)/insn_label):$(b):$(FIRMWARE_DIR)/$(b)/forecast_integer.elf" \
			"?Cortex-M0+ build (on $(b)):$(b):$(FIRMWARE_DIR)/$(b)/forecast_integer_m0plus.elf") \
		| tee $(INSN_DIR)/insn-integer.md
	$(call write_insn_doc,insn-integer,$(INSN_DIR)/insn-integer.md)

# The Cortex-A benchmark shape (d_model 64, 4 heads, 2+2 layers, ff 256, window 96, horizon 24) as int8, f32 and
# int8 with int8 key/value caches (int8kv) on the ARM Linux targets: tools/insn/bench_headers.sh makes the
# headers. Report: $(INSN_DIR)/insn-bench.md.
INSN_BENCH_DTYPES ?= int8 f32 int8kv
insn-bench: build $(INSN_DIR)/insn_plugin.so
	@for d in $(INSN_BENCH_DTYPES); do \
		sh tools/insn/bench_headers.sh $(abspath $(BUILD))/auspex $(INSN_DIR)/bench/$$d $$d || exit 1; \
		for t in $(INSN_LINUX); do \
			echo "insn-bench: $$t $$d (qemu-user)"; \
			cmake -S . -B $(INSN_DIR)/bench-$$t-$$d -DCMAKE_BUILD_TYPE=Release -DAUSPEX_BUILD_TOOLS=OFF -DAUSPEX_BUILD_TESTS=OFF \
				-DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/ports/toolchains/$$(case $$t in aarch64) echo aarch64-linux-gnu;; \
					aarch64-dotprod) echo aarch64-linux-gnu-dotprod;; armhf) echo arm-linux-gnueabihf;; esac).cmake \
				-DAUSPEX_INSN_HEADERS=$(abspath $(INSN_DIR))/bench/$$d >/dev/null || exit 1; \
			cmake --build $(INSN_DIR)/bench-$$t-$$d -j $(JOBS) --target insn >/dev/null || exit 1; \
		done; \
	done
	@sh tools/insn/insn_report.sh $(INSN_DIR)/insn_plugin.so \
		$(foreach d,$(INSN_BENCH_DTYPES),$(foreach t,$(INSN_LINUX),"$(t) $(d) (qemu-user):$$(cat $(INSN_DIR)/bench-$(t)-$(d)/insn_runner):$(INSN_DIR)/bench-$(t)-$(d)/insn")) \
		| tee $(INSN_DIR)/insn-bench.md
	$(call write_insn_doc,insn-bench,$(INSN_DIR)/insn-bench.md)

# Chronos-Bolt at chronos-bolt-tiny's shapes in int8, its weights read in place from external flash (context 512,
# 64 steps, 9 quantiles): one forecast and each kernel, generic port against the best, on the boards with external
# flash (chronos_bolt_insn_tiny.elf; run by make insn). Report: $(INSN_DIR)/insn-chronos-bolt.md.
INSN_CHRONOS_BOLT_BOARDS := mps2-an500 mps3-an547
insn-chronos-bolt: build $(INSN_DIR)/insn_plugin.so
	$(call firmware_build,$(INSN_CHRONOS_BOLT_BOARDS),chronos_bolt_insn_tiny)
	@sh tools/insn/insn_report.sh $(INSN_DIR)/insn_plugin.so \
		$(foreach b,$(INSN_CHRONOS_BOLT_BOARDS),"$$(cat $(FIRMWARE_DIR)/$(b)/insn_label):$$(cat $(FIRMWARE_DIR)/$(b)/insn_runner):$(FIRMWARE_DIR)/$(b)/chronos_bolt_insn_tiny.elf") \
		| sed 's/ForecastSession::forecast executes/chronos_bolt_forecast executes (one 64-step forecast from 512 values)/' \
		| tee $(INSN_DIR)/insn-chronos-bolt.md
	$(call write_insn_doc,insn-chronos-bolt,$(INSN_DIR)/insn-chronos-bolt.md)

# $(call write_insn_doc,NAME,FILE): FILE becomes the generated block NAME of docs/instruction-counts.md when
# the run counted the default boards, targets and weight types.
insn_custom = $(strip $(filter-out $(INSN_BOARDS),$(INSN_DEFAULT_BOARDS))$(filter-out $(INSN_DEFAULT_BOARDS),$(INSN_BOARDS)) \
	$(filter-out $(INSN_LINUX),$(INSN_DEFAULT_LINUX))$(filter-out $(INSN_DEFAULT_LINUX),$(INSN_LINUX)) \
	$(filter-out $(INSN_BENCH_DTYPES),int8 f32 int8kv)$(filter-out int8 f32 int8kv,$(INSN_BENCH_DTYPES)))
define write_insn_doc
	@$(if $(insn_custom),echo "docs/instruction-counts.md not rewritten: it shows the default boards and targets", \
		python3 tools/docs/generated.py write docs/instruction-counts.md $(1) $(2))
endef

# The Cortex-M int8 products against CMSIS-NN (not part of make test; docs/instruction-counts.md): make insn's
# per-kernel and per-forecast table on each board of BENCH_MCU_BOARDS, then the mcu port's linear_i8 on fixed
# shapes (ports/firmware/bench/), beside CMSIS-NN's kernels when CMSIS_NN_DIR names a CMSIS-NN source tree
# (compiled from there at build time, for measuring only). Report: $(BUILD)/bench-mcu/bench-mcu.md; a run with
# CMSIS_NN_DIR on the default boards also rewrites the side-by-side block of docs/instruction-counts.md.
BENCH_MCU_DEFAULT_BOARDS := mps2-an386 mps2-an500 mps3-an547
BENCH_MCU_BOARDS ?= $(BENCH_MCU_DEFAULT_BOARDS)
CMSIS_NN_DIR ?=
BENCH_MCU_DIR = $(BUILD)/bench-mcu
bench_mcu_cmsis = $(if $(CMSIS_NN_DIR),$(abspath $(CMSIS_NN_DIR)))
bench_mcu_custom = $(strip $(filter-out $(BENCH_MCU_BOARDS),$(BENCH_MCU_DEFAULT_BOARDS))$(filter-out $(BENCH_MCU_DEFAULT_BOARDS),$(BENCH_MCU_BOARDS)))
bench-mcu: build $(INSN_DIR)/insn_plugin.so
	$(call firmware_build,$(BENCH_MCU_BOARDS),insn bench_mcu $(if $(CMSIS_NN_DIR),bench_mcu_cmsis_Os bench_mcu_cmsis_Ofast),-DAUSPEX_CMSIS_NN_DIR="$(bench_mcu_cmsis)")
	@mkdir -p $(BENCH_MCU_DIR)
	@sh tools/insn/insn_report.sh $(INSN_DIR)/insn_plugin.so \
		$(foreach b,$(BENCH_MCU_BOARDS),"$$(cat $(FIRMWARE_DIR)/$(b)/insn_label):$$(cat $(FIRMWARE_DIR)/$(b)/insn_runner):$(FIRMWARE_DIR)/$(b)/insn.elf") \
		> $(BENCH_MCU_DIR)/forecast.md
	@python3 ports/firmware/bench/bench_mcu.py $(INSN_DIR)/insn_plugin.so $(FIRMWARE_DIR) $(BENCH_MCU_DIR) \
		"$(bench_mcu_cmsis)" $(BENCH_MCU_BOARDS) > $(BENCH_MCU_DIR)/kernels.md
	@{ echo "## One forecast of the bundled example, per kernel"; echo; cat $(BENCH_MCU_DIR)/forecast.md; echo; \
		echo "## int8 products per shape"; echo; cat $(BENCH_MCU_DIR)/kernels.md; } > $(BENCH_MCU_DIR)/bench-mcu.md
	@cat $(BENCH_MCU_DIR)/bench-mcu.md
	@$(if $(and $(CMSIS_NN_DIR),$(if $(bench_mcu_custom),,yes)), \
		python3 tools/docs/generated.py write docs/instruction-counts.md bench-mcu $(BENCH_MCU_DIR)/kernels.md, \
		echo "docs/instruction-counts.md not rewritten: its CMSIS-NN block needs CMSIS_NN_DIR and the default boards")
# ---- end firmware ----

# ---- fuzz ----
# libFuzzer with AddressSanitizer and UBSan (clang): builds $(BUILD)-fuzz, seeds the corpora from the test
# fixtures (tests/fuzz/make_corpus.sh), then runs every target for FUZZ_SECONDS, JOBS of them at a time
# (tests/fuzz/run_fuzz.sh; libFuzzer keeps a target on one core). Any crash,
# undefined behaviour, leak, hang (10 s on one input) or memory use above 2 GB fails, after all targets ran.
# A finding is saved as $(BUILD)-fuzz/artifacts/<target>-crash-<sha1> (or -leak-, -timeout-, -oom-); replay
# it with `$(BUILD)-fuzz/fuzz/<target> FILE`. Corpora ($(BUILD)-fuzz/corpus/<target>) grow from run to run.
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= $(BUILD)-fuzz
# target:max_len:dictionary (tests/fuzz/<dictionary>.dict)
FUZZ_TARGETS ?= fuzz_model_file:262144:axm fuzz_model_run:65536:axm fuzz_torch_checkpoint:262144:torch_checkpoint \
	fuzz_safetensors:262144:safetensors fuzz_config_json:65536:json fuzz_csv:65536:csv fuzz_rename_map:65536:rename_map \
	fuzz_model_signature:65536:axm fuzz_onnx:262144:onnx fuzz_vocabulary:262144:vocabulary

fuzz:
	@cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DAUSPEX_FUZZ=ON \
		-DAUSPEX_BUILD_TESTS=OFF >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target auspex_fuzz
	@bash tests/fuzz/make_corpus.sh $(FUZZ_BUILD)
	@bash tests/fuzz/run_fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(JOBS) $(FUZZ_TARGETS)
# ---- end fuzz ----

# ---- mutate ----
# Mutation score (slow, not in CI or `make test`): each source mutation of tests/mutate/mutations.txt applied
# alone to a scratch copy of the tree in $(BUILD)-mutate (never to the working tree), rebuilt incrementally,
# the host suite run; prints caught/survived/stale per mutation and the score. MUTATIONS=id,id runs a few.
mutate:
	@MUTATE_DIR=$(BUILD)-mutate JOBS=$(JOBS) python3 tests/mutate/mutate.py $(if $(MUTATIONS),--only $(MUTATIONS))
# ---- end mutate ----

# Convert the bundled example forecaster, forecast the held-out tail of its series, compare with the truth.
# The README's first command: on a fresh machine it installs only the compiler and CMake, and builds the
# CLI without the test suite when doctest is not there (make test installs it and turns the suite on).
# Chronos-Bolt at chronos-bolt-tiny's shapes (d_model 256, 4+4 layers, 8.65M parameters) from a seed (the
# generator needs Debian's python3 with torch; the 35 MB checkpoint is never committed), converted to float32,
# f16, int8 and int4, each timed over 20 forecasts of 64 steps from 512 values (docs/chronos-bolt.md).
CB_DIR = $(BUILD)/chronos-bolt-tiny
chronos-bolt-tiny: cli
	@/usr/bin/python3 tests/fixtures/gen_chronos_bolt_fixtures.py --tiny $(CB_DIR)/hf
	@$(BUILD)/auspex convert $(CB_DIR)/hf -o $(CB_DIR)/f32.axm
	@$(BUILD)/auspex convert $(CB_DIR)/hf -o $(CB_DIR)/f16.axm --dtype f16
	@$(BUILD)/auspex convert $(CB_DIR)/hf -o $(CB_DIR)/int8.axm --dtype int8
	@$(BUILD)/auspex convert $(CB_DIR)/hf -o $(CB_DIR)/int4.axm --dtype int4
	@awk 'BEGIN { print "value"; for (i = 0; i < 512; i++) printf "%.4f\n", 50 + 8 * sin(6.2832 * i / 24) + (i % 7) / 7 }' \
		> $(CB_DIR)/series.csv
	@for m in f32 f16 int8 int4; do \
		t0=$$(date +%s%N); \
		for i in $$(seq 20); do $(BUILD)/auspex forecast $(CB_DIR)/$$m.axm --input $(CB_DIR)/series.csv -o $(CB_DIR)/$$m.csv \
			|| exit 1; done; \
		echo "chronos-bolt-tiny $$m: $$(wc -c < $(CB_DIR)/$$m.axm) bytes, $$(( ($$(date +%s%N) - t0) / 20000000 )) ms per 64-step forecast (process included)"; \
	done
	@awk -F, 'NR > 1 { n++; s += $$1; ss += $$1 * $$1 } END { printf "%.9g\n", sqrt(ss / n - (s / n) ^ 2) }' \
		$(CB_DIR)/series.csv > $(CB_DIR)/std.txt
	@for m in f16 int8 int4; do paste -d, $(CB_DIR)/f32.csv $(CB_DIR)/$$m.csv | awk -F, -v sd=$$(cat $(CB_DIR)/std.txt) -v m=$$m \
		'NR > 1 { d = $$5 - $$14; md += (d < 0 ? -d : d); n++; \
			for (i = 1; i <= 9; i++) { d = $$i - $$(i + 9); d = d < 0 ? -d : d; if (d > w) w = d; a = $$i < 0 ? -$$i : $$i; if (a > top) top = a } } \
		END { printf "%s against float32: median mean |difference| %.3g x the series std, largest difference %.3g x max |float32|\n", m, md / n / sd, w / top }'; \
	done
	@echo "f16, int8 and int4 medians and quantile loss on synthetic series: AUSPEX_REPORT_ERRORS=1 AUSPEX_CHRONOS_BOLT_DIR=$(CB_DIR)/hf $(BUILD)/auspex_tests -tc=\"chronos-bolt storage*\""

demo:
	@AUSPEX_DEPS=build bash .ci/install-deps.sh
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release \
		-DAUSPEX_BUILD_TESTS=$(AUSPEX_TESTS_IF_DOCTEST) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS) --target auspex
	@mkdir -p $(BUILD)/demo
	@$(BUILD)/auspex convert models/example/forecaster.pt --config models/example/config.json -o $(BUILD)/demo/forecaster.axm \
		--check-input models/example/check_src.csv --check-target models/example/check_tgt.csv \
		--check-output models/example/check_out.csv
	@$(BUILD)/auspex forecast $(BUILD)/demo/forecaster.axm --input models/example/history.csv --horizon 24 \
		--truth models/example/truth.csv -o $(BUILD)/demo/forecast.csv --plot $(BUILD)/demo/forecast.svg
	@echo "forecast written to $(BUILD)/demo/forecast.csv, plot to $(BUILD)/demo/forecast.svg"

clean:
	rm -rf $(BUILD) $(BUILD)-sanitize $(BUILD)-aarch64 $(BUILD)-aarch64-dotprod $(BUILD)-armhf $(BUILD)-fuzz $(BUILD)-mutate
