// classify: one sequence through a classifier model; prints one probability (or logit) per label on one
// line, or writes them as a one-row CSV with -o (header label_0, label_1, ...).
#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/host/family_sessions.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

int cmd_classify(const Argv& argv) {
    const Args args(argv, {"tokens", "pad", "port", "output"}, {});
    args.expect_positionals(1, "one classifier model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::classifier);
    const ClassifierConfig& c = m->as<Classifier>().config();
    const std::vector<int32_t> tokens = tools::parse_token_list(args.require("tokens"), "--tokens");
    tools::HostClassifier session(*m, choose_kernels(args), tokens.size());
    if (args.has("pad"))
        session.set_pad_id(args.get("pad") == "none" ? format::kNoToken
                                                     : static_cast<uint32_t>(args.get_size("pad", 0, 0, c.vocab - 1)));
    const std::vector<float> out = session.classify(tokens);
    if (args.has("output")) {
        tools::Table t;
        t.header = numbered_names(output_prefix(format::Family::classifier), out.size());
        t.rows = 1;
        t.cols = out.size();
        t.values = out;
        write_output(args, t);
        return 0;
    }
    std::string line;
    for (size_t i = 0; i < out.size(); ++i) {
        char text[32];
        std::snprintf(text, sizeof text, "%.9g", static_cast<double>(out[i]));
        line += (i ? " " : "") + std::string(text);
    }
    std::printf("%s\n", line.c_str());
    return 0;
}

}  // namespace ax::cli
