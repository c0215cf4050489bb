// The positions block: what is added to each embedded row for its place in the sequence, per side (the
// encoder's rows, the decoder's): nothing, the sinusoidal table of "Attention Is All You Need", or a learned
// table of max_positions rows. Or relative (T5's): nothing is added to the rows; each stack's attention adds a
// per-head bias by bucketed distance from a [relative_buckets, nhead] table its layers share
// (runtime/relative_position.h), bidirectional in the encoder and causal in the decoder.
#pragma once
#include <cstddef>

#include "runtime/embedding.h"
#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/model_file.h"
#include "runtime/parallel.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"

namespace ax {

struct ForecasterConfig;

struct PositionsBlock {
    format::PositionalEncoding encoder = format::PositionalEncoding::none;
    format::PositionalEncoding decoder = format::PositionalEncoding::none;
    size_t buckets = 0;  // relative: relative_buckets, relative_max_distance
    size_t max_distance = 0;

    bool relative() const { return encoder == format::PositionalEncoding::relative; }

    // Records: positional_encoding, decoder_positional_encoding (absent: the encoder's), max_positions (the
    // table's rows, into the config's lengths); relative: relative_buckets, relative_max_distance.
    Status read(const ConfigRecords& f, size_t d_model, size_t* max_positions);
    Status check(const ForecasterConfig& c) const;
    void write(ConfigWriter& out) const;
};

struct PositionsWeights {
    EmbeddingTable src, tgt;  // learned tables
    Status bind(TensorBinder& b, const ForecasterConfig& c);
};

// relative: each stack's [buckets, nhead] table (bound by a session into its arena, checked by bind).
Status bind_relative_bias(TensorBinder& b, const ForecasterConfig& c, const float** encoder, const float** decoder);

enum class Side { encoder, decoder };

// Adds the side's positions first.. to `rows` d-wide rows of x.
void add_positions(const Kernels& k, const PositionsBlock& block, const PositionsWeights& w, Side side, float* x,
                   size_t rows, size_t first, size_t d, const ParallelFor* parallel);

}  // namespace ax
