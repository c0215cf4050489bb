// Fuzzes the rename-map reader (tools/import/rename_map.cpp: rule syntax, captures, the regex each rule becomes) and
// its application to a small fixed checkpoint (q/k/v stacking, Conv1d squeezing, zero biases), then the
// converter's path on the result (fuzz_import.h). Bad input must end in a ToolError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_import.h"
#include "tools/import/rename_map.h"

namespace {

// The layout rename maps exist for: hand-written attention with separate q/k/v Linear layers, a bias-free
// feed-forward layer, a Conv1d(kernel_size=1), plus names a map should leave alone.
const ax::tools::TensorMap& checkpoint() {
    static const ax::tools::TensorMap tensors = [] {
        ax::tools::TensorMap m;
        auto add = [&](const std::string& name, std::vector<int64_t> shape) {
            ax::tools::HostTensor t;
            t.shape = std::move(shape);
            t.source_dtype = "float32";
            t.data.resize(static_cast<size_t>(t.numel()));
            for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = 0.01f * static_cast<float>(i % 17) - 0.05f;
            m.emplace(name, std::move(t));
        };
        for (const char* layer : {"encoder.layers.0.", "decoder.layers.0."}) {
            const std::string p = layer;
            for (const char* part : {"fc_q", "fc_k", "fc_v", "fc_o"}) {
                add(p + "self_attention." + part + ".weight", {4, 4});
                add(p + "self_attention." + part + ".bias", {4});
            }
            add(p + "positionwise_feedforward.fc_1.weight", {8, 4});
            add(p + "positionwise_feedforward.fc_2.weight", {4, 8});
            add(p + "positionwise_feedforward.fc_2.bias", {4});
            add(p + "self_attn_layer_norm.weight", {4});
            add(p + "self_attn_layer_norm.bias", {4});
        }
        add("decoder.layers.0.encoder_attention.fc_q.weight", {4, 4});
        add("encoder.tok_embedding.weight", {10, 4});
        add("encoder.conv.weight", {4, 2, 1});
        add("decoder.fc_out.weight", {10, 4});
        add("decoder.fc_out.bias", {10});
        add("scale", {});
        return m;
    }();
    return tensors;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    const std::string text(reinterpret_cast<const char*>(data), size);
    tools::TensorMap renamed;
    try {
        renamed = tools::RenameMap::parse(text, "fuzz.map").apply(checkpoint());
    } catch (const tools::ToolError&) {
        return 0;
    }
    fuzz::check_tensors(renamed);
    fuzz::convert_tensors(renamed, static_cast<uint8_t>(size));
    return 0;
}
