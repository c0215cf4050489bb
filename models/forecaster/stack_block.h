// The forecaster's options of its two Transformer stacks (runtime/transformer_stack.h runs them): the
// encoder's mask (none or causal), the decoder's (causal, or none: every row attends to every other), the
// decoder's memory mask (none, or tril: row t sees encoder rows up to t), and a residual around a whole
// stack (x + encoder(x), y + decoder(y, memory), the embedded rows added back).
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/transformer_stack.h"

namespace ax {

struct ForecasterConfig;

struct StackBlock {
    format::MemoryMask memory_mask = format::MemoryMask::none;
    bool encoder_residual = false;
    bool decoder_residual = false;

    bool tril() const { return memory_mask == format::MemoryMask::tril; }

    // Records: memory_mask, encoder_mask, decoder_mask (into the stack's causal flags), encoder_residual,
    // decoder_residual.
    Status read(const ConfigRecords& f, StackConfig* stack);
    Status check(const ForecasterConfig& c) const;
    void write(const StackConfig& stack, ConfigWriter& out) const;
};

// The residuals' buffers: the embedded rows a stack's output is added to.
struct StackBuffers {
    float* encoder_in = nullptr;  // [encoder rows, d]
    float* decoder_in = nullptr;  // a decoder tile's, [tile, d]

    void allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t encoder_rows);
    void allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile);
};

}  // namespace ax
