#include "models/forecaster/head_block.h"

#include "models/forecaster/forecaster_config.h"
#include "runtime/activation.h"
#include "runtime/config_reader.h"

namespace ax {

using format::ConfigKey;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

Status HeadBlock::read(const ConfigRecords& f) {
    uint32_t v = 0;
    if (f.config(ConfigKey::head, &v)) AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::head, &kind));
    if (f.config(ConfigKey::head_activation, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::head_activation, &activation));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::head_hidden, 0, kMaxModelWidth, 0, &hidden));
    if (quantile()) AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::quantiles, 1, 64, &quantiles));
    if (f.config(ConfigKey::encoder_output_activation, &v)) {
        encoder_act = true;
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::encoder_output_activation, &encoder_activation));
    }
    return Status::ok();
}

Status HeadBlock::check(const ForecasterConfig& c) const {
    if (pooled() && !c.encoder_only())
        return bad("a pooled head (flatten, last_row, mean) needs an encoder-only model (decoder_layers 0)");
    if (!pooled() && hidden != 0) return bad("head_hidden needs a pooled head");
    if (quantile() && c.stacks.kind != format::LayerKind::t5) return bad("head residual_mlp needs t5 layers");
    if (kind == format::ForecastHead::flatten && c.window == 0)
        return bad("a flatten head needs the window it was trained on");
    if (encoder_act && (!c.encoder_only() || !pooled()))
        return bad("encoder_output_activation needs an encoder-only model with a pooled head");
    return Status::ok();
}

void HeadBlock::write(ConfigWriter& out) const {
    if (pooled() || quantile()) out.put_enum(ConfigKey::head, kind);
    if (quantile()) out.put_size(ConfigKey::quantiles, quantiles);
    if (hidden != 0) {
        out.put_size(ConfigKey::head_hidden, hidden);
        out.put_enum(ConfigKey::head_activation, activation);
    }
    if (encoder_act) out.put_enum(ConfigKey::encoder_output_activation, encoder_activation);
}

Status HeadWeights::bind(TensorBinder& b, const ForecasterConfig& c) {
    const HeadBlock& block = c.head;
    const uint16_t none = format::kNoLayer;
    if (block.quantile()) {
        const float* levels = nullptr;
        AX_RETURN_IF_ERROR(bind_quantile_levels(b, c, &levels));
        ResidualMlpWeights mlp;
        return bind_head_mlp(b, c, &mlp);
    }
    // A pooled head reads one row: the window flattened, the last row or the mean; a hidden Linear may come
    // first. Its last Linear gives every horizon step's outputs at once.
    size_t in = block.input_width(c.encoder_rows(c.window), c.stack.layer.d_model);
    if (block.hidden != 0) {
        AX_RETURN_IF_ERROR(
            b.linear(format::Role::head_weight, format::Role::head_bias, none, block.hidden, in, &hidden));
        in = block.hidden;
    }
    // Patched: the head gives one column's horizon at a time.
    const size_t out = block.pooled() ? c.horizon * (c.input.patched() ? 1 : c.n_outputs) : c.n_outputs;
    return b.linear(format::Role::generator_weight, format::Role::generator_bias, none, out, in, &generator);
}

Status bind_quantile_levels(TensorBinder& b, const ForecasterConfig& c, const float** out) {
    const float* levels = nullptr;
    AX_RETURN_IF_ERROR(b.vector(format::Role::quantile_levels, 0, c.head.quantiles, &levels));
    for (size_t i = 0; i < c.head.quantiles; ++i)
        if (!(levels[i] > 0.0f && levels[i] < 1.0f) || (i > 0 && !(levels[i] > levels[i - 1])))
            return bad("the quantile levels must rise within (0, 1)");
    *out = levels;
    return Status::ok();
}

Status bind_head_mlp(TensorBinder& b, const ForecasterConfig& c, ResidualMlpWeights* out) {
    return bind_residual_mlp(b, 1, c.stack.layer.d_model, c.stack.layer.dim_feedforward, c.head.quantiles * c.horizon,
                             c.stack.layer.activation, out);
}

void HeadBuffers::allocate_rows(MemoryPlan& plan, const ForecasterConfig& c) {
    // Patched: the pooled row, the hidden one and one column's horizon.
    x = plan.alloc<float>("head: pooled and hidden rows",
                          uint64_t{c.stack.layer.d_model} + c.head.hidden + (c.input.patched() ? c.horizon : 0),
                          Phase::decode, Phase::decode);
}

void HeadBuffers::allocate_quant(MemoryPlan& plan, const ForecasterConfig& c) {
    const size_t d = c.stack.layer.d_model;
    const size_t in = c.head.pooled() ? c.head.input_width(c.encoder_rows(c.window), d) : d;
    quant.rows = 1;
    quant.q =
        plan.alloc<int8_t>("head: int8 input", in > c.head.hidden ? in : c.head.hidden, Phase::decode, Phase::decode);
    quant.scales = plan.alloc<float>("head: input scale", 1, Phase::decode, Phase::decode);
}

void pooled_head(const Kernels& k, const HeadBlock& block, const HeadWeights& w, float* encoded, size_t rows, size_t d,
                 const HeadBuffers& b, float* out) {
    // An activation on the encoder's output before the head (mvts_transformer's act(output)), in place.
    if (block.encoder_act) activate(k, block.encoder_activation, encoded, rows * d);
    const float* in = encoded;  // flatten: the rows back to back are the [rows x d] vector
    if (block.kind == format::ForecastHead::last_row) {
        in = encoded + (rows - 1) * d;
    } else if (block.kind == format::ForecastHead::mean) {
        float* mean = b.x;
        for (size_t j = 0; j < d; ++j) mean[j] = 0.0f;
        for (size_t r = 0; r < rows; ++r) k.add_f32(mean, encoded + r * d, d);
        const float inv = 1.0f / static_cast<float>(rows);
        for (size_t j = 0; j < d; ++j) mean[j] *= inv;
        in = mean;
    }
    if (block.hidden != 0) {
        float* hidden = b.x + d;
        linear_forward(k, w.hidden, in, 1, hidden, b.quant);
        activate(k, block.activation, hidden, block.hidden);
        in = hidden;
    }
    linear_forward(k, w.generator, in, 1, out, b.quant);
}

}  // namespace ax
