#include "tools/host/ports_here.h"

#include "ports/ports.h"

namespace ax::tools {

std::string ports_here() {
    std::string list;
    for (const char* name : kPortNames)
        if (kernels_by_name(name)) list += (list.empty() ? "" : "|") + std::string(name);
    return list;
}

}  // namespace ax::tools
