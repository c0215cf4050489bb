# Cross build for 32-bit ARM Linux with hard float and NEON (ARMv7-A: Cortex-A7/A8/A9/A15/A17 boards, and
# 64-bit boards running a 32-bit OS such as Raspberry Pi OS armhf) with Debian's g++-arm-linux-gnueabihf;
# tests run under qemu-arm.
#
#   cmake -S . -B build-armhf -DCMAKE_TOOLCHAIN_FILE=ports/toolchains/arm-linux-gnueabihf.cmake
#
# The default CPU flags are the ARMv7-A + NEON baseline; tune with e.g.
# -DAUSPEX_CPU_FLAGS="-mcpu=cortex-a7 -mfpu=neon-vfpv4 -mfloat-abi=hard" (neon-vfpv4 lets the float kernels
# use fused multiply-add). Without -mfpu=neon* the NEON port compiles to nothing and generic is used.
# Binaries are linked statically, so they need no sysroot on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR armv7l)

set(CMAKE_C_COMPILER arm-linux-gnueabihf-gcc)
set(CMAKE_CXX_COMPILER arm-linux-gnueabihf-g++)

if(NOT DEFINED AUSPEX_CPU_FLAGS)
  set(AUSPEX_CPU_FLAGS "-march=armv7-a -mfpu=neon -mfloat-abi=hard")
endif()
if(NOT DEFINED AUSPEX_QEMU_CPU)
  # Cortex-A8: NEON and VFPv3 only (no FMA, no half conversion), so the baseline build is what runs.
  set(AUSPEX_QEMU_CPU "cortex-a8")
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AUSPEX_CPU_FLAGS AUSPEX_QEMU_CPU)

set(CMAKE_C_FLAGS_INIT "${AUSPEX_CPU_FLAGS}")
set(CMAKE_CXX_FLAGS_INIT "${AUSPEX_CPU_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")

find_program(AUSPEX_QEMU qemu-arm)
if(AUSPEX_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${AUSPEX_QEMU};-cpu;${AUSPEX_QEMU_CPU}")
endif()

set(CMAKE_FIND_ROOT_PATH /usr/arm-linux-gnueabihf)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
