# Cross build for 64-bit ARM Linux cores with the ARMv8.2-A dot-product extension (Cortex-A55/A75/A76/A78,
# Neoverse N1, Raspberry Pi 5, RK3588, Apple M-series under Linux): the int8 kernels use vdotq_s32.
# Not for Cortex-A53/A72 boards (Raspberry Pi 3/4): those lack it and stop with SIGILL; use
# aarch64-linux-gnu.cmake there. Tests run under qemu-aarch64 -cpu max, which executes the extension.
#
#   cmake -S . -B build-aarch64-dotprod -DCMAKE_TOOLCHAIN_FILE=ports/toolchains/aarch64-linux-gnu-dotprod.cmake
if(NOT DEFINED AUSPEX_CPU_FLAGS)
  set(AUSPEX_CPU_FLAGS "-march=armv8.2-a+dotprod")
endif()
if(NOT DEFINED AUSPEX_QEMU_CPU)
  set(AUSPEX_QEMU_CPU "max")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/aarch64-linux-gnu.cmake)
