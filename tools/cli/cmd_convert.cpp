#include <cstdio>
#include <fstream>

#include "runtime/config_reader.h"
#include "tools/cli/commands.h"
#include "tools/converter.h"
#include "tools/quantize.h"
#include "tools/tool_error.h"

namespace ax::cli {

int cmd_convert(const Argv& argv) {
    const Args args(argv, {"config", "output", "dtype", "kv-cache", "map", "calib", "calib-window", "calib-horizon"}, {});
    args.expect_positionals(1, "one checkpoint (.pt or .safetensors)");
    tools::ConvertOptions options;
    options.checkpoint_path = args.positionals()[0];
    options.config_path = args.require("config");
    options.dtype = tools::parse_dtype(args.get("dtype", "f32"));
    options.kv_cache = tools::parse_kv_cache(args.get("kv-cache", "f32"));
    options.map_path = args.get("map");
    options.calib_path = args.get("calib");
    options.calib_window = args.get_size("calib-window", 96, 1, kMaxSequenceLength);
    options.calib_horizon = args.get_size("calib-horizon", 24, 1, kMaxSequenceLength);
    if (options.calib_path.empty() && (args.has("calib-window") || args.has("calib-horizon")))
        throw tools::ToolError("--calib-window and --calib-horizon go with --calib data.csv");
    const std::string output = args.require("output");
    const std::vector<uint8_t> bytes = tools::convert_model(options);
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw tools::ToolError("cannot write " + output);
    std::printf("wrote %s: %zu bytes, weights %s%s%s\n", output.c_str(), bytes.size(), tools::dtype_name(options.dtype),
                options.kv_cache == format::CacheType::i8 ? ", int8 kv cache" : "",
                options.calib_path.empty() ? "" : ", calibrated input ranges");
    return 0;
}

}  // namespace ax::cli
