# Bare-metal Arm Cortex-M with the GNU Arm Embedded toolchain (Debian: gcc-arm-none-eabi, newlib).
#
#   cmake -S . -B build/firmware/mps2-an386 -DCMAKE_TOOLCHAIN_FILE=ports/toolchains/arm-none-eabi.cmake \
#         -DAUSPEX_FIRMWARE_BOARD=mps2-an386 -DAUSPEX_BUILD_TOOLS=OFF -DAUSPEX_BUILD_TESTS=OFF
#
# AUSPEX_CORTEX_M_CPU picks the core and its floating-point unit; with AUSPEX_FIRMWARE_BOARD it is the board's
# (board_cpu of ports/firmware/boards/<board>/board.cmake), without one it is given here:
#   cortex-m3   Armv7-M, no FPU: software floating point (-mfloat-abi=soft)   (qemu: mps2-an385)
#   cortex-m4   Armv7E-M, single-precision FPv4, DSP       (qemu: mps2-an386, netduinoplus2 = stm32f405)
#   cortex-m7   Armv7E-M, double-precision FPv5, DSP       (qemu: mps2-an500)
#   cortex-m55  Armv8.1-M, Helium (MVE) and FPv5           (qemu: mps3-an547)
# The cores with an FPU use the hard-float ABI.
# Code is built for size (-Os) without exceptions or RTTI, one section per function and object so that
# the linker's --gc-sections drops what a firmware does not call. Flags go into the *_INIT variables, so
# -DCMAKE_CXX_FLAGS=... on the command line adds to them instead of replacing the CPU selection.
set(CMAKE_SYSTEM_NAME Generic)

if(AUSPEX_FIRMWARE_BOARD AND NOT DEFINED AUSPEX_CORTEX_M_CPU)
  get_filename_component(_auspex_boards_dir ${CMAKE_CURRENT_LIST_DIR}/../firmware/boards ABSOLUTE)
  set(_auspex_board_file ${_auspex_boards_dir}/${AUSPEX_FIRMWARE_BOARD}/board.cmake)
  if(NOT EXISTS ${_auspex_board_file})
    file(GLOB _auspex_boards RELATIVE ${_auspex_boards_dir} ${_auspex_boards_dir}/*)
    message(FATAL_ERROR "AUSPEX_FIRMWARE_BOARD=${AUSPEX_FIRMWARE_BOARD}: no such folder in ports/firmware/boards "
                        "(boards: ${_auspex_boards})")
  endif()
  include(${_auspex_board_file})
  set(AUSPEX_CORTEX_M_CPU ${board_cpu} CACHE STRING "Cortex-M core: cortex-m3, cortex-m4, cortex-m7 or cortex-m55")
endif()
set(AUSPEX_CORTEX_M_CPU "cortex-m4" CACHE STRING "Cortex-M core: cortex-m3, cortex-m4, cortex-m7 or cortex-m55")
set_property(CACHE AUSPEX_CORTEX_M_CPU PROPERTY STRINGS cortex-m3 cortex-m4 cortex-m7 cortex-m55)
if(AUSPEX_CORTEX_M_CPU STREQUAL "cortex-m3")
  # IEEE add, multiply, divide and square root in libgcc/newlib are correctly rounded, so results stay
  # bit-identical to the FPU boards' and the host's.
  set(AUSPEX_CPU_FLAGS "-mcpu=cortex-m3 -mfloat-abi=soft")
elseif(AUSPEX_CORTEX_M_CPU STREQUAL "cortex-m4")
  set(AUSPEX_CPU_FLAGS "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
elseif(AUSPEX_CORTEX_M_CPU STREQUAL "cortex-m7")
  set(AUSPEX_CPU_FLAGS "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
elseif(AUSPEX_CORTEX_M_CPU STREQUAL "cortex-m55")
  # -mfpu=auto: the FPU and Helium (MVE with float) that -mcpu=cortex-m55 implies.
  set(AUSPEX_CPU_FLAGS "-mcpu=cortex-m55 -mfpu=auto -mfloat-abi=hard")
else()
  message(FATAL_ERROR "AUSPEX_CORTEX_M_CPU=${AUSPEX_CORTEX_M_CPU}: use cortex-m3, cortex-m4, cortex-m7 or cortex-m55")
endif()
# Named after the core: the top-level AUSPEX_PORTS=auto picks the mcu port for cortex-m*, whose DSP and
# Helium code is compiled only where the core has it (ports/mcu/linear_i8_mcu.cpp tests __ARM_FEATURE_DSP
# and __ARM_FEATURE_MVE; on a Cortex-M3 the port reports itself unavailable and generic runs).
set(CMAKE_SYSTEM_PROCESSOR ${AUSPEX_CORTEX_M_CPU})
# The CLI, the converter and the doctest suite are host programs (heap, exceptions, files).
set(AUSPEX_BUILD_TOOLS OFF CACHE BOOL "Build the host CLI and the converter")
set(AUSPEX_BUILD_TESTS OFF CACHE BOOL "Build the doctest suite")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AUSPEX_CORTEX_M_CPU)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_SIZE arm-none-eabi-size)
set(CMAKE_NM arm-none-eabi-nm)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)
# Nothing links without a board's startup code and linker script: test the compiler with a library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(AUSPEX_CORTEX_M_COMMON "-mthumb -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${AUSPEX_CPU_FLAGS} ${AUSPEX_CORTEX_M_COMMON}")
set(CMAKE_CXX_FLAGS_INIT "${AUSPEX_CPU_FLAGS} ${AUSPEX_CORTEX_M_COMMON} -fno-exceptions -fno-rtti -fno-threadsafe-statics")
set(CMAKE_ASM_FLAGS_INIT "${AUSPEX_CPU_FLAGS} -mthumb")
# CMake appends its own -O3 to *_FLAGS_RELEASE_INIT; a cache entry set here first wins instead.
foreach(lang C CXX)
  set(CMAKE_${lang}_FLAGS_RELEASE "-Os -DNDEBUG" CACHE STRING "Release flags for Cortex-M: optimise for size")
  set(CMAKE_${lang}_FLAGS_MINSIZEREL "-Os -DNDEBUG" CACHE STRING "")
  set(CMAKE_${lang}_FLAGS_RELWITHDEBINFO "-Os -g -DNDEBUG" CACHE STRING "")
endforeach()
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
