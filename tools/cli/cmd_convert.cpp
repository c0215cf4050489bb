#include <cstdio>
#include <fstream>

#include "runtime/config_reader.h"
#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/convert/converter.h"
#include "tools/convert/quantize.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

int cmd_convert(const Argv& argv) {
    const Args args(argv,
                    with_csv_options({"config", "output", "dtype", "map", "calib", "calib-window", "calib-horizon",
                                      "state-dict-key"}),
                    {});
    args.expect_positionals(1, "one checkpoint (.pt or .safetensors)");
    tools::ConvertOptions options;
    options.checkpoint_path = args.positionals()[0];
    options.config_path = args.require("config");
    options.dtype = tools::parse_dtype(args.get("dtype", "f32"));
    options.map_path = args.get("map");
    options.calib_path = args.get("calib");
    options.calib_window = args.get_size("calib-window", 96, 1, kMaxSequenceLength);
    options.calib_horizon = args.get_size("calib-horizon", 24, 1, kMaxSequenceLength);
    if (options.calib_path.empty() && (args.has("calib-window") || args.has("calib-horizon")))
        throw tools::ToolError("--calib-window and --calib-horizon go with --calib data.csv");
    options.calib_csv = csv_options(args);
    if (options.calib_path.empty() && (args.has("delimiter") || args.has("columns") || args.has("fill")))
        throw tools::ToolError("--delimiter, --columns and --fill go with --calib data.csv");
    options.state_dict_key = args.get("state-dict-key");
    std::vector<std::string> notes;
    options.notes = &notes;
    const std::string output = args.require("output");
    const std::vector<uint8_t> bytes = tools::convert_model(options);
    for (const std::string& n : notes) std::fprintf(stderr, "note: %s\n", n.c_str());
    std::ofstream out(output, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw tools::ToolError("cannot write " + output);
    std::printf("wrote %s: %zu bytes, weights %s%s\n", output.c_str(), bytes.size(), tools::dtype_name(options.dtype),
                options.calib_path.empty() ? "" : ", calibrated input ranges");
    return 0;
}

}  // namespace ax::cli
