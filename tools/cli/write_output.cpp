#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/text/csv.h"

namespace ax::cli {

bool write_output(const Args& args, const tools::Table& table) {
    const std::string path = args.get("output");
    if (path.empty()) {
        std::fputs(tools::format_csv(table).c_str(), stdout);
        return false;
    }
    tools::write_csv(path, table);
    return true;
}

}  // namespace ax::cli
