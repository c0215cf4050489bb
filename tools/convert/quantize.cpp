#include "tools/convert/quantize.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ports/generic/generic.h"
#include "runtime/half.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

bool is_weight_matrix(const AxmTensor& t) { return t.dims.size() == 2 && t.dtype == format::DType::f32; }

// Matrices that stay float32 (docs/FORMAT.md, Quantization). f16: fewer than 8 rows or columns, i.e. the
// embeddings of a few input features and the generator of a few outputs; they are a negligible share of
// the file, and their rounding reaches every input or output undiluted (on the bundled forecaster keeping
// them float32 makes the f16 forecast 3x closer to the float32 one). int8: fewer than 4 columns, where a
// row of int8 plus its float32 scale is no smaller than the float32 row.
bool stays_float32(const AxmTensor& t, format::DType dtype) {
    if (dtype == format::DType::f16) return t.dims[0] < 8 || t.dims[1] < 8;
    return t.dims[1] < 4;
}

uint32_t config_value(const AxmModel& model, format::ConfigKey key, uint32_t fallback) {
    for (const auto& [k, value] : model.config)
        if (k == key) return value;
    return fallback;
}

// A forecaster's input rows hold its columns in their own units unless it normalizes them: load in kW next to
// a temperature and calendar values in [-1, 1]. Int8 quantizes an activation row with one scale, its largest
// value's, so the small columns round to a step or two: the input embeddings (tiny: d_model x n_features)
// stay float32 in every forecaster. A post-norm model without normalization also feeds those magnitudes,
// through the embedded rows, to its first layers' attention in-projections (their LayerNorm comes after);
// those stay float32 only when data showed raw units (`raw_inputs`): they are large, and most models are fed
// normalized rows by their own code. Measured on a raw-unit covariate model (docs/quantization.md), the
// embeddings alone take the int8 forecast's error from 3.6 to 1.7 kW, the in-projections with them to 0.26 kW.
bool keeps_float32(const AxmModel& model, const AxmTensor& t, bool raw_inputs) {
    using format::Role;
    if (model.family != format::Family::forecaster) return false;
    if (t.role == Role::src_embed_weight || t.role == Role::tgt_embed_weight) return true;
    const bool first_in_proj =
        t.layer == 0 && (t.role == Role::enc_attn_in_weight || t.role == Role::dec_attn_in_weight);
    return first_in_proj && raw_inputs && feeds_raw_rows_to_attention(model);
}

// Chronos-Bolt's lookup tables (its relative position bias and its two token rows) are read as float32 in every
// storage: a few hundred values.
bool is_chronos_bolt_table(const AxmModel& model, const AxmTensor& t) {
    return config_value(model, format::ConfigKey::architecture, 0) ==
               static_cast<uint32_t>(format::Architecture::chronos_bolt) &&
           (t.role == format::Role::relative_bias || t.role == format::Role::src_token_embed);
}

std::vector<float> as_floats(const AxmTensor& t) {
    std::vector<float> v(t.data.size() / sizeof(float));
    std::memcpy(v.data(), t.data.data(), t.data.size());
    return v;
}

void to_f16(AxmTensor& t) {
    const std::vector<float> v = as_floats(t);
    t.data.resize(v.size() * 2);
    for (size_t i = 0; i < v.size(); ++i) {
        const uint16_t h = float_to_half(v[i]);
        if ((h & 0x7c00u) == 0x7c00u)
            throw ToolError("tensor " + t.source_name + " holds " + std::to_string(v[i]) +
                            ", beyond float16's range (65504): keep this model in f32 or int8");
        t.data[2 * i] = static_cast<uint8_t>(h);
        t.data[2 * i + 1] = static_cast<uint8_t>(h >> 8);
    }
    t.dtype = format::DType::f16;
}

void to_i8(AxmTensor& t) {
    const std::vector<float> v = as_floats(t);
    const size_t rows = t.dims[0];
    const size_t cols = t.dims[1];
    std::vector<int8_t> q(v.size());
    t.scales.assign(rows, 0.0f);
    // Weights use the activations' rounding rule, so one definition serves both.
    generic::quantize_rows_i8(v.data(), rows, cols, q.data(), t.scales.data());
    t.data.assign(reinterpret_cast<const uint8_t*>(q.data()), reinterpret_cast<const uint8_t*>(q.data()) + q.size());
    t.dtype = format::DType::i8;
}

// Lookup tables (rows read by index, never multiplied as a Linear): int4 holds Linear weights only, so with
// --dtype int4 these take int8.
bool is_lookup_table(format::Role role) {
    using format::Role;
    return role == Role::src_token_embed || role == Role::tgt_token_embed || role == Role::src_pos_embed ||
           role == Role::tgt_pos_embed || role == Role::relative_bias;
}

void to_i4(AxmTensor& t) {
    const std::vector<float> v = as_floats(t);
    const size_t rows = t.dims[0];
    const size_t cols = t.dims[1];
    std::vector<uint8_t> packed(rows * cols / 2);
    t.group_scales.assign(rows * cols / format::kI4Group, 0);
    quantize_matrix_i4(v.data(), rows, cols, packed.data(), t.group_scales.data(), t.source_name);
    t.data = std::move(packed);
    t.dtype = format::DType::i4;
}

}  // namespace

void quantize_matrix_i4(const float* w, size_t rows, size_t cols, uint8_t* packed, uint16_t* scales,
                        const std::string& name) {
    const size_t groups = cols / format::kI4Group;
    for (size_t r = 0; r < rows; ++r) {
        for (size_t g = 0; g < groups; ++g) {
            const float* wg = w + r * cols + g * format::kI4Group;
            float top = 0.0f;
            for (size_t i = 0; i < format::kI4Group; ++i) {
                if (!std::isfinite(wg[i]))
                    throw ToolError("tensor " + name + " holds " + std::to_string(wg[i]) + ": not a finite weight");
                top = std::max(top, std::fabs(wg[i]));
            }
            uint16_t h = float_to_half(top / 7.0f);
            if ((h & 0x7c00u) == 0x7c00u)
                throw ToolError("tensor " + name + " holds " + std::to_string(top) +
                                ", whose 4-bit scale is beyond float16's range: keep this model in int8");
            const float scale = half_to_float(h);
            uint8_t* out = packed + (r * cols + g * format::kI4Group) / 2;
            for (size_t i = 0; i < format::kI4Group; i += 2) {
                int q[2] = {0, 0};
                for (size_t j = 0; j < 2 && scale > 0.0f; ++j) {
                    const float n = std::nearbyint(wg[i + j] / scale);  // half to even (the default rounding)
                    q[j] = static_cast<int>(std::min(7.0f, std::max(-7.0f, n)));
                }
                out[i / 2] = static_cast<uint8_t>((q[0] & 0xf) | ((q[1] & 0xf) << 4));
            }
            scales[r * groups + g] = h;  // 0: a group of zeros, or of weights too small for a half scale
        }
    }
}

bool feeds_raw_rows_to_attention(const AxmModel& model) {
    using format::ConfigKey;
    return model.family == format::Family::forecaster && config_value(model, ConfigKey::norm_first, 0) == 0 &&
           config_value(model, ConfigKey::normalization, 0) == static_cast<uint32_t>(format::Normalization::none) &&
           config_value(model, ConfigKey::revin, 0) == static_cast<uint32_t>(format::Revin::none);
}

void store_weights_as(AxmModel& model, format::DType dtype, bool every_matrix, std::vector<std::string>* notes,
                      bool raw_inputs) {
    if (dtype == format::DType::f32) return;
    size_t raw_bytes = 0;
    std::string raw_names;
    for (AxmTensor& t : model.tensors) {
        if (!is_weight_matrix(t) || is_chronos_bolt_table(model, t) || (!every_matrix && stays_float32(t, dtype)))
            continue;
        if (!every_matrix && format::dtype_takes_int8_rows(dtype) && keeps_float32(model, t, raw_inputs)) {
            raw_bytes += t.data.size();
            raw_names += (raw_names.empty() ? "" : ", ") + t.source_name;
            continue;
        }
        if (dtype == format::DType::f16)
            to_f16(t);
        else if (dtype == format::DType::i4 && t.dims[1] % format::kI4Group == 0 && !is_lookup_table(t.role))
            to_i4(t);
        else
            to_i8(t);
    }
    if (notes && !raw_names.empty())
        notes->push_back(std::string(dtype_name(dtype)) + ": kept float32 (" + std::to_string(raw_bytes) +
                         " bytes) the matrices that read the input columns as they come, where one int8 scale per "
                         "row would round the columns of smaller magnitude away: " +
                         raw_names);
}

format::DType parse_dtype(const std::string& name) {
    format::DType dtype{};
    // int32 holds the integer-only mode's parameters, never weights.
    if (!format::parse_enum(name.c_str(), &dtype) || dtype == format::DType::i32)
        throw ToolError("unknown dtype \"" + name + "\" (use f32, f16, int8 or int4)");
    return dtype;
}

const char* dtype_name(format::DType dtype) {
    const char* name = format::enum_name(dtype);
    return name ? name : "?";
}

format::CacheType parse_kv_cache(const std::string& name) {
    format::CacheType type{};
    if (!format::parse_enum(name.c_str(), &type))
        throw ToolError("unknown kv-cache type \"" + name + "\" (use " + enum_choices<format::CacheType>() + ")");
    return type;
}

void set_kv_cache(AxmModel& model, format::CacheType type) {
    if (type == format::CacheType::f32) return;
    uint32_t decoder_layers = 0;
    for (const auto& [key, value] : model.config)
        if (key == format::ConfigKey::decoder_layers) decoder_layers = value;
    if (decoder_layers == 0)
        throw ToolError("--kv-cache int8: this model has no decoder, so no key/value cache to store as int8");
    model.config.emplace_back(format::ConfigKey::kv_cache, static_cast<uint32_t>(type));
}

}  // namespace ax::tools
