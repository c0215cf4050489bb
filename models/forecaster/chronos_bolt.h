// Chronos-Bolt's forecast (amazon-science/chronos-forecasting), assembled from the runtime's blocks: instance
// normalization of the context (runtime/instance_norm.h), patches with their mask channel
// (runtime/patch_rows.h) through the residual-MLP embedding (runtime/residual_mlp.h), a [REG] token, the T5
// encoder, one decoder step from the start token (runtime/t5_layer.h), the residual-MLP head to quantiles x
// steps, de-normalized. Past the model's own horizon, the pipeline's rule: each quantile row of the last block
// is appended to its own copy of the context, and the quantiles x quantiles paths of the next block are
// reduced to the quantile levels (linear interpolation, as torch.quantile). Missing values (NaN) may sit
// anywhere in the context. Freestanding: the caller hands in all working memory, planned by lifetimes
// (ChronosBoltBuffers). The forecaster's session runs this loop for a description of Chronos-Bolt's blocks
// (models/forecaster/forecaster.h, ForecastLoop::quantile_paths); the flat-memory entry points below serve code
// written against a bound ChronosBoltWeights (models/forecaster/chronos_bolt_file.h).
#pragma once
#include <cstddef>

#include "runtime/kernels.h"
#include "runtime/memory_plan.h"
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

// kArenaRecordBytes: the forecaster's session keeps both structs in its arena (MemoryPlan::alloc_records).
struct ChronosBoltWeights {
    static constexpr size_t kArenaRecordBytes = 512;
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

// The working memory of a forecast from contexts of up to `context` values (at most the shape's
// context_length): one model call's buffers, by block, and past prediction_length the extension's.
struct ChronosBoltBuffers {
    static constexpr size_t kArenaRecordBytes = 128;
    size_t context = 0;         // the longest context the buffers hold
    size_t rows = 0;            // its encoder rows (patches and the [REG] token)
    float* normed = nullptr;    // normalizer: the normalized context, [context]
    float* patches = nullptr;   // input: [patches, 2 * patch_size], values then mask
    uint8_t* valid = nullptr;   // input: which encoder rows hold an observed value, [rows]
    float* x = nullptr;         // stack: the encoder rows, [rows, d_model]
    float* hidden = nullptr;    // input and head MLPs: [kT5TileRows, d_ff]
    float* tmp = nullptr;       // [max(kT5TileRows * d_model, quantiles * prediction_length)]
    float* y = nullptr;         // decoding: the decoder's row, [d_model]
    float* t5 = nullptr;        // stack: t5_scratch_floats for `rows` rows and keys
    float* last = nullptr;      // loop: the last call's quantile rows, [quantiles, prediction_length]
    float* contexts = nullptr;  // loop, extension: each quantile's context, [quantiles, context_length]
    float* paths = nullptr;     // extension: the next call's paths, [quantiles^2, prediction_length]
    float* column = nullptr;    // extension: one step's paths sorted, [quantiles^2]

    // Plans (or places) them; extension: room for forecasts past prediction_length (the context then grows to
    // context_length whatever its first length). Plan: a MemoryPlan (lifetimes shared), or the flat entry
    // points' carver below (one after another, no planner on the stack).
    template <class Plan>
    void allocate(Plan& plan, const ChronosBoltShape& s, size_t context, bool extension);
};

// One model call: out [quantiles, prediction_length] from the context's last context_length values (at most
// b.context of them).
void chronos_bolt_forward(const Kernels& k, const ChronosBoltWeights& w, const ChronosBoltBuffers& b,
                          const float* context, size_t length, float* out);
// The forecast: out [quantiles, horizon] (row q the quantile_levels[q] forecast); past prediction_length the
// buffers must have been planned with `extension`.
void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const ChronosBoltBuffers& b,
                           const float* context, size_t length, size_t horizon, float* out);

// The same over a flat float array: chronos_bolt_forecast_floats(s, horizon) floats (the buffers planned for
// the whole context_length, and 16-byte alignment), 0 when the plan overflows.
size_t chronos_bolt_forecast_floats(const ChronosBoltShape& s, size_t horizon);
void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                           size_t horizon, float* out, float* work);

// torch.quantile's linear interpolation of level q over n values sorted ascending.
float sorted_quantile(const float* sorted, size_t n, float q);

}  // namespace ax
