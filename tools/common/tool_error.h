// Host tools report every failure as a ToolError: one readable line that the CLI prints before exiting
// non-zero. The runtime layers never see it (they use ax::Status).
#pragma once
#include <stdexcept>
#include <string>

namespace ax::tools {

struct ToolError : std::runtime_error {
    explicit ToolError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace ax::tools
