#include "tools/host/chronos_bolt_host.h"

#include "tools/common/tool_error.h"

namespace ax::tools {
namespace {

Linear linear_of(const HostTensor& w, const HostTensor* b = nullptr) {
    Linear l;
    l.weight = w.data.data();
    l.bias = b != nullptr ? b->data.data() : nullptr;
    l.out = static_cast<size_t>(w.shape[0]);
    l.in = static_cast<size_t>(w.shape[1]);
    return l;
}

ResidualMlpWeights mlp_of(const ResidualMlpTensors& t, format::Activation a) {
    ResidualMlpWeights w;
    w.hidden = linear_of(t.hidden_weight, &t.hidden_bias);
    w.output = linear_of(t.output_weight, &t.output_bias);
    w.residual = linear_of(t.residual_weight, &t.residual_bias);
    w.activation = a;
    return w;
}

T5AttentionWeights attention_of(const T5AttentionTensors& t) {
    return {linear_of(t.q), linear_of(t.k), linear_of(t.v), linear_of(t.o)};
}

}  // namespace

ChronosBoltShape chronos_bolt_shape(const ChronosBoltConfig& c) {
    ChronosBoltShape s;
    s.stack.d_model = c.d_model;
    s.stack.nhead = c.num_heads;
    s.stack.d_kv = c.d_kv;
    s.stack.d_ff = c.d_ff;
    s.stack.eps = c.eps;
    s.stack.activation = c.activation;
    s.stack.gated = c.gated;
    s.stack.num_buckets = c.num_buckets;
    s.stack.max_distance = c.max_distance;
    s.encoder_layers = c.encoder_layers;
    s.decoder_layers = c.decoder_layers;
    s.context_length = c.context_length;
    s.patch_size = c.patch_size;
    s.prediction_length = c.prediction_length;
    s.quantiles = c.quantiles.size();
    s.reg_token = c.use_reg_token;
    s.start_token = c.decoder_start_token_id;
    s.reg_token_id = c.reg_token_id;
    return s;
}

ChronosBoltHost::ChronosBoltHost(ChronosBoltCheckpoint checkpoint) : checkpoint_(std::move(checkpoint)) {
    const ChronosBoltTensors& t = checkpoint_.tensors;
    const ChronosBoltConfig& c = checkpoint_.config;
    // The gated feed-forward's second projection, when the checkpoint has one.
    const auto gate_of = [&](const HostTensor& t) { return c.gated ? linear_of(t) : Linear{}; };
    for (const auto& l : t.encoder)
        encoder_.push_back({l.attention_norm.data.data(), attention_of(l.self_attention), l.ff_norm.data.data(),
                            linear_of(l.wi), linear_of(l.wo), gate_of(l.wi_gate)});
    for (const auto& l : t.decoder)
        decoder_.push_back({l.self_norm.data.data(), attention_of(l.self_attention), l.cross_norm.data.data(),
                            attention_of(l.cross_attention), l.ff_norm.data.data(), linear_of(l.wi), linear_of(l.wo),
                            gate_of(l.wi_gate)});
    weights_.shape = chronos_bolt_shape(c);
    weights_.quantile_levels = c.quantiles.data();
    weights_.shared = t.shared.data.data();
    weights_.input = mlp_of(t.input_embedding, c.activation);
    weights_.head = mlp_of(t.output_embedding, c.activation);
    weights_.encoder_bias = t.encoder_relative_bias.data.data();
    weights_.decoder_bias = t.decoder_relative_bias.data.data();
    weights_.encoder = encoder_.data();
    weights_.encoder_norm = t.encoder_final_norm.data.data();
    weights_.decoder = decoder_.data();
    weights_.decoder_norm = t.decoder_final_norm.data.data();
}

std::vector<float> ChronosBoltHost::forecast(const Kernels& k, const std::vector<float>& context,
                                             size_t horizon) const {
    return chronos_bolt_forecast_host(k, weights_, context, horizon);
}

std::vector<float> chronos_bolt_forecast_host(const Kernels& k, const ChronosBoltWeights& weights_,
                                              const std::vector<float>& context, size_t horizon) {
    if (context.empty()) throw ToolError("Chronos-Bolt needs a context of at least one value");
    if (horizon == 0) throw ToolError("a forecast of 0 steps: give --horizon 1 or more");
    std::vector<float> work(chronos_bolt_forecast_floats(weights_.shape, horizon));
    std::vector<float> out(weights_.shape.quantiles * horizon);
    chronos_bolt_forecast(k, weights_, context.data(), context.size(), horizon, out.data(), work.data());
    return out;
}

}  // namespace ax::tools
