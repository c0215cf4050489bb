#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/csv.h"
#include "tools/host_session.h"
#include "tools/tool_error.h"

namespace ax::cli {

int cmd_run(const Argv& argv) {
    const Args args(argv, {"src", "tgt", "output", "port"}, {"model-space"});
    args.expect_positionals(1, "one model (.axm)");
    const auto m = tools::load_model(args.positionals()[0]);
    const ForecasterConfig& c = m->forecaster.config();
    const tools::Table src = tools::read_csv(args.require("src"));
    const tools::Table tgt = tools::read_csv(args.require("tgt"));
    for (const tools::Table* t : {&src, &tgt})
        if (t->cols != c.n_features)
            throw tools::ToolError("the model takes " + std::to_string(c.n_features) + " feature column(s), " +
                                   (t == &src ? args.get("src") : args.get("tgt")) + " has " +
                                   std::to_string(t->cols));
    tools::HostSession session(*m, choose_kernels(args), src.rows, tgt.rows);
    const InputSpace space = args.has("model-space") ? InputSpace::model : InputSpace::raw;
    tools::Table out;
    out.rows = tgt.rows;
    out.cols = c.n_outputs;
    out.values = session.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, space);
    if (c.n_outputs == c.n_features) out.header = tgt.header;
    const std::string path = args.get("output");
    if (path.empty())
        std::fputs(tools::format_csv(out).c_str(), stdout);
    else
        tools::write_csv(path, out);
    return 0;
}

}  // namespace ax::cli
