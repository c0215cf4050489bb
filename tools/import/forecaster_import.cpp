#include "tools/import/forecaster_import.h"

#include <algorithm>
#include <cstring>

#include "models/forecaster/forecaster_config.h"
#include "runtime/bytes.h"
#include "tools/import/forecaster_parts.h"
#include "tools/import/import_common.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Role;

AxmTensor vector_tensor(Role role, const std::string& name, const std::vector<float>& values) {
    HostTensor t;
    t.shape = {static_cast<int64_t>(values.size())};
    t.data = values;
    return make_tensor(role, format::kNoLayer, name, t);
}

struct LinearNames {
    std::string src, tgt, generator;  // module prefixes, e.g. "embedding_src"
    bool shared = false;              // src == tgt: one input Linear feeds both sides
};

// The Linear modules left once the layer stacks are taken, told apart by name and shape: the input
// embeddings map features to d_model, the generator maps d_model to outputs.
LinearNames find_linears(const CheckpointTensors& ck, int64_t d) {
    const std::vector<std::string> modules = find_linear_modules(ck);
    LinearNames n;
    std::vector<std::string> rest;
    for (const std::string& m : modules) {
        const auto& shape = ck.shape(m + ".weight");
        if (shape[0] == d && name_has(m, {"src", "encoder_input", "enc_in", "enc_emb", "encoder_emb", "source"}) &&
            n.src.empty())
            n.src = m;
        else if (shape[0] == d &&
                 name_has(m, {"tgt", "trg", "decoder_input", "dec_in", "dec_emb", "decoder_emb", "target"}) &&
                 n.tgt.empty())
            n.tgt = m;
        else
            rest.push_back(m);
    }
    // One input Linear and one generator, no names to go by: the input Linear feeds both sides (a shared
    // value embedding); the decoder needs one, and there is no other.
    if (n.src.empty() && n.tgt.empty() && modules.size() == 2) {
        for (int first = 0; first < 2; ++first) {
            const auto& in = ck.shape(modules[first] + ".weight");
            const auto& out = ck.shape(modules[1 - first] + ".weight");
            if (in[0] == d && out[1] == d && (in[1] != d || out[0] != d)) {
                n.src = n.tgt = modules[first];
                n.shared = true;
                rest = {modules[1 - first]};
            }
        }
    }
    std::vector<std::string> gen;
    for (const std::string& m : rest)
        if (ck.shape(m + ".weight")[1] == d) gen.push_back(m);
    if (gen.size() == 1) n.generator = gen[0];
    if (n.src.empty() || n.tgt.empty() || n.generator.empty()) {
        std::string found;
        for (const std::string& m : modules) found += (found.empty() ? "" : ", ") + m;
        throw ToolError(
            "cannot tell the forecaster's input embeddings and generator apart: expected Linear modules "
            "named like embedding_src [d_model, n_features], embedding_tgt [d_model, n_features] and "
            "generator [n_outputs, d_model] (d_model " +
            std::to_string(d) + "); found Linear modules: " + (found.empty() ? std::string("none") : found) +
            ". Name each with a map line (convert --map FILE): \"MODULE.{p} -> embedding_src.{p}\", "
            "\"MODULE.{p} -> embedding_tgt.{p}\", \"MODULE.{p} -> generator.{p}\"");
    }
    return n;
}

// The `pe` buffer of a tutorial PositionalEncoding module: recognised, checked and dropped (the runtime
// computes the table). Returns its rows (the fewest, should there be several), 0 when there is none.
int64_t check_pe_buffers(CheckpointTensors& ck, const ConvertConfig& config, int64_t d, std::string* buffer_name) {
    int64_t fewest = 0;
    for (const auto& [name, t] : ck.all()) {
        const bool is_pe = name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0);
        if (!is_pe) continue;
        int64_t rows = 0;
        bool row0_zero = false;
        // A `pe` that is not the sinusoidal table is a learned one (mvts_transformer's nn.Parameter named
        // pe): find_position_tables takes it, and the config's statements are checked against it there.
        if (t.shape.empty() || t.shape.back() != d || !is_sinusoidal_table(t, d, &row0_zero, &rows) || row0_zero)
            continue;
        ck.mark_used(name);
        if (config.positional_encoding == format::PositionalEncoding::none)
            throw ToolError("checkpoint holds a positional-encoding buffer " + name +
                            " but the config says \"positional_encoding\": \"none\"");
        if (fewest == 0 || rows < fewest) {
            fewest = rows;
            *buffer_name = name;
        }
    }
    return fewest;
}

// The positions' limit: the `pe` buffer's rows (PyTorch cannot index past them), or the config's statement
// when there is no buffer. The config's "window" must fit in it.
int64_t decide_max_positions(const ConvertConfig& config, int64_t pe_rows, const std::string& pe_name) {
    if (config.max_positions && pe_rows != 0 && *config.max_positions != pe_rows)
        throw ToolError("config \"max_positions\" = " + std::to_string(*config.max_positions) + " contradicts the " +
                        std::to_string(pe_rows) + " rows of the positional-encoding buffer " + pe_name);
    const int64_t limit = pe_rows != 0 ? pe_rows : config.max_positions.value_or(0);
    if (config.window && limit != 0 && *config.window > limit)
        throw ToolError("config \"window\" = " + std::to_string(*config.window) + " is longer than the model's " +
                        std::to_string(limit) + " positions (" +
                        (pe_rows != 0 ? "the rows of its positional-encoding buffer " + pe_name
                                      : std::string("config \"max_positions\"")) +
                        "): PyTorch cannot run that window either; state the window the model was trained on");
    return limit;
}

// The positions: a sinusoidal `pe` buffer, a learned table, or none, as the tensors show; a stated
// positional_encoding the tensors contradict is refused naming both.
struct Positions {
    format::PositionalEncoding kind = format::PositionalEncoding::none;
    int64_t max_positions = 0;
    std::vector<PositionTable> tables;
};

Positions decide_forecaster_positions(CheckpointTensors& ck, const ConvertConfig& config, int64_t d) {
    using PE = format::PositionalEncoding;
    Positions p;
    std::string pe_name;
    const int64_t pe_rows = check_pe_buffers(ck, config, d, &pe_name);
    p.tables = find_position_tables(ck, d);
    if (pe_rows != 0 && !p.tables.empty())
        throw ToolError("checkpoint holds both a sinusoidal buffer " + pe_name + " and a learned position table " +
                        p.tables[0].name + ": the runtime gives a forecaster one kind of positions");
    const PE found = !p.tables.empty() ? PE::learned : pe_rows != 0 ? PE::sinusoidal : PE::none;
    p.kind = config.positional_encoding.value_or(found);
    if (p.kind != PE::none && p.kind != PE::sinusoidal && p.kind != PE::learned)
        throw ToolError("a forecaster's \"positional_encoding\" is \"none\", \"sinusoidal\" or \"learned\"");
    if (config.positional_encoding && p.kind != PE::sinusoidal && found != p.kind && found != PE::none)
        throw ToolError(
            "config \"positional_encoding\": \"" + enum_text(p.kind) + "\" contradicts the checkpoint's " +
            (found == PE::learned ? "learned position table " + p.tables[0].name : "sinusoidal buffer " + pe_name));
    if (p.kind == PE::sinusoidal && !p.tables.empty())
        throw ToolError(
            "config \"positional_encoding\": \"sinusoidal\" contradicts the checkpoint's learned "
            "position table " +
            p.tables[0].name + " (" + shape_text(ck.shape(p.tables[0].name)) + ")");
    if (p.kind == PE::learned && p.tables.empty())
        throw ToolError(
            "config \"positional_encoding\": \"learned\" but the checkpoint holds no position table "
            "(a tensor named with \"pos\", [max_len, d_model] or [1, max_len, d_model])");
    if (p.kind == PE::sinusoidal && d % 2 != 0)
        throw ToolError("sinusoidal positions need an even d_model, got " + std::to_string(d));
    if (p.kind == PE::learned) {
        p.max_positions = p.tables[0].rows;
        for (const PositionTable& t : p.tables) p.max_positions = std::min(p.max_positions, t.rows);
        if (config.max_positions && *config.max_positions != p.max_positions)
            throw ToolError("config \"max_positions\" = " + std::to_string(*config.max_positions) +
                            " contradicts the " + std::to_string(p.max_positions) + " rows of position table " +
                            p.tables[0].name);
        if (config.window && *config.window > p.max_positions)
            throw ToolError("config \"window\" = " + std::to_string(*config.window) + " is longer than the " +
                            std::to_string(p.max_positions) + " rows of position table " + p.tables[0].name);
    } else {
        p.max_positions = decide_max_positions(config, pe_rows, pe_name);
    }
    return p;
}

// A position table as the runtime stores it: [rows, d], the first max_positions rows.
void add_position_table(CheckpointTensors& ck, AxmModel& m, Role role, const PositionTable& t, int64_t rows,
                        int64_t d) {
    HostTensor table = ck.take(t.name, ck.shape(t.name));
    table.shape = {rows, d};
    table.data.resize(static_cast<size_t>(rows * d));
    m.tensors.push_back(make_tensor(role, format::kNoLayer, t.name, table));
}

// Which input column each output continues and each decoder column reads, when the decoder reads other
// columns than every input in order (a decoder_input_layer of num_predicted_features beside an
// encoder_input_layer of input_size; the outputs beside known-future inputs, "decoder_features") or the model
// predicts fewer columns than it reads. By name from "features", "outputs" and "decoder_features", else the
// first columns (with a note).
void add_decoder_columns(AxmModel& m, const ConvertConfig& config, const std::string& tgt, int64_t dec_in, int64_t nf,
                         int64_t no, std::vector<std::pair<format::ConfigKey, uint32_t>>& variant) {
    const bool listed = !config.decoder_features.empty();
    if (!listed && dec_in == nf && no >= nf) return;
    auto column_of = [&](const std::string& name, const char* key) {
        const auto at = std::find(config.features.begin(), config.features.end(), name);
        if (at == config.features.end())
            throw ToolError(std::string("config \"") + key + "\" names \"" + name +
                            "\", which is not one of \"features\": the decoder reads input columns, so each " +
                            (std::string(key) == "outputs" ? "output it is fed back" : "column it reads") +
                            " must be one");
        return static_cast<uint32_t>(at - config.features.begin());
    };
    if (listed && static_cast<int64_t>(config.decoder_features.size()) != dec_in)
        throw ToolError("config \"decoder_features\" names " + std::to_string(config.decoder_features.size()) +
                        " columns, but the decoder's input Linear " + tgt + " reads " + std::to_string(dec_in));
    if (!listed && dec_in != nf && dec_in != no)
        throw ToolError("the decoder's input Linear " + tgt + " reads " + std::to_string(dec_in) +
                        " columns, the encoder " + std::to_string(nf) + " and the model predicts " +
                        std::to_string(no) +
                        ": name the decoder's columns with \"decoder_features\" (the columns of the tgt your "
                        "inference loop builds, in order: the predicted ones and inputs known ahead such as "
                        "calendar features), each one of \"features\"");
    if (dec_in > 256 || no > 256)
        throw ToolError("a decoder that reads some of the input columns reads at most 256 and predicts at most 256");
    if (no < nf || dec_in != nf || listed) {
        for (int64_t i = 0; i < no && no <= nf; ++i) {
            const uint32_t column =
                config.outputs.empty() ? static_cast<uint32_t>(i) : column_of(config.outputs[i], "outputs");
            variant.push_back({static_cast<format::ConfigKey>(format::kOutputFeatureKey + i), column});
        }
        if (config.outputs.empty() && no < nf)
            m.notes.push_back("assumed the model's " + std::to_string(no) + " output(s) continue the first " +
                              std::to_string(no) +
                              " input column(s); name them with \"features\" and \"outputs\" "
                              "to say which");
    }
    if (dec_in != nf || listed) variant.push_back({ConfigKey::decoder_features, static_cast<uint32_t>(dec_in)});
    if (listed)
        for (size_t j = 0; j < config.decoder_features.size(); ++j)
            variant.push_back({static_cast<format::ConfigKey>(format::kDecoderFeatureKey + j),
                               column_of(config.decoder_features[j], "decoder_features")});
}

// The config's "time_marks": the last input columns are time features known ahead. A token convolution's own count
// (`conv`) must agree; they are no output's column, and RevIN and patches (which take every column alike) have none.
void check_time_marks(const ConvertConfig& config, std::optional<int64_t> conv, int64_t nf, int64_t no, bool revin,
                      ForecasterConfig& fc) {
    const int64_t marks = *config.time_marks;
    if (conv && *conv != marks)
        throw ToolError("config \"time_marks\" = " + std::to_string(marks) +
                        " contradicts the checkpoint's time-feature Linear src_time_marks.weight, which reads " +
                        std::to_string(*conv) + " columns");
    if (marks != 0 && (revin || config.patch_len))
        throw ToolError(std::string("config \"time_marks\" beside ") + (revin ? "RevIN" : "patches") +
                        ", which take every input column alike, the time features too: not run");
    if (marks != 0 && no > nf - marks)
        throw ToolError("config \"time_marks\" = " + std::to_string(marks) + " leaves " + std::to_string(nf - marks) +
                        " value columns of " + std::to_string(nf) + ", and the model predicts " + std::to_string(no) +
                        ": time features are read, not predicted");
    for (const std::string& o : config.outputs) {
        const auto at = std::find(config.features.begin(), config.features.end(), o);
        if (at != config.features.end() && at - config.features.begin() >= nf - marks)
            throw ToolError("config \"outputs\" names \"" + o + "\", one of the last " + std::to_string(marks) +
                            " columns (\"time_marks\": time features known ahead, read, not predicted)");
    }
    fc.time_marks = static_cast<size_t>(marks);
}

// What an encoder-only model's head and inputs are, from the shapes and the config.
struct EncoderOnlyShape {
    format::ForecastHead head = format::ForecastHead::generator;
    format::InputEmbedding input = format::InputEmbedding::linear;
    int64_t n_features = 0, n_outputs = 0, horizon = 0, window = 0, hidden = 0;
};

EncoderOnlyShape read_encoder_only(const CheckpointTensors& ck, const ConvertConfig& config,
                                   const EncoderOnlyLinears& l, int64_t d) {
    using Head = format::ForecastHead;
    EncoderOnlyShape e;
    const auto& fin = ck.shape(l.final + ".weight");
    const std::string first = l.hidden.empty() ? l.final : l.hidden;
    const int64_t head_in = ck.shape(first + ".weight")[1];
    const std::string what = first + ".weight " + shape_text(ck.shape(first + ".weight"));
    if (head_in != d) {
        e.head = Head::flatten;
        e.window = head_in / d;
        if (config.head && *config.head != Head::flatten)
            throw ToolError("config \"head\": \"" + enum_text(*config.head) + "\" contradicts " + what +
                            ", which reads " + std::to_string(e.window) + " rows of d_model " + std::to_string(d) +
                            " flattened (\"head\": \"flatten\")");
        if (config.window && *config.window != e.window)
            throw ToolError("config \"window\" = " + std::to_string(*config.window) + " contradicts " + what +
                            ", which reads the flattened window of " + std::to_string(e.window) + " rows");
    } else if (config.head) {
        e.head = *config.head;
        if (e.head == Head::flatten) e.window = 1;
    } else {
        throw ToolError(
            "the head " + what +
            " reads one d_model row, and the weights cannot tell which: state \"head\" in the config: "
            "\"generator\" (every row through it, the last row's output fed back as the next input, as a loop "
            "that appends output[-1]), \"last_row\" (x[:, -1] to every horizon step at once) or \"mean\" "
            "(x.mean(dim=1) to every horizon step at once)");
    }
    if (e.head == Head::generator && !l.hidden.empty())
        throw ToolError("a per-row generator head with a hidden Linear (" + l.hidden + ", " + l.final +
                        ") is not supported: auspex runs one Linear per row, or a pooled head (flatten, last_row, "
                        "mean) with a hidden Linear");
    if (!l.hidden.empty()) e.hidden = ck.shape(l.hidden + ".weight")[0];

    // Inputs: the input Linear's width, else the rows as they are (n_features == d_model) or one feature
    // broadcast over d_model (x + pe with x [S, B, 1]).
    using IE = format::InputEmbedding;
    if (!l.input.empty()) {
        e.n_features = ck.shape(l.input + ".weight")[1];
        if (config.input_embedding && *config.input_embedding != IE::linear)
            throw ToolError("config \"input_embedding\": \"" + enum_text(*config.input_embedding) +
                            "\" contradicts the input Linear " + l.input);
    }
    const int64_t out = fin[0];
    if (e.head == Head::generator) {
        e.n_outputs = out;
    } else {
        const int64_t o = config.n_outputs          ? *config.n_outputs
                          : !config.outputs.empty() ? static_cast<int64_t>(config.outputs.size())
                          : config.horizon          ? (out % *config.horizon == 0 ? out / *config.horizon : 0)
                          : e.n_features == 1 || config.n_features.value_or(0) == 1 ? 1
                                                                                    : 0;
        if (o == 0 || out % o != 0)
            throw ToolError("the head's " + l.final + ".weight " + shape_text(fin) + " gives " + std::to_string(out) +
                            " values = horizon x n_outputs: state \"horizon\" (or \"n_outputs\"/\"outputs\") "
                            "in the config, e.g. \"horizon\": " +
                            std::to_string(out));
        e.n_outputs = o;
        e.horizon = out / o;
        if (config.horizon && *config.horizon != e.horizon)
            throw ToolError("config \"horizon\" = " + std::to_string(*config.horizon) + " contradicts the head's " +
                            l.final + ".weight " + shape_text(fin) + ": " + std::to_string(out) + " values are " +
                            std::to_string(e.horizon) + " steps of " + std::to_string(o) + " outputs");
    }
    if (l.input.empty()) {
        IE kind = config.input_embedding.value_or(IE::linear);
        if (!config.input_embedding) {
            const int64_t nf = config.n_features.value_or(e.head == Head::generator ? e.n_outputs : d);
            kind = nf == d ? IE::none : nf == 1 ? IE::broadcast : IE::linear;
        }
        if (kind == IE::linear)
            throw ToolError("found no input Linear [d_model, n_features] (d_model " + std::to_string(d) +
                            "): state \"input_embedding\": \"none\" (rows of d_model features go in as they "
                            "are) or \"broadcast\" (one feature added to every column), or name the Linear with a "
                            "map line \"MODULE.{p} -> embedding_src.{p}\"");
        e.input = kind;
        e.n_features = kind == IE::none ? d : 1;
    }
    return e;
}

using Records = std::vector<std::pair<format::ConfigKey, uint32_t>>;

// Patches of a window of `window` steps (PatchTST: (L + pad - P) / S + 1).
int64_t patch_tokens(const ConvertConfig& config, int64_t window) {
    const int64_t padded = window + (config.padding_patch.value_or("end") == "end" ? *config.stride : 0);
    return padded < *config.patch_len ? 0 : (padded - *config.patch_len) / *config.stride + 1;
}

// RevIN's affine vectors (`revin_layer.affine_weight`, `.affine_bias`), or none; a stated "revin" must agree.
format::Revin import_revin(CheckpointTensors& ck, AxmModel& m, const ConvertConfig& config, int64_t* columns) {
    std::string weight, bias;
    for (const auto& [name, t] : ck.all()) {
        if (ck.used(name) || t.shape.size() != 1) continue;
        if (name.size() >= 13 && name.compare(name.size() - 13, 13, "affine_weight") == 0) weight = name;
        if (name.size() >= 11 && name.compare(name.size() - 11, 11, "affine_bias") == 0) bias = name;
    }
    if (weight.empty() != bias.empty())
        throw ToolError("RevIN needs both affine_weight and affine_bias; found only " + weight + bias);
    if (weight.empty()) return config.revin.value_or(false) ? format::Revin::plain : format::Revin::none;
    if (config.revin && !*config.revin)
        throw ToolError("config \"revin\": false contradicts the checkpoint's RevIN parameters " + weight + ", " +
                        bias);
    *columns = ck.shape(weight)[0];
    add_tensor(ck, m, Role::revin_weight, weight, {*columns});
    add_tensor(ck, m, Role::revin_bias, bias, {*columns});
    return format::Revin::affine;
}

// The description's records: what the checkpoint and the config's structure tell (fc, written by its blocks),
// then the options the config states as they are (ConvertConfig::described), read back through the blocks as
// the runtime will read them and judged by the blocks' one check, so that what the runtime would refuse is
// refused here with the block's own message, before anything is written.
void write_description(const ForecasterConfig& fc, const ConvertConfig& config, AxmModel& m) {
    struct Records : ConfigWriter {
        AxmModel* model;
        explicit Records(AxmModel* to) : model(to) {}
        void put(format::ConfigKey key, uint32_t value) override { model->config.emplace_back(key, value); }
    } records(&m);
    write_forecaster_config(fc, records);
    write_described(config, m);
    const std::vector<uint8_t> bytes = config_record_bytes(m);
    ForecasterConfig read;
    const Status status =
        read_forecaster_records(ConfigRecords(bytes.data(), static_cast<uint32_t>(m.config.size())), &read);
    if (!status.is_ok()) throw ToolError(std::string("the model cannot run as described: ") + status.message());
}

// A patched (PatchTST-style) encoder-only model: the input Linear reads patch_len steps of one column, the
// head one column's tokens and gives its horizon. The columns' count comes from the config or RevIN.
void import_patched(CheckpointTensors& ck, AxmModel& m, const ConvertConfig& config, const EncoderOnlyLinears& l,
                    int64_t d, int64_t revin_columns, ForecasterConfig& fc, int64_t* nf, int64_t* window) {
    if (!config.stride) throw ToolError("config \"patch_len\" needs \"stride\" (steps between patches)");
    if (!config.window)
        throw ToolError(
            "a patched model needs its \"window\" (seq_len) in the config: windows of several lengths "
            "give the same number of patches");
    if (l.input.empty()) throw ToolError("patches go through an input Linear [d_model, patch_len]; found none");
    const auto& in_shape = ck.shape(l.input + ".weight");
    if (in_shape[1] != *config.patch_len)
        throw ToolError("config \"patch_len\" = " + std::to_string(*config.patch_len) +
                        " contradicts the input Linear " + l.input + ".weight " + shape_text(in_shape));
    const int64_t tokens = patch_tokens(config, *config.window);
    const std::string first = l.hidden.empty() ? l.final : l.hidden;
    const int64_t head_in = ck.shape(first + ".weight")[1];
    const format::ForecastHead head = head_in == d && tokens != 1 ? config.head.value_or(format::ForecastHead::last_row)
                                                                  : format::ForecastHead::flatten;
    if (head_in != d && head_in != tokens * d)
        throw ToolError("the head " + first + ".weight " + shape_text(ck.shape(first + ".weight")) + " reads " +
                        std::to_string(head_in) + " values; a window of " + std::to_string(*config.window) +
                        " steps gives " + std::to_string(tokens) + " patches of d_model " + std::to_string(d) + " (" +
                        std::to_string(tokens * d) +
                        " flattened): check \"window\", \"patch_len\", \"stride\" "
                        "and \"padding_patch\"");
    if (head == format::ForecastHead::generator) throw ToolError("a patched model's head is flatten, last_row or mean");
    *nf = config.n_features          ? *config.n_features
          : !config.features.empty() ? static_cast<int64_t>(config.features.size())
                                     : revin_columns;
    if (*nf == 0)
        throw ToolError(
            "a patched model forecasts each input column on its own: state \"features\" (or "
            "\"n_features\") so the converter knows how many");
    if (revin_columns != 0 && revin_columns != *nf)
        throw ToolError("RevIN's parameters hold " + std::to_string(revin_columns) + " columns, the config " +
                        std::to_string(*nf));
    const int64_t horizon = ck.shape(l.final + ".weight")[0];
    const int64_t hidden = l.hidden.empty() ? 0 : ck.shape(l.hidden + ".weight")[0];
    add_linear(ck, m, Role::src_embed_weight, l.input, d, *config.patch_len);
    const size_t head_first = m.tensors.size();
    if (hidden != 0) add_linear(ck, m, Role::head_weight, l.hidden, hidden, head_in);
    add_linear(ck, m, Role::generator_weight, l.final, horizon, hidden != 0 ? hidden : head_in);
    if (config.head_flatten.value_or("rows") == "d_model_first") {
        if (head != format::ForecastHead::flatten)
            throw ToolError("config \"head_flatten\" describes a flatten head; this head reads one row");
        reorder_flatten_head(m.tensors[head_first], tokens, d);
    }
    fc.head.kind = head;
    fc.horizon = static_cast<size_t>(horizon);
    fc.input.patch_len = static_cast<size_t>(*config.patch_len);
    fc.input.patch_stride = static_cast<size_t>(*config.stride);
    fc.input.patch_pad = config.padding_patch.value_or("end") == "end";
    fc.head.hidden = static_cast<size_t>(hidden);
    if (hidden != 0) fc.head.activation = config.head_activation.value_or(format::Activation::relu);
    *window = *config.window;
}

}  // namespace

AxmModel import_forecaster(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.arch != format::Family::forecaster)
        throw ToolError("config arch \"" + enum_text(config.arch) + "\" is not \"forecaster\"");
    // Chronos-Bolt's block options come with its T5 layers, which a state_dict of nn.Transformer layers has not.
    const auto chronos_only = [](const char* key, const std::string& value) {
        throw ToolError(std::string("config \"") + key + "\": \"" + value +
                        "\" is Chronos-Bolt's (T5 layers): convert the published Chronos-Bolt directory itself "
                        "(auspex convert DIR -o model.axm; docs/chronos-bolt.md)");
    };
    if (config.decoding == format::Decoding::start_token) chronos_only("decoding", "start_token");
    if (config.input_embedding == format::InputEmbedding::patch_mlp) chronos_only("input_embedding", "patch_mlp");
    if (config.head == format::ForecastHead::residual_mlp) chronos_only("head", "residual_mlp");
    if (config.positional_encoding == format::PositionalEncoding::relative ||
        config.decoder_positional_encoding == format::PositionalEncoding::relative)
        chronos_only("positional_encoding", "relative");
    // The Time-Series-Library's DataEmbedding (named by its map) becomes one Linear per side first.
    TensorMap folded = tensors;
    TokenConv src_conv, tgt_conv;
    const bool conv = fold_token_conv(folded, "src", &src_conv);
    if (fold_token_conv(folded, "tgt", &tgt_conv) != conv)
        throw ToolError("a token convolution on one side only: auspex embeds both sides the same way");
    if (conv && src_conv.marks != tgt_conv.marks)
        throw ToolError("the encoder's time-feature embedding reads " + std::to_string(src_conv.marks) +
                        " marks, the decoder's " + std::to_string(tgt_conv.marks));
    const bool declared_conv = config.input_embedding == format::InputEmbedding::token_conv;
    if (config.input_embedding && declared_conv != conv)
        throw ToolError(conv ? "config \"input_embedding\": \"" + enum_text(*config.input_embedding) +
                                   "\" contradicts the checkpoint's token convolution (src_token_conv.weight)"
                             : std::string("config \"input_embedding\": \"token_conv\" but the checkpoint holds no "
                                           "token convolution: map the Time-Series-Library's DataEmbedding with "
                                           "tools/import/maps/tslib_transformer.map"));
    CheckpointTensors ck(folded);
    AxmModel m;
    m.family = format::Family::forecaster;
    const StackShape s = import_stacks(ck, m, config, false, true, "forecaster");
    const int64_t d = s.d_model;
    const bool encoder_only = s.decoder_layers == 0;
    // A patched model's positions count patches: its window is checked against them in patches.
    ConvertConfig position_config = config;
    if (config.patch_len && config.stride && config.window)
        position_config.window = patch_tokens(config, *config.window);
    const Positions pos = decide_forecaster_positions(ck, position_config, d);
    int64_t revin_columns = 0;
    const format::Revin revin = import_revin(ck, m, config, &revin_columns);
    // The model description the checkpoint and the config tell, written by its blocks; the decoder's column
    // records and the layers' options beside it.
    ForecasterConfig fc;
    fc.stack.layer.d_model = static_cast<size_t>(d);
    fc.stack.encoder_layers = s.encoder_layers;
    fc.stack.decoder_layers = s.decoder_layers;
    std::vector<std::pair<format::ConfigKey, uint32_t>> variant;

    int64_t nf = 0, no = 0, window = config.window.value_or(0);
    if (conv && (encoder_only || config.decoding != format::Decoding::one_pass))
        throw ToolError(
            "the Time-Series-Library's token convolution reads whole sequences: auspex runs it in an "
            "encoder-decoder decoded in one pass; state \"decoding\": \"one_pass\" with \"label_len\" and "
            "\"horizon\" (the model's label_len and pred_len)");
    if (encoder_only && config.patch_len) {
        import_patched(ck, m, config, find_encoder_only_linears(ck, d), d, revin_columns, fc, &nf, &window);
        no = nf;
    } else if (encoder_only) {
        const EncoderOnlyLinears lin = find_encoder_only_linears(ck, d);
        const EncoderOnlyShape e = read_encoder_only(ck, config, lin, d);
        nf = e.n_features;
        no = e.n_outputs;
        if (e.window != 0) window = e.window;
        if (!lin.input.empty()) add_linear(ck, m, Role::src_embed_weight, lin.input, d, nf);
        const int64_t head_in = e.head == format::ForecastHead::flatten ? e.window * d : d;
        if (!lin.hidden.empty()) add_linear(ck, m, Role::head_weight, lin.hidden, e.hidden, head_in);
        add_linear(ck, m, Role::generator_weight, lin.final,
                   e.head == format::ForecastHead::generator ? no : e.horizon * no, e.hidden != 0 ? e.hidden : head_in);
        fc.head.kind = e.head;
        if (e.head != format::ForecastHead::generator)
            fc.horizon = static_cast<size_t>(e.horizon);
        else if (config.horizon)
            fc.trained_horizon = static_cast<size_t>(*config.horizon);
        fc.head.hidden = static_cast<size_t>(e.hidden);
        if (e.hidden != 0) fc.head.activation = config.head_activation.value_or(format::Activation::relu);
        fc.input.kind = e.input;
        // A per-row generator predicting some of the columns it reads: which ones its predictions continue (the
        // others are covariates that forecast takes from the plan as the window slides).
        if (e.head == format::ForecastHead::generator && no < nf)
            add_decoder_columns(m, config, lin.final, nf, nf, no, variant);
        if (config.decoding == format::Decoding::one_pass)
            throw ToolError(
                "config \"decoding\": \"one_pass\" needs a decoder; this checkpoint has none "
                "(an encoder-only model is one-pass through its head)");
        if (config.memory_mask != format::MemoryMask::none)
            throw ToolError("config \"memory_mask\" needs a decoder; this checkpoint has none");
    } else {
        const LinearNames lin = find_linears(ck, d);
        const auto& src_shape = ck.shape(lin.src + ".weight");
        const auto& gen_shape = ck.shape(lin.generator + ".weight");
        // token_conv: the Linear reads three neighbours' values and the marks.
        const int64_t src_width = src_shape[1], dec_width = ck.shape(lin.tgt + ".weight")[1];
        nf = conv ? src_conv.values + src_conv.marks : src_width;
        no = gen_shape[0];
        check_stated(config.n_features, nf, ConfigKey::n_features, lin.src + ".weight", src_shape);
        check_stated(config.n_outputs, no, ConfigKey::n_outputs, lin.generator + ".weight", gen_shape);
        const int64_t dec_in = conv ? tgt_conv.values + tgt_conv.marks : dec_width;
        fc.decoder_features = static_cast<size_t>(dec_in);
        add_linear(ck, m, Role::src_embed_weight, lin.src, d, src_width);
        add_linear(ck, m, Role::tgt_embed_weight, lin.tgt, d, dec_width);
        if (conv) {
            fc.input.kind = format::InputEmbedding::token_conv;
            fc.time_marks = static_cast<size_t>(src_conv.marks);
        }
        add_linear(ck, m, Role::generator_weight, lin.generator, no, d);
        add_decoder_columns(m, config, lin.tgt, dec_in, nf, no, variant);
        if (lin.shared)
            m.notes.push_back("one input Linear, " + lin.src +
                              ", feeds both the encoder and the decoder (stored "
                              "for each)");
        if (config.decoder_positional_encoding) {
            const format::PositionalEncoding dp = *config.decoder_positional_encoding;
            if (dp != format::PositionalEncoding::none && dp != pos.kind)
                throw ToolError("config \"decoder_positional_encoding\" is \"none\" or the encoder's (\"" +
                                enum_text(pos.kind) + "\")");
            fc.positions.decoder = dp;
        }
        if (config.head && *config.head != format::ForecastHead::generator)
            throw ToolError("config \"head\": \"" + enum_text(*config.head) +
                            "\" needs an encoder-only model; this checkpoint has a decoder (its head is the "
                            "per-row generator " +
                            lin.generator + ")");
        if (config.decoding == format::Decoding::one_pass) {
            if (!config.horizon || !config.label_len)
                throw ToolError(
                    "one-pass decoding needs \"horizon\" (the placeholder rows) and \"label_len\" "
                    "(the observed rows before them) in the config");
            fc.decoding.mode = format::Decoding::one_pass;
            fc.horizon = static_cast<size_t>(*config.horizon);
            fc.decoding.label_len = static_cast<size_t>(*config.label_len);
            fc.decoding.placeholder = config.placeholder.value_or(format::Placeholder::zeros);
        } else if (config.label_len || config.placeholder) {
            throw ToolError(
                "\"label_len\" and \"placeholder\" describe one-pass decoding: "
                "state \"decoding\": \"one_pass\" too, or remove them");
        } else if (config.horizon) {
            fc.trained_horizon = static_cast<size_t>(*config.horizon);
        }
    }
    check_stated(config.n_features, nf, ConfigKey::n_features, "the input rows", {nf});
    if (config.time_marks)
        check_time_marks(config, conv ? std::optional<int64_t>(src_conv.marks) : std::nullopt, nf, no,
                         revin != format::Revin::none, fc);
    if (pos.kind == format::PositionalEncoding::learned) {
        const int64_t rows = pos.max_positions;
        const bool decoder_table = !encoder_only && config.decoder_positional_encoding.value_or(pos.kind) == pos.kind;
        if (encoder_only || pos.tables.size() == 1) {
            add_position_table(ck, m, Role::src_pos_embed, pos.tables[0], rows, d);
            if (decoder_table) add_position_table(ck, m, Role::tgt_pos_embed, pos.tables[0], rows, d);
        } else {
            std::vector<std::string> names;
            for (const PositionTable& t : pos.tables) names.push_back(t.name);
            const std::string src = pick_by_words(names, kSourceWords, kTargetWords);
            const std::string tgt = pick_by_words(names, kTargetWords, kSourceWords);
            if (pos.tables.size() != 2 || src.empty() || tgt.empty())
                throw ToolError("cannot tell the encoder's and the decoder's position tables apart: " +
                                name_list(names));
            for (const PositionTable& t : pos.tables)
                add_position_table(ck, m, t.name == src ? Role::src_pos_embed : Role::tgt_pos_embed, t, rows, d);
        }
    }
    if (config.patch_len && !encoder_only) throw ToolError("patches need an encoder-only model");
    if (config.res_attention.value_or(false)) {
        if (!encoder_only) throw ToolError("config \"res_attention\" is an encoder-only model's (PatchTST's)");
        variant.push_back({ConfigKey::residual_attention, 1u});
    }
    if (config.head_flatten && !config.patch_len)
        throw ToolError("config \"head_flatten\" is read for patched models (PatchTST's head)");
    fc.normalizer.revin = revin;
    if (revin != format::Revin::none && config.revin_eps)
        fc.normalizer.revin_eps = static_cast<float>(*config.revin_eps);
    if (config.embed_scale || config.embed_scale_sqrt_d) fc.input.scale = embed_scale_value(config, d, 1.0f);

    const NormalizationSpec& norm = config.normalization;
    const bool global = norm.mode == format::Normalization::global;
    if (norm.mode != format::Normalization::none) {
        if (static_cast<int64_t>(norm.scale.size()) != nf || (global && static_cast<int64_t>(norm.mean.size()) != nf))
            throw ToolError("normalization mean/scale need one value per input column (" + std::to_string(nf) +
                            ", in the order of \"features\": a StandardScaler's mean_ and scale_ fitted on them)");
        if (global) m.tensors.push_back(vector_tensor(Role::input_mean, "normalization.mean", norm.mean));
        m.tensors.push_back(vector_tensor(Role::input_scale, "normalization.scale", norm.scale));
    }
    ck.check_all_used("forecaster");

    fc.n_features = static_cast<size_t>(nf);
    fc.n_outputs = static_cast<size_t>(no);
    if (encoder_only) fc.decoder_features = fc.n_features;
    fc.positions.encoder = pos.kind;
    if (!config.decoder_positional_encoding) fc.positions.decoder = pos.kind;
    fc.max_positions = static_cast<size_t>(pos.max_positions);
    fc.window = static_cast<size_t>(window);
    fc.stacks.memory_mask = config.memory_mask;
    fc.normalizer.kind = norm.mode;
    add_stack_config(m, s, config);
    m.config.insert(m.config.end(), variant.begin(), variant.end());
    write_description(fc, config, m);
    return m;
}

}  // namespace ax::tools
