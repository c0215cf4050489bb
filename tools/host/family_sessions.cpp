#include "tools/host/family_sessions.h"

#include <charconv>
#include <cmath>

#include "tools/common/tool_error.h"

namespace ax::tools {

std::vector<int32_t> parse_token_list(const std::string& text, const std::string& what) {
    std::vector<int32_t> ids;
    size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == ' ' || c == ',' || c == '\t' || c == '\n' || c == '\r') {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < text.size() && text[j] != ' ' && text[j] != ',' && text[j] != '\t' && text[j] != '\n' &&
               text[j] != '\r')
            ++j;
        int64_t v = 0;
        const auto [end, ec] = std::from_chars(text.data() + i, text.data() + j, v);
        if (ec != std::errc() || end != text.data() + j || v < 0 || v > INT32_MAX)
            throw ToolError(what + ": \"" + text.substr(i, j - i) + "\" is not a token id (a whole number >= 0)");
        ids.push_back(static_cast<int32_t>(v));
        i = j;
    }
    if (ids.empty()) throw ToolError(what + " is empty: give at least one token id");
    return ids;
}

std::string format_token_list(const std::vector<int32_t>& ids) {
    std::string s;
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? " " : "") + std::to_string(ids[i]);
    return s;
}

HostSeq2Seq::HostSeq2Seq(const LoadedModel& model, const Kernels& kernels, size_t max_src, size_t max_tgt)
    : model_(model), s_(model, format::Family::seq2seq, kernels, "source and target lengths", max_src, max_tgt) {}

void HostSeq2Seq::set_pad_id(uint32_t pad_id) { check_status(s_.session().set_pad_id(pad_id), model_.path); }

std::vector<float> HostSeq2Seq::run(const std::vector<int32_t>& src, const std::vector<int32_t>& tgt) {
    std::vector<float> out(tgt.size() * model_.as<Seq2Seq>().config().tgt_vocab);
    check_status(s_.session().run(src.data(), src.size(), tgt.data(), tgt.size(), out.data()), model_.path);
    return out;
}

std::vector<int32_t> HostSeq2Seq::translate(const std::vector<int32_t>& src, uint32_t bos, uint32_t eos,
                                            size_t max_len) {
    std::vector<int32_t> out(max_len);
    size_t n = 0;
    check_status(s_.session().translate(src.data(), src.size(), bos, eos, max_len, out.data(), &n), model_.path);
    out.resize(n);
    return out;
}

HostClassifier::HostClassifier(const LoadedModel& model, const Kernels& kernels, size_t max_len)
    : model_(model), s_(model, format::Family::classifier, kernels, "the input length", max_len) {}

void HostClassifier::set_pad_id(uint32_t pad_id) { check_status(s_.session().set_pad_id(pad_id), model_.path); }

std::vector<float> HostClassifier::classify(const std::vector<int32_t>& tokens) {
    std::vector<float> out(model_.as<Classifier>().config().n_labels);
    check_status(s_.session().classify(tokens.data(), tokens.size(), out.data()), model_.path);
    return out;
}

HostTvae::HostTvae(const LoadedModel& model, const Kernels& kernels, size_t max_len)
    : model_(model), s_(model, format::Family::tvae, kernels, "the sequence length", max_len) {}

namespace {

void check_rows(const std::vector<float>& x, size_t len, size_t n_features) {
    if (x.size() != len * n_features)
        throw ToolError("the input holds " + std::to_string(x.size()) + " values, expected " + std::to_string(len) +
                        " rows of " + std::to_string(n_features) + " features");
}

}  // namespace

std::vector<float> HostTvae::run(const std::vector<float>& x, size_t len) {
    const TvaeConfig& c = model_.as<Tvae>().config();
    check_rows(x, len, c.n_features);
    std::vector<float> out(len * c.n_features);
    check_status(s_.session().run(x.data(), len, out.data(), nullptr, nullptr), model_.path);
    return out;
}

void HostTvae::encode(const std::vector<float>& x, size_t len, std::vector<float>* z_mean,
                      std::vector<float>* z_log_var) {
    const TvaeConfig& c = model_.as<Tvae>().config();
    check_rows(x, len, c.n_features);
    z_mean->assign(c.latent_size, 0.0f);
    z_log_var->assign(c.latent_size, 0.0f);
    check_status(s_.session().encode(x.data(), len, z_mean->data(), z_log_var->data()), model_.path);
}

std::vector<float> HostTvae::generate(const std::vector<float>& z, size_t len) {
    const TvaeConfig& c = model_.as<Tvae>().config();
    if (z.size() != c.latent_size)
        throw ToolError("the latent vector has " + std::to_string(z.size()) + " values, the model's latent size is " +
                        std::to_string(c.latent_size));
    std::vector<float> out(len * c.n_features);
    check_status(s_.session().generate(z.data(), len, out.data()), model_.path);
    return out;
}

std::vector<float> HostTvae::reconstruct(const std::vector<float>& x, size_t len) {
    const TvaeConfig& c = model_.as<Tvae>().config();
    check_rows(x, len, c.n_features);
    std::vector<float> out(len * c.n_features);
    check_status(s_.session().reconstruct(x.data(), len, out.data()), model_.path);
    return out;
}

double mean_squared_error(const std::vector<float>& a, const std::vector<float>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double e = static_cast<double>(a[i]) - b[i];
        s += e * e;
    }
    return a.empty() ? 0.0 : s / static_cast<double>(a.size());
}

std::vector<float> sample_latent(const std::vector<float>& mean, const std::vector<float>& log_var, uint64_t seed) {
    uint64_t state = seed;
    auto next = [&state]() {  // splitmix64
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    };
    auto uniform = [&next]() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; };  // (0, 1)
    std::vector<float> z(mean.size());
    for (size_t i = 0; i < z.size(); ++i) {
        const double eps = std::sqrt(-2.0 * std::log(uniform())) * std::cos(6.283185307179586 * uniform());
        z[i] = static_cast<float>(mean[i] + std::exp(0.5 * static_cast<double>(log_var[i])) * eps);
    }
    return z;
}

}  // namespace ax::tools
