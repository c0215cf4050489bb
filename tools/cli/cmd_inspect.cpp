#include <cstdio>
#include <string>

#include "tools/cli/commands.h"
#include "tools/model_loader.h"
#include "tools/quantize.h"

namespace ax::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string tensor_name(const TensorView& v) {
    std::string name = format::role_name(v.role);
    const size_t at = name.find("{}");
    if (at != std::string::npos) name.replace(at, 2, std::to_string(v.layer));
    return name;
}

}  // namespace

int cmd_inspect(const Argv& argv) {
    const Args args(argv, {"window", "horizon"}, {});
    args.expect_positionals(1, "one model (.axm)");
    const size_t window = args.get_size("window", 96, 1, kMaxSequenceLength);
    const size_t horizon = args.get_size("horizon", 24, 1, kMaxSequenceLength);
    const auto m = tools::load_model(args.positionals()[0]);
    const ForecasterConfig& c = m->forecaster.config();
    const LayerOptions& l = c.layer;
    std::printf("model:    %s (%llu bytes, format v%u, checksum ok)\n", m->path.c_str(),
                static_cast<unsigned long long>(m->file.file_size()), format::kVersion);
    std::printf("family:   forecaster\n");
    std::printf("shape:    d_model %zu, nhead %zu, dim_feedforward %zu, encoder_layers %zu, decoder_layers %zu\n",
                l.d_model, l.nhead, l.dim_feedforward, c.encoder_layers, c.decoder_layers);
    std::printf("io:       n_features %zu, n_outputs %zu\n", c.n_features, c.n_outputs);
    std::printf("layers:   %s, activation %s, layer_norm_eps %g, final norms: encoder %s, decoder %s\n",
                l.norm_first ? "pre-norm (norm_first)" : "post-norm", l.activation == format::Activation::gelu ? "gelu" : "relu",
                static_cast<double>(l.eps), yes_no(c.encoder_final_norm), yes_no(c.decoder_final_norm));
    const char* norm = c.normalization == format::Normalization::global       ? "global"
                       : c.normalization == format::Normalization::last_value ? "last_value"
                                                                              : "none";
    std::printf("inputs:   positional_encoding %s, memory_mask %s, normalization %s\n",
                c.positional_encoding == format::PositionalEncoding::sinusoidal ? "sinusoidal" : "none",
                c.memory_mask == format::MemoryMask::tril ? "tril" : "none", norm);
    uint64_t params = 0, weight_bytes = 0;
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        params += v.numel;
        weight_bytes += v.data_bytes + (v.dtype == format::DType::i8 ? v.dims[0] * 4ull : 0);
    }
    std::printf("tensors:  %u, %llu parameters, %llu bytes of data\n", m->file.tensor_count(),
                static_cast<unsigned long long>(params), static_cast<unsigned long long>(weight_bytes));
    std::printf("arena:    %zu bytes for window %zu, horizon %zu (set with --window, --horizon)\n",
                m->forecaster.arena_bytes(window, horizon), window, horizon);
    std::printf("\n%-52s %-5s %-14s %10s %10s\n", "tensor", "dtype", "shape", "offset", "bytes");
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        std::string shape = "[";
        for (uint32_t d = 0; d < v.rank; ++d) shape += (d ? ", " : "") + std::to_string(v.dims[d]);
        shape += "]";
        std::printf("%-52s %-5s %-14s %10llu %10llu\n", tensor_name(v).c_str(), tools::dtype_name(v.dtype),
                    shape.c_str(), static_cast<unsigned long long>(v.data_offset),
                    static_cast<unsigned long long>(v.data_bytes));
    }
    return 0;
}

}  // namespace ax::cli
