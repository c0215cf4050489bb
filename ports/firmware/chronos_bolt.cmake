# Chronos-Bolt on a board with memory-mapped external flash (board_external_flash: memory.ld's BIGRAM), included
# by firmware.cmake. A seeded checkpoint at each shape (tools/bench/make_chronos_bolt_model.py, Python's standard
# library only: no weights are committed) is converted to int8 by the host's auspex, and the host's forecast
# of the same context on the generic port (64 steps, 9 quantiles) is what the board must print, bit for bit:
#   chronos_bolt_tiny.elf   chronos-bolt-tiny's shapes (d_model 256, 4+4 layers, 8.65M parameters, 8.8 MB in
#                           int8: under a second under qemu, so make test-firmware runs it)
#   chronos_bolt_small.elf  the same structure scaled down (d_model 64, 2+2 layers, 0.5 MB)
# each also run on the same checkpoint converted to int4 (4.9 MB at tiny's shapes), bit for bit as well,
# each with its heap-free proof and its worst-case stack (checked against the painted stack of the run).
# apps/firmware/chronos_bolt_main.cpp is linked without the model (ports/firmware/image_flash_model.ld); qemu's
# -device loader writes the .axm at the region's start, where the firmware opens it in place.
file(STRINGS ${board_dir}/memory.ld cb_region REGEX "^[ \t]*BIGRAM[ \t]*\\(")
if(NOT cb_region MATCHES "ORIGIN[ \t]*=[ \t]*(0x[0-9A-Fa-f]+)")
  message(FATAL_ERROR "${board_dir}: board_external_flash is ON but memory.ld has no BIGRAM region with an ORIGIN")
endif()
set(board_external_flash_origin ${CMAKE_MATCH_1})
set(cb_horizon 64)
set(cb_generator ${CMAKE_CURRENT_SOURCE_DIR}/tools/bench/make_chronos_bolt_model.py)
foreach(cb_shape small tiny)
  set(cb_dir ${CMAKE_BINARY_DIR}/chronos_bolt/${cb_shape})
  set(cb_axm ${cb_dir}/int8.axm)
  set(cb_image chronos_bolt_${cb_shape})
  # The seeded checkpoint and its context, the int8 file, and the working memory the host computes for it.
  add_custom_command(OUTPUT ${cb_axm} ${cb_dir}/context.csv ${cb_dir}/chronos_bolt_work.h
    COMMAND ${Python3_EXECUTABLE} ${cb_generator} ${cb_shape} ${cb_dir}/hf
    COMMAND ${CMAKE_COMMAND} -E copy ${cb_dir}/hf/context.csv ${cb_dir}/context.csv
    COMMAND ${host} convert ${cb_dir}/hf -o ${cb_axm} --dtype int8
    COMMAND sh ${fw_port}/chronos_bolt_work.sh ${host} ${cb_axm} ${cb_horizon} ${cb_dir}/chronos_bolt_work.h
    DEPENDS ${cb_generator} ${host} ${fw_port}/chronos_bolt_work.sh VERBATIM)
  add_custom_command(OUTPUT ${cb_dir}/chronos_bolt_context.h
    COMMAND ${CMAKE_COMMAND} -DCSV=${cb_dir}/context.csv -DOUT=${cb_dir}/chronos_bolt_context.h
            -DNAME=chronos_bolt_context -P ${fw_port}/embed_csv.cmake
    DEPENDS ${cb_dir}/context.csv ${fw_port}/embed_csv.cmake VERBATIM)
  add_custom_command(OUTPUT ${cb_dir}/expected.txt
    COMMAND ${fw_port}/host_forecast.sh ${host} ${cb_axm} ${cb_dir}/context.csv ${cb_dir}/expected.txt
            --horizon ${cb_horizon}
    DEPENDS ${cb_axm} ${cb_dir}/context.csv ${host} ${fw_port}/host_forecast.sh VERBATIM)
  # The same checkpoint with 4-bit weights (4.9 MB at tiny's shapes, for boards with 8 MB of flash): the same image
  # runs it, and must print the host's int4 forecast bit for bit too.
  add_custom_command(OUTPUT ${cb_dir}/int4.axm ${cb_dir}/expected_int4.txt
    COMMAND ${host} convert ${cb_dir}/hf -o ${cb_dir}/int4.axm --dtype int4
    COMMAND ${fw_port}/host_forecast.sh ${host} ${cb_dir}/int4.axm ${cb_dir}/context.csv ${cb_dir}/expected_int4.txt
            --horizon ${cb_horizon}
    DEPENDS ${cb_axm} ${cb_dir}/context.csv ${host} ${fw_port}/host_forecast.sh VERBATIM)
  add_custom_target(${cb_image}_data DEPENDS ${cb_dir}/chronos_bolt_context.h ${cb_dir}/chronos_bolt_work.h
    ${cb_dir}/expected.txt ${cb_dir}/expected_int4.txt)
  auspex_firmware(${cb_image} image_flash_model.ld ${CMAKE_CURRENT_SOURCE_DIR}/apps/firmware/chronos_bolt_main.cpp)
  target_include_directories(${cb_image} BEFORE PRIVATE ${cb_dir})
  target_compile_options(${cb_image} PRIVATE ${fw_stack_flags})  # main's frame, for the stack figure
  add_dependencies(${cb_image} ${cb_image}_data)
  set_property(TARGET ${cb_image} APPEND PROPERTY LINK_DEPENDS ${fw_port}/image_flash_model.ld)
  add_test(NAME ${cb_image}_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
    $<TARGET_FILE:${cb_image}> ${cb_dir}/expected.txt -device loader,file=${cb_axm},addr=${board_external_flash_origin})
  set_tests_properties(${cb_image}_matches_host PROPERTIES FIXTURES_SETUP ${cb_image}_run
    ENVIRONMENT AUSPEX_QEMU_STDERR=${CMAKE_BINARY_DIR}/${cb_image}.stderr)
  add_test(NAME ${cb_image}_int4_matches_host COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
    $<TARGET_FILE:${cb_image}> ${cb_dir}/expected_int4.txt
    -device loader,file=${cb_dir}/int4.axm,addr=${board_external_flash_origin})
  add_test(NAME ${cb_image}_heap_free COMMAND sh -c "${fw_port}/check_heap_free.sh ${CMAKE_NM} \
$<TARGET_FILE:auspex_runtime> $<TARGET_FILE:${cb_image}> ${CMAKE_BINARY_DIR}/${cb_image}.map work \
$(sed -n 's/^#define CHRONOS_BOLT_WORK_BYTES \\([0-9]*\\).*/\\1/p' ${cb_dir}/chronos_bolt_work.h)")
  add_test(NAME stack_${cb_image} COMMAND ${stack_tool} --elf $<TARGET_FILE:${cb_image}>
    --map ${CMAKE_BINARY_DIR}/${cb_image}.map --painted-log ${CMAKE_BINARY_DIR}/${cb_image}.stderr
    --label "${cb_image}.elf on ${board} (${board_cpu})" --show chronos_bolt_forecast)
  set_tests_properties(stack_${cb_image} PROPERTIES FIXTURES_REQUIRED ${cb_image}_run)
  # make insn: the same forecast counted once per kernel port (tools/insn/chronos_bolt_insn_main.cpp), not in CTest.
  auspex_firmware(chronos_bolt_insn_${cb_shape} image_flash_model.ld
    ${CMAKE_CURRENT_SOURCE_DIR}/tools/insn/chronos_bolt_insn_main.cpp)
  target_include_directories(chronos_bolt_insn_${cb_shape} BEFORE PRIVATE ${cb_dir})
  add_dependencies(chronos_bolt_insn_${cb_shape} ${cb_image}_data)
  set_target_properties(chronos_bolt_insn_${cb_shape} PROPERTIES EXCLUDE_FROM_ALL ON)
  file(WRITE ${CMAKE_BINARY_DIR}/chronos_bolt_insn_${cb_shape}.qemu
       "-device loader,file=${cb_axm},addr=${board_external_flash_origin}\n")
endforeach()
# The image reads the region, nothing linked: with no model written there it says so and fails, and the
# scaled-down image refuses the tiny model, whose working memory exceeds the array it was built with.
add_test(NAME chronos_bolt_flash_empty COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
  $<TARGET_FILE:chronos_bolt_small>)
set_tests_properties(chronos_bolt_flash_empty PROPERTIES
  PASS_REGULAR_EXPRESSION "no Chronos-Bolt model in external flash at 0x60000000: .*exited with status 1")
add_test(NAME chronos_bolt_small_refuses_tiny COMMAND ${fw_port}/qemu_run.sh ${board_qemu_machine}
  $<TARGET_FILE:chronos_bolt_small> ${CMAKE_BINARY_DIR}/chronos_bolt/small/expected.txt
  -device loader,file=${CMAKE_BINARY_DIR}/chronos_bolt/tiny/int8.axm,addr=${board_external_flash_origin})
set_tests_properties(chronos_bolt_small_refuses_tiny PROPERTIES
  PASS_REGULAR_EXPRESSION "the model needs [0-9]+ bytes of working memory and 9 quantile rows, this image has [0-9]+ and 9: build the image.*exited with status 1")
