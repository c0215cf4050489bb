// What a benchmark ran on, for its output: the architecture this program was built for and the processor the
// system reports. Under user-mode emulation (qemu-aarch64 on an x86 machine) the system describes the
// emulating machine, not an ARM core: the line says so, since such times are the emulator's.
#pragma once
#include <string>

namespace ax::tools {

// "x86_64, AMD EPYC 9B14 (from /proc/cpuinfo)", or "aarch64 build, run on an x86_64 machine's CPU (AMD ...): an
// emulator (e.g. qemu-user), so times are the emulator's, not an ARM core's".
std::string cpu_description();

}  // namespace ax::tools
