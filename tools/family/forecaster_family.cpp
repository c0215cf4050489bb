// The forecaster: a window of rows in, decoder rows (teacher-forced) or a forecast of `horizon` steps out.
#include <cstdio>
#include <memory>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/family/family_common.h"
#include "tools/host/forecast_window.h"
#include "tools/host/host_session.h"
#include "tools/import/forecaster_import.h"

namespace ax::tools {

namespace {

const ForecasterConfig& config(const LoadedModel& m) { return m.as<Forecaster>().config(); }

std::vector<std::string> inspect_lines(const LoadedModel& m) {
    const ForecasterConfig& c = config(m);
    const std::string stated = c.window
                                   ? std::to_string(c.window) + " rows, the model's training window"
                                   : "not stated (commands default to " + std::to_string(default_window(c)) + " rows)";
    return {"io:       n_features " + std::to_string(c.n_features) + ", n_outputs " + std::to_string(c.n_outputs),
            "inputs:   positional_encoding " + enum_text(c.positional_encoding) + ", max_positions " +
                positions_text(c.max_positions) + ", memory_mask " + enum_text(c.memory_mask) + ", normalization " +
                enum_text(c.normalization),
            "window:   " + stated};
}

ArenaFacts inspect_arena(const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) {
    const ForecasterConfig& c = config(m);
    const size_t window = l.first, horizon = l.second;
    plan_forecaster_arena(c, window, horizon, plan);
    ArenaFacts a;
    a.lengths = "window " + std::to_string(window) + ", horizon " + std::to_string(horizon);
    a.longest = "window for horizon " + std::to_string(horizon);
    a.longest_limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    a.arena_for = arena_for(c, plan_forecaster_arena, horizon);
    a.line = std::to_string(m.as<Forecaster>().arena_bytes(window, horizon)) + " bytes for window " +
             std::to_string(window) + ", horizon " + std::to_string(horizon) + " (set with --window, --horizon)";
    return a;
}

Workload bench(const LoadedModel& m, const SessionSize& l, const Kernels& k) {
    const ForecasterConfig& c = config(m);
    Workload w;
    auto session = std::make_shared<HostSession>(m, k, l.first, l.second);
    auto src = std::make_shared<std::vector<float>>(bench_series(l.first * c.n_features, 0.0f));
    auto tgt = std::make_shared<std::vector<float>>(bench_series(l.second * c.n_features, 1.5708f));
    const size_t window = l.first, horizon = l.second;
    w.forward_label = "forward (teacher-forced, " + std::to_string(horizon) + " decoder rows)";
    w.forward = [=] { session->run(src->data(), window, tgt->data(), horizon, InputSpace::model); };
    w.steps_json = "forecast_ms";  // -1 for a forecaster whose outputs are not its inputs
    if (c.n_outputs == c.n_features) {
        w.steps_label = "forecast (" + std::to_string(horizon) + " steps, KV cache)";
        w.steps = [=] { session->forecast(src->data(), window, horizon); };
    }
    w.arena = session->arena_bytes();
    return w;
}

void read_check_inputs(const CheckFiles& files, CheckPair* p) {
    if (files.target.empty()) throw ToolError("a forecaster's check needs --check-target: forward(src, tgt)");
    p->src = read_csv(files.input);
    p->tgt = read_csv(files.target);
}

std::vector<float> run_check(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    const ForecasterConfig& c = config(m);
    for (const Table* t : {&p.src, &p.tgt})
        if (t->cols != c.n_features)
            throw ToolError(std::string("check ") + (t == &p.src ? "input" : "target") + " has " +
                            std::to_string(t->cols) + " column(s), the model takes " + std::to_string(c.n_features) +
                            " feature(s)");
    expect_shape(p, p.tgt.rows, c.n_outputs, "one row per target row, one column per output");
    HostSession session(m, k, p.src.rows, p.tgt.rows);
    // forward(src, tgt) in PyTorch sees its inputs as they are: no normalization.
    return session.run(p.src.values.data(), p.src.rows, p.tgt.values.data(), p.tgt.rows, InputSpace::model);
}

FamilyDescriptor describe() {
    FamilyDescriptor d;
    d.family = format::Family::forecaster;
    d.commands = "run, forecast, verify, bench, header";
    d.output_prefix = "output";
    d.import = import_forecaster;
    d.open = open_as<Forecaster>;
    d.lengths[0].option = "window";
    d.lengths[0].json = "window";
    d.lengths[0].macro = "WINDOW";
    d.lengths[0].macro_doc = "encoder window (rows) the arena is sized for";
    d.lengths[0].default_value = [](const LoadedModel& m, size_t) { return default_window(config(m)); };
    d.lengths[0].max_value = [](const LoadedModel&, size_t) { return kMaxSequenceLength; };
    d.lengths[1].option = "horizon";
    d.lengths[1].json = "horizon";
    d.lengths[1].macro = "HORIZON";
    d.lengths[1].macro_doc = "forecast steps the arena is sized for";
    d.lengths[1].default_value = [](const LoadedModel&, size_t) { return kDefaultHorizon; };
    d.lengths[1].max_value = [](const LoadedModel&, size_t) { return kMaxSequenceLength; };
    d.check_lengths = [](const LoadedModel& m, const SessionSize& l) {
        check_window_fits(config(m), l.first, "--window " + std::to_string(l.first));
        check_horizon_fits(config(m), l.second, "--horizon " + std::to_string(l.second));
    };
    d.lengths_text = [](const SessionSize& l) {
        return "window " + std::to_string(l.first) + ", horizon " + std::to_string(l.second);
    };
    d.arena_bytes = [](const LoadedModel& m, const SessionSize& l) {
        return m.as<Forecaster>().arena_bytes(l.first, l.second);
    };
    d.inspect_lines = inspect_lines;
    d.inspect_arena = inspect_arena;
    d.header_macros = [](const LoadedModel& m) -> std::vector<HeaderMacro> {
        return {macro("N_FEATURES", config(m).n_features, "values per input row"),
                macro("N_OUTPUTS", config(m).n_outputs, "values per output row")};
    };
    d.bench = bench;
    d.check_target = "the decoder input CSV of forward(src, tgt)";
    d.read_check_inputs = read_check_inputs;
    d.run_check = run_check;
    d.output_cols = [](const LoadedModel& m) { return config(m).n_outputs; };
    return d;
}

}  // namespace

const FamilyDescriptor& forecaster_family() {
    static const FamilyDescriptor d = describe();
    return d;
}

}  // namespace ax::tools
