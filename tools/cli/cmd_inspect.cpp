#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iterator>
#include <set>
#include <string>

#include "tools/cli/commands.h"
#include "tools/cli/fit_report.h"
#include "tools/cli/session_lengths.h"
#include "tools/common/enum_text.h"
#include "tools/import/assumed_defaults.h"
#include "tools/host/feature_names.h"
#include "tools/host/model_loader.h"
#include "runtime/model_identity.h"
#include "tools/convert/quantize.h"
#include "tools/convert/text_records.h"
#include "tools/host/forecast_window.h"

namespace ax::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string tensor_name(const TensorView& v) {
    std::string name = format::role_name(v.role);
    const size_t at = name.find("{}");
    if (at != std::string::npos) name.replace(at, 2, std::to_string(v.layer));
    return name;
}

// "2026-11-25 06:24:41 UTC".
std::string utc_text(uint32_t unix_seconds) {
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm parts{};
    char text[40];
    if (gmtime_r(&t, &parts) == nullptr || std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts) == 0)
        return std::to_string(unix_seconds) + " s since 1970";
    return text;
}

// The model's name and version (convert --model-name, --model-version), when and by what it was converted.
void print_identity(const ModelFile& f) {
    const std::string name = tools::stored_text_records(f, format::kModelNameKey);
    uint32_t version = 0, created = 0;
    const bool versioned = model_version(f, &version);
    if (name.empty() && !versioned)
        std::printf("name:     unversioned (no model name or version stored)\n");
    else
        std::printf("name:     %s, %s\n", name.empty() ? "unnamed" : name.c_str(),
                    versioned ? ("version " + std::to_string(version)).c_str() : "unversioned");
    const std::string converter = tools::stored_text_records(f, format::kConverterVersionKey);
    const bool dated = model_created_time(f, &created);
    if (dated || !converter.empty())
        std::printf("created:  %s%s\n", dated ? utc_text(created).c_str() : "at a time not recorded",
                    converter.empty() ? "" : (" by " + converter).c_str());
}

std::string token_text(uint32_t id) { return id == format::kNoToken ? "none" : std::to_string(id); }

// ArenaQuery::arena_for of one family: the arena its planner gives for the longest input n (the planner's
// first length) and the `fixed` other lengths, with the caches of another type (what --kv-cache would give).
template <typename Config, typename Plan, typename... Fixed>
std::function<size_t(size_t, format::CacheType)> arena_for(Config c, Plan plan, Fixed... fixed) {
    return [c, plan, fixed...](size_t n, format::CacheType t) {
        Config cached = c;
        cached.stack.kv_cache = t;
        MemoryPlan p;
        return plan(cached, n, fixed..., &p) ? p.total_bytes() : 0;
    };
}

// The arena of a family sized by one length (classifier, tvae): `len` `unit` (tokens, rows) of an `item`
// (input, sequence). Plans it into `plan`, fills the fit query and returns the arena line.
template <typename Model, typename Plan>
std::string one_length_arena(const Model& model, Plan plan_arena, size_t len, size_t limit, const std::string& item,
                             const char* unit, MemoryPlan* plan, ArenaQuery* q) {
    const std::string up_to = item + "s up to " + std::to_string(len) + " " + unit;
    plan_arena(model.config(), len, plan);
    q->lengths = up_to;
    q->longest = item;
    q->longest_limit = limit;
    q->arena_for = arena_for(model.config(), plan_arena);
    return std::to_string(model.arena_bytes(len)) + " bytes for " + up_to + " (set with --max-len)";
}

void print_stack(const StackConfig& s) {
    const LayerOptions& l = s.layer;
    std::printf("shape:    d_model %zu, nhead %zu, dim_feedforward %zu, encoder_layers %zu, decoder_layers %zu\n",
                l.d_model, l.nhead, l.dim_feedforward, s.encoder_layers, s.decoder_layers);
    std::printf("layers:   %s, activation %s, layer_norm_eps %g, final norms: encoder %s, decoder %s\n",
                l.norm_first ? "pre-norm (norm_first)" : "post-norm", tools::enum_text(l.activation).c_str(),
                static_cast<double>(l.eps), yes_no(s.encoder_final_norm), yes_no(s.decoder_final_norm));
    if (s.decoder_layers > 0)
        std::printf("kv cache: %s\n",
                    s.kv_cache == format::CacheType::i8 ? "int8, one scale per row (--kv-cache int8)" : "f32");
}

// The token families' input keys (runtime/embedding.h, read_token_input_config).
void print_token_inputs(format::PositionalEncoding pe, size_t max_positions, float embed_scale) {
    std::printf("inputs:   positional_encoding %s, max_positions %s, embed_scale %g\n", tools::enum_text(pe).c_str(),
                max_positions ? std::to_string(max_positions).c_str() : "unlimited", static_cast<double>(embed_scale));
}

// How the forecaster predicts, in the config's words.
std::string forecast_mode(const ForecasterConfig& c) {
    std::string t;
    if (c.encoder_only() && c.head == format::ForecastHead::generator)
        t = "encoder-only, per-row generator fed back step by step (the window slides)";
    else if (c.encoder_only())
        t = "encoder-only, head " + tools::enum_text(c.head) +
            (c.head_hidden ? " with a hidden Linear of " + std::to_string(c.head_hidden) + " (" +
                                 tools::enum_text(c.head_activation) + ")"
                           : std::string()) +
            ", " + std::to_string(c.horizon) + " steps at once";
    else if (c.decoding == format::Decoding::one_pass)
        t = "one-pass decoding: " + std::to_string(c.label_len) + " observed rows then " + std::to_string(c.horizon) +
            " placeholder rows (" + tools::enum_text(c.placeholder) + ")";
    else
        t = "encoder-decoder, step by step";
    if (c.stack.encoder_causal) t += "; encoder_mask causal";
    if (c.input_embedding != format::InputEmbedding::linear)
        t += "; input_embedding " + tools::enum_text(c.input_embedding);
    if (c.embed_scale != 1.0f) t += "; embed_scale " + std::to_string(c.embed_scale);
    return t;
}

// Prints the family's configuration and returns the arena line.
std::string describe_forecaster(const tools::LoadedModel& m, const SessionLengths& l, MemoryPlan* plan, ArenaQuery* q) {
    const ForecasterConfig& c = m.forecaster.config();
    const size_t window = l.first, horizon = l.second;
    print_stack(c.stack);
    std::printf("io:       n_features %zu, n_outputs %zu\n", c.n_features, c.n_outputs);
    std::printf("inputs:   positional_encoding %s, max_positions %s, memory_mask %s, normalization %s\n",
                tools::enum_text(c.positional_encoding).c_str(),
                c.max_positions ? std::to_string(c.max_positions).c_str() : "unlimited",
                tools::enum_text(c.memory_mask).c_str(), tools::enum_text(c.normalization).c_str());
    const std::string stated =
        c.window ? std::to_string(c.window) + " rows, the model's training window"
                 : "not stated (commands default to " + std::to_string(tools::default_window(c)) + " rows)";
    std::printf("window:   %s\n", stated.c_str());
    std::printf("forecast: %s\n", forecast_mode(c).c_str());
    plan_forecaster_arena(c, window, horizon, plan);
    q->lengths = "window " + std::to_string(window) + ", horizon " + std::to_string(horizon);
    q->longest = "window for horizon " + std::to_string(horizon);
    q->longest_limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    q->arena_for = arena_for(c, plan_forecaster_arena, horizon);
    return std::to_string(m.forecaster.arena_bytes(window, horizon)) + " bytes for window " + std::to_string(window) +
           ", horizon " + std::to_string(horizon) + " (set with --window, --horizon)";
}

std::string describe_seq2seq(const tools::LoadedModel& m, const SessionLengths& l, MemoryPlan* plan, ArenaQuery* q) {
    const Seq2SeqConfig& c = m.seq2seq.config();
    print_stack(c.stack);
    std::printf("io:       src_vocab %zu, tgt_vocab %zu, pad %s, bos %s, eos %s, decode_mask_pads %s\n", c.src_vocab,
                c.tgt_vocab, token_text(c.pad_id).c_str(), token_text(c.bos_id).c_str(), token_text(c.eos_id).c_str(),
                c.decode_mask_pads ? "true" : "false");
    print_token_inputs(c.positional_encoding, c.max_positions, c.embed_scale);
    const size_t limit = position_limit(m);
    const size_t src = l.first, tgt = l.second;
    plan_seq2seq_arena(c, src, tgt, plan);
    q->lengths = "source " + std::to_string(src) + ", target " + std::to_string(tgt) + " tokens";
    q->longest = "source for target " + std::to_string(tgt);
    q->longest_limit = limit;
    q->arena_for = arena_for(c, plan_seq2seq_arena, tgt);
    return std::to_string(m.seq2seq.arena_bytes(src, tgt)) + " bytes for source " + std::to_string(src) +
           " tokens, target/max-len " + std::to_string(tgt) + " (set with --src-len, --tgt-len)";
}

std::string describe_classifier(const tools::LoadedModel& m, const SessionLengths& l, MemoryPlan* plan, ArenaQuery* q) {
    const ClassifierConfig& c = m.classifier.config();
    print_stack(c.stack);
    const std::string pooling = tools::enum_text(c.pooling);
    const std::string act = tools::enum_text(c.output_activation);
    std::printf("io:       vocab %zu, labels %zu, pad %s, output %s, %s\n", c.vocab, c.n_labels,
                token_text(c.pad_id).c_str(), act.c_str(),
                c.stack.decoder_layers ? ("decoder fed start token " + token_text(c.start_id)).c_str()
                                       : (std::string("pooling ") + pooling).c_str());
    print_token_inputs(c.positional_encoding, c.max_positions, c.embed_scale);
    return one_length_arena(m.classifier, plan_classifier_arena, l.first, position_limit(m), "input", "tokens", plan,
                            q);
}

std::string describe_tvae(const tools::LoadedModel& m, const SessionLengths& l, MemoryPlan* plan, ArenaQuery* q) {
    const TvaeConfig& c = m.tvae.config();
    print_stack(c.stack);
    std::printf("io:       n_features %zu, latent_size %zu\n", c.n_features, c.latent_size);
    std::printf("inputs:   positional_encoding %s, max_positions %s\n", tools::enum_text(c.positional_encoding).c_str(),
                c.max_positions ? std::to_string(c.max_positions).c_str() : "unlimited");
    return one_length_arena(m.tvae, plan_tvae_arena, l.first, position_limit(m), "sequence", "rows", plan, q);
}

}  // namespace

int cmd_inspect(const Argv& argv) {
    std::set<std::string> options = {"flash", "ram", "board"};
    options.insert(std::begin(kLengthOptions), std::end(kLengthOptions));
    const Args args(argv, options, {});
    args.expect_positionals(1, "one model (.axm)");
    MemoryBudget budget;
    const bool fit = read_memory_budget(args, &budget);  // before opening, so a malformed size fails first
    const auto m = tools::open_model(args.positionals()[0]);
    // Refused before anything is printed, so that an error stays one line.
    const SessionLengths lengths = session_lengths(*m, args);
    std::printf("model:    %s (%llu bytes, format v%u, checksum ok)\n", m->path.c_str(),
                static_cast<unsigned long long>(m->file.file_size()), format::kVersion);
    std::printf("family:   %s\n", tools::family_name(m->family));
    print_identity(m->file);
    std::string features;
    for (const std::string& n : tools::feature_names(m->file)) features += (features.empty() ? "" : ", ") + n;
    if (!features.empty()) std::printf("features: %s (CSV columns are picked by these names)\n", features.c_str());
    std::string arena;
    MemoryPlan plan;
    ArenaQuery query;
    switch (m->family) {
        case format::Family::forecaster:
            arena = describe_forecaster(*m, lengths, &plan, &query);
            break;
        case format::Family::seq2seq:
            arena = describe_seq2seq(*m, lengths, &plan, &query);
            break;
        case format::Family::classifier:
            arena = describe_classifier(*m, lengths, &plan, &query);
            break;
        case format::Family::tvae:
            arena = describe_tvae(*m, lengths, &plan, &query);
            break;
    }
    uint64_t params = 0, weight_bytes = 0;
    bool calibrated = false;
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        calibrated = calibrated || v.input_absmax > 0.0f;
        params += v.numel;
        weight_bytes += v.data_bytes + (v.dtype == format::DType::i8 ? v.dims[0] * 4ull : 0);
    }
    std::printf("tensors:  %u, %llu parameters, %llu bytes of data\n", m->file.tensor_count(),
                static_cast<unsigned long long>(params), static_cast<unsigned long long>(weight_bytes));
    std::printf("arena:    %s\n", arena.c_str());
    uint32_t defaults = 0;
    if (m->file.config(format::ConfigKey::defaults, &defaults) && defaults != 0)
        std::printf("assumed:  %s (taken by default at conversion, not stated in the config)\n",
                    tools::assumed_defaults_text(defaults).c_str());
    if (calibrated) std::printf("calibration: input ranges (max |x|) recorded for the weight matrices\n");
    if (fit) {
        query.model_bytes = m->file.file_size();
        query.plan = &plan;
        const StackConfig& stack = m->family == format::Family::forecaster   ? m->forecaster.config().stack
                                   : m->family == format::Family::seq2seq    ? m->seq2seq.config().stack
                                   : m->family == format::Family::classifier ? m->classifier.config().stack
                                                                             : m->tvae.config().stack;
        query.has_decoder = stack.decoder_layers > 0;
        query.cache = stack.kv_cache;
        print_fit_report(budget, query);
        return 0;  // the answer is printed; the tensor table is for inspect without a fit question
    }
    std::printf("\n%-52s %-5s %-14s %10s %10s%s\n", "tensor", "dtype", "shape", "offset", "bytes",
                calibrated ? "  input |x| max" : "");
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        std::string shape = "[";
        for (uint32_t d = 0; d < v.rank; ++d) shape += (d ? ", " : "") + std::to_string(v.dims[d]);
        shape += "]";
        std::printf("%-52s %-5s %-14s %10llu %10llu", tensor_name(v).c_str(), tools::dtype_name(v.dtype), shape.c_str(),
                    static_cast<unsigned long long>(v.data_offset), static_cast<unsigned long long>(v.data_bytes));
        if (calibrated && v.rank == 2) std::printf("  %14.6g", static_cast<double>(v.input_absmax));
        std::printf("\n");
    }
    return 0;
}

}  // namespace ax::cli
