// Host-side sessions of the token and latent families: an arena of exactly the size the runtime asks for,
// and calls that turn runtime errors into ToolError. Plus parsing of token lists ("5 17 9 2").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tools/host/model_loader.h"
#include "tools/host/session_in_arena.h"

namespace ax::tools {

// Whole numbers separated by spaces and/or commas; anything else is an error naming `what`.
std::vector<int32_t> parse_token_list(const std::string& text, const std::string& what);
std::string format_token_list(const std::vector<int32_t>& ids);

class HostSeq2Seq {
public:
    HostSeq2Seq(const LoadedModel& model, const Kernels& kernels, size_t max_src, size_t max_tgt);
    void set_pad_id(uint32_t pad_id);
    void set_decode_mask_pads(bool mask) { s_.session().set_decode_mask_pads(mask); }
    // tgt.size() x tgt_vocab logits.
    std::vector<float> run(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt);
    std::vector<int32_t> translate(const std::vector<int32_t>& src, uint32_t bos, uint32_t eos, size_t max_len);
    size_t arena_bytes() const { return s_.arena_bytes(); }

private:
    const LoadedModel& model_;
    SessionInArena<Seq2SeqSession, Seq2Seq> s_;
};

class HostClassifier {
public:
    HostClassifier(const LoadedModel& model, const Kernels& kernels, size_t max_len);
    void set_pad_id(uint32_t pad_id);
    // n_labels values.
    std::vector<float> classify(const std::vector<int32_t>& tokens);
    size_t arena_bytes() const { return s_.arena_bytes(); }

private:
    const LoadedModel& model_;
    SessionInArena<ClassifierSession, Classifier> s_;
};

class HostTvae {
public:
    HostTvae(const LoadedModel& model, const Kernels& kernels, size_t max_len);
    // x: len x n_features, row-major. Each returns len x n_features values (encode: latent_size each).
    std::vector<float> run(const std::vector<float>& x, size_t len);
    void encode(const std::vector<float>& x, size_t len, std::vector<float>* z_mean, std::vector<float>* z_log_var);
    std::vector<float> generate(const std::vector<float>& z, size_t len);
    std::vector<float> reconstruct(const std::vector<float>& x, size_t len);
    size_t arena_bytes() const { return s_.arena_bytes(); }

private:
    const LoadedModel& model_;
    SessionInArena<TvaeSession, Tvae> s_;
};

// Mean squared error over every value: the reconstruction error used as an anomaly score.
double mean_squared_error(const std::vector<float>& a, const std::vector<float>& b);

// z = mean + exp(0.5 * log_var) * eps with eps ~ N(0, 1) from a fixed generator seeded by `seed`
// (splitmix64 and Box-Muller: the same z on every machine).
std::vector<float> sample_latent(const std::vector<float>& mean, const std::vector<float>& log_var, uint64_t seed);

}  // namespace ax::tools
