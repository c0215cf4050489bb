#include "tools/convert/chronos_bolt_convert.h"

#include <cstring>

#include "models/forecaster/chronos_bolt_file.h"
#include "models/forecaster/forecaster_config.h"
#include "runtime/model_file.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/convert/quantize.h"
#include "tools/import/import_common.h"

namespace ax::tools {
namespace {

using format::ConfigKey;
using format::Role;

uint32_t float_bits(float f) {
    uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

HostTensor stacked(const HostTensor& a, const HostTensor& b, const HostTensor& c) {
    HostTensor t;
    t.shape = {a.shape[0] + b.shape[0] + c.shape[0], a.shape[1]};
    for (const HostTensor* p : {&a, &b, &c}) t.data.insert(t.data.end(), p->data.begin(), p->data.end());
    return t;
}

void add(AxmModel& m, Role role, uint16_t layer, const HostTensor& t, const std::string& name) {
    m.tensors.push_back(make_tensor(role, layer, name, t));
}

void add_attention(AxmModel& m, Role in, Role out, uint16_t layer, const T5AttentionTensors& a,
                   const std::string& name) {
    add(m, in, layer, stacked(a.q, a.k, a.v), name + ".q|k|v.weight");
    add(m, out, layer, a.o, name + ".o.weight");
}

void add_mlp(AxmModel& m, uint16_t layer, const ResidualMlpTensors& t, const std::string& name) {
    add(m, Role::mlp_hidden_weight, layer, t.hidden_weight, name + ".hidden_layer.weight");
    add(m, Role::mlp_hidden_bias, layer, t.hidden_bias, name + ".hidden_layer.bias");
    add(m, Role::mlp_output_weight, layer, t.output_weight, name + ".output_layer.weight");
    add(m, Role::mlp_output_bias, layer, t.output_bias, name + ".output_layer.bias");
    add(m, Role::mlp_residual_weight, layer, t.residual_weight, name + ".residual_layer.weight");
    add(m, Role::mlp_residual_bias, layer, t.residual_bias, name + ".residual_layer.bias");
}

// Chronos-Bolt as the forecaster's blocks: instance normalization, patches with their mask through a residual
// MLP and a [REG] token, T5 layers with relative positions, one decoder step from the start token, a residual
// MLP head to quantiles x steps.
ForecasterConfig description(const ChronosBoltConfig& c) {
    ForecasterConfig fc;
    fc.n_features = 1;
    fc.n_outputs = 1;
    fc.decoder_features = 1;
    fc.window = c.context_length;
    fc.horizon = c.prediction_length;
    fc.normalizer.kind = format::Normalization::instance;
    fc.input.kind = format::InputEmbedding::patch_mlp;
    fc.input.patch_len = c.patch_size;
    fc.input.patch_stride = c.patch_size;
    fc.input.reg_token = c.use_reg_token ? static_cast<uint32_t>(c.reg_token_id) : format::kNoToken;
    fc.positions.encoder = fc.positions.decoder = format::PositionalEncoding::relative;
    fc.positions.buckets = c.num_buckets;
    fc.positions.max_distance = c.max_distance;
    fc.stacks.kind = format::LayerKind::t5;
    fc.stacks.head_dim = c.d_kv;
    fc.stacks.gated = c.gated;
    fc.decoding.mode = format::Decoding::start_token;
    fc.decoding.start_id = c.decoder_start_token_id;
    fc.head.kind = format::ForecastHead::residual_mlp;
    fc.head.quantiles = c.quantiles.size();
    return fc;
}

}  // namespace

AxmModel chronos_bolt_axm(const ChronosBoltCheckpoint& ck) {
    const ChronosBoltConfig& c = ck.config;
    const ChronosBoltTensors& t = ck.tensors;
    if (c.encoder_layers > kChronosBoltMaxLayers || c.decoder_layers > kChronosBoltMaxLayers)
        throw ToolError("Chronos-Bolt with " + std::to_string(c.encoder_layers) + "+" +
                        std::to_string(c.decoder_layers) + " layers: auspex runs at most " +
                        std::to_string(kChronosBoltMaxLayers) + " per stack (the published sizes have up to 12)");
    AxmModel m;
    m.family = format::Family::forecaster;
    const auto u = [](size_t v) { return static_cast<uint32_t>(v); };
    // The stack's sizes (the converter's keys), then the blocks' description as they write it. The architecture
    // record names where the model came from (the quantizer keeps its lookup tables float32 by it).
    m.config = {
        {ConfigKey::architecture, u(static_cast<uint32_t>(format::Architecture::chronos_bolt))},
        {ConfigKey::d_model, u(c.d_model)},
        {ConfigKey::nhead, u(c.num_heads)},
        {ConfigKey::dim_feedforward, u(c.d_ff)},
        {ConfigKey::activation, static_cast<uint32_t>(c.activation)},
        {ConfigKey::layer_norm_eps, float_bits(c.eps)},
        {ConfigKey::encoder_layers, u(c.encoder_layers)},
        {ConfigKey::decoder_layers, u(c.decoder_layers)},
        {ConfigKey::norm_first, 1},
        {ConfigKey::encoder_final_norm, 1},
        {ConfigKey::decoder_final_norm, 1},
    };
    struct Records : ConfigWriter {
        AxmModel* model;
        explicit Records(AxmModel* to) : model(to) {}
        void put(format::ConfigKey key, uint32_t value) override { model->config.emplace_back(key, value); }
    } records(&m);
    write_forecaster_config(description(c), records);
    HostTensor levels;
    levels.shape = {static_cast<int64_t>(c.quantiles.size())};
    levels.data = c.quantiles;
    add(m, Role::quantile_levels, 0, levels, "chronos_config.quantiles");
    add(m, Role::src_token_embed, format::kNoLayer, t.shared, "shared.weight");
    add_mlp(m, 0, t.input_embedding, "input_patch_embedding");
    add_mlp(m, 1, t.output_embedding, "output_patch_embedding");
    add(m, Role::relative_bias, 0, t.encoder_relative_bias,
        "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    add(m, Role::relative_bias, 1, t.decoder_relative_bias,
        "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
    for (size_t i = 0; i < t.encoder.size(); ++i) {
        const auto l = static_cast<uint16_t>(i);
        const std::string p = "encoder.block." + std::to_string(i) + ".layer.";
        const T5EncoderLayerTensors& e = t.encoder[i];
        add(m, Role::enc_norm1_weight, l, e.attention_norm, p + "0.layer_norm.weight");
        add_attention(m, Role::enc_attn_in_weight, Role::enc_attn_out_weight, l, e.self_attention,
                      p + "0.SelfAttention");
        add(m, Role::enc_norm2_weight, l, e.ff_norm, p + "1.layer_norm.weight");
        add(m, Role::enc_ff1_weight, l, e.wi,
            p + (c.gated ? "1.DenseReluDense.wi_0.weight" : "1.DenseReluDense.wi.weight"));
        if (c.gated) add(m, Role::enc_ff_gate_weight, l, e.wi_gate, p + "1.DenseReluDense.wi_1.weight");
        add(m, Role::enc_ff2_weight, l, e.wo, p + "1.DenseReluDense.wo.weight");
    }
    for (size_t i = 0; i < t.decoder.size(); ++i) {
        const auto l = static_cast<uint16_t>(i);
        const std::string p = "decoder.block." + std::to_string(i) + ".layer.";
        const T5DecoderLayerTensors& e = t.decoder[i];
        add(m, Role::dec_norm1_weight, l, e.self_norm, p + "0.layer_norm.weight");
        add_attention(m, Role::dec_attn_in_weight, Role::dec_attn_out_weight, l, e.self_attention,
                      p + "0.SelfAttention");
        add(m, Role::dec_norm2_weight, l, e.cross_norm, p + "1.layer_norm.weight");
        add_attention(m, Role::dec_cross_in_weight, Role::dec_cross_out_weight, l, e.cross_attention,
                      p + "1.EncDecAttention");
        add(m, Role::dec_norm3_weight, l, e.ff_norm, p + "2.layer_norm.weight");
        add(m, Role::dec_ff1_weight, l, e.wi,
            p + (c.gated ? "2.DenseReluDense.wi_0.weight" : "2.DenseReluDense.wi.weight"));
        if (c.gated) add(m, Role::dec_ff_gate_weight, l, e.wi_gate, p + "2.DenseReluDense.wi_1.weight");
        add(m, Role::dec_ff2_weight, l, e.wo, p + "2.DenseReluDense.wo.weight");
    }
    add(m, Role::encoder_norm_weight, format::kNoLayer, t.encoder_final_norm, "encoder.final_layer_norm.weight");
    add(m, Role::decoder_norm_weight, format::kNoLayer, t.decoder_final_norm, "decoder.final_layer_norm.weight");
    return m;
}

std::vector<uint8_t> convert_chronos_bolt(const std::string& directory, format::DType dtype,
                                          std::vector<std::string>* notes) {
    const ChronosBoltCheckpoint ck = read_chronos_bolt(directory);
    AxmModel model = chronos_bolt_axm(ck);
    store_weights_as(model, dtype);
    std::vector<uint8_t> bytes = serialize_axm(model);
    // The validating reopen: the runtime reads back every record and tensor the writer stored.
    const AlignedBuffer aligned(bytes);
    ModelFile file;
    Status s = ModelFile::open(aligned.data(), aligned.size(), Checksum::verify, &file);
    ChronosBoltModel opened;
    if (s) s = chronos_bolt_open(file, &opened);
    if (!s)
        throw ToolError(std::string("internal error: the converted Chronos-Bolt model does not open: ") + s.message());
    if (notes) {
        const ChronosBoltConfig& c = ck.config;
        notes->push_back("Chronos-Bolt: d_model " + std::to_string(c.d_model) + ", " +
                         std::to_string(c.encoder_layers) + "+" + std::to_string(c.decoder_layers) +
                         " layers, context " + std::to_string(c.context_length) + ", " +
                         std::to_string(c.quantiles.size()) + " quantiles x " + std::to_string(c.prediction_length) +
                         " steps per call; weights " + dtype_name(dtype));
    }
    return bytes;
}

}  // namespace ax::tools
