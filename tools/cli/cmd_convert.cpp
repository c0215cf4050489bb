#include <cstdio>
#include <fstream>

#include "tools/cli/commands.h"
#include "tools/converter.h"
#include "tools/quantize.h"
#include "tools/tool_error.h"

namespace ax::cli {

int cmd_convert(const Argv& argv) {
    const Args args(argv, {"config", "output", "dtype", "map"}, {});
    args.expect_positionals(1, "one checkpoint (.pt or .safetensors)");
    tools::ConvertOptions options;
    options.checkpoint_path = args.positionals()[0];
    options.config_path = args.require("config");
    options.dtype = tools::parse_dtype(args.get("dtype", "f32"));
    options.map_path = args.get("map");
    const std::string output = args.require("output");
    const std::vector<uint8_t> bytes = tools::convert_model(options);
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw tools::ToolError("cannot write " + output);
    std::printf("wrote %s: %zu bytes, weights %s\n", output.c_str(), bytes.size(), tools::dtype_name(options.dtype));
    return 0;
}

}  // namespace ax::cli
