# Cross build for 64-bit ARM Linux (Cortex-A53/A55/A72/A76 boards: Raspberry Pi 3/4/5, Jetson, RK3399, ...)
# with Debian's g++-aarch64-linux-gnu; tests run under qemu-user.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=ports/toolchains/aarch64-linux-gnu.cmake
#
# The default CPU flags are the ARMv8.0-A baseline, which every 64-bit ARM core runs; tune for a board with
# -DAUSPEX_CPU_FLAGS="-mcpu=cortex-a72" (any -march/-mcpu). The tests run on an emulated Cortex-A53, which
# raises SIGILL on any instruction beyond that baseline (dot product, i8mm): proof that the build has none.
# Binaries are linked statically, so they need no sysroot on the host and nothing but the kernel on a board.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT DEFINED AUSPEX_CPU_FLAGS)
  set(AUSPEX_CPU_FLAGS "-march=armv8-a")
endif()
if(NOT DEFINED AUSPEX_QEMU_CPU)
  set(AUSPEX_QEMU_CPU "cortex-a53")
endif()
# try_compile projects re-read this file: hand them the same choices.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AUSPEX_CPU_FLAGS AUSPEX_QEMU_CPU)

set(CMAKE_C_FLAGS_INIT "${AUSPEX_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${AUSPEX_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

find_program(AUSPEX_QEMU qemu-aarch64)
if(AUSPEX_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${AUSPEX_QEMU};-cpu;${AUSPEX_QEMU_CPU}")
endif()

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
