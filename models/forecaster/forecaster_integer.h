// The forecaster in the integer-only mode (docs/integer-only.md): the step-by-step encoder-decoder with
// post-norm layers, its parameters the integers of the model's integer plan (Role::integer_plan, written by
// `auspex convert --integer-only`), its weights the file's int8 matrices, its caches int8. The integer core
// (forecast_q) takes and returns model-space rows as int16 at the plan's input scale and runs no float
// operation; forecast() wraps it with the model's normalization in float at the input and output only.
//
// The plan is a sequence of int32 words in the order below (docs/integer-only.md, "The integer plan");
// the writer is tools/convert/integer_plan.cpp. A LinearQ record is zero, lo, hi, bias[out], then out
// (multiplier, shift) pairs; a LayerNormQ record shift, eps (low word, high word), gamma[d], beta[d]; an
// AddQ record two pairs; an attention record the q, k, v and output LinearQ records, then the softmax and
// value factors.
//   magic "AXIQ", version, z_scale (float32 bits: model units per int16 step), position rows P
//   source embedding (LinearQ, int16 in), its AddQ with the positions; decoder embedding and its AddQ
//   positions: P x d int8 (sinusoidal at 1/127; P = 0 without positions), padded to whole words
//   per encoder layer: attention, AddQ, LayerNormQ, ff1, [256-byte activation table unless ReLU], ff2,
//   AddQ, LayerNormQ; [encoder final norm: AddQ, LayerNormQ]
//   per decoder layer: self-attention, AddQ, LayerNormQ, cross-attention, AddQ, LayerNormQ, ff1, [table],
//   ff2, AddQ, LayerNormQ; [decoder final norm: AddQ, LayerNormQ]; generator (LinearQ, int16 out)
#pragma once
#include <cstddef>
#include <cstdint>

#include "models/forecaster/forecaster.h"
#include "runtime/integer_kernels.h"
#include "runtime/integer_layer.h"

namespace ax {

constexpr int32_t kIntegerPlanMagic = 0x51495841;  // "AXIQ"
constexpr int32_t kIntegerPlanVersion = 1;

// Why a forecaster cannot run integer-only, or nullptr when it can (the converter refuses with it too).
const char* integer_mode_unsupported(const ForecasterConfig& c);

class IntegerForecaster {
public:
    // `model` (opened, outliving this) must hold an integer plan; every word of it is checked here.
    static Status open(const Forecaster& model, IntegerForecaster* out);

    const Forecaster& model() const { return *model_; }
    const ForecasterConfig& config() const { return model_->config(); }
    // Exact arena bytes of a session for windows up to max_window and horizons up to max_horizon.
    size_t arena_bytes(size_t max_window, size_t max_horizon) const;

private:
    friend class IntegerForecastSession;
    const Forecaster* model_ = nullptr;
    uint32_t z_scale_bits_ = 0;
    size_t positions_ = 0;
    // Word offsets of the plan's sections.
    size_t src_embed_ = 0, tgt_embed_ = 0, position_table_ = 0, encoder_ = 0, decoder_ = 0, generator_ = 0;
};

struct IntegerForecastLayout {
    int16_t* src_z = nullptr;  // [max_window, n_features]
    int16_t* tgt_z = nullptr;  // [max_horizon + 1, decoder_features]: decoder inputs, then predictions
    // With inputs known ahead only (a covariate decoder): the predictions [max_horizon, n_outputs] and each
    // step's known inputs as decoder rows [max_horizon, decoder_features], both model space.
    int16_t* predictions = nullptr;
    int16_t* known_z = nullptr;
    int8_t* memory = nullptr;  // [max_window, d]
    int8_t* dec_x = nullptr;   // [tile, d]
    LayerScratchQ encoder_scratch;
    LayerScratchQ decoder_scratch;
    KvCacheQ* self_cache = nullptr;  // one per decoder layer
    KvCacheQ* cross_cache = nullptr;
    float* reference = nullptr;  // [n_features]: the last observed row (float wrapper)

    void allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window, size_t max_horizon);
};

class IntegerForecastSession {
public:
    Status init(const IntegerForecaster& model, const IntegerKernels& kernels, void* arena, size_t arena_bytes,
                size_t max_window, size_t max_horizon);

    // The integer core: `rows` model-space rows (int16 at the plan's z scale) in, horizon rows of n_outputs out,
    // step by step through the int8 key/value caches. A decoder reading inputs known ahead takes them from
    // `known`: horizon - 1 model-space decoder rows (decoder_features wide; only the known columns are read).
    Status forecast_q(const int16_t* z, size_t rows, size_t horizon, int16_t* out, const int16_t* known = nullptr);
    // One teacher-forced pass in model space: out gets tgt_rows rows.
    Status run_q(const int16_t* src, size_t src_rows, const int16_t* tgt, size_t tgt_rows, int16_t* out);

    // Float at the edges: the history in raw units normalized and rounded to int16, the forecast scaled and
    // denormalized back (horizon x n_outputs raw values). `future` as ForecastSession::forecast's: rows laid out
    // like the history's holding the inputs known ahead at each step's time (horizon - 1 of them).
    Status forecast(const float* history, size_t rows, size_t horizon, float* out, const float* future = nullptr,
                    size_t future_rows = 0);
    // forward(src, tgt) as ForecastSession::run, in either input space.
    Status run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space, float* out);

private:
    void encode(const int16_t* z, size_t rows);
    void decode(const int16_t* tgt, size_t rows, size_t first, int16_t* out);
    void embed(size_t section, const int16_t* z, size_t rows, size_t first, int8_t* x) const;
    // Rows of every input column, of the decoder's columns, or of the outputs; each value is normalized as its
    // input column (offsets: the stored mean or layout_.reference, the last observed row).
    enum class Columns { inputs, decoder, outputs };
    size_t column_of(Columns columns, size_t j) const;
    size_t width_of(Columns columns) const;
    int16_t to_z(float v, size_t column, bool normalize) const;
    void to_model(const float* x, size_t rows, Columns columns, bool normalize, int16_t* z) const;
    void from_model(const int16_t* z, size_t rows, bool normalize, float* y) const;  // n_outputs wide

    const IntegerForecaster* model_ = nullptr;
    const IntegerKernels* k_ = nullptr;
    size_t max_window_ = 0;
    size_t max_horizon_ = 0;
    size_t mem_rows_ = 0;
    IntegerForecastLayout layout_;
    // Per section of the plan, the record where its first weight was found last (the plan reader's search starts
    // there).
    enum { kSrcEmbedHint, kTgtEmbedHint, kEncoderHint, kDecoderHint, kGeneratorHint, kSectionHints };
    mutable uint32_t section_hints_[kSectionHints] = {};
};

}  // namespace ax
