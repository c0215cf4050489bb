// The head block: what turns the encoder's or the decoder's rows into outputs. A per-row generator Linear
// (the default: one output row per decoder row, or per encoder row of an encoder-only model), or a pooled
// head over the encoded window: the rows flattened, the last row or their mean, an optional activation on the
// encoder's rows first, an optional hidden Linear and activation, then a Linear giving every step's outputs.
// Or residual_mlp (Chronos-Bolt's): the decoder's one row through a residual MLP to quantiles x horizon values.
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/linear.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/residual_mlp.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"

namespace ax {

struct ForecasterConfig;

struct HeadBlock {
    format::ForecastHead kind = format::ForecastHead::generator;
    size_t hidden = 0;                                         // pooled heads: width of the hidden Linear, 0 = none
    format::Activation activation = format::Activation::relu;  // after the hidden Linear
    bool encoder_act = false;  // an activation on the encoder's rows before a pooled head
    format::Activation encoder_activation = format::Activation::relu;
    size_t quantiles = 0;  // residual_mlp: quantile levels per step

    bool pooled() const {
        return kind != format::ForecastHead::generator && kind != format::ForecastHead::residual_mlp;
    }
    bool quantile() const { return kind == format::ForecastHead::residual_mlp; }
    // What the pooled head reads: the flattened window of encoder_rows rows, else one d-wide row.
    size_t input_width(size_t encoder_rows, size_t d) const {
        return kind == format::ForecastHead::flatten ? encoder_rows * d : d;
    }

    // Records: head, head_hidden, head_activation, encoder_output_activation; residual_mlp: quantiles.
    Status read(const ConfigRecords& f);
    Status check(const ForecasterConfig& c) const;
    void write(ConfigWriter& out) const;
};

struct HeadWeights {
    Linear hidden;     // pooled heads with a hidden layer
    Linear generator;  // the last Linear (per row, or every step's outputs at once)
    Status bind(TensorBinder& b, const ForecasterConfig& c);
};

// residual_mlp's MLP, d_model -> quantiles x horizon, and its levels ([quantiles], rising in (0, 1)): bound by
// a session into its arena, checked by HeadWeights::bind.
Status bind_head_mlp(TensorBinder& b, const ForecasterConfig& c, ResidualMlpWeights* out);
Status bind_quantile_levels(TensorBinder& b, const ForecasterConfig& c, const float** out);

// The head's buffers in a session.
struct HeadBuffers {
    float* x = nullptr;  // [d + hidden (+ a patched column's horizon)]: the pooled row, the hidden one
    QuantScratch quant;  // one row as wide as the head's widest input

    // An encoder-only model's head, live while decoding: a pooled head's rows (x), then the int8 row of the
    // head's widest input (a pooled head's, or the per-row generator's d_model).
    void allocate_rows(MemoryPlan& plan, const ForecasterConfig& c);
    void allocate_quant(MemoryPlan& plan, const ForecasterConfig& c);
};

// The pooled head over `rows` encoded rows (encoder_act applied in place): out gets the last Linear's outputs.
void pooled_head(const Kernels& k, const HeadBlock& block, const HeadWeights& w, float* encoded, size_t rows, size_t d,
                 const HeadBuffers& b, float* out);

}  // namespace ax
