// The kernel ports this build and CPU run, for --port's help and errors.
#pragma once
#include <string>

namespace ax::tools {

// The available ports of kPortNames (ports/ports.h), as "generic|avx2|...".
std::string ports_here();

}  // namespace ax::tools
