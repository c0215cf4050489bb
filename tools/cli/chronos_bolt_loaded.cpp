#include "tools/cli/chronos_bolt_loaded.h"

#include <cstdio>
#include <cstdlib>

#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/import/chronos_bolt_import.h"

namespace ax::cli {

std::string level_name(float q) {
    char text[32];
    for (int digits = 1; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(q));
        if (std::strtof(text, nullptr) == q) break;
    }
    return std::string("q") + text;
}

LoadedBolt::LoadedBolt(const std::string& path) {
    if (tools::is_chronos_bolt_directory(path)) {
        directory_ = std::make_unique<tools::ChronosBoltHost>(tools::read_chronos_bolt(path));
        return;
    }
    bytes_ = tools::AlignedBuffer(tools::read_file_bytes(path));
    Status s = ModelFile::open(bytes_.data(), bytes_.size(), Checksum::verify, &file_);
    if (s) s = chronos_bolt_open(file_, &opened_);
    if (!s) throw tools::ToolError(path + ": " + s.message());
}

size_t LoadedBolt::arena_bytes(size_t context, size_t horizon) const {
    if (!is_file()) return chronos_bolt_forecast_floats(weights().shape, horizon) * sizeof(float);
    const size_t window = opened_.model.config().window;
    return opened_.model.arena_bytes(context == 0 || context > window ? window : context, horizon);
}

std::vector<float> LoadedBolt::forecast(const Kernels& k, const std::vector<float>& context, size_t horizon) const {
    if (!is_file()) return tools::chronos_bolt_forecast_host(k, weights(), context, horizon);
    const size_t window = opened_.model.config().window;
    const size_t rows = context.size() > window ? window : context.size();
    if (rows == 0) throw tools::ToolError("the input has no values to forecast from");
    tools::AlignedBuffer arena(arena_bytes(rows, horizon));
    ForecastSession session;
    Status s = session.init(opened_.model, k, arena.data(), arena.size(), rows, horizon);
    std::vector<float> out(opened_.model.config().output_values(horizon));
    if (s) s = session.forecast(context.data(), context.size(), horizon, out.data());
    if (!s) throw tools::ToolError(s.message());
    return out;
}

}  // namespace ax::cli
