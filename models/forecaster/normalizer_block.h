// The normalizer block: how a window's values become the model's units and its outputs come back. Two kinds
// may stand together: stored per-column statistics (the author's StandardScaler, applied outside the model's
// forward) and RevIN (inside the forward, per window). Or instance normalization (Chronos-Bolt's: each window's
// own NaN-aware mean and population std, runtime/instance_norm.h, computed by the quantile loop of
// models/forecaster/chronos_bolt.h).
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"

namespace ax {

struct ForecasterConfig;
class Forecaster;

struct NormalizerBlock {
    // global: (x - mean) / scale with stored per-column statistics; last_value: offset by the window's last row.
    format::Normalization kind = format::Normalization::none;
    format::Revin revin = format::Revin::none;
    float revin_eps = 1e-5f;
    bool subtract_last = false;  // RevIN offsets by the window's last value, not its mean (PatchTST's option)

    bool stored() const { return kind == format::Normalization::global || kind == format::Normalization::last_value; }
    bool instance() const { return kind == format::Normalization::instance; }
    bool revin_on() const { return revin != format::Revin::none; }

    // Records: normalization, revin, revin_eps, subtract_last.
    Status read(const ConfigRecords& f);
    // The one message a user sees for a combination the block cannot run.
    Status check(const ForecasterConfig& c) const;
    void write(ConfigWriter& out) const;
};

struct NormalizerWeights {
    const float* mean = nullptr;  // global: per input column
    const float* scale = nullptr;
    const float* revin_weight = nullptr;  // RevIN affine, per input column
    const float* revin_bias = nullptr;

    Status bind(TensorBinder& b, const ForecasterConfig& c);
};

// The per-window state: the last observed row (last_value's offset) and RevIN's statistics.
struct NormalizerState {
    float* reference = nullptr;    // [n_features]
    float* revin_stats = nullptr;  // [2, n_features]: each column's offset (window mean or last value) and std

    void allocate(MemoryPlan& plan, const ForecasterConfig& c);
};

// Stored normalization of one value of input column `column` (NormalizerBlock::stored()).
float to_model_units(const Forecaster& m, const NormalizerState& s, float v, size_t column);
// Whole rows of every input column; decoder rows (decoder_features wide); output rows (n_outputs wide) back,
// each with the column it predicts.
void normalize_rows(const Forecaster& m, const NormalizerState& s, const float* x, size_t rows, float* z);
void normalize_decoder_rows(const Forecaster& m, const NormalizerState& s, const float* x, size_t rows, float* z);
void denormalize_outputs(const Forecaster& m, const NormalizerState& s, float* y, size_t rows);
// RevIN over the window, column by column (PyTorch's mean and var(unbiased=False) in float32), and back.
void revin_normalize(const Forecaster& m, NormalizerState& s, const float* x, size_t rows, float* z);
void revin_denormalize(const Forecaster& m, const NormalizerState& s, float* y, size_t rows);

}  // namespace ax
