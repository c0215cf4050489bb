# `make bench-mcu` (not part of the firmware's default build or of make test): bench_mcu.elf, the mcu port's int8
# products on fixed shapes (bench_mcu.cpp), and, when AUSPEX_CMSIS_NN_DIR names a CMSIS-NN source tree
# (Include/, Source/), bench_mcu_cmsis_<opt>.elf: the same program with CMSIS-NN's kernels beside them, CMSIS-NN
# compiled from that tree at -Os (the firmware's flags) and at -Ofast (CMSIS-NN's own CMake default). Nothing of
# CMSIS-NN is part of auspex: its sources are read from the tree given, at build time, for measuring only.
set(AUSPEX_CMSIS_NN_DIR "" CACHE PATH "CMSIS-NN source tree for make bench-mcu's side-by-side table (empty: none)")
set(bench_dir ${CMAKE_CURRENT_LIST_DIR})

auspex_firmware(bench_mcu image_code.ld ${bench_dir}/bench_mcu.cpp)
set_target_properties(bench_mcu PROPERTIES EXCLUDE_FROM_ALL ON)

if(AUSPEX_CMSIS_NN_DIR)
  # The kernels compared and what they call.
  set(cmsis_sources
    FullyConnectedFunctions/arm_fully_connected_s8.c
    FullyConnectedFunctions/arm_vector_sum_s8.c
    FullyConnectedFunctions/arm_fully_connected_get_buffer_sizes_s8.c
    NNSupportFunctions/arm_nn_vec_mat_mult_t_s8.c
    NNSupportFunctions/arm_nn_mat_mult_nt_t_s8.c)
  list(TRANSFORM cmsis_sources PREPEND ${AUSPEX_CMSIS_NN_DIR}/Source/)
  set(cmsis_missing "")
  foreach(f ${cmsis_sources} ${AUSPEX_CMSIS_NN_DIR}/Include/arm_nnfunctions.h)
    if(NOT EXISTS ${f})
      set(cmsis_missing ${f})
    endif()
  endforeach()
  # Not fatal: the cache keeps the folder for later configurations of this tree (make firmware), which do not
  # need it; make bench-mcu then stops at the missing bench_mcu_cmsis_* targets, after this warning.
  if(cmsis_missing)
    message(WARNING "AUSPEX_CMSIS_NN_DIR=${AUSPEX_CMSIS_NN_DIR}: ${cmsis_missing} not found (a CMSIS-NN checkout "
                    "has Include/ and Source/): no CMSIS-NN bench images")
    set(cmsis_sources "")
  endif()
  foreach(opt Os Ofast)
    if(NOT cmsis_sources)
      break()
    endif()
    add_library(bench_cmsis_nn_${opt} STATIC EXCLUDE_FROM_ALL ${cmsis_sources} ${bench_dir}/cmsis_nn_calls.c)
    target_include_directories(bench_cmsis_nn_${opt} PRIVATE ${AUSPEX_CMSIS_NN_DIR}/Include)
    # Its own code, its own warnings: -w. The last -O on the command line wins over the toolchain's -Os.
    target_compile_options(bench_cmsis_nn_${opt} PRIVATE -w -${opt})
    auspex_firmware(bench_mcu_cmsis_${opt} image_code.ld ${bench_dir}/bench_mcu.cpp)
    set_target_properties(bench_mcu_cmsis_${opt} PROPERTIES EXCLUDE_FROM_ALL ON)
    target_compile_definitions(bench_mcu_cmsis_${opt} PRIVATE AUSPEX_BENCH_CMSIS_NN AUSPEX_BENCH_CMSIS_NN_OPT="-${opt}")
    target_link_libraries(bench_mcu_cmsis_${opt} PRIVATE bench_cmsis_nn_${opt})
  endforeach()
endif()
