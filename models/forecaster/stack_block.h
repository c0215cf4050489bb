// The forecaster's options of its two Transformer stacks (runtime/transformer_stack.h runs them): the
// encoder's mask (none or causal), the decoder's (causal, or none: every row attends to every other), the
// decoder's memory mask (none, or tril: row t sees encoder rows up to t), and a residual around a whole
// stack (x + encoder(x), y + decoder(y, memory), the embedded rows added back). The layers of both stacks are
// torch's (runtime/transformer_stack.h) or T5's (runtime/t5_layer.h: RMS norms, unscaled attention of
// head_dim columns per head, relative position bias, a final RMS norm per stack).
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/t5_layer.h"
#include "runtime/tensor_binding.h"
#include "runtime/transformer_stack.h"

namespace ax {

struct ForecasterConfig;

struct StackBlock {
    format::MemoryMask memory_mask = format::MemoryMask::none;
    bool encoder_residual = false;
    bool decoder_residual = false;
    bool gated = false;  // t5: the gated feed-forward (gated_feed_forward)
    format::LayerKind kind = format::LayerKind::torch;
    size_t head_dim = 0;  // t5: attention columns per head

    bool tril() const { return memory_mask == format::MemoryMask::tril; }

    // Records: memory_mask, encoder_mask, decoder_mask (into the stack's causal flags), encoder_residual,
    // decoder_residual; layer_kind and (t5) head_dim, gated_feed_forward.
    Status read(const ConfigRecords& f, StackConfig* stack);
    Status check(const ForecasterConfig& c) const;
    void write(const StackConfig& stack, ConfigWriter& out) const;
};

// T5 layers' options from the description (the stack's sizes, the positions' buckets).
T5StackOptions t5_options(const ForecasterConfig& c);
// T5 layers' final RMS norms (their weights in the norms' gamma) and every layer bound once, so that a session's
// binding cannot fail (the layers' tables are the session's, in its arena).
Status bind_t5_stacks(TensorBinder& b, const ForecasterConfig& c, LayerNormWeights* encoder_norm,
                      LayerNormWeights* decoder_norm);
// T5 layer `layer` of the encoder (or the decoder) bound in place; `out` may be a scratch copy (to check).
Status bind_t5_encoder_layer(TensorBinder& b, const T5StackOptions& o, size_t layer, T5EncoderLayerWeights* out);
Status bind_t5_decoder_layer(TensorBinder& b, const T5StackOptions& o, size_t layer, T5DecoderLayerWeights* out);

// The residuals' buffers: the embedded rows a stack's output is added to.
struct StackBuffers {
    float* encoder_in = nullptr;  // [encoder rows, d]
    float* decoder_in = nullptr;  // a decoder tile's, [tile, d]

    void allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t encoder_rows);
    void allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile);
};

}  // namespace ax
