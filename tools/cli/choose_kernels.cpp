#include <cstdlib>

#include "ports/ports.h"
#include "tools/cli/commands.h"
#include "tools/host/ports_here.h"

namespace ax::cli {

const Kernels& choose_kernels(const Args& args) {
    std::string name = args.get("port");
    if (name.empty()) {
        const char* env = std::getenv("AUSPEX_PORT");
        if (env && *env) name = env;
    }
    if (name.empty()) return best_kernels();
    const Kernels* k = kernels_by_name(name.c_str());
    if (!k)
        throw UsageError{"kernel port \"" + name +
                         "\" is unknown or not available on this build/CPU (here: " + tools::ports_here() + ")"};
    return *k;
}

}  // namespace ax::cli
