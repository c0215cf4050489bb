# Bare-metal Cortex-M images, included by the top-level CMakeLists.txt when AUSPEX_BUILD_FIRMWARE is ON in a
# build tree configured with ports/toolchains/arm-none-eabi.cmake (one tree per board; `make firmware`):
#   forecast.elf            the bundled example forecaster, int8, C++ API (apps/firmware/)
#   forecast_c.elf          the same through the C API
#   forecast_slots.elf      the same with A/B model slots, driven through good and bad updates (boards with
#                           board_slot_test ON)
#   forecast_signed.elf     A/B slots that take only models signed with the owner's key (same boards)
#   auspex_firmware_tests.elf   doctest suite on the board: PyTorch fixtures embedded as arrays (tests/firmware/)
# and CTest tests that run them under qemu-system-arm and prove the runtime heap-free (`make test-firmware`).
# The model and data headers are generated at build time by a host build's auspex CLI (AUSPEX_HOST_AUSPEX).
# Each board is a folder ports/firmware/boards/<board>/ with memory.ld (its regions) and board.cmake (its core,
# its qemu machine and the defaults below), read by boards.cmake; see ports/firmware/README.md, "Adding a board".
set(AUSPEX_FIRMWARE_BOARD "mps2-an386" CACHE STRING "Board: a folder of ports/firmware/boards/")
set(AUSPEX_HOST_AUSPEX "" CACHE FILEPATH "The host auspex CLI that converts models and writes the headers")
set(AUSPEX_EXAMPLE_DIR "" CACHE PATH "forecaster.pt, config.json, history.csv of the example (default: models/example)")
# Empty: the board's default (board.cmake).
set(AUSPEX_FIRMWARE_TESTS "" CACHE STRING "Build and run the on-board doctest image: ON, OFF, empty = board default")
set(AUSPEX_FIRMWARE_STACK_SIZE "" CACHE STRING "Stack bytes at the top of RAM; empty = board default")
set(AUSPEX_EXAMPLE_WINDOW "" CACHE STRING "History rows the example forecasts from (its last rows); empty = board default, else the model's training window (all rows for a model stating none)")
set(AUSPEX_EXAMPLE_HORIZON "" CACHE STRING "Steps the example forecasts; empty = board default, else the model's default (24 for an autoregressive model)")
set(AUSPEX_EXAMPLE_CONVERT "" CACHE STRING "auspex convert options for the example model; empty = board default, else --dtype int8")

set(board ${AUSPEX_FIRMWARE_BOARD})
include(${CMAKE_CURRENT_LIST_DIR}/boards.cmake)
set(board_dir ${AUSPEX_BOARDS_DIR}/${board})
auspex_read_board(${board_dir})
if(NOT AUSPEX_CORTEX_M_CPU STREQUAL board_cpu)
  message(FATAL_ERROR "${board} has a ${board_cpu}, this tree was configured for ${AUSPEX_CORTEX_M_CPU}: configure "
                      "a new tree with -DAUSPEX_FIRMWARE_BOARD=${board} "
                      "-DCMAKE_TOOLCHAIN_FILE=ports/toolchains/arm-none-eabi.cmake")
endif()
if(NOT EXISTS "${AUSPEX_HOST_AUSPEX}")
  message(FATAL_ERROR "AUSPEX_HOST_AUSPEX=\"${AUSPEX_HOST_AUSPEX}\": give the host build's auspex (make build)")
endif()
foreach(pair "tests;AUSPEX_FIRMWARE_TESTS;board_firmware_tests" "stack_size;AUSPEX_FIRMWARE_STACK_SIZE;board_stack_size"
             "example_window;AUSPEX_EXAMPLE_WINDOW;board_example_window"
             "example_horizon;AUSPEX_EXAMPLE_HORIZON;board_example_horizon" "example_convert;AUSPEX_EXAMPLE_CONVERT;board_example_convert")
  list(GET pair 0 name)
  list(GET pair 1 cache)
  list(GET pair 2 default)
  if(NOT "${${cache}}" STREQUAL "")
    set(fw_${name} ${${cache}})
  else()
    set(fw_${name} ${${default}})
  endif()
endforeach()
# Where the convert options come from, for ports/firmware/convert_example.sh: the user's are used as given (and
# named FIRMWARE_CONVERT when convert refuses them); a default is fitted to the model (no --kv-cache for a
# model without a decoder).
set(fw_convert_origin default)
if(NOT "${AUSPEX_EXAMPLE_CONVERT}" STREQUAL "")
  set(fw_convert_origin FIRMWARE_CONVERT)
endif()
# int8 weights and int8 key/value caches: the configuration for a microcontroller (the arena at window
# 48, horizon 24 is under 100 KB), checked bit for bit against the host like any other.
set(fw_default_convert --dtype int8 --kv-cache int8)
if(NOT fw_example_convert)
  set(fw_example_convert ${fw_default_convert})
endif()
separate_arguments(fw_example_convert)
message(STATUS "firmware: ${board} (${board_cpu}, qemu -M ${board_qemu_machine}), stack ${fw_stack_size} B, "
               "on-board tests ${fw_tests}")
enable_language(C)
enable_testing()

set(fw_port ${CMAKE_CURRENT_SOURCE_DIR}/ports/firmware)
set(fw_gen ${CMAKE_BINARY_DIR}/generated)
file(MAKE_DIRECTORY ${fw_gen})
set(host ${AUSPEX_HOST_AUSPEX})

# The compiler's stack figure per function (-fcallgraph-info=su: a .ci file beside each object, with the
# calls made through pointers) for tools/stack/stack_worst_case.py; the generated code is unchanged.
set(fw_stack_flags -fstack-usage -fcallgraph-info=su)
foreach(t ${AUSPEX_ON_DEVICE_LAYERS})
  target_compile_options(${t} PRIVATE ${fw_stack_flags})
endforeach()

# Startup, vector table and the bounded _sbrk: an object library, so the vector table is always linked.
add_library(auspex_board OBJECT ${fw_port}/startup.c ${fw_port}/syscalls.c)
target_compile_options(auspex_board PRIVATE ${fw_stack_flags})

# auspex_firmware(TARGET IMAGE_LD SOURCES...): an .elf linked for the board with semihosting (newlib's
# rdimon), our startup instead of newlib's, --gc-sections and a map file with a cross-reference table.
function(auspex_firmware target image_ld)
  add_executable(${target} ${ARGN} $<TARGET_OBJECTS:auspex_board>)
  target_link_libraries(${target} PRIVATE auspex_runtime)
  # apps/ (the mains and their helpers) is on no library layer's include path, only on the images'.
  target_include_directories(${target} PRIVATE ${fw_gen} ${AUSPEX_LAYER_ROOT_apps})
  target_link_options(${target} PRIVATE --specs=rdimon.specs -nostartfiles -Wl,--gc-sections
    -L${board_dir} -L${fw_port} -T${image_ld} -Wl,--defsym=STACK_SIZE=${fw_stack_size}
    -Wl,-Map=${CMAKE_BINARY_DIR}/${target}.map -Wl,--cref)
  set_target_properties(${target} PROPERTIES SUFFIX ".elf" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}
    LINK_DEPENDS "${fw_port}/${image_ld};${fw_port}/sections.ld;${board_dir}/memory.ld")
endfunction()

# auspex_embed_csv(CSV NAME): generated/NAME.h with the CSV's values as a float array.
function(auspex_embed_csv csv name)
  add_custom_command(OUTPUT ${fw_gen}/${name}.h
    COMMAND ${CMAKE_COMMAND} -DCSV=${csv} -DOUT=${fw_gen}/${name}.h -DNAME=${name} -P ${fw_port}/embed_csv.cmake
    DEPENDS ${csv} ${fw_port}/embed_csv.cmake VERBATIM)
endfunction()

# ---- the example firmware: the bundled int8 forecaster on the held-out history, 24 steps ----
# (window, horizon, model and convert options per board and per build: see the cache variables above)
if(AUSPEX_EXAMPLE_DIR)
  set(example ${AUSPEX_EXAMPLE_DIR})
else()
  set(example ${CMAKE_CURRENT_SOURCE_DIR}/models/example)
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${example}/forecaster.pt)
if(NOT EXISTS ${example}/forecaster.pt OR NOT EXISTS ${example}/config.json OR NOT EXISTS ${example}/history.csv)
  set(example ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/forecaster/post_relu_tril)
  message(STATUS "firmware: no example model yet in models/example, using ${example}")
  set(example_pt ${example}/model.pt)
else()
  set(example_pt ${example}/forecaster.pt)
endif()
# The window and horizon: FIRMWARE_WINDOW / FIRMWARE_HORIZON when set, else what `auspex forecast` takes
# (the model's stored training window, or every history row for a model stating none; the model's default
# horizon, 24 for an autoregressive one). `auspex header --history` decides at build time, reads the CSV with
# the host reader (timestamps, header names) and prints the line naming the rows it took.
set(example_lengths "")
if(fw_example_window)
  list(APPEND example_lengths --window ${fw_example_window})
endif()
if(fw_example_horizon)
  list(APPEND example_lengths --horizon ${fw_example_horizon})
endif()
message(STATUS "firmware: example ${example_pt}, history ${example}/history.csv, "
               "lengths ${example_lengths} (empty: the model's), convert ${fw_example_convert}")

# auspex_example_route(NAME GEN MODEL.pt DIR ORIGIN CONVERT LENGTHS): the firmware route of a model folder, as
# `make test-firmware FIRMWARE_EXAMPLE=DIR` takes it. DIR holds config.json, history.csv and, for a model
# whose decoder reads inputs known ahead (a plan), future.csv. The model converted with CONVERT (a list;
# ORIGIN: convert_example.sh), `auspex header` writing GEN/example_model.h, example_history.h and
# example_future.h (the known inputs of the forecast's steps, plan and calendar; no rows for a model
# reading none), the host's forecast of the same history and plan (NAME.expected), and NAME.elf and
# NAME_c.elf (apps/firmware/forecast_main.cpp and .c, the C++ and C API), each of whose outputs
# must equal it (CTests NAME_matches_host, NAME_c_matches_host). LENGTHS: --window/--horizon, or empty.
function(auspex_example_route name gen model_pt dir origin convert lengths)
  set(axm ${gen}/example.axm)
  set(plan "")
  set(plan_file "")
  if(EXISTS ${dir}/future.csv)
    set(plan --future ${dir}/future.csv)
    set(plan_file ${dir}/future.csv)
  endif()
  add_custom_command(OUTPUT ${axm}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${gen}
    COMMAND sh ${fw_port}/convert_example.sh ${host} ${model_pt} ${dir}/config.json ${axm} ${origin} ${convert}
    DEPENDS ${model_pt} ${dir}/config.json ${host} ${board_dir}/board.cmake ${fw_port}/convert_example.sh VERBATIM)
  add_custom_command(OUTPUT ${gen}/example_model.h ${gen}/example_history.h ${gen}/example_future.h
    COMMAND ${host} header ${axm} -o ${gen}/example_model.h --name example_model ${lengths}
            --history ${dir}/history.csv --history-output ${gen}/example_history.h --history-name example_history
            ${plan} --future-output ${gen}/example_future.h --future-name example_future
    DEPENDS ${axm} ${dir}/history.csv ${plan_file} ${host} VERBATIM)
  # What the host prints for the same model, history and plan on the generic port: the board must print the same.
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/${name}.expected
    COMMAND ${fw_port}/host_forecast.sh ${host} ${axm} ${dir}/history.csv ${CMAKE_BINARY_DIR}/${name}.expected
            ${lengths} ${plan}
    DEPENDS ${axm} ${dir}/history.csv ${plan_file} ${host} ${fw_port}/host_forecast.sh VERBATIM)
  add_custom_target(${name}_data ALL DEPENDS ${gen}/example_model.h ${gen}/example_history.h
    ${gen}/example_future.h ${CMAKE_BINARY_DIR}/${name}.expected)
  foreach(image ${name} ${name}_c)
    set(main forecast_main.cpp)
    if(image STREQUAL "${name}_c")
      set(main forecast_main.c)
    endif()
    auspex_firmware(${image} image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/${main})
    target_include_directories(${image} BEFORE PRIVATE ${gen})
    add_dependencies(${image} ${name}_data)
    # The board must print the host's text exactly: the runtime computes exp, erf, sin and cos itself
    # (runtime/float_math.h), so no libm difference between newlib multilibs and glibc reaches the output.
    add_test(NAME ${image}_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine} $<TARGET_FILE:${image}>
      ${CMAKE_BINARY_DIR}/${name}.expected)
  endforeach()
endfunction()

auspex_example_route(forecast ${fw_gen} ${example_pt} ${example} ${fw_convert_origin} "${fw_example_convert}"
  "${example_lengths}")
set(example_axm ${fw_gen}/example.axm)

# ---- a translator, text in and text out (apps/firmware/translate_main.cpp): the translation
# tutorial's fixture model with a word vocabulary in the model file; the board must print what
# `auspex translate --text` prints on the host for the same sentence (CTest translate_matches_host).
set(tr_fixtures ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures)
set(tr_sentence "w11 w04 unknown w16 w08 w12")
file(WRITE ${CMAKE_BINARY_DIR}/translate_sentence.txt "${tr_sentence}\n")
add_custom_command(OUTPUT ${fw_gen}/translator_model.h ${CMAKE_BINARY_DIR}/translate.expected
  COMMAND ${host} convert ${tr_fixtures}/seq2seq/tutorial/model.pt --config ${tr_fixtures}/seq2seq/tutorial/config.json
          --vocab ${tr_fixtures}/text/translator_vocab.txt --tokenizer whitespace -o ${fw_gen}/translator.axm
  COMMAND ${host} header ${fw_gen}/translator.axm -o ${fw_gen}/translator_model.h --name translator_model
          --src-len 16 --tgt-len 20
  COMMAND ${host} translate ${fw_gen}/translator.axm --text-file ${CMAKE_BINARY_DIR}/translate_sentence.txt
          -o ${CMAKE_BINARY_DIR}/translate.expected
  DEPENDS ${tr_fixtures}/seq2seq/tutorial/model.pt ${tr_fixtures}/text/translator_vocab.txt ${host} VERBATIM)
add_custom_target(translate_data DEPENDS ${fw_gen}/translator_model.h ${CMAKE_BINARY_DIR}/translate.expected)
auspex_firmware(translate image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/translate_main.cpp)
target_compile_definitions(translate PRIVATE "TRANSLATE_SENTENCE=\"${tr_sentence}\"")
add_dependencies(translate translate_data)
add_test(NAME translate_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine} $<TARGET_FILE:translate>
  ${CMAKE_BINARY_DIR}/translate.expected)
add_test(NAME translate_heap_free COMMAND sh -c "${fw_port}/check_heap_free.sh ${CMAKE_NM} $<TARGET_FILE:auspex_runtime> \
$<TARGET_FILE:translate> ${CMAKE_BINARY_DIR}/translate.map arena \
$(sed -n 's/^#define TRANSLATOR_MODEL_ARENA_BYTES \\([0-9]*\\).*/\\1/p' ${fw_gen}/translator_model.h)")
# The route on models unlike the bundled one, on one board (board_route_tests; the route is the same code on
# every board): a decoder reading a plan and a calendar column (tests/fixtures/forecaster_known), and an
# encoder-only flatten head over covariates predicting one of three features (tests/fixtures/forecaster_onepass),
# each with the default conversion.
if(board_route_tests)
  set(fx ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures)
  auspex_example_route(forecast_known ${fw_gen}/route_known ${fx}/forecaster_known/calendar_setpoint/model.pt
    ${fx}/forecaster_known/calendar_setpoint default "${fw_default_convert}" "--horizon;12")
  auspex_example_route(forecast_flatten ${fw_gen}/route_flatten ${fx}/forecaster_onepass/flatten_covariates/model.pt
    ${fx}/forecaster_onepass/flatten_covariates default "${fw_default_convert}" "")
  # The default conversion keeps int8 key/value caches for a model with a decoder (and leaves --kv-cache out
  # for the encoder-only one, which the route above converted).
  add_test(NAME forecast_known_kv_cache COMMAND sh -c "${host} inspect ${fw_gen}/route_known/example.axm | grep '^kv cache: int8'")
  # The user's options are used as given: --kv-cache for a model without a decoder is refused, naming the
  # setting (the script prints that line only when convert failed).
  add_test(NAME firmware_convert_named COMMAND sh -c "sh ${fw_port}/convert_example.sh ${host} \
${fx}/forecaster_onepass/flatten_covariates/model.pt ${fx}/forecaster_onepass/flatten_covariates/config.json \
${CMAKE_BINARY_DIR}/convert_named.axm FIRMWARE_CONVERT --dtype int8 --kv-cache int8 2>&1")
  set_tests_properties(firmware_convert_named PROPERTIES
    PASS_REGULAR_EXPRESSION "no decoder.*FIRMWARE_CONVERT=\"--dtype int8 --kv-cache int8\" \\(cmake: AUSPEX_EXAMPLE_CONVERT\\) does not fit")
endif()
# The example with A/B model slots (apps/firmware/forecast_slots_main.cpp): two slots of the
# example's size in RAM standing in for flash, so only boards whose RAM holds them build it (board_slot_test).
if(board_slot_test)
  # The example model converted with version 1; the firmware patches the version's value for each update.
  add_custom_command(OUTPUT ${fw_gen}/example_v.axm ${fw_gen}/example_model_v.h
    COMMAND sh ${fw_port}/convert_example.sh ${host} ${example_pt} ${example}/config.json ${fw_gen}/example_v.axm
            ${fw_convert_origin} ${fw_example_convert} --model-version 1
    COMMAND ${host} header ${fw_gen}/example_v.axm -o ${fw_gen}/example_model_v.h --name example_model_v
            ${example_lengths} --history ${example}/history.csv --history-output ${fw_gen}/example_history_v.h
    DEPENDS ${example_pt} ${example}/config.json ${example}/history.csv ${host} ${board_dir}/board.cmake
            ${fw_port}/convert_example.sh VERBATIM)
  auspex_embed_csv(${CMAKE_BINARY_DIR}/forecast.expected example_expected)
  add_custom_target(example_expected DEPENDS ${fw_gen}/example_expected.h ${fw_gen}/example_model_v.h)
  auspex_firmware(forecast_slots image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/forecast_slots_main.cpp)
  add_dependencies(example_expected forecast_data)  # forecast.expected is made there
  add_dependencies(forecast_slots forecast_data example_expected)
  # Signed updates (apps/firmware/forecast_signed_main.cpp): an owner key made at build time, the
  # example signed with it as versions 1 and 2, the public key as the firmware's trusted key.
  set(signed_headers ${fw_gen}/owner_key.h ${fw_gen}/example_signed_v1.h ${fw_gen}/example_signed_v2.h)
  set(signed_steps COMMAND ${CMAKE_COMMAND} -E rm -f ${fw_gen}/owner.key ${fw_gen}/owner.pub
    COMMAND ${host} keygen -o ${fw_gen}/owner
    COMMAND ${host} header ${fw_gen}/owner.pub -o ${fw_gen}/owner_key.h)
  foreach(v 1 2)
    list(APPEND signed_steps
      COMMAND sh ${fw_port}/convert_example.sh ${host} ${example_pt} ${example}/config.json
              ${fw_gen}/example_signed_v${v}.axm ${fw_convert_origin} ${fw_example_convert} --model-version ${v}
      COMMAND ${host} sign ${fw_gen}/example_signed_v${v}.axm --key ${fw_gen}/owner.key
      COMMAND ${host} header ${fw_gen}/example_signed_v${v}.axm -o ${fw_gen}/example_signed_v${v}.h
              --name example_signed_v${v} ${example_lengths})
  endforeach()
  add_custom_command(OUTPUT ${signed_headers} ${signed_steps}
    DEPENDS ${example_pt} ${example}/config.json ${host} ${board_dir}/board.cmake ${fw_port}/convert_example.sh
            VERBATIM)
  add_custom_target(example_signed DEPENDS ${signed_headers})
  auspex_firmware(forecast_signed image_code.ld
    ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/forecast_signed_main.cpp)
  add_dependencies(forecast_signed forecast_data example_expected example_signed)
endif()
# The integer-only example (docs/integer-only.md): the bundled model converted with --integer-only
# (calibrated on the history it forecasts: this image proves bits, the accuracy is measured on the host), its
# forecast printed as the host prints it, and the proof that the forecast reaches no floating-point code.
if(NOT AUSPEX_EXAMPLE_DIR AND EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/models/example/forecaster.pt)
  set(example_integer_axm ${fw_gen}/example_integer.axm)
  add_custom_command(OUTPUT ${example_integer_axm}
    COMMAND ${host} convert ${example_pt} --config ${example}/config.json --dtype int8 --integer-only
            --calib ${example}/history.csv -o ${example_integer_axm}
    DEPENDS ${example_pt} ${example}/config.json ${example}/history.csv ${host} VERBATIM)
  add_custom_command(OUTPUT ${fw_gen}/example_integer_model.h
    COMMAND ${host} header ${example_integer_axm} -o ${fw_gen}/example_integer_model.h --name example_integer_model
            ${example_lengths}
    DEPENDS ${example_integer_axm} ${host} VERBATIM)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/forecast_integer.expected
    COMMAND ${fw_port}/host_forecast.sh ${host} ${example_integer_axm} ${example}/history.csv
            ${CMAKE_BINARY_DIR}/forecast_integer.expected ${example_lengths}
    DEPENDS ${example_integer_axm} ${example}/history.csv ${host} ${fw_port}/host_forecast.sh VERBATIM)
  add_custom_target(example_integer_data ALL DEPENDS ${fw_gen}/example_integer_model.h
    ${CMAKE_BINARY_DIR}/forecast_integer.expected)
  auspex_firmware(forecast_integer image_code.ld
    ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/forecast_integer_main.cpp)
  add_dependencies(forecast_integer forecast_data example_integer_data)
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME forecast_integer_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
    $<TARGET_FILE:forecast_integer> ${CMAKE_BINARY_DIR}/forecast_integer.expected)
  add_test(NAME forecast_integer_float_free COMMAND ${Python3_EXECUTABLE} ${fw_port}/check_float_free.py
    ${CMAKE_OBJDUMP} $<TARGET_FILE:forecast_integer> ${CMAKE_CURRENT_SOURCE_DIR}/runtime)
  # The same image for a Cortex-M0+ (-mcpu=cortex-m0plus: Armv6-M, Thumb-1 only, no hardware divide), run on
  # the Cortex-M3 board, which executes that subset as an M0+ would. Its own copy of the runtime's sources
  # (the integer path needs generic and the mcu port's integer kernels), compiled for the M0+; the flag given
  # last wins.
  if(board_cpu STREQUAL "cortex-m3")
    file(GLOB m0plus_sources ${CMAKE_CURRENT_SOURCE_DIR}/runtime/*.cpp
         ${CMAKE_CURRENT_SOURCE_DIR}/models/forecaster/*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/ports/generic/*.cpp
         ${CMAKE_CURRENT_SOURCE_DIR}/ports/mcu/*integer*.cpp ${CMAKE_CURRENT_SOURCE_DIR}/ports/mcu/*_q8_*.cpp)
    add_executable(forecast_integer_m0plus ${m0plus_sources} ${fw_port}/startup.c ${fw_port}/syscalls.c
      ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/forecast_integer_main.cpp)
    target_compile_options(forecast_integer_m0plus PRIVATE -mcpu=cortex-m0plus
      $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti>)
    target_include_directories(forecast_integer_m0plus PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} ${fw_gen})
    target_link_options(forecast_integer_m0plus PRIVATE -mcpu=cortex-m0plus --specs=rdimon.specs -nostartfiles
      -Wl,--gc-sections -L${board_dir} -L${fw_port} -T image_code.ld -Wl,--defsym=STACK_SIZE=${fw_stack_size})
    set_target_properties(forecast_integer_m0plus PROPERTIES SUFFIX ".elf" RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
    add_dependencies(forecast_integer_m0plus forecast_data example_integer_data)
    add_test(NAME forecast_integer_m0plus_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
      $<TARGET_FILE:forecast_integer_m0plus> ${CMAKE_BINARY_DIR}/forecast_integer.expected)
    add_test(NAME forecast_integer_m0plus_float_free COMMAND ${Python3_EXECUTABLE} ${fw_port}/check_float_free.py
      ${CMAKE_OBJDUMP} $<TARGET_FILE:forecast_integer_m0plus> ${CMAKE_CURRENT_SOURCE_DIR}/runtime)
  endif()
endif()
# make insn: the example forecast once per kernel port between markers, for tools/insn/insn_plugin.c.
auspex_firmware(insn image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/tools/insn/insn_main.cpp)
# How make insn runs it and labels its column (tools/insn/insn_report.sh): the board's qemu machine and core.
string(REGEX REPLACE "^cortex-m" "M" fw_core ${board_cpu})
file(WRITE ${CMAKE_BINARY_DIR}/insn_runner "system:${board_qemu_machine}\n")
file(WRITE ${CMAKE_BINARY_DIR}/insn_label "${fw_core} (${board})\n")
add_dependencies(insn forecast_data)
# make bench-mcu: the int8 products on fixed shapes, beside CMSIS-NN's with AUSPEX_CMSIS_NN_DIR.
include(${fw_port}/bench/bench_mcu.cmake)

set(qemu_run ${fw_port}/qemu_run.sh)
if(board_slot_test)
  add_test(NAME forecast_slots_updates COMMAND ${qemu_run} ${board_qemu_machine} $<TARGET_FILE:forecast_slots>
    ${CMAKE_BINARY_DIR}/forecast.expected)
  add_test(NAME forecast_signed_updates COMMAND ${qemu_run} ${board_qemu_machine} $<TARGET_FILE:forecast_signed>
    ${CMAKE_BINARY_DIR}/forecast.expected)
endif()
# The "your own firmware" project (apps/your-firmware), copied out of the tree and built as a user
# would, on a timestamped log (tests/firmware/your_firmware_project.sh).
# On the route board, the same project then forecasts a model that reads a plan (model_future.h).
set(your_firmware_known "")
if(board_route_tests)
  set(your_firmware_known ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/forecaster_known/calendar_setpoint 12)
endif()
add_test(NAME your_firmware_project COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/firmware/your_firmware_project.sh
  ${CMAKE_CURRENT_SOURCE_DIR} ${host} ${board} ${board_qemu_machine} ${CMAKE_BINARY_DIR}/your-firmware
  ${your_firmware_known})
# The arena figure comes from the generated header, read when the test runs.
add_test(NAME runtime_heap_free COMMAND sh -c "${fw_port}/check_heap_free.sh ${CMAKE_NM} $<TARGET_FILE:auspex_runtime> \
$<TARGET_FILE:forecast> ${CMAKE_BINARY_DIR}/forecast.map arena \
$(sed -n 's/^#define EXAMPLE_MODEL_ARENA_BYTES \\([0-9]*\\).*/\\1/p' ${fw_gen}/example_model.h)")
add_test(NAME runtime_heap_free_c COMMAND sh -c "${fw_port}/check_heap_free.sh ${CMAKE_NM} $<TARGET_FILE:auspex_runtime> \
$<TARGET_FILE:forecast_c> ${CMAKE_BINARY_DIR}/forecast_c.map arena \
$(sed -n 's/^#define EXAMPLE_MODEL_ARENA_BYTES \\([0-9]*\\).*/\\1/p' ${fw_gen}/example_model.h)")

# ---- worst-case stack (tools/stack/stack_worst_case.py): the compiler's frames over the linked call graph ----
# For forecast.elf and forecast_c.elf (the forecaster through the C++ and the C API, checked against the
# stack the run painted) and stack_families.elf (every family's entry points, linked only to be analysed).
# Each fails when the runtime's worst case (below its caller's frame) exceeds the budget (3584 bytes, or
# AUSPEX_STACK_BUDGET): ModelFile::open and every session's init build an error message on the stack, a
# forecast itself needs far less. docs/boards.md has the figures (make stack writes them).
set(AUSPEX_STACK_BUDGET "" CACHE STRING "Stack bytes the runtime's worst case may use below its caller; empty = 3584")
set(fw_stack_budget ${AUSPEX_RUNTIME_STACK_BUDGET})  # ports/firmware/boards.cmake
if(AUSPEX_STACK_BUDGET)
  set(fw_stack_budget ${AUSPEX_STACK_BUDGET})
endif()
find_package(Python3 REQUIRED COMPONENTS Interpreter)
auspex_firmware(stack_families image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/families_main.cpp)
target_include_directories(stack_families PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
string(REGEX REPLACE "nm$" "" stack_tool_prefix "${CMAKE_NM}")
set(stack_tool ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/stack_worst_case.py
  --ci-dir ${CMAKE_BINARY_DIR} --kernels ${CMAKE_CURRENT_SOURCE_DIR}/runtime/kernels.h
  --budget ${fw_stack_budget} --tool-prefix ${stack_tool_prefix})
set(stack_show_forecast --show ForecastSession::forecast)
set(stack_show_forecast_c --show auspex_forecast)
foreach(image forecast forecast_c stack_families)
  target_compile_options(${image} PRIVATE ${fw_stack_flags})  # main's frame
endforeach()
foreach(image forecast forecast_c)
  # The run's stderr holds the painted high-water mark; the computed worst case must be at least that.
  set_tests_properties(${image}_matches_host PROPERTIES FIXTURES_SETUP ${image}_run
    ENVIRONMENT AUSPEX_QEMU_STDERR=${CMAKE_BINARY_DIR}/${image}.stderr)
  add_test(NAME stack_${image} COMMAND ${stack_tool} --elf $<TARGET_FILE:${image}> --map ${CMAKE_BINARY_DIR}/${image}.map
    --painted-log ${CMAKE_BINARY_DIR}/${image}.stderr --label "${image}.elf on ${board} (${board_cpu})"
    ${stack_show_${image}})
  set_tests_properties(stack_${image} PROPERTIES FIXTURES_REQUIRED ${image}_run)
endforeach()
add_test(NAME stack_families COMMAND ${stack_tool} --elf $<TARGET_FILE:stack_families>
  --map ${CMAKE_BINARY_DIR}/stack_families.map --label "every family on ${board} (${board_cpu})")
# The signature check of signed models (runtime/model_signature.h), in an image of its own: Ed25519's
# field elements and points are held on the stack, so it has a budget of its own (5120 bytes).
set(fw_signature_stack_budget 5120)
auspex_firmware(stack_signature image_code.ld ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/signature_main.cpp)
target_include_directories(stack_signature PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_compile_options(stack_signature PRIVATE ${fw_stack_flags})
add_test(NAME stack_signature COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/stack_worst_case.py
  --ci-dir ${CMAKE_BINARY_DIR} --kernels ${CMAKE_CURRENT_SOURCE_DIR}/runtime/kernels.h
  --budget ${fw_signature_stack_budget} --tool-prefix ${stack_tool_prefix} --elf $<TARGET_FILE:stack_signature>
  --map ${CMAKE_BINARY_DIR}/stack_signature.map --label "the signature check on ${board} (${board_cpu})")
# No figure when an indirect call cannot be bounded: with linear_i8 missing from the kernel list (AX_KERNELS),
# the calls through it are unresolved and the tool must refuse (exit 1, this message).
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/runtime/kernels.h stack_kernels_h)
string(REPLACE "X(linear_i8)" "X(linear_i8_unknown)" stack_kernels_h "${stack_kernels_h}")
file(WRITE ${CMAKE_BINARY_DIR}/stack_kernels_renamed.h "${stack_kernels_h}")
add_test(NAME stack_refuses_unresolved_call COMMAND ${Python3_EXECUTABLE}
  ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/stack_worst_case.py --elf $<TARGET_FILE:forecast>
  --map ${CMAKE_BINARY_DIR}/forecast.map --ci-dir ${CMAKE_BINARY_DIR} --kernels ${CMAKE_BINARY_DIR}/stack_kernels_renamed.h
  --tool-prefix ${stack_tool_prefix})
set_tests_properties(stack_refuses_unresolved_call PROPERTIES
  PASS_REGULAR_EXPRESSION "no figure: .*indirect call at .* is not a call through an ax::Kernels field")
# ... and none on recursion (a function calling itself; two calling each other) or on a runtime function
# whose address is kept outside the kernel tables, in tiny images of its own.
separate_arguments(stack_cpu_flags UNIX_COMMAND "${AUSPEX_CPU_FLAGS} -mthumb")
add_test(NAME stack_refusals COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/check_refusals.sh
  ${CMAKE_C_COMPILER} ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/stack_worst_case.py ${stack_cpu_flags})

# ---- Chronos-Bolt read in place from external flash (ports/firmware/chronos_bolt.cmake) ----
if(board_external_flash)
  include(${fw_port}/chronos_bolt.cmake)
endif()

# ---- docs/boards.md: its stack and size tables are this build's (make stack / make size write them) ----
# Only for the default example: a firmware of the user's own model is not what the page documents.
if("${AUSPEX_EXAMPLE_DIR}${AUSPEX_EXAMPLE_WINDOW}${AUSPEX_EXAMPLE_HORIZON}${AUSPEX_EXAMPLE_CONVERT}${AUSPEX_FIRMWARE_STACK_SIZE}"
   STREQUAL "")
  set(doc_tool ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/tools/docs/generated.py check
    ${CMAKE_CURRENT_SOURCE_DIR}/docs/boards.md)
  string(REPLACE ";" " " doc_tool_line "${doc_tool}")
  add_test(NAME docs_stack_table COMMAND sh -c "sh ${CMAKE_CURRENT_SOURCE_DIR}/tools/stack/stack_table_row.sh \
${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${board} ${fw_core} ${stack_tool_prefix} \
| ${doc_tool_line} stack")
  add_test(NAME docs_size_table COMMAND sh -c "sh ${fw_port}/size_report.sh ${CMAKE_BINARY_DIR}/.. ${board} \
| sed -n 3p | ${doc_tool_line} size")
  # Chronos-Bolt's rows (ports/firmware/chronos_bolt_rows.sh), on the boards with external flash.
  if(board_external_flash)
    add_test(NAME docs_chronos_bolt_size COMMAND sh -c "sh ${fw_port}/chronos_bolt_rows.sh size ${CMAKE_BINARY_DIR} \
${board} ${fw_core} | ${doc_tool_line} chronos-bolt-size")
    add_test(NAME docs_chronos_bolt_stack COMMAND sh -c "sh ${fw_port}/chronos_bolt_rows.sh stack ${CMAKE_BINARY_DIR} \
${board} ${fw_core} ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR} ${stack_tool_prefix} | ${doc_tool_line} chronos-bolt-stack")
    set_tests_properties(docs_chronos_bolt_stack PROPERTIES FIXTURES_REQUIRED chronos_bolt_tiny_run)
  endif()
endif()

# ---- the on-board test image: doctest, the PyTorch fixtures embedded at build time ----
if(fw_tests)
  # doctest's single header, copied: the cross compiler must not see the host's /usr/include.
  find_file(AUSPEX_DOCTEST_HEADER doctest.h PATHS /usr/include/doctest NO_CMAKE_FIND_ROOT_PATH NO_DEFAULT_PATH)
  if(NOT AUSPEX_DOCTEST_HEADER)
    message(FATAL_ERROR "doctest not found: apt-get install doctest-dev")
  endif()
  file(COPY ${AUSPEX_DOCTEST_HEADER} DESTINATION ${fw_gen}/doctest)

  # name:dtype. Every fixture as f32 (compared with PyTorch), plus int8 and f16 conversions (compared with
  # the host's output for the same bytes).
  set(fixture_cases post_relu_tril:f32 pre_gelu_none_final:f32 odd_sizes:f32 multi_out:f32 pre_relu_tril:f32
      norm_global:f32 norm_last_value:f32 post_relu_tril:int8 norm_last_value:int8 pre_gelu_none_final:f16)
  set(fx_root ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/forecaster)
  set(fx_includes "")
  set(fx_entries "")
  set(fx_arenas "")
  set(fx_outputs "")
  set(fx_embedded "")
  foreach(entry ${fixture_cases})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 name)
    list(GET parts 1 dtype)
    set(dir ${fx_root}/${name})
    set(id ${name}_${dtype})
    string(TOUPPER ${id} ID)
    string(TOUPPER ${name} NAME)
    file(READ ${dir}/case.json meta)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/case.json)
    foreach(key S T n_features n_outputs)
      string(REGEX MATCH "\"${key}\": *([0-9]+)" _ "${meta}")
      set(${key} ${CMAKE_MATCH_1})
    endforeach()
    string(REGEX MATCH "\"has_forecast\": *(true|false)" _ "${meta}")
    set(has_forecast ${CMAKE_MATCH_1})
    set(horizon 24)
    if(T GREATER horizon)
      set(horizon ${T})
    endif()

    set(axm ${fw_gen}/${id}.axm)
    add_custom_command(OUTPUT ${axm} ${fw_gen}/${id}_model.h
      COMMAND ${host} convert ${dir}/model.pt --config ${dir}/config.json --dtype ${dtype} -o ${axm}
      COMMAND ${host} header ${axm} -o ${fw_gen}/${id}_model.h --name ${id}_model --window ${S} --horizon ${horizon}
      DEPENDS ${dir}/model.pt ${dir}/config.json ${host} VERBATIM)
    add_custom_command(OUTPUT ${fw_gen}/${id}_run_host.csv
      COMMAND ${host} run ${axm} --src ${dir}/src.csv --tgt ${dir}/tgt.csv --model-space --port generic
              -o ${fw_gen}/${id}_run_host.csv
      DEPENDS ${axm} ${dir}/src.csv ${dir}/tgt.csv ${host} VERBATIM)
    auspex_embed_csv(${fw_gen}/${id}_run_host.csv ${id}_run_host)
    list(APPEND fx_outputs ${fw_gen}/${id}_model.h ${fw_gen}/${id}_run_host.h)
    string(APPEND fx_includes "#include \"${id}_model.h\"\n#include \"${id}_run_host.h\"\n")
    set(csvs src tgt run_out)
    if(has_forecast STREQUAL "true")
      list(APPEND csvs history forecast)
      add_custom_command(OUTPUT ${fw_gen}/${id}_forecast_host.csv
        COMMAND ${host} forecast ${axm} --input ${dir}/history.csv --horizon 24 --port generic
                -o ${fw_gen}/${id}_forecast_host.csv
        DEPENDS ${axm} ${dir}/history.csv ${host} VERBATIM)
      auspex_embed_csv(${fw_gen}/${id}_forecast_host.csv ${id}_forecast_host)
      list(APPEND fx_outputs ${fw_gen}/${id}_forecast_host.h)
      string(APPEND fx_includes "#include \"${id}_forecast_host.h\"\n")
      set(forecast_fields "${name}_history, ${NAME}_HISTORY_ROWS, ${name}_forecast, ${id}_forecast_host")
    else()
      set(forecast_fields "nullptr, 0, nullptr, nullptr")
    endif()
    foreach(csv ${csvs})
      if(NOT "${name}_${csv}" IN_LIST fx_embedded)  # a fixture's CSVs serve all its dtypes
        list(APPEND fx_embedded ${name}_${csv})
        auspex_embed_csv(${dir}/${csv}.csv ${name}_${csv})
        list(APPEND fx_outputs ${fw_gen}/${name}_${csv}.h)
        string(APPEND fx_includes "#include \"${name}_${csv}.h\"\n")
      endif()
    endforeach()
    string(APPEND fx_entries "    {\"${name}\", \"${dtype}\", ${id}_model, ${ID}_MODEL_SIZE, ${ID}_MODEL_ARENA_BYTES, ${S}, ${horizon},
     ${n_features}, ${n_outputs}, ${name}_src, ${NAME}_SRC_ROWS, ${name}_tgt, ${NAME}_TGT_ROWS, ${name}_run_out,
     ${id}_run_host, ${forecast_fields}},\n")
    list(APPEND fx_arenas ${ID}_MODEL_ARENA_BYTES)
  endforeach()
  # The forecaster variants (tests/fixtures/forecaster_onepass, forecaster_covariates): encoder-only heads, the
  # sliding window, one-pass decoding, patches and RevIN, a decoder fed the outputs; each forecast on the
  # board against PyTorch's and the host's (generic port) for the same bytes.
  set(variant_cases onepass/transam:f32 onepass/flatten_covariates:int8 onepass/last_row_causal:f32
      onepass/mean_mlp:f16 onepass/informer_zeros:f32 onepass/patchtst_revin:int8 covariates/tutorial:int8
      onepass/mvts_batchnorm:int8 patchtst/official:int8:patchtst known/calendar_setpoint:f32
      tslib/transformer_timef:int8:tslib_transformer)
  set(vx_entries "")
  foreach(entry ${variant_cases})
    string(REPLACE ":" ";" parts ${entry})
    list(GET parts 0 path)
    list(GET parts 1 dtype)
    # A third field names a shipped rename map (tools/import/maps/NAME.map) the conversion takes.
    set(map_args "")
    list(LENGTH parts n_parts)
    if(n_parts GREATER 2)
      list(GET parts 2 map)
      set(map_args --map ${CMAKE_CURRENT_SOURCE_DIR}/tools/import/maps/${map}.map)
    endif()
    set(dir ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/forecaster_${path})
    string(REPLACE "/" "_" id "variant_${path}_${dtype}")
    string(TOUPPER ${id} ID)
    file(READ ${dir}/case.json meta)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/case.json)
    foreach(key window horizon)
      string(REGEX MATCH "\"${key}\": *([0-9]+)" _ "${meta}")
      set(${key} ${CMAKE_MATCH_1})
    endforeach()
    set(axm ${fw_gen}/${id}.axm)
    add_custom_command(OUTPUT ${axm} ${fw_gen}/${id}_model.h
      COMMAND ${host} convert ${dir}/model.pt --config ${dir}/config.json ${map_args} --dtype ${dtype} -o ${axm}
      COMMAND ${host} header ${axm} -o ${fw_gen}/${id}_model.h --name ${id}_model --window ${window}
              --horizon ${horizon}
      DEPENDS ${dir}/model.pt ${dir}/config.json ${host} VERBATIM)
    # Inputs known ahead: the host reads the plan (future.csv) and computes calendar columns from the
    # timestamps; the board gets the rows as the model reads them (window.csv, future_rows.csv).
    set(future_args "")
    set(window_csv ${dir}/history.csv)
    set(future_entry "nullptr, 0")
    if(EXISTS ${dir}/future.csv)
      set(future_args --future ${dir}/future.csv)
    endif()
    if(EXISTS ${dir}/future_rows.csv)
      set(window_csv ${dir}/window.csv)
      auspex_embed_csv(${dir}/future_rows.csv ${id}_future)
      list(APPEND fx_outputs ${fw_gen}/${id}_future.h)
      string(APPEND fx_includes "#include \"${id}_future.h\"\n")
      set(future_entry "${id}_future, ${ID}_FUTURE_ROWS")
    endif()
    add_custom_command(OUTPUT ${fw_gen}/${id}_host.csv
      COMMAND ${host} forecast ${axm} --input ${dir}/history.csv --horizon ${horizon} ${future_args} --port generic
              -o ${fw_gen}/${id}_host.csv
      DEPENDS ${axm} ${dir}/history.csv ${host} VERBATIM)
    auspex_embed_csv(${fw_gen}/${id}_host.csv ${id}_host)
    auspex_embed_csv(${window_csv} ${id}_history)
    auspex_embed_csv(${dir}/forecast.csv ${id}_torch)
    list(APPEND fx_outputs ${fw_gen}/${id}_model.h ${fw_gen}/${id}_host.h ${fw_gen}/${id}_history.h
         ${fw_gen}/${id}_torch.h)
    string(APPEND fx_includes "#include \"${id}_model.h\"\n#include \"${id}_host.h\"\n#include \"${id}_history.h\"
#include \"${id}_torch.h\"\n")
    string(APPEND vx_entries "    {\"${path}\", \"${dtype}\", ${id}_model, ${ID}_MODEL_SIZE, ${ID}_MODEL_ARENA_BYTES, ${window},
     ${horizon}, ${id}_history, ${ID}_HISTORY_ROWS, ${ID}_HISTORY_COLS, ${id}_torch, ${id}_host, ${ID}_HOST_COLS,
     ${future_entry}},\n")
    list(APPEND fx_arenas ${ID}_MODEL_ARENA_BYTES)
  endforeach()
  string(REPLACE ";" ", " fx_arena_list "${fx_arenas}")
  set(fx_source "// Generated by ports/firmware/firmware.cmake from tests/fixtures/forecaster. Do not edit.
#include \"tests/firmware/fixture_cases.h\"

#include <initializer_list>

${fx_includes}
namespace ax::fw {

const FixtureCase kFixtureCases[] = {
${fx_entries}};
const size_t kFixtureCaseCount = sizeof kFixtureCases / sizeof kFixtureCases[0];
const VariantCase kVariantCases[] = {
${vx_entries}};
const size_t kVariantCaseCount = sizeof kVariantCases / sizeof kVariantCases[0];

namespace {
constexpr size_t largest(std::initializer_list<size_t> sizes) {
    size_t m = 0;
    for (size_t s : sizes) m = s > m ? s : m;
    return m;
}
}  // namespace
const size_t kFixtureArenaBytes = largest({${fx_arena_list}});
alignas(64) unsigned char fixture_arena[kFixtureArenaBytes];

}  // namespace ax::fw
")
  set(fx_cpp ${fw_gen}/fixture_cases.cpp)
  if(EXISTS ${fx_cpp})
    file(READ ${fx_cpp} old)
  else()
    set(old "")
  endif()
  if(NOT old STREQUAL fx_source)
    file(WRITE ${fx_cpp} "${fx_source}")
  endif()
  set_source_files_properties(${fx_cpp} PROPERTIES OBJECT_DEPENDS "${fx_outputs}")

  file(GLOB fw_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/firmware/*.cpp)
  auspex_firmware(auspex_firmware_tests ${board_test_image} ${fw_test_sources} ${fx_cpp})
  target_include_directories(auspex_firmware_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  add_test(NAME runtime_tests_on_board COMMAND ${qemu_run} ${board_qemu_machine} $<TARGET_FILE:auspex_firmware_tests>)
endif()
