// Seed maker for the fuzz corpora (run by tests/fuzz/make_corpus.sh, built with the fuzz targets):
//
//   seed_models convert CHECKPOINT CONFIG OUT_PREFIX [MAP] -> OUT_PREFIX.{f32,f16,int8}.axm (the converter, any
//                                                            family, MAP an optional rename map)
//   seed_models tiny OUT_DIR                            -> tiny forecasters: OUT_DIR/tiny_*.{f32,f16,int8}.axm
//                                                         and OUT_DIR/tiny_*.safetensors
//
// Tiny models (d_model 4, one layer each) keep files to a few KB, so that most mutations land in the header,
// config and tensor table, and a whole run takes microseconds. Their weights are deterministic.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"
#include "tools/convert/converter.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"
#include "tools/common/tool_error.h"

using namespace ax;
using namespace ax::tools;

namespace {

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size() || std::fclose(f) != 0)
        throw ToolError("cannot write " + path);
}

const std::pair<format::DType, const char*> kDtypes[] = {
    {format::DType::f32, "f32"}, {format::DType::f16, "f16"}, {format::DType::i8, "int8"}};

// Small deterministic pseudo-random values in [-0.5, 0.5).
struct Values {
    uint32_t state = 12345;
    float next() {
        state = state * 1664525u + 1013904223u;
        return static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
};

struct TinySpec {
    const char* name;
    int64_t d, nhead, ff, features, outputs;
    bool final_norms, pe, gelu, norm_first, tril;
    const char* normalization;  // none | global | last_value
};

TensorMap tiny_tensors(const TinySpec& s) {
    TensorMap m;
    Values rnd;
    auto add = [&](const std::string& name, std::vector<int64_t> shape, float base = 0.0f) {
        HostTensor t;
        t.shape = std::move(shape);
        t.source_dtype = "float32";
        t.data.resize(static_cast<size_t>(t.numel()));
        for (float& v : t.data) v = base + rnd.next();
        m.emplace(name, std::move(t));
    };
    auto linear = [&](const std::string& p, int64_t out, int64_t in) {
        add(p + ".weight", {out, in});
        add(p + ".bias", {out});
    };
    auto norm = [&](const std::string& p) {
        add(p + ".weight", {s.d}, 1.0f);
        add(p + ".bias", {s.d});
    };
    auto attention = [&](const std::string& p) {
        add(p + ".in_proj_weight", {3 * s.d, s.d});
        add(p + ".in_proj_bias", {3 * s.d});
        linear(p + ".out_proj", s.d, s.d);
    };
    linear("embedding_src", s.d, s.features);
    linear("embedding_tgt", s.d, s.features);
    linear("generator", s.outputs, s.d);
    attention("encoder.layers.0.self_attn");
    linear("encoder.layers.0.linear1", s.ff, s.d);
    linear("encoder.layers.0.linear2", s.d, s.ff);
    norm("encoder.layers.0.norm1");
    norm("encoder.layers.0.norm2");
    attention("decoder.layers.0.self_attn");
    attention("decoder.layers.0.multihead_attn");
    linear("decoder.layers.0.linear1", s.ff, s.d);
    linear("decoder.layers.0.linear2", s.d, s.ff);
    norm("decoder.layers.0.norm1");
    norm("decoder.layers.0.norm2");
    norm("decoder.layers.0.norm3");
    if (s.final_norms) {
        norm("encoder.norm");
        norm("decoder.norm");
    }
    if (s.pe) {  // the tutorial's buffer, [max_len, 1, d]
        const int64_t rows = 16;
        HostTensor t;
        t.shape = {rows, 1, s.d};
        t.source_dtype = "float32";
        for (int64_t pos = 0; pos < rows; ++pos)
            for (int64_t i = 0; i < s.d; ++i) {
                const double div = std::exp(static_cast<double>(i - i % 2) * (-std::log(10000.0) / s.d));
                t.data.push_back(static_cast<float>(i % 2 == 0 ? std::sin(pos * div) : std::cos(pos * div)));
            }
        m.emplace("pos_encoder.pe", std::move(t));
    }
    return m;
}

ConvertConfig tiny_config(const TinySpec& s) {
    ConvertConfig c;
    c.arch = format::Family::forecaster;
    c.nhead = s.nhead;
    c.activation = s.gelu ? format::Activation::gelu : format::Activation::relu;
    c.norm_first = s.norm_first;
    c.memory_mask = s.tril ? format::MemoryMask::tril : format::MemoryMask::none;
    if (!format::parse_enum(s.normalization, &c.normalization.mode)) std::abort();
    if (c.normalization.mode != format::Normalization::none) {
        for (int64_t i = 0; i < s.features; ++i) c.normalization.scale.push_back(0.5f + static_cast<float>(i));
        if (c.normalization.mode == format::Normalization::global)
            for (int64_t i = 0; i < s.features; ++i) c.normalization.mean.push_back(10.0f * static_cast<float>(i));
    }
    return c;
}

// safetensors: u64 header length, JSON header (padded with spaces to 8 bytes), data.
std::vector<uint8_t> safetensors_bytes(const TensorMap& m) {
    std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
    std::vector<uint8_t> data;
    for (const auto& [name, t] : m) {
        const size_t begin = data.size();
        data.resize(begin + t.data.size() * 4);
        if (!t.data.empty()) std::memcpy(data.data() + begin, t.data.data(), t.data.size() * 4);
        header += ",\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[";
        for (size_t i = 0; i < t.shape.size(); ++i) header += (i ? "," : "") + std::to_string(t.shape[i]);
        header += "],\"data_offsets\":[" + std::to_string(begin) + "," + std::to_string(data.size()) + "]}";
    }
    header += "}";
    while (header.size() % 8 != 0) header += ' ';
    std::vector<uint8_t> out(8);
    for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(static_cast<uint64_t>(header.size()) >> (8 * i));
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

void write_models(const AxmModel& model, const std::string& prefix) {
    for (const auto& [dtype, suffix] : kDtypes) {
        AxmModel copy = model;
        store_weights_as(copy, dtype);
        const std::vector<uint8_t> bytes = serialize_axm(copy);
        load_model_bytes(bytes, prefix);  // seeds must be valid models
        write_file(prefix + "." + suffix + ".axm", bytes);
    }
}

int tiny(const std::string& dir) {
    static const TinySpec kSpecs[] = {
        {"tiny_post_relu", 4, 2, 8, 1, 1, false, true, false, false, true, "none"},
        {"tiny_pre_gelu_final", 4, 1, 6, 2, 2, true, false, true, true, false, "none"},
        {"tiny_global", 4, 2, 8, 2, 2, false, true, false, false, true, "global"},
        {"tiny_last_value", 2, 1, 3, 1, 1, true, false, true, false, false, "last_value"},
        {"tiny_multi_out", 6, 3, 5, 3, 2, false, false, false, true, true, "none"},
    };
    for (const TinySpec& s : kSpecs) {
        const TensorMap tensors = tiny_tensors(s);
        write_models(import_forecaster(tensors, tiny_config(s)), dir + "/" + s.name);
        write_file(dir + "/" + s.name + ".safetensors", safetensors_bytes(tensors));
    }
    return 0;
}

int convert(const std::string& checkpoint, const std::string& config, const std::string& prefix,
            const std::string& map) {
    for (const auto& [dtype, suffix] : kDtypes) {
        ConvertOptions options;
        options.checkpoint_path = checkpoint;
        options.config_path = config;
        options.dtype = dtype;
        options.map_path = map;
        write_file(prefix + "." + suffix + ".axm", convert_model(options));  // validated by the converter
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "tiny" && argc == 3) return tiny(argv[2]);
        if (mode == "convert" && (argc == 5 || argc == 6))
            return convert(argv[2], argv[3], argv[4], argc == 6 ? argv[5] : "");
        std::fprintf(stderr,
                     "usage: seed_models tiny OUT_DIR | seed_models convert CHECKPOINT CONFIG OUT_PREFIX [MAP]\n");
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "seed_models: %s\n", e.what());
        return 1;
    }
}
