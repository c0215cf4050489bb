// classify: one sequence through a classifier model; prints one probability (or logit) per label on one
// line, or writes them as a one-row CSV with -o (header label_0, label_1, ...). --text / --text-file: each
// line encoded with the model's vocabulary, one line (one CSV row) of outputs per line of text.
#include <cstdio>

#include "tools/cli/text_lines.h"

#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/host/family_sessions.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

int cmd_classify(const Argv& argv) {
    const Args args(argv, {"tokens", "pad", "port", "output", "text", "text-file"}, {});
    args.expect_positionals(1, "one classifier model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::classifier);
    const Classifier& model = m->as<Classifier>();
    const ClassifierConfig& c = model.config();
    const bool text = args.has("text") || args.has("text-file");
    if (text == args.has("tokens"))
        throw UsageError{"give --tokens \"IDS\", or --text \"SENTENCE\" / --text-file FILE"};
    std::vector<std::vector<int32_t>> inputs;
    if (text) {
        for (const std::string& line : text_lines(args))
            inputs.push_back(encode_line(model.vocabulary(), line, "vocabulary"));
    } else {
        inputs.push_back(tools::parse_token_list(args.require("tokens"), "--tokens"));
    }
    const Kernels& kernels = choose_kernels(args);
    tools::Table t;
    for (const std::vector<int32_t>& tokens : inputs) {
        if (tokens.empty()) throw tools::ToolError("a line of text gives no tokens");
        tools::HostClassifier session(*m, kernels, tokens.size());
        if (args.has("pad"))
            session.set_pad_id(args.get("pad") == "none"
                                   ? format::kNoToken
                                   : static_cast<uint32_t>(args.get_size("pad", 0, 0, c.vocab - 1)));
        const std::vector<float> out = session.classify(tokens);
        t.cols = out.size();
        t.values.insert(t.values.end(), out.begin(), out.end());
        ++t.rows;
    }
    if (args.has("output")) {
        t.header = numbered_names(output_prefix(format::Family::classifier), t.cols);
        write_output(args, t);
        return 0;
    }
    for (size_t r = 0; r < t.rows; ++r) {
        std::string line;
        for (size_t i = 0; i < t.cols; ++i) {
            char number[32];
            std::snprintf(number, sizeof number, "%.9g", static_cast<double>(t.values[r * t.cols + i]));
            line += (i ? " " : "") + std::string(number);
        }
        std::printf("%s\n", line.c_str());
    }
    return 0;
}

}  // namespace ax::cli
