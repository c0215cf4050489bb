// The input block: how a row of input values becomes a d_model-wide row before positions. A Linear (the
// default), none (the rows are d_model wide already), a broadcast of one value, a token convolution over each
// row and its neighbours (circular, as Informer's TokenEmbedding), or patches of one column's window
// (PatchTST: each column through the encoder on its own). A scale may follow (sqrt(d_model) in some models).
// Or patch_mlp (Chronos-Bolt's): the window left-padded with missing values to whole patches, each patch's
// values and mask through a residual MLP, then a token row (reg_token) appended.
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/linear.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/parallel.h"
#include "runtime/residual_mlp.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"

namespace ax {

struct ForecasterConfig;

struct InputBlock {
    format::InputEmbedding kind = format::InputEmbedding::linear;
    float scale = 1.0f;  // embed_scale
    // Patched: each column's window cut into patches of patch_len steps, patch_stride apart (after patch_stride
    // copies of the last value when patch_pad), each patch one token.
    size_t patch_len = 0;  // 0: not patched
    size_t patch_stride = 0;
    bool patch_pad = false;
    uint32_t reg_token = format::kNoToken;  // patch_mlp: the token row appended after the patches

    bool token_conv() const { return kind == format::InputEmbedding::token_conv; }
    bool patch_mlp() const { return kind == format::InputEmbedding::patch_mlp; }
    // Each column's window cut into patches through the input Linear (patch_mlp is patched on its own terms).
    bool patched() const { return patch_len != 0 && !patch_mlp(); }
    bool has_reg_token() const { return reg_token != format::kNoToken; }
    // Values per row the embedding reads for rows of `columns` inputs (the last time_marks of them marks):
    // token_conv's three neighbours' values and the marks.
    size_t width(size_t columns, size_t time_marks) const {
        return token_conv() ? 3 * (columns - time_marks) + time_marks : columns;
    }
    // Encoder rows for a window of `rows` input rows: the patches' count when patched (0: too short); patch_mlp:
    // the left-padded patches and the token row.
    size_t encoder_rows(size_t rows) const;
    // Steps of one column's window once padded for patching.
    size_t padded_rows(size_t rows) const { return rows + (patch_pad ? patch_stride : 0); }

    // Records: input_embedding, embed_scale, patch_len, patch_stride, patch_padding; patch_mlp: patch_len,
    // reg_token.
    Status read(const ConfigRecords& f);
    Status check(const ForecasterConfig& c) const;
    void write(ConfigWriter& out) const;
};

struct InputWeights {
    Linear src, tgt;  // the encoder's and the decoder's input Linear (none when the kind has none)
    Status bind(TensorBinder& b, const ForecasterConfig& c);
};

// patch_mlp's residual MLP, [2 patch_len] -> d_model, and its token rows (reg_token, the decoder's start),
// [rows, d_model]: bound by a session into its arena, checked by InputWeights::bind.
Status bind_input_mlp(TensorBinder& b, const ForecasterConfig& c, ResidualMlpWeights* out);
Status bind_token_rows(TensorBinder& b, const ForecasterConfig& c, const float** out);

// The block's buffers in a session: token_conv's neighbour rows, patching's column and patches.
struct InputBuffers {
    float* conv_src = nullptr;  // token_conv: the window's embedding inputs, [max_window, embed_width(n)]
    float* conv_dec = nullptr;  // token_conv: a decoder tile's, [tile, embed_width(decoder_features)]
    float* series = nullptr;    // patched: one column's window and its padding
    float* patches = nullptr;   // patched: its patches, [encoder rows, patch_len]

    void allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window);
    void allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile);
};

// Rows of `in` (each `linear`'s input width wide, or d_model / one value for none / broadcast) to d_model-wide
// rows x, times the block's scale. `linear` without weights takes the block's kind.
void embed_input(const Kernels& k, const InputBlock& block, const Linear& linear, const float* in, size_t rows,
                 size_t d, float* x, const QuantScratch& quant);
// Rows [first, first + n) of a sequence of seq_rows rows of `columns` values as token_conv reads them: the
// values of the row before (wrapping around, as circular padding does), the row and the row after, then the
// row's time marks.
void conv_rows(size_t time_marks, const float* seq, size_t seq_rows, size_t columns, size_t first, size_t n,
               float* out);
// Column `column` of a window (n_features wide) cut into the block's patches, [encoder_rows(rows), patch_len];
// `series` holds the padded column on the way.
void cut_patches(const InputBlock& block, const float* src, size_t rows, size_t n_features, size_t column,
                 float* series, float* patches);

}  // namespace ax
