#include "tools/host/cpu_description.h"

#include <fstream>

namespace ax::tools {
namespace {

const char* built_for() {
#if defined(__x86_64__)
    return "x86_64";
#elif defined(__aarch64__)
    return "aarch64";
#elif defined(__arm__)
    return "arm";
#else
    return "an architecture without a name here";
#endif
}

// The value of the first "key : value" line of /proc/cpuinfo with this key, or "".
std::string cpuinfo(const std::string& key) {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = line.substr(0, colon);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.pop_back();
        if (name != key) continue;
        const size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? std::string() : line.substr(start);
    }
    return std::string();
}

}  // namespace

std::string cpu_description() {
    const std::string arch = built_for();
    // x86 kernels write "model name" and "vendor_id"; ARM ones "CPU implementer" and "CPU part".
    const std::string x86_model = cpuinfo("vendor_id").empty() ? std::string() : cpuinfo("model name");
    const std::string arm_part = cpuinfo("CPU part");
    if (arch == "x86_64")
        return arch + ", " + (x86_model.empty() ? std::string("processor not named by /proc/cpuinfo") : x86_model);
    if (!x86_model.empty())
        return arch + " build on an x86_64 machine's CPU (" + x86_model +
               "): run by an emulator (e.g. qemu-user), so the times are the emulator's, not an ARM core's";
    if (!arm_part.empty())
        return arch + ", CPU implementer " + cpuinfo("CPU implementer") + " part " + arm_part + " (/proc/cpuinfo)";
    return arch + ", processor not named by /proc/cpuinfo";
}

}  // namespace ax::tools
