// generate: a Transformer-VAE decodes a sequence from a given latent vector.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tools/cli/commands.h"
#include "tools/host/column_names.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

std::vector<float> parse_floats(const std::string& text, const std::string& what) {
    std::vector<float> out;
    size_t i = 0;
    while (i < text.size()) {
        if (text[i] == ' ' || text[i] == ',' || text[i] == '\t') {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t') ++j;
        const std::string item = text.substr(i, j - i);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (end != item.c_str() + item.size() || !std::isfinite(v) || std::fabs(v) > 3.0e38)
            throw tools::ToolError(what + ": \"" + item + "\" is not a finite number");
        out.push_back(static_cast<float>(v));
        i = j;
    }
    if (out.empty()) throw tools::ToolError(what + " is empty");
    return out;
}

}  // namespace

int cmd_generate(const Argv& argv) {
    const Args args(argv, {"z", "length", "output", "port"}, {});
    args.expect_positionals(1, "one tvae model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::tvae);
    const TvaeConfig& c = m->as<Tvae>().config();
    const std::vector<float> z = parse_floats(args.require("z"), "--z");
    const size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    if (!args.has("length")) throw UsageError{"missing --length"};
    const size_t length = args.get_size("length", 0, 1, limit);
    tools::HostTvae session(*m, choose_kernels(args), length);
    tools::Table out;
    out.rows = length;
    out.cols = c.n_features;
    out.values = session.generate(z, length);
    out.header = tools::feature_names(m->file);  // no input CSV: the stored names, or no header
    write_output(args, out);
    return 0;
}

}  // namespace ax::cli
