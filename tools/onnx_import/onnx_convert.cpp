#include "tools/onnx_import/onnx_convert.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/import/config_keys.h"
#include "tools/import/convert_config.h"
#include "tools/onnx/onnx_eval.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/onnx_import/block_reference.h"
#include "tools/onnx_import/classifier_lowering.h"
#include "tools/onnx_import/lower_graph.h"
#include "tools/onnx_import/marks_lowering.h"
#include "tools/text/json.h"

namespace ax::onnx_import {

using tools::ConvertConfig;
using tools::ToolError;

namespace {

// The rows the proof feeds a dynamic sequence axis when the config states no window (and the decoder's).
constexpr int64_t kProofRows = 8;
constexpr int64_t kProofTargetRows = 5;

// The user's config with "arch" and "nhead" filled from the graph when it leaves them out (the graph shows them).
ConvertConfig read_user_config(const std::string& path, int64_t heads, format::Family family) {
    std::vector<std::pair<std::string, tools::JsonValue>> members;
    if (!path.empty()) members = tools::parse_json_file(path).as_object(path);
    bool arch = false, nhead = false;
    for (const auto& [key, value] : members) {
        arch = arch || key == "arch";
        nhead = nhead || key == "nhead";
    }
    ConvertConfig c = tools::parse_convert_config(
        [&] {
            auto all = members;
            if (!arch) all.emplace_back("arch", tools::JsonValue::make_string(format::enum_name(family)));
            if (!nhead) all.emplace_back("nhead", tools::JsonValue::make_number(static_cast<double>(heads)));
            return tools::JsonValue::make_object(all);
        }(),
        path.empty() ? std::string("the ONNX conversion's config") : path);
    if (!arch) c.stated.erase("arch");
    if (!nhead) c.stated.erase("nhead");
    if (c.arch != family)
        throw ToolError(path + ": \"arch\" is \"" + std::string(format::enum_name(c.arch)) + "\", the graph is a " +
                        format::enum_name(family) +
                        "'s (converting an ONNX graph lowers forecasters, classifiers and translators)");
    return c;
}

template <typename T>
void take_fact(ConvertConfig& c, const char* key, T ConvertConfig::*field, const ConvertConfig& facts,
               const std::string& config_path) {
    if (c.stated.count(key) && !(c.*field == facts.*field))
        throw ToolError(config_path + ": \"" + key +
                        "\" contradicts the graph, which shows another value; remove the key (the graph tells it)");
    c.*field = facts.*field;
    c.stated.insert(key);
}

ConvertConfig merge(ConvertConfig c, const LoweredGraph& low, const std::string& path,
                    std::vector<std::string>* notes) {
    const ConvertConfig& f = low.facts;
    for (const std::string& key : low.stated) {
        if (key == "nhead") take_fact(c, "nhead", &ConvertConfig::nhead, f, path);
        if (key == "value_dim") take_fact(c, "value_dim", &ConvertConfig::value_dim, f, path);
        if (key == "norm_first") take_fact(c, "norm_first", &ConvertConfig::norm_first, f, path);
        if (key == "activation") take_fact(c, "activation", &ConvertConfig::activation, f, path);
        if (key == "layer_norm_eps") {
            if (c.stated.count(key) && static_cast<float>(c.layer_norm_eps) != static_cast<float>(f.layer_norm_eps))
                throw ToolError(path + ": \"layer_norm_eps\" contradicts the graph's LayerNorm eps");
            c.layer_norm_eps = f.layer_norm_eps;
            c.stated.insert(key);
        }
        if (key == "positional_encoding")
            take_fact(c, "positional_encoding", &ConvertConfig::positional_encoding, f, path);
        if (key == "decoder_positional_encoding")
            take_fact(c, "decoder_positional_encoding", &ConvertConfig::decoder_positional_encoding, f, path);
        if (key == "memory_mask") take_fact(c, "memory_mask", &ConvertConfig::memory_mask, f, path);
        if (key == "head") take_fact(c, "head", &ConvertConfig::head, f, path);
        if (key == "head_activation") take_fact(c, "head_activation", &ConvertConfig::head_activation, f, path);
        if (key == "window") take_fact(c, "window", &ConvertConfig::window, f, path);
        if (key == "n_outputs" && !low.outputs_shown) {
            // [batch, values]: horizon x outputs, which the config may split ("horizon", "n_outputs", "outputs").
            if (!c.n_outputs && !c.horizon && c.outputs.empty()) {
                c.n_outputs = 1;
                notes->push_back("the graph's output " + low.output +
                                 " is [batch, values]: read as one output over the horizon; state \"horizon\" "
                                 "(or \"n_outputs\", \"outputs\") in the config when it is several outputs per step");
            }
        } else if (key == "n_outputs") {
            take_fact(c, "n_outputs", &ConvertConfig::n_outputs, f, path);
        }
        if (key == "max_positions") {
            if (c.max_positions && *c.max_positions != *f.max_positions &&
                !(low.positions_cut && *c.max_positions > *f.max_positions))
                throw ToolError(path + ": \"max_positions\" = " + std::to_string(*c.max_positions) +
                                " contradicts the graph's position table of " + std::to_string(*f.max_positions) +
                                " rows");
            if (!c.max_positions) {
                c.max_positions = f.max_positions;
                if (low.positions_cut)
                    notes->push_back("the graph holds the position table's first " + std::to_string(*f.max_positions) +
                                     " rows only (the export folded its slice): sequences are limited to them; state "
                                     "\"max_positions\" (the table's rows in PyTorch) in the config to allow more");
            }
            c.stated.insert(key);
        }
        if (key == "pad_id") {
            if (c.pad_id && c.pad_id != f.pad_id)
                throw ToolError(path + ": \"pad_id\" contradicts the graph, which " +
                                (f.pad_id ? "masks the keys of id " + std::to_string(*f.pad_id)
                                          : std::string("masks no padding (its attention reads every id)")) +
                                ": remove the key");
            c.pad_id = f.pad_id;
            c.stated.insert(key);
        }
        if (key == "pooling") take_fact(c, "pooling", &ConvertConfig::pooling, f, path);
        if (key == "output_activation") take_fact(c, "output_activation", &ConvertConfig::output_activation, f, path);
        if (key == "decoding") take_fact(c, "decoding", &ConvertConfig::decoding, f, path);
        if (key == "label_len") take_fact(c, "label_len", &ConvertConfig::label_len, f, path);
        if (key == "time_marks") take_fact(c, "time_marks", &ConvertConfig::time_marks, f, path);
        if (key == "horizon") take_fact(c, "horizon", &ConvertConfig::horizon, f, path);
        if (key == "placeholder") take_fact(c, "placeholder", &ConvertConfig::placeholder, f, path);
        if (key == "embed_scale") take_fact(c, "embed_scale", &ConvertConfig::embed_scale, f, path);
        if (key == "revin") take_fact(c, "revin", &ConvertConfig::revin, f, path);
        if (key == "patch_len") take_fact(c, "patch_len", &ConvertConfig::patch_len, f, path);
        if (key == "stride") take_fact(c, "stride", &ConvertConfig::stride, f, path);
        if (key == "padding_patch") take_fact(c, "padding_patch", &ConvertConfig::padding_patch, f, path);
        if (key == "res_attention") take_fact(c, "res_attention", &ConvertConfig::res_attention, f, path);
        if (key == "head_flatten") take_fact(c, "head_flatten", &ConvertConfig::head_flatten, f, path);
        if (key == "n_features") take_fact(c, "n_features", &ConvertConfig::n_features, f, path);
        if (key == "revin_eps") {
            if (c.revin_eps && static_cast<float>(*c.revin_eps) != static_cast<float>(*f.revin_eps))
                throw ToolError(path + ": \"revin_eps\" contradicts the graph's RevIN eps");
            c.revin_eps = f.revin_eps;
            c.stated.insert(key);
        }
    }
    for (const auto& [k, v] : f.described) {
        const auto at = c.described.find(k);
        if (at != c.described.end() && at->second != v)
            throw ToolError(path + ": \"" + tools::config_key_name(k) +
                            "\" contradicts the graph, which shows another value; remove the key (the graph tells it)");
        c.described[k] = v;
    }
    // Layer counts and sizes come from the tensors as for a checkpoint; a statement is checked there.
    return c;
}

tools::Table table_of(const onnx::Tensor& t) {
    tools::Table table;
    table.cols = static_cast<size_t>(t.shape.back());
    table.rows = t.size() / table.cols;
    table.values = t.f;
    return table;
}

// A side's rows as auspex reads them: the values, then the time features when the graph takes them apart.
tools::Table rows_of(const onnx::Values& values, const std::string& input, const std::string& marks) {
    tools::Table t = table_of(values.at(input));
    if (marks.empty()) return t;
    const tools::Table m = table_of(values.at(marks));
    if (m.rows != t.rows)
        throw ToolError("graph input " + marks + " has " + std::to_string(m.rows) + " rows of time features for " +
                        std::to_string(t.rows) + " rows of " + input);
    tools::Table joined;
    joined.rows = t.rows;
    joined.cols = t.cols + m.cols;
    for (size_t r = 0; r < t.rows; ++r) {
        joined.values.insert(joined.values.end(), t.values.begin() + static_cast<std::ptrdiff_t>(r * t.cols),
                             t.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * t.cols));
        joined.values.insert(joined.values.end(), m.values.begin() + static_cast<std::ptrdiff_t>(r * m.cols),
                             m.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * m.cols));
    }
    return joined;
}

// Batch row k of `batches` sequences of d-wide rows, laid out [batch, rows, d] or [rows, batch, d] (seq_first).
std::vector<float> sequence_of(const std::vector<float>& all, size_t batches, size_t k, size_t d, bool seq_first) {
    const size_t rows = all.size() / batches / d;
    std::vector<float> one(rows * d);
    for (size_t r = 0; r < rows; ++r) {
        const size_t at = seq_first ? (r * batches + k) * d : (k * rows + r) * d;
        std::copy(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + d),
                  one.begin() + static_cast<std::ptrdiff_t>(r * d));
    }
    return one;
}

// sequence_of's inverse: `one` (as many rows as each of all's sequences) written back as batch row k of *all.
void put_sequence(const std::vector<float>& one, size_t batches, size_t k, size_t d, bool seq_first,
                  std::vector<float>* all) {
    const size_t rows = one.size() / d;
    for (size_t r = 0; r < rows; ++r) {
        const size_t at = seq_first ? (r * batches + k) * d : (k * rows + r) * d;
        std::copy(one.begin() + static_cast<std::ptrdiff_t>(r * d),
                  one.begin() + static_cast<std::ptrdiff_t>(r * d + d), all->begin() + static_cast<std::ptrdiff_t>(at));
    }
}

}  // namespace

OnnxImport import_onnx(const tools::ConvertOptions& options) {
    if (!options.map_path.empty())
        throw ToolError("--map renames a checkpoint's tensors; an ONNX graph is lowered by its structure: drop --map");
    const onnx::Model m = onnx::read_onnx_file(options.checkpoint_path);
    // Fold for the window the config states (dynamic axes), else for the sizes the export declares.
    std::map<std::string, int64_t> dims;
    std::optional<int64_t> window, horizon;
    if (!options.config_path.empty()) {
        const tools::JsonValue root = tools::parse_json_file(options.config_path);
        if (const tools::JsonValue* w = root.find("window")) window = w->as_int("window", 1, 1 << 20);
        if (const tools::JsonValue* h = root.find("horizon")) horizon = h->as_int("horizon", 1, 1 << 20);
    }
    const std::vector<const onnx::ValueInfo*> fed = m.fed_inputs();
    const bool tokens = reads_token_ids(m);
    // The encoder's rows (and its time features': as many), then the decoder's.
    const FedInputs split = tokens ? FedInputs{fed, {}} : split_time_features(m.graph, fed);
    auto decoder_rows = [&](const onnx::ValueInfo* v) {
        return split.values.size() > 1 && (v == split.values[1] || (split.marks.size() > 1 && v == split.marks[1]));
    };
    // Inputs laid out sequence first ([length, batch] ids, [length, batch, features] rows) have their rows on the
    // first axis and the batch on the second.
    for (size_t i = 0; i < fed.size(); ++i) {
        const bool seq_first = sequence_first(*fed[i]);
        const size_t row_axis = seq_first ? 0 : 1, batch_axis = seq_first ? 1 : 0;
        if (fed[i]->dims.size() == (tokens ? 2u : 3u) && fed[i]->dims[row_axis].value < 0 &&
            !fed[i]->dims[row_axis].param.empty())
            dims[fed[i]->dims[row_axis].param] =
                decoder_rows(fed[i]) ? horizon.value_or(kProofTargetRows) : window.value_or(kProofRows);
        if (fed[i]->dims.size() > batch_axis && fed[i]->dims[batch_axis].value < 0 &&
            !fed[i]->dims[batch_axis].param.empty())
            dims[fed[i]->dims[batch_axis].param] = 1;
    }
    const onnx::Shapes shapes = onnx::input_shapes(m, dims, kProofRows);
    const onnx::FoldedGraph folded = onnx::fold_graph(m, shapes);
    const LoweredGraph low = lower_graph(m, folded);
    std::vector<std::string> notes = low.notes;
    ConvertConfig config =
        merge(read_user_config(options.config_path, low.facts.nhead, low.family), low, options.config_path, &notes);

    OnnxImport out;
    out.model = tools::import_model(low.tensors, config);
    out.model.notes.insert(out.model.notes.begin(), notes.begin(), notes.end());
    // The proof's inputs: deterministic values of the folded shapes (token ids spread over the vocabulary), the
    // graph's output for them.
    onnx::Values values;
    for (const onnx::ValueInfo* v : fed) values[v->name] = onnx::probe_tensor(*v, shapes.at(v->name));
    if (tokens) {
        // Ids spread over each side's vocabulary; a model that masks padding gets its last two source ids as
        // padding (the first stays a real id).
        for (const bool target : {false, true}) {
            if (target && low.tgt_input.empty()) break;
            onnx::Tensor& ids = values.at(target ? low.tgt_input : low.src_input);
            const std::string table = low.family == format::Family::classifier ? "embedding.weight"
                                      : target                                 ? "tgt_tok_emb.weight"
                                                                               : "src_tok_emb.weight";
            const int64_t vocab = low.tensors.at(table).shape[0];
            std::vector<int32_t>& kept = target ? out.tgt_tokens : out.tokens;
            for (size_t k = 0; k < ids.i.size(); ++k) {
                ids.i[k] = static_cast<int64_t>((7 * k + (target ? 5 : 3)) % static_cast<size_t>(vocab));
                if (config.pad_id && ids.i[k] == *config.pad_id) ids.i[k] = (ids.i[k] + 1) % vocab;
                if (config.pad_id && !target && k > 0 && k + 2 >= ids.i.size()) ids.i[k] = *config.pad_id;
                if (config.pad_id && target && low.target_pad && k > 0 && k + 1 == ids.i.size())
                    ids.i[k] = *config.pad_id;
                kept.push_back(static_cast<int32_t>(ids.i[k]));
            }
        }
    }
    // The decoder input a one-pass graph of one input builds is taken from the graph (RevIN-normalized when the
    // graph normalizes the window first): the lowered model's decoder is fed it, as its forecast builds it.
    onnx::Model evaluated = m;
    if (!low.decoder_input.empty())
        evaluated.graph.outputs.push_back(onnx::ValueInfo{low.decoder_input, {}, false, {}});
    const onnx::Values result = onnx::run_graph(evaluated, values);
    out.graph = m;
    out.fed = values;
    out.lowered = low;
    out.config = config;
    if (!tokens) out.src = rows_of(values, low.src_input, low.src_marks);
    if (!tokens && !low.tgt_input.empty()) out.tgt = rows_of(values, low.tgt_input, low.tgt_marks);
    if (!low.decoder_input.empty()) out.tgt = table_of(result.at(low.decoder_input));
    const onnx::Tensor& y = result.at(low.output);
    out.want.cols =
        tokens ? static_cast<size_t>(y.shape.back()) : static_cast<size_t>(config.n_outputs.value_or(y.shape.back()));
    if (y.shape.size() == 3) out.want.cols = static_cast<size_t>(y.shape.back());
    out.want.rows = y.size() / out.want.cols;
    out.want.values = y.f;
    return out;
}

std::string first_block_that_differs(const OnnxImport& imported) {
    const std::vector<BlockValue>& blocks = imported.lowered.block_outputs;
    onnx::Model probe = imported.graph;
    for (const BlockValue& b : blocks) probe.graph.outputs.push_back(onnx::ValueInfo{b.value, {}, false, {}});
    if (!imported.lowered.memory.empty())
        probe.graph.outputs.push_back(onnx::ValueInfo{imported.lowered.memory, {}, false, {}});
    const onnx::Values values = onnx::run_graph(probe, imported.fed);
    const tools::ConvertConfig& c = imported.config;
    auto described = [&](format::ConfigKey key, uint32_t absent) {
        const auto at = c.described.find(key);
        return at == c.described.end() ? absent : at->second;
    };
    LayerOptions o{c.norm_first, c.activation, static_cast<float>(c.layer_norm_eps), c.nhead, false, false, {},
                   {},           false};
    o.residual_attention = c.res_attention.value_or(false);
    // Each batch row's previous encoder layer's scores (residual attention), recomputed from the graph's inputs.
    std::vector<std::vector<double>> scores;
    o.memory_tril = c.memory_mask == format::MemoryMask::tril;
    if (c.pad_id)
        for (int32_t id : imported.tokens) o.padded_source.push_back(id == *c.pad_id);
    if (c.pad_id && imported.lowered.target_pad)
        for (int32_t id : imported.tgt_tokens) o.padded_target.push_back(id == *c.pad_id);
    std::string input;  // the graph's value at the current stack's input, then at each layer's end
    std::string memory = imported.lowered.memory;
    for (const BlockValue& b : blocks) {
        const onnx::Tensor& value = values.at(b.value);
        if (b.prefix.empty()) {  // a stack's input
            input = b.value;
            scores.clear();
            continue;
        }
        if (b.block.find("final norm") != std::string::npos) {
            if (b.block.rfind("encoder", 0) == 0 && imported.lowered.memory.empty()) memory = b.value;
            input = b.value;
            continue;
        }
        const bool decoder = b.block.rfind("decoder", 0) == 0;
        // A residual around the encoder makes the memory a value no block records: the decoder is not recomputed.
        if (decoder && described(format::ConfigKey::encoder_residual, 0) != 0) break;
        o.causal = decoder ? described(format::ConfigKey::decoder_mask, 0) == 0
                           : described(format::ConfigKey::encoder_mask, 0) != 0;
        const onnx::Tensor& x = values.at(input);
        const size_t d = static_cast<size_t>(x.shape.back());
        const onnx::Tensor* mem = decoder ? &values.at(memory) : nullptr;
        // One sequence per batch row ([batch, rows, d], or [rows, batch, d] laid out sequence first; a patched
        // model's columns are rows of the batch). The proof runs one batch row of the graph's input.
        const bool seq_first = imported.lowered.sequence_first;
        const size_t batches = x.shape.size() == 3 ? static_cast<size_t>(x.shape[seq_first ? 1 : 0]) : 1;
        const size_t per = x.f.size() / batches, mem_per = mem ? mem->f.size() / batches : 0;
        std::vector<float> got(x.f.size());
        bool sizes_match = value.f.size() == got.size();
        scores.resize(batches);
        for (size_t k = 0; k < batches; ++k) {
            const std::vector<float> xs = sequence_of(x.f, batches, k, d, seq_first);
            const std::vector<float> ms = mem ? sequence_of(mem->f, batches, k, d, seq_first) : std::vector<float>{};
            const std::vector<float> one = reference_layer(imported.lowered.tensors, b.prefix, o, xs, per / d,
                                                           mem ? &ms : nullptr, mem_per / d, &scores[k]);
            if (one.size() != per) {
                sizes_match = false;
                break;
            }
            put_sequence(one, batches, k, d, seq_first, &got);
        }
        double worst = 0, scale = 1;
        for (size_t i = 0; i < got.size() && i < value.f.size(); ++i) {
            worst = std::max(worst, std::fabs(static_cast<double>(got[i]) - value.f[i]));
            scale = std::max(scale, std::fabs(static_cast<double>(value.f[i])));
        }
        if (!(worst <= tools::kCheckTolerance * scale) || !sizes_match) {
            char text[96];
            std::snprintf(text, sizeof text, "%.3g", worst);
            return "the first block that differs is " + b.block + " (ending at ONNX value " + b.value +
                   "): recomputed from the lowered tensors and the graph's own input to it, it is off by " + text;
        }
        input = b.value;
        // The encoder's output (its last layer's, or the final norm's after it), unless the decoder attends to
        // another value (a Transformer-VAE's repeated latent).
        if (!decoder && imported.lowered.memory.empty()) memory = b.value;
    }
    return "every layer recomputed from the lowered tensors matches the graph: the difference is in the input block "
           "or the head";
}

tools::ConversionProof prove_against_graph(const OnnxImport& imported, const std::string& model_path) {
    tools::CheckPair pair;
    pair.family = imported.model.family;
    if (!imported.tokens.empty()) pair.src_tokens = {imported.tokens};
    if (!imported.tgt_tokens.empty()) pair.tgt_tokens = {imported.tgt_tokens};
    pair.src = imported.src;
    pair.tgt = imported.tgt;
    pair.want = imported.want;
    pair.want_name = model_path + " (the graph, evaluated by the host reference)";
    const tools::CheckResult r = tools::check_model(imported.model, pair);
    if (!r.passed)
        throw ToolError("the lowered model does not reproduce the ONNX graph " + model_path + " (" +
                        first_block_that_differs(imported) + ") on the proof's " +
                        std::to_string(imported.tokens.empty() ? imported.src.rows : imported.tokens.size()) +
                        "-row input: " + tools::describe_difference(r) + "; the graph computes something the " +
                        std::string(format::enum_name(imported.model.family)) +
                        "'s blocks do not (report the model); nothing written");
    return tools::ConversionProof{true, r.max_diff, r.tolerance, model_path};
}

std::vector<uint8_t> convert_onnx(tools::ConvertOptions options, tools::ConversionProof* proof) {
    OnnxImport imported = import_onnx(options);
    if (options.notes)
        options.notes->insert(options.notes->end(), imported.model.notes.begin(), imported.model.notes.end());
    if (!options.proof.proven) options.proof = prove_against_graph(imported, options.checkpoint_path);
    if (proof) *proof = options.proof;
    options.check_input = nullptr;
    return tools::finish_model(std::move(imported.model), options);
}

}  // namespace ax::onnx_import
