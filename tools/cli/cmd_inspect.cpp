#include <algorithm>
#include <cstdio>
#include <string>

#include "tools/cli/commands.h"
#include "tools/host/feature_names.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"

namespace ax::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

std::string tensor_name(const TensorView& v) {
    std::string name = format::role_name(v.role);
    const size_t at = name.find("{}");
    if (at != std::string::npos) name.replace(at, 2, std::to_string(v.layer));
    return name;
}

const char* positions_name(format::PositionalEncoding p) {
    switch (p) {
        case format::PositionalEncoding::none: return "none";
        case format::PositionalEncoding::sinusoidal: return "sinusoidal";
        case format::PositionalEncoding::learned: return "learned";
        case format::PositionalEncoding::sinusoidal_pad0: return "sinusoidal_pad0";
    }
    return "?";
}

std::string token_text(uint32_t id) { return id == format::kNoToken ? "none" : std::to_string(id); }

void print_stack(const StackConfig& s) {
    const LayerOptions& l = s.layer;
    std::printf("shape:    d_model %zu, nhead %zu, dim_feedforward %zu, encoder_layers %zu, decoder_layers %zu\n",
                l.d_model, l.nhead, l.dim_feedforward, s.encoder_layers, s.decoder_layers);
    std::printf("layers:   %s, activation %s, layer_norm_eps %g, final norms: encoder %s, decoder %s\n",
                l.norm_first ? "pre-norm (norm_first)" : "post-norm",
                l.activation == format::Activation::gelu ? "gelu" : "relu", static_cast<double>(l.eps),
                yes_no(s.encoder_final_norm), yes_no(s.decoder_final_norm));
}

// Prints the family's configuration and returns the arena line.
std::string describe_forecaster(const tools::LoadedModel& m, const Args& args) {
    const size_t window = args.get_size("window", 96, 1, kMaxSequenceLength);
    const size_t horizon = args.get_size("horizon", 24, 1, kMaxSequenceLength);
    const ForecasterConfig& c = m.forecaster.config();
    print_stack(c.stack);
    std::printf("io:       n_features %zu, n_outputs %zu\n", c.n_features, c.n_outputs);
    const char* norm = c.normalization == format::Normalization::global       ? "global"
                       : c.normalization == format::Normalization::last_value ? "last_value"
                                                                              : "none";
    std::printf("inputs:   positional_encoding %s, memory_mask %s, normalization %s\n",
                c.positional_encoding == format::PositionalEncoding::sinusoidal ? "sinusoidal" : "none",
                c.memory_mask == format::MemoryMask::tril ? "tril" : "none", norm);
    return std::to_string(m.forecaster.arena_bytes(window, horizon)) + " bytes for window " + std::to_string(window) +
           ", horizon " + std::to_string(horizon) + " (set with --window, --horizon)";
}

std::string describe_seq2seq(const tools::LoadedModel& m, const Args& args) {
    const Seq2SeqConfig& c = m.seq2seq.config();
    print_stack(c.stack);
    std::printf("io:       src_vocab %zu, tgt_vocab %zu, pad %s, bos %s, eos %s\n", c.src_vocab, c.tgt_vocab,
                token_text(c.pad_id).c_str(), token_text(c.bos_id).c_str(), token_text(c.eos_id).c_str());
    std::printf("inputs:   positional_encoding %s, max_positions %s, embed_scale %g\n",
                positions_name(c.positional_encoding),
                c.max_positions ? std::to_string(c.max_positions).c_str() : "unlimited",
                static_cast<double>(c.embed_scale));
    const size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    const size_t src = args.get_size("src-len", std::min<size_t>(64, limit), 1, limit);
    const size_t tgt = args.get_size("tgt-len", std::min<size_t>(64, limit), 1, limit);
    return std::to_string(m.seq2seq.arena_bytes(src, tgt)) + " bytes for source " + std::to_string(src) +
           " tokens, target/max-len " + std::to_string(tgt) + " (set with --src-len, --tgt-len)";
}

std::string describe_classifier(const tools::LoadedModel& m, const Args& args) {
    const ClassifierConfig& c = m.classifier.config();
    print_stack(c.stack);
    const char* pooling = c.pooling == format::Pooling::max ? "max" : c.pooling == format::Pooling::first ? "first" : "mean";
    const char* act = c.output_activation == format::OutputActivation::sigmoid   ? "sigmoid"
                      : c.output_activation == format::OutputActivation::softmax ? "softmax"
                                                                                 : "none";
    std::printf("io:       vocab %zu, labels %zu, pad %s, output %s, %s\n", c.vocab, c.n_labels,
                token_text(c.pad_id).c_str(), act,
                c.stack.decoder_layers ? ("decoder fed start token " + token_text(c.start_id)).c_str()
                                       : (std::string("pooling ") + pooling).c_str());
    std::printf("inputs:   positional_encoding %s, max_positions %s, embed_scale %g\n",
                positions_name(c.positional_encoding),
                c.max_positions ? std::to_string(c.max_positions).c_str() : "unlimited",
                static_cast<double>(c.embed_scale));
    const size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    const size_t len = args.get_size("max-len", std::min<size_t>(64, limit), 1, limit);
    return std::to_string(m.classifier.arena_bytes(len)) + " bytes for inputs up to " + std::to_string(len) +
           " tokens (set with --max-len)";
}

std::string describe_tvae(const tools::LoadedModel& m, const Args& args) {
    const TvaeConfig& c = m.tvae.config();
    print_stack(c.stack);
    std::printf("io:       n_features %zu, latent_size %zu\n", c.n_features, c.latent_size);
    std::printf("inputs:   positional_encoding %s, max_positions %s\n", positions_name(c.positional_encoding),
                c.max_positions ? std::to_string(c.max_positions).c_str() : "unlimited");
    const size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    const size_t len = args.get_size("max-len", std::min<size_t>(64, limit), 1, limit);
    return std::to_string(m.tvae.arena_bytes(len)) + " bytes for sequences up to " + std::to_string(len) +
           " rows (set with --max-len)";
}

}  // namespace

int cmd_inspect(const Argv& argv) {
    const Args args(argv, {"window", "horizon", "src-len", "tgt-len", "max-len"}, {});
    args.expect_positionals(1, "one model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    std::printf("model:    %s (%llu bytes, format v%u, checksum ok)\n", m->path.c_str(),
                static_cast<unsigned long long>(m->file.file_size()), format::kVersion);
    std::printf("family:   %s\n", tools::family_name(m->family));
    std::string features;
    for (const std::string& n : tools::feature_names(m->file)) features += (features.empty() ? "" : ", ") + n;
    if (!features.empty()) std::printf("features: %s (CSV columns are picked by these names)\n", features.c_str());
    std::string arena;
    switch (m->family) {
        case format::Family::forecaster: arena = describe_forecaster(*m, args); break;
        case format::Family::seq2seq: arena = describe_seq2seq(*m, args); break;
        case format::Family::classifier: arena = describe_classifier(*m, args); break;
        case format::Family::tvae: arena = describe_tvae(*m, args); break;
    }
    uint64_t params = 0, weight_bytes = 0;
    bool calibrated = false;
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        calibrated = calibrated || v.input_absmax > 0.0f;
        params += v.numel;
        weight_bytes += v.data_bytes + (v.dtype == format::DType::i8 ? v.dims[0] * 4ull : 0);
    }
    std::printf("tensors:  %u, %llu parameters, %llu bytes of data\n", m->file.tensor_count(),
                static_cast<unsigned long long>(params), static_cast<unsigned long long>(weight_bytes));
    std::printf("arena:    %s\n", arena.c_str());
    if (calibrated) std::printf("calibration: input ranges (max |x|) recorded for the weight matrices\n");
    std::printf("\n%-52s %-5s %-14s %10s %10s%s\n", "tensor", "dtype", "shape", "offset", "bytes",
                calibrated ? "  input |x| max" : "");
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        std::string shape = "[";
        for (uint32_t d = 0; d < v.rank; ++d) shape += (d ? ", " : "") + std::to_string(v.dims[d]);
        shape += "]";
        std::printf("%-52s %-5s %-14s %10llu %10llu", tensor_name(v).c_str(), tools::dtype_name(v.dtype),
                    shape.c_str(), static_cast<unsigned long long>(v.data_offset),
                    static_cast<unsigned long long>(v.data_bytes));
        if (calibrated && v.rank == 2) std::printf("  %14.6g", static_cast<double>(v.input_absmax));
        std::printf("\n");
    }
    return 0;
}

}  // namespace ax::cli
