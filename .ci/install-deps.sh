#!/usr/bin/env bash
# Installs what building and testing auspex needs, if it is missing (Debian 12). Safe to run again.
set -euo pipefail

# AUSPEX_DEPS=build: only what building the CLI needs (make demo); default: everything make test needs.
need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd cmake || need+=(cmake)
have_cmd g++ || need+=(g++)
have_cmd make || need+=(make)
if [ "${AUSPEX_DEPS:-all}" = build ]; then
  AUSPEX_SKIP_TESTS=1 AUSPEX_SKIP_CROSS=1 AUSPEX_SKIP_FIRMWARE=1
fi
if [ "${AUSPEX_SKIP_TESTS:-0}" != 1 ]; then
  [ -f /usr/include/doctest/doctest.h ] || need+=(doctest-dev)
  have_cmd clang++ || need+=(clang)
  have_cmd clang-format || need+=(clang-format)
  # Sanitizer and fuzzer runtimes for clang.
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.asan-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-dev)
fi
if [ "${AUSPEX_SKIP_CROSS:-0}" != 1 ]; then
  have_cmd aarch64-linux-gnu-g++ || need+=(g++-aarch64-linux-gnu)
  have_cmd arm-linux-gnueabihf-g++ || need+=(g++-arm-linux-gnueabihf)
  have_cmd qemu-aarch64 || need+=(qemu-user)
fi
if [ "${AUSPEX_SKIP_FIRMWARE:-0}" != 1 ]; then
  # Bare-metal Cortex-M: compiler, newlib (C and C++ libraries) and the emulated boards.
  have_cmd arm-none-eabi-g++ || need+=(gcc-arm-none-eabi)
  [ -f /usr/lib/arm-none-eabi/newlib/libc.a ] || need+=(libnewlib-arm-none-eabi)
  [ -f /usr/lib/arm-none-eabi/newlib/libstdc++.a ] || need+=(libstdc++-arm-none-eabi-newlib)
  have_cmd qemu-system-arm || need+=(qemu-system-arm)
fi

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${need[*]}"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
