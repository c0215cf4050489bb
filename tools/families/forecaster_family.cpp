// The forecaster: a window of rows in, decoder rows (teacher-forced) or a forecast of `horizon` steps out.
#include <cstdio>
#include <memory>

#include "models/forecaster/forecaster_integer.h"
#include "runtime/session_plan.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/families/family_common.h"
#include "tools/host/forecast_window.h"
#include "tools/host/host_session.h"
#include "tools/import/forecaster_import.h"

namespace ax::tools {

namespace {

const ForecasterConfig& config(const LoadedModel& m) { return m.as<Forecaster>().config(); }

bool integer_mode(const LoadedModel& m) { return m.as<Forecaster>().integer_plan() != nullptr; }

// The session arena of the mode the model runs in: integer-only when it holds an integer plan.
size_t session_arena(const LoadedModel& m, size_t window, size_t horizon) {
    if (!integer_mode(m)) return m.as<Forecaster>().arena_bytes(window, horizon);
    IntegerForecaster q;
    check_status(IntegerForecaster::open(m.as<Forecaster>(), &q), m.path);
    return q.arena_bytes(window, horizon);
}

// How the forecaster predicts, in the config's words.
std::string forecast_mode(const ForecasterConfig& c) {
    std::string t;
    if (c.encoder_only() && c.head.kind == format::ForecastHead::generator)
        t = "encoder-only, per-row generator fed back step by step (the window slides)";
    else if (c.encoder_only())
        t = "encoder-only, head " + enum_text(c.head.kind) +
            (c.head.hidden ? " with a hidden Linear of " + std::to_string(c.head.hidden) + " (" +
                                 enum_text(c.head.activation) + ")"
                           : std::string()) +
            ", " + std::to_string(c.horizon) + " steps at once";
    else if (c.decoding.mode == format::Decoding::one_pass)
        t = "one-pass decoding: " + std::to_string(c.decoding.label_len) + " observed rows then " +
            std::to_string(c.horizon) + " placeholder rows (" + enum_text(c.decoding.placeholder) + ")";
    else
        t = "encoder-decoder, step by step";
    if (c.trained_horizon != 0) t += ", trained to forecast " + std::to_string(c.trained_horizon) + " steps";
    if (!c.encoder_only() && !c.stack.decoder_causal)
        t += "; decoder_mask none: every decoder row attends to every other, so each step reruns the whole decoder";
    if (c.time_marks != 0)
        t += "; the last " + std::to_string(c.time_marks) + " input column(s) are time marks, known ahead";
    if (c.known_inputs != 0 && c.encoder_only())
        t += "; predicts " + std::to_string(c.n_outputs) + " of its " + std::to_string(c.n_features) +
             " columns, the other " + std::to_string(c.known_inputs) +
             " known ahead (forecast --future) as the window slides";
    else if (c.known_inputs != 0 && !c.one_pass())
        t += "; the decoder reads " + std::to_string(c.decoder_features) + " column(s), " +
             std::to_string(c.known_inputs) + " of them inputs known ahead (forecast --future)";
    else if (c.decoder_features != c.n_features)
        t += "; the decoder reads the " + std::to_string(c.decoder_features) + " predicted column(s)";
    if (!c.encoder_only() && c.positions.decoder != c.positions.encoder)
        t += "; decoder_positional_encoding " + enum_text(c.positions.decoder);
    if (c.input.patched())
        t += "; each column on its own in patches of " + std::to_string(c.input.patch_len) + " steps, " +
             std::to_string(c.input.patch_stride) + " apart" + (c.input.patch_pad ? " (end padded)" : "") + ", " +
             std::to_string(c.encoder_rows(c.window)) + " per window";
    if (c.normalizer.revin != format::Revin::none) t += "; RevIN (" + enum_text(c.normalizer.revin) + ")";
    if (c.stack.encoder_causal) t += "; encoder_mask causal";
    if (c.input.kind != format::InputEmbedding::linear) t += "; input_embedding " + enum_text(c.input.kind);
    if (c.input.scale != 1.0f) t += "; embed_scale " + std::to_string(c.input.scale);
    return t;
}

std::vector<std::string> inspect_lines(const LoadedModel& m) {
    const ForecasterConfig& c = config(m);
    const std::string stated = c.window
                                   ? std::to_string(c.window) + " rows, the model's training window"
                                   : "not stated (commands default to " + std::to_string(default_window(c)) + " rows)";
    return {"io:       n_features " + std::to_string(c.n_features) + ", n_outputs " + std::to_string(c.n_outputs),
            "inputs:   positional_encoding " + enum_text(c.positions.encoder) + ", max_positions " +
                positions_text(c.max_positions) + ", memory_mask " + enum_text(c.stacks.memory_mask) +
                ", normalization " + enum_text(c.normalizer.kind),
            "window:   " + stated,
            "forecast: " + forecast_mode(c) +
                (integer_mode(m)
                     ? ", integer-only (an integer plan of " + std::to_string(m.as<Forecaster>().integer_plan_words()) +
                           " words; docs/integer-only.md)"
                     : "")};
}

ArenaFacts inspect_arena(const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) {
    const ForecasterConfig& c = config(m);
    const size_t window = l.first, horizon = l.second;
    if (integer_mode(m))
        plan_session<IntegerForecastLayout>(c, plan, window, horizon);
    else
        plan_forecaster_arena(c, window, horizon, plan);
    ArenaFacts a;
    a.lengths = "window " + std::to_string(window) + ", horizon " + std::to_string(horizon);
    a.longest = "window for horizon " + std::to_string(horizon);
    a.longest_limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    if (c.head.kind == format::ForecastHead::flatten) {  // check_window_fits refuses every other window
        a.exact_length = c.window;
        a.exact_reason = "its flatten head reads exactly " + std::to_string(c.window) + " rows";
    }
    a.arena_for = arena_for(c, plan_forecaster_arena, horizon);
    if (integer_mode(m)) {  // its caches are int8 whatever the cache type asked about
        const LoadedModel* model = &m;
        a.arena_for = [model, horizon](size_t window, format::CacheType) {
            return sequence_length_ok(window) ? session_arena(*model, window, horizon) : 0;
        };
    }
    a.line = std::to_string(session_arena(m, window, horizon)) + " bytes for window " + std::to_string(window) +
             ", horizon " + std::to_string(horizon) + " (set with --window, --horizon)";
    return a;
}

Workload bench(const LoadedModel& m, const SessionSize& l, const Kernels& k) {
    const ForecasterConfig& c = config(m);
    Workload w;
    auto session = std::make_shared<HostSession>(m, k, l.first, l.second);
    auto src = std::make_shared<std::vector<float>>(bench_series(l.first * c.n_features, 0.0f));
    auto tgt = std::make_shared<std::vector<float>>(bench_series(l.second * c.decoder_features, 1.5708f));
    const size_t window = l.first, horizon = l.second;
    const size_t decoder_rows = c.encoder_only() ? 0 : horizon;
    w.forward_label = c.encoder_only() ? "forward (encoder and head)"
                                       : "forward (teacher-forced, " + std::to_string(horizon) + " decoder rows)";
    w.forward = [=] { session->run(src->data(), window, tgt->data(), decoder_rows, InputSpace::model); };
    w.steps_json = "forecast_ms";  // -1 for a step-by-step forecaster whose outputs are not its inputs
    // A decoder reading inputs known ahead gets a synthetic plan, laid out like the history.
    auto future = std::make_shared<std::vector<float>>(bench_series(horizon * c.n_features, 0.7854f));
    // Outputs are fed back where they are input columns; an encoder-only model's other columns are planned.
    const bool fed_back = c.n_outputs <= c.n_features;
    if (c.one_pass() || fed_back) {
        w.steps_label = "forecast (" + std::to_string(horizon) + " steps, " +
                        (c.one_pass()              ? "one pass"
                         : c.encoder_only()        ? "the window slides"
                         : !c.stack.decoder_causal ? "decoder_mask none: the decoder rerun each step"
                                                   : "KV cache") +
                        ")";
        w.steps = [=] { session->forecast(src->data(), window, horizon, future->data(), horizon); };
    }
    w.arena = session->arena_bytes();
    return w;
}

// An encoder-only forecaster's forward(src) has no target; run_check tells the model which it is.
void read_check_inputs(const CheckFiles& files, CheckPair* p) {
    p->src = read_csv(files.input);
    if (!files.target.empty()) p->tgt = read_csv(files.target);
}

std::vector<float> run_check(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    const ForecasterConfig& c = config(m);
    if (c.encoder_only() && p.tgt.rows != 0)
        throw ToolError("an encoder-only forecaster's forward(src) reads no decoder input: drop --check-target");
    if (!c.encoder_only() && p.tgt.rows == 0)
        throw ToolError("a forecaster with a decoder needs --check-target: forward(src, tgt)");
    for (const Table* t : {&p.src, &p.tgt}) {
        const size_t takes = t == &p.src ? c.n_features : c.decoder_features;
        if (t->rows != 0 && t->cols != takes)
            throw ToolError(std::string("check ") + (t == &p.src ? "input" : "target") + " has " +
                            std::to_string(t->cols) + " column(s), the model's " +
                            (t == &p.src ? "encoder" : "decoder") + " takes " + std::to_string(takes) + " feature(s)");
    }
    expect_shape(p, c.run_rows(p.src.rows, p.tgt.rows), c.n_outputs,
                 c.encoder_only() ? (c.head.kind == format::ForecastHead::generator ? "one row per input row"
                                                                                    : "one row per horizon step")
                 : c.one_pass()   ? "the last horizon rows of the decoder, as forward returns them"
                                  : "one row per target row, one column per output");
    HostSession session(m, k, p.src.rows, c.run_horizon(p.tgt.rows));
    // forward(src, tgt) in PyTorch sees its inputs as they are: no normalization.
    return session.run(p.src.values.data(), p.src.rows, p.tgt.values.data(), p.tgt.rows, InputSpace::model);
}

// A forecaster's axes beyond the stack's: the memory mask (with a decoder), the encoder's mask, whether the
// decoder's rows get the encoder's sinusoidal positions, the decoder's mask, and a patched model's residual
// attention and flatten order (PatchTST as its authors wrote it).
std::vector<SearchAxis> search_axes(const SearchFacts& facts) {
    std::vector<SearchAxis> axes = stack_search_axes(facts);
    SearchAxis memory_mask{"memory_mask", facts.decoder ? text_values({"none", "tril"}) : text_values({"none"})};
    memory_mask.user_value_always = facts.decoder;
    axes.push_back(memory_mask);
    axes.push_back({"encoder_mask", text_values({"none", "causal"})});
    if (facts.decoder) {
        SearchAxis decoder_positions{"decoder_positional_encoding", {std::nullopt, JsonValue::make_string("none")}};
        decoder_positions.with_key = "positional_encoding";
        decoder_positions.with_value = JsonValue::make_string("sinusoidal");
        axes.push_back(decoder_positions);
    }
    if (facts.patched) {
        axes.push_back({"res_attention", {JsonValue::make_bool(false), JsonValue::make_bool(true)}});
        SearchAxis flatten{"head_flatten", text_values({"rows", "d_model_first"})};
        flatten.imports = true;
        axes.push_back(flatten);
    }
    if (facts.decoder) axes.push_back({"decoder_mask", text_values({"causal", "none"})});
    return axes;
}

FamilyDescriptor describe() {
    FamilyDescriptor d;
    d.family = format::Family::forecaster;
    d.commands = "run, forecast, verify, bench, header";
    d.output_prefix = "output";
    d.import = import_forecaster;
    d.search_axes = search_axes;
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
    d.lengths[1].default_value = [](const LoadedModel& m, size_t) { return default_horizon(config(m)); };
    d.lengths[1].max_value = [](const LoadedModel&, size_t) { return kMaxSequenceLength; };
    d.check_lengths = [](const LoadedModel& m, const SessionSize& l) {
        check_window_fits(config(m), l.first, "--window " + std::to_string(l.first));
        check_horizon_fits(config(m), l.second, "--horizon " + std::to_string(l.second));
    };
    d.lengths_text = [](const SessionSize& l) {
        return "window " + std::to_string(l.first) + ", horizon " + std::to_string(l.second);
    };
    d.arena_bytes = [](const LoadedModel& m, const SessionSize& l) { return session_arena(m, l.first, l.second); };
    d.inspect_lines = inspect_lines;
    d.inspect_arena = inspect_arena;
    d.header_macros = [](const LoadedModel& m) -> std::vector<HeaderMacro> {
        std::vector<HeaderMacro> macros = {macro("N_FEATURES", config(m).n_features, "values per input row"),
                                           macro("N_OUTPUTS", config(m).n_outputs, "values per output row")};
        // A quantile forecaster (Chronos-Bolt) writes QUANTILES rows of H steps: auspex_forecast_values(H) floats.
        if (config(m).quantiles() > 1)
            macros.push_back(macro("QUANTILES", config(m).quantiles(),
                                   "quantile levels per step: a forecast of H steps is QUANTILES x H floats, row q "
                                   "level q (auspex_quantile_levels)"));
        // Inputs known ahead to pass (auspex_forecast_known), and the future rows a forecast of H steps reads.
        if (config(m).known_inputs != 0)
            macros.push_back(macro("KNOWN_INPUTS", config(m).known_inputs,
                                   m.as<Forecaster>().future_rows(1) == 1
                                       ? "input columns known ahead: auspex_forecast_known, H future rows"
                                       : "input columns known ahead: auspex_forecast_known, H - 1 future rows"));
        return macros;
    };
    d.bench = bench;
    d.check_target = "the decoder input CSV of forward(src, tgt) (none for an encoder-only model)";
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
