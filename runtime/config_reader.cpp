#include "runtime/config_reader.h"

#include <cmath>

#include "runtime/bytes.h"

namespace ax {

namespace {

Status bad_config(const char* text) { return Status::error(StatusCode::bad_model, text); }

// The key's name in messages (format::kConfigKeyNames), never null.
const char* key_name(format::ConfigKey key) {
    const char* name = format::enum_name(key);
    return name ? name : "key without a name";
}

}  // namespace

Status read_config_u32(const ConfigRecords& f, format::ConfigKey key, uint32_t lo, uint32_t hi, uint32_t* out) {
    if (!f.config(key, out)) return bad_config("config lacks ").add(key_name(key));
    if (*out < lo || *out > hi)
        return bad_config("config ").add(key_name(key)).add(" = ").add(*out).add(" outside ").add(lo).add("..").add(hi);
    return Status::ok();
}

Status read_config_size(const ConfigRecords& f, format::ConfigKey key, size_t lo, size_t hi, size_t* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_config_u32(f, key, static_cast<uint32_t>(lo), static_cast<uint32_t>(hi), &v));
    *out = v;
    return Status::ok();
}

Status read_config_optional_size(const ConfigRecords& f, format::ConfigKey key, size_t lo, size_t hi, size_t fallback,
                                 size_t* out) {
    uint32_t v = 0;
    if (!f.config(key, &v)) {
        *out = fallback;
        return Status::ok();
    }
    return read_config_size(f, key, lo, hi, out);
}

Status read_config_flag(const ConfigRecords& f, format::ConfigKey key, bool* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_config_u32(f, key, 0, 1, &v));
    *out = v != 0;
    return Status::ok();
}

Status read_config_positive_float(const ConfigRecords& f, format::ConfigKey key, float* out) {
    uint32_t v = 0;
    if (!f.config(key, &v)) return bad_config("config lacks ").add(key_name(key));
    const float x = bits_to_float(v);
    if (!(x > 0.0f) || !std::isfinite(x))
        return bad_config("config ").add(key_name(key)).add(" must be a positive number");
    *out = x;
    return Status::ok();
}

Status read_config_token(const ConfigRecords& f, format::ConfigKey key, size_t vocab, bool optional, uint32_t* out) {
    if (!f.config(key, out)) return bad_config("config lacks ").add(key_name(key));
    if (*out == format::kNoToken) {
        if (optional) return Status::ok();
        return bad_config("config ").add(key_name(key)).add(" is required");
    }
    if (*out >= vocab)
        return bad_config("config ")
            .add(key_name(key))
            .add(" = ")
            .add(*out)
            .add(" is outside the vocabulary of ")
            .add(vocab);
    return Status::ok();
}

Status read_config_feature_positions(const ConfigRecords& f, size_t d_model, format::PositionalEncoding* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_config_u32(f, format::ConfigKey::positional_encoding, 0, 1, &v));
    *out = static_cast<format::PositionalEncoding>(v);
    if (*out == format::PositionalEncoding::sinusoidal && d_model % 2 != 0)
        return bad_config("sinusoidal positions need an even d_model");
    return Status::ok();
}

}  // namespace ax
