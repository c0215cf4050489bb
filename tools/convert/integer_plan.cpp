#include "tools/convert/integer_plan.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "models/forecaster/forecaster_integer.h"
#include "runtime/positional_encoding.h"
#include "tools/common/tool_error.h"
#include "tools/convert/integer_params.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

namespace {

using format::Role;

// Int16 model-space rows get this much room beyond the calibrated range: a forecast may leave it, and int16
// has resolution to spare.
constexpr double kModelSpaceHeadroom = 2.0;

struct PlanWriter {
    const AxmModel& model;
    const ActivationRanges& ranges;
    const ModelFile& file;
    std::vector<int32_t> words;
    std::vector<std::string>* notes;

    size_t index_of(Role role, uint16_t layer) const {
        for (size_t i = 0; i < model.tensors.size(); ++i)
            if (model.tensors[i].role == role && model.tensors[i].layer == layer) return i;
        throw ToolError(std::string("internal error: the integer plan needs tensor ") + format::role_name(role));
    }
    // A calibrated range as a scale of `top` codes; a range never seen (0) gets a note and the scale 1.
    double scale(float absmax, int32_t top, const char* what, Role role, uint16_t layer) const {
        if (!(absmax > 0.0f) && notes != nullptr) {
            std::string where = format::role_name(role);
            if (layer != format::kNoLayer) where += " (layer " + std::to_string(layer) + ")";
            notes->push_back(std::string("integer-only: calibration never saw a non-zero ") + what + " of " + where);
        }
        return symmetric_scale(absmax, top);
    }
    double input_scale(Role w, uint16_t layer, size_t part, int32_t top = 127) const {
        return scale(ranges.input[index_of(w, layer)][part], top, "input", w, layer);
    }
    double output_scale(Role w, uint16_t layer, size_t part, int32_t top = 127) const {
        return scale(ranges.output[index_of(w, layer)][part], top, "output", w, layer);
    }
    double norm_in(Role gamma, uint16_t layer) const {
        return scale(ranges.norm_input[index_of(gamma, layer)], 32767, "input", gamma, layer);
    }
    double norm_out(Role gamma, uint16_t layer) const {
        return scale(ranges.norm_output[index_of(gamma, layer)], 127, "output", gamma, layer);
    }

    void push(int32_t w) { words.push_back(w); }
    void push(fixed::Requant m) {
        push(m.multiplier);
        push(m.shift);
    }
    // Rows [first, first + out) of weight `w` with its float bias, x_scale (and zero point x_zero) in, y_scale
    // and y_zero out. The input's zero point goes into the bias: sum (q - z) w = sum q w - z sum w.
    void linear(Role w, uint16_t layer, size_t first, size_t out, double x_scale, double y_scale, int32_t lo,
                int32_t hi, int32_t x_zero = 0, int32_t y_zero = 0) {
        TensorView wv, bv;
        if (!file.find(w, layer, &wv) || wv.dtype != format::DType::i8)
            throw ToolError(std::string("internal error: integer plan: ") + format::role_name(w) + " is not int8");
        const Role bias_role = static_cast<Role>(static_cast<uint16_t>(w) + 1);
        const float* bias = file.find(bias_role, layer, &bv) ? static_cast<const float*>(bv.data) : nullptr;
        push(y_zero);
        push(lo);
        push(hi);
        const double limit = std::ldexp(1.0, 30);
        const int8_t* q = static_cast<const int8_t*>(wv.data);
        const size_t in = wv.dims[1];
        for (size_t o = first; o < first + out; ++o) {
            double b = bias ? bias[o] / (x_scale * wv.scales[o]) : 0.0;
            if (x_zero != 0) {
                int64_t sum = 0;
                for (size_t i = 0; i < in; ++i) sum += q[o * in + i];
                b -= static_cast<double>(x_zero) * static_cast<double>(sum);
            }
            push(static_cast<int32_t>(std::llround(std::fmax(-limit, std::fmin(limit, b)))));
        }
        for (size_t o = first; o < first + out; ++o) push(requant_of(x_scale * wv.scales[o] / y_scale));
    }
    void add(double a_scale, double b_scale, double y_scale) {
        push(requant_of(a_scale / y_scale));
        push(requant_of(b_scale / y_scale));
    }
    void norm(Role gamma, uint16_t layer, double x_scale, double y_scale, double eps) {
        TensorView g, b;
        file.find(gamma, layer, &g);
        file.find(static_cast<Role>(static_cast<uint16_t>(gamma) + 1), layer, &b);
        const LayerNormQ p = layer_norm_params(static_cast<const float*>(g.data), static_cast<const float*>(b.data),
                                               g.dims[0], eps, x_scale, y_scale);
        push(p.shift);
        push(static_cast<int32_t>(static_cast<uint32_t>(p.eps)));
        push(static_cast<int32_t>(static_cast<uint32_t>(p.eps >> 32)));
        for (int32_t v : p.gamma) push(v);
        for (int32_t v : p.beta) push(v);
    }
    void bytes(const std::vector<int8_t>& b) {
        const size_t start = words.size();
        words.resize(start + (b.size() + 3) / 4, 0);
        std::memcpy(words.data() + start, b.data(), b.size());
    }

    // Attention whose queries come from q_in (scale) and keys/values from kv_in; returns the output scale.
    double attention(Role in_w, uint16_t layer, size_t d, size_t nhead, double q_in, double kv_in) {
        const double s_q = output_scale(in_w, layer, 0);
        const double s_k = output_scale(in_w, layer, 1);
        const double s_v = output_scale(in_w, layer, 2);
        const Role out_w = static_cast<Role>(static_cast<uint16_t>(in_w) + 2);
        const double s_a = input_scale(out_w, layer, 0);
        const double s_o = output_scale(out_w, layer, 0);
        linear(in_w, layer, 0, d, q_in, s_q, -128, 127);
        linear(in_w, layer, d, d, kv_in, s_k, -128, 127);
        linear(in_w, layer, 2 * d, d, kv_in, s_v, -128, 127);
        linear(out_w, layer, 0, d, s_a, s_o, -128, 127);
        const double head_dim = static_cast<double>(d / nhead);
        push(requant_of(s_q * s_k / std::sqrt(head_dim) * fixed::kExpUnitsPerOne));
        push(requant_of(s_v / (32768.0 * s_a)));
        return s_o;
    }
    // The residual step and LayerNorm after a sublayer: returns the norm's output scale.
    double residual(Role gamma, uint16_t layer, double x_scale, double sub_scale, double eps) {
        const double s_sum = norm_in(gamma, layer);
        const double s_out = norm_out(gamma, layer);
        add(x_scale, sub_scale, s_sum);
        norm(gamma, layer, s_sum, s_out, eps);
        return s_out;
    }
    double feed_forward(const LayerOptions& o, Role ff1, uint16_t layer, double x_scale) {
        const Role ff2 = static_cast<Role>(static_cast<uint16_t>(ff1) + 2);
        double s_h = input_scale(ff2, layer, 0);  // after the activation
        int32_t h_zero = 0;
        if (o.activation == format::Activation::relu) {
            // ReLU's outputs are >= 0: all 256 codes for [0, max] (zero point -128), the clamp at it the ReLU.
            s_h = symmetric_scale(ranges.input[index_of(ff2, layer)][0], 255);
            h_zero = -128;
            linear(ff1, layer, 0, o.dim_feedforward, x_scale, s_h, -128, 127, 0, h_zero);
        } else {
            const double s_f = output_scale(ff1, layer, 0);
            linear(ff1, layer, 0, o.dim_feedforward, x_scale, s_f, -128, 127);
            bytes(activation_table(o.activation, s_f, s_h));
        }
        const double s_out = output_scale(ff2, layer, 0);
        linear(ff2, layer, 0, o.d_model, s_h, s_out, -128, 127, h_zero);
        return s_out;
    }
    double final_norm(Role gamma, double x_scale, double eps) {
        const double s_sum = norm_in(gamma, format::kNoLayer);
        const double s_out = norm_out(gamma, format::kNoLayer);
        add(x_scale, 1.0, s_sum);  // the second input is unused (factor of a zero row)
        words[words.size() - 2] = 0;
        words[words.size() - 1] = 0;
        norm(gamma, format::kNoLayer, s_sum, s_out, eps);
        return s_out;
    }
};

}  // namespace

void add_integer_plan(AxmModel& model, const ActivationRanges& ranges, std::vector<std::string>* notes) {
    if (model.family != format::Family::forecaster)
        throw ToolError("--integer-only takes a forecaster; this model is a " + std::string(family_name(model.family)));
    const std::unique_ptr<LoadedModel> loaded = load_model_bytes(serialize_axm(model), "integer-only model");
    const Forecaster& f = loaded->as<Forecaster>();
    const ForecasterConfig& c = f.config();
    if (const char* why = integer_mode_unsupported(c)) throw ToolError(std::string("--integer-only: ") + why);
    const LayerOptions& o = c.stack.layer;
    const size_t d = o.d_model;
    const double eps = o.eps;
    PlanWriter w{model, ranges, loaded->file, {}, notes};

    const uint16_t none = format::kNoLayer;
    double z_top = 0;
    z_top = std::fmax(z_top, ranges.input[w.index_of(Role::src_embed_weight, none)][0]);
    z_top = std::fmax(z_top, ranges.input[w.index_of(Role::tgt_embed_weight, none)][0]);
    z_top = std::fmax(z_top, ranges.output[w.index_of(Role::generator_weight, none)][0]);
    const float z_scale = static_cast<float>(symmetric_scale(z_top * kModelSpaceHeadroom, 32767));
    if (notes != nullptr) {
        char text[200];
        std::snprintf(text, sizeof text,
                      "--integer-only: model-space rows (after normalization) reached |z| = %.4g in calibration; "
                      "the int16 inputs and outputs hold |z| up to %.4g in steps of %.3g, beyond it they saturate",
                      z_top, z_top * kModelSpaceHeadroom, static_cast<double>(z_scale));
        notes->push_back(text);
    }
    uint32_t z_bits = 0;
    std::memcpy(&z_bits, &z_scale, sizeof z_bits);
    const bool src_positions = c.positions.encoder == format::PositionalEncoding::sinusoidal;
    const bool tgt_positions = c.positions.decoder == format::PositionalEncoding::sinusoidal;
    const size_t positions = src_positions || tgt_positions ? (c.max_positions != 0 ? c.max_positions : 512) : 0;
    w.push(kIntegerPlanMagic);
    w.push(kIntegerPlanVersion);
    w.push(static_cast<int32_t>(z_bits));
    w.push(static_cast<int32_t>(positions));

    // Embeddings: int16 model-space rows in; with positions, the embedding at its own scale plus the table
    // (1/127 per step) onto the first layer's input scale, else straight onto it.
    const double pe_scale = 1.0 / 127;
    const double enc_x = w.input_scale(Role::enc_attn_in_weight, 0, 0);
    const double dec_x = w.input_scale(Role::dec_attn_in_weight, 0, 0);
    const double src_e = src_positions ? w.output_scale(Role::src_embed_weight, none, 0) : enc_x;
    const double tgt_e = tgt_positions ? w.output_scale(Role::tgt_embed_weight, none, 0) : dec_x;
    w.linear(Role::src_embed_weight, none, 0, d, z_scale, src_e, -128, 127);
    w.add(src_e, pe_scale, enc_x);
    w.linear(Role::tgt_embed_weight, none, 0, d, z_scale, tgt_e, -128, 127);
    w.add(tgt_e, pe_scale, dec_x);
    if (positions != 0) {
        std::vector<float> table(positions * d, 0.0f);
        add_sinusoidal_positions(table.data(), positions, d, 0);
        std::vector<int8_t> q(table.size());
        for (size_t i = 0; i < table.size(); ++i)
            q[i] = static_cast<int8_t>(std::lround(std::fmax(-127.0, std::fmin(127.0, table[i] / pe_scale))));
        w.bytes(q);
    }

    double x = enc_x;
    for (size_t l = 0; l < c.stack.encoder_layers; ++l) {
        const uint16_t layer = static_cast<uint16_t>(l);
        const double s_o = w.attention(Role::enc_attn_in_weight, layer, d, o.nhead, x, x);
        x = w.residual(Role::enc_norm1_weight, layer, x, s_o, eps);
        const double s_f = w.feed_forward(o, Role::enc_ff1_weight, layer, x);
        x = w.residual(Role::enc_norm2_weight, layer, x, s_f, eps);
    }
    if (c.stack.encoder_final_norm) x = w.final_norm(Role::encoder_norm_weight, x, eps);
    const double memory = x;

    x = dec_x;
    for (size_t l = 0; l < c.stack.decoder_layers; ++l) {
        const uint16_t layer = static_cast<uint16_t>(l);
        double s_o = w.attention(Role::dec_attn_in_weight, layer, d, o.nhead, x, x);
        x = w.residual(Role::dec_norm1_weight, layer, x, s_o, eps);
        s_o = w.attention(Role::dec_cross_in_weight, layer, d, o.nhead, x, memory);
        x = w.residual(Role::dec_norm2_weight, layer, x, s_o, eps);
        const double s_f = w.feed_forward(o, Role::dec_ff1_weight, layer, x);
        x = w.residual(Role::dec_norm3_weight, layer, x, s_f, eps);
    }
    if (c.stack.decoder_final_norm) x = w.final_norm(Role::decoder_norm_weight, x, eps);
    w.linear(Role::generator_weight, none, 0, c.n_outputs, x, z_scale, INT16_MIN, INT16_MAX);

    AxmTensor plan;
    plan.role = Role::integer_plan;
    plan.dtype = format::DType::i32;
    plan.dims = {static_cast<uint32_t>(w.words.size())};
    plan.data.resize(w.words.size() * 4);
    for (size_t i = 0; i < w.words.size(); ++i)
        for (int b = 0; b < 4; ++b)
            plan.data[4 * i + b] = static_cast<uint8_t>(static_cast<uint32_t>(w.words[i]) >> (8 * b));
    plan.source_name = "integer plan";
    model.tensors.push_back(std::move(plan));
    model.config.emplace_back(format::ConfigKey::integer_only, 1u);
}

}  // namespace ax::tools
