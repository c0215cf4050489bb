// Chronos-Bolt's forecast (amazon-science/chronos-forecasting), assembled from the runtime's blocks: instance
// normalization of the context (runtime/instance_norm.h), patches with their mask channel
// (runtime/patch_rows.h) through the residual-MLP embedding (runtime/residual_mlp.h), a [REG] token, the T5
// encoder, one decoder step from the start token (runtime/t5_layer.h), the residual-MLP head to quantiles x
// steps, de-normalized. Past the model's own horizon, the pipeline's rule: each quantile row of the last block
// is appended to its own copy of the context, and the quantiles x quantiles paths of the next block are
// reduced to the quantile levels (linear interpolation, as torch.quantile). Missing values (NaN) may sit
// anywhere in the context. Freestanding: the caller hands in all working memory.
#pragma once
#include <cstddef>

#include "runtime/kernels.h"
#include "runtime/residual_mlp.h"
#include "runtime/t5_layer.h"

namespace ax {

struct ChronosBoltShape {
    T5StackOptions stack;
    size_t encoder_layers = 0;
    size_t decoder_layers = 0;
    size_t context_length = 512;  // longer contexts are cut to their last context_length values
    size_t patch_size = 16;
    size_t prediction_length = 64;  // steps of one model call
    size_t quantiles = 9;
    bool reg_token = true;
    size_t start_token = 0;  // rows of `shared`
    size_t reg_token_id = 1;
    size_t patches() const { return (context_length + patch_size - 1) / patch_size; }
    size_t encoder_rows() const { return patches() + (reg_token ? 1 : 0); }
};

struct ChronosBoltWeights {
    ChronosBoltShape shape;
    const float* quantile_levels = nullptr;  // [quantiles], rising
    const float* shared = nullptr;           // [vocabulary, d_model]
    ResidualMlpWeights input;                // 2 * patch_size -> d_model
    ResidualMlpWeights head;                 // d_model -> quantiles * prediction_length
    const float* encoder_bias = nullptr;     // [num_buckets, nhead]
    const float* decoder_bias = nullptr;
    const T5EncoderLayerWeights* encoder = nullptr;  // [encoder_layers]
    const float* encoder_norm = nullptr;
    const T5DecoderLayerWeights* decoder = nullptr;  // [decoder_layers]
    const float* decoder_norm = nullptr;
};

// Working floats of one model call, and of a forecast of `horizon` steps (one call's and, past
// prediction_length, the contexts and paths of the extension).
size_t chronos_bolt_forward_floats(const ChronosBoltShape& s);
size_t chronos_bolt_forecast_floats(const ChronosBoltShape& s, size_t horizon);

// One model call: out [quantiles, prediction_length] from the context's last context_length values.
void chronos_bolt_forward(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                          float* out, float* work);
// The forecast: out [quantiles, horizon] (row q the quantile_levels[q] forecast).
void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                           size_t horizon, float* out, float* work);

// torch.quantile's linear interpolation of level q over n values sorted ascending.
float sorted_quantile(const float* sorted, size_t n, float q);

}  // namespace ax
