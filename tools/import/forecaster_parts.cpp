#include "tools/import/forecaster_parts.h"

#include <cstring>

#include "tools/common/tool_error.h"

namespace ax::tools {

std::vector<PositionTable> find_position_tables(const CheckpointTensors& ck, int64_t d) {
    std::vector<PositionTable> tables;
    for (const auto& [name, t] : ck.all()) {
        if (ck.used(name) || t.shape.size() < 2 || t.shape.size() > 3 || t.shape.back() != d) continue;
        const bool weight = name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
        if (weight && ck.has(name.substr(0, name.size() - 7) + ".bias")) continue;  // a Linear
        const bool pe = name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0);
        if (!pe && !name_has(name, {"pos"})) continue;
        int64_t rows = 1;
        bool one_long_dim = true;
        for (size_t i = 0; i + 1 < t.shape.size(); ++i) {
            if (t.shape[i] == 1) continue;
            if (rows != 1) one_long_dim = false;
            rows = t.shape[i];
        }
        if (one_long_dim) tables.push_back({name, rows});
    }
    return tables;
}

namespace {

struct Shape {
    int64_t out = 0, in = 0;
};

// A head Linear's input: one d_model row, or k >= 1 of them flattened.
bool reads_rows(const Shape& s, int64_t d) { return s.in % d == 0; }

}  // namespace

EncoderOnlyLinears find_encoder_only_linears(const CheckpointTensors& ck, int64_t d) {
    const std::vector<std::string> modules = find_linear_modules(ck);
    auto shape = [&](const std::string& m) {
        const auto& s = ck.shape(m + ".weight");
        return Shape{s[0], s[1]};
    };
    // Every consistent reading: an input Linear or none, then a head of one Linear or a chain of two.
    std::vector<EncoderOnlyLinears> fits;
    const size_t n = modules.size();
    for (size_t input = 0; input <= n; ++input) {  // input == n: no input Linear
        if (input < n && shape(modules[input]).out != d) continue;
        std::vector<std::string> rest;
        for (size_t i = 0; i < n; ++i)
            if (i != input) rest.push_back(modules[i]);
        EncoderOnlyLinears l;
        if (input < n) l.input = modules[input];
        if (rest.size() == 1 && reads_rows(shape(rest[0]), d)) {
            l.final = rest[0];
            fits.push_back(l);
        } else if (rest.size() == 2) {
            for (int first = 0; first < 2; ++first) {
                const Shape a = shape(rest[first]), b = shape(rest[1 - first]);
                if (!reads_rows(a, d) || b.in != a.out) continue;
                l.hidden = rest[first];
                l.final = rest[1 - first];
                fits.push_back(l);
            }
        }
    }
    // Shapes that admit several readings (an input Linear [d, d], a head of d outputs): a reading with an input
    // Linear first (a head whose last Linear gives exactly d_model values is the rare one), then the names.
    if (fits.size() > 1) {
        std::vector<EncoderOnlyLinears> with_input;
        for (const EncoderOnlyLinears& f : fits)
            if (!f.input.empty()) with_input.push_back(f);
        if (!with_input.empty()) fits = with_input;
    }
    if (fits.size() > 1) {
        std::vector<EncoderOnlyLinears> named;
        for (const EncoderOnlyLinears& f : fits)
            if (!f.input.empty() && name_has(f.input, {"input", "embed", "enc_in", "src", "value", "inp"}) &&
                !name_has(f.input, {"head", "out", "fc", "pred", "generator", "decoder"}))
                named.push_back(f);
        if (named.size() == 1) fits = named;
    }
    if (fits.size() == 1) return fits[0];
    std::string found;
    for (const std::string& m : modules) {
        const Shape s = shape(m);
        found += (found.empty() ? "" : ", ") + m + " [" + std::to_string(s.out) + ", " + std::to_string(s.in) + "]";
    }
    throw ToolError(std::string(fits.empty() ? "cannot read" : "cannot tell apart") +
                    " an encoder-only forecaster's Linear modules (d_model " + std::to_string(d) +
                    "): expected an optional input Linear [d_model, n_features], then a head of one Linear "
                    "reading one row [outputs, d_model] or the flattened window [outputs, window x d_model], "
                    "or two (a hidden Linear and the final one); found " +
                    (found.empty() ? std::string("none") : found) +
                    ". Name them with map lines (convert --map FILE): \"MODULE.{p} -> embedding_src.{p}\", "
                    "\"MODULE.{p} -> head.{p}\" (hidden), \"MODULE.{p} -> generator.{p}\" (final)");
}

}  // namespace ax::tools

namespace ax::tools {

void reorder_flatten_head(AxmTensor& weight, int64_t rows, int64_t d) {
    if (weight.dtype != format::DType::f32 || weight.dims.size() != 2 || weight.dims[1] != rows * d)
        throw ToolError("internal error: the flatten head to reorder is not an f32 [out, rows x d_model] matrix");
    const size_t width = static_cast<size_t>(rows * d);
    std::vector<uint8_t> row(width * sizeof(float));
    for (size_t o = 0; o < weight.dims[0]; ++o) {
        uint8_t* at = weight.data.data() + o * width * sizeof(float);
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < d; ++j)
                std::memcpy(row.data() + static_cast<size_t>(r * d + j) * sizeof(float),
                            at + static_cast<size_t>(j * rows + r) * sizeof(float), sizeof(float));
        std::memcpy(at, row.data(), row.size());
    }
}

bool fold_token_conv(TensorMap& tensors, const std::string& side, TokenConv* out) {
    const auto conv = tensors.find(side + "_token_conv.weight");
    if (conv == tensors.end()) return false;
    const HostTensor w = conv->second;
    if (w.shape.size() != 3 || w.shape[2] != 3)
        throw ToolError(side + "_token_conv.weight has shape " + shape_text(w.shape) +
                        ", expected a Conv1d of kernel 3 [d_model, n_values, 3]");
    if (tensors.count(side + "_token_conv.bias"))
        throw ToolError(side + "_token_conv has a bias: the Time-Series-Library's TokenEmbedding has none");
    const int64_t d = w.shape[0], c = w.shape[1];
    HostTensor marks;
    const auto time = tensors.find(side + "_time_marks.weight");
    if (time != tensors.end()) {
        marks = time->second;
        if (marks.shape.size() != 2 || marks.shape[0] != d)
            throw ToolError(side + "_time_marks.weight has shape " + shape_text(marks.shape) + ", expected [" +
                            std::to_string(d) + ", n_marks]");
        if (tensors.count(side + "_time_marks.bias"))
            throw ToolError(side + "_time_marks has a bias: the Time-Series-Library's TimeFeatureEmbedding has none");
        tensors.erase(time);
    }
    const int64_t k = marks.shape.empty() ? 0 : marks.shape[1];
    const int64_t width = 3 * c + k;
    HostTensor linear;
    linear.source_dtype = w.source_dtype;
    linear.shape = {d, width};
    linear.data.resize(static_cast<size_t>(d * width));
    // Conv1d weight [o, c, t]: tap t reads x[i + t - 1] (circular padding 1), column t * c + ch of the Linear.
    for (int64_t o = 0; o < d; ++o) {
        for (int64_t ch = 0; ch < c; ++ch)
            for (int64_t t = 0; t < 3; ++t)
                linear.data[static_cast<size_t>(o * width + t * c + ch)] =
                    w.data[static_cast<size_t>((o * c + ch) * 3 + t)];
        for (int64_t j = 0; j < k; ++j)
            linear.data[static_cast<size_t>(o * width + 3 * c + j)] = marks.data[static_cast<size_t>(o * k + j)];
    }
    HostTensor bias;
    bias.source_dtype = w.source_dtype;
    bias.shape = {d};
    bias.data.assign(static_cast<size_t>(d), 0.0f);
    tensors.erase(conv);
    tensors[side + "_embed.weight"] = std::move(linear);
    tensors[side + "_embed.bias"] = std::move(bias);
    out->values = c;
    out->marks = k;
    return true;
}

}  // namespace ax::tools
