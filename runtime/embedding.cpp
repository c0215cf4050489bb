#include "runtime/embedding.h"

#include "runtime/config_reader.h"
#include "runtime/half.h"
#include "runtime/positional_encoding.h"

namespace ax {

void embedding_row(const EmbeddingTable& t, size_t row, float scale, float* out) {
    const size_t n = t.dim;
    switch (t.dtype) {
        case format::DType::f32: {
            const float* w = static_cast<const float*>(t.data) + row * n;
            for (size_t i = 0; i < n; ++i) out[i] = w[i] * scale;
            return;
        }
        case format::DType::f16: {
            const uint16_t* w = static_cast<const uint16_t*>(t.data) + row * n;
            for (size_t i = 0; i < n; ++i) out[i] = half_to_float(w[i]) * scale;
            return;
        }
        case format::DType::i8: {
            const int8_t* w = static_cast<const int8_t*>(t.data) + row * n;
            const float s = t.scales[row];
            for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(w[i]) * s * scale;
            return;
        }
        case format::DType::i32:  // never a table (TensorBinder::matrix refuses it)
        case format::DType::i4:   // never a table (TensorBinder::embedding refuses it)
            return;
    }
}

void embedding_add_row(const EmbeddingTable& t, size_t row, float* out) {
    const size_t n = t.dim;
    switch (t.dtype) {
        case format::DType::f32: {
            const float* w = static_cast<const float*>(t.data) + row * n;
            for (size_t i = 0; i < n; ++i) out[i] += w[i];
            return;
        }
        case format::DType::f16: {
            const uint16_t* w = static_cast<const uint16_t*>(t.data) + row * n;
            for (size_t i = 0; i < n; ++i) out[i] += half_to_float(w[i]);
            return;
        }
        case format::DType::i8: {
            const int8_t* w = static_cast<const int8_t*>(t.data) + row * n;
            const float s = t.scales[row];
            for (size_t i = 0; i < n; ++i) out[i] += static_cast<float>(w[i]) * s;
            return;
        }
        case format::DType::i32:  // never a table (TensorBinder::matrix refuses it)
        case format::DType::i4:   // never a table (TensorBinder::embedding refuses it)
            return;
    }
}

void embed_tokens(const TokenInput& in, const int32_t* ids, size_t rows, size_t first_position, float* x) {
    const size_t d = in.tokens.dim;
    for (size_t r = 0; r < rows; ++r) {
        float* row = x + r * d;
        const size_t position = first_position + r;
        embedding_row(in.tokens, static_cast<size_t>(ids[r]), in.scale, row);
        switch (in.positional_encoding) {
            case format::PositionalEncoding::none:
            case format::PositionalEncoding::relative:  // refused when read: T5's bias is the attention's
                break;
            case format::PositionalEncoding::sinusoidal:
                add_sinusoidal_position(row, d, position);
                break;
            case format::PositionalEncoding::learned:
                embedding_add_row(in.positions, position, row);
                break;
            case format::PositionalEncoding::sinusoidal_pad0:
                if (static_cast<uint32_t>(ids[r]) != in.pad_id) add_sinusoidal_position(row, d, position + 1);
                break;
            case format::PositionalEncoding::sinusoidal_pad_pe0:
                add_sinusoidal_position(row, d, static_cast<uint32_t>(ids[r]) != in.pad_id ? position + 1 : 0);
                break;
        }
    }
}

Status check_tokens(const int32_t* ids, size_t n, size_t vocab, const char* what) {
    if (ids == nullptr) return Status::error(StatusCode::invalid_argument, what).add(" is null");
    for (size_t i = 0; i < n; ++i)
        if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab)
            return Status::error(StatusCode::bad_input, what)
                .add(": token ")
                .add(ids[i])
                .add(" at index ")
                .add(i)
                .add(" is outside the vocabulary (0..")
                .add(vocab - 1)
                .add(")");
    return Status::ok();
}

const uint8_t* mark_non_pad(const int32_t* ids, size_t n, uint32_t pad_id, uint8_t* valid) {
    bool any_pad = false;
    for (size_t i = 0; i < n; ++i) {
        valid[i] = static_cast<uint32_t>(ids[i]) != pad_id;
        any_pad = any_pad || !valid[i];
    }
    return any_pad ? valid : nullptr;
}

Status check_pad_id(uint32_t pad_id, size_t vocab, format::PositionalEncoding positional_encoding) {
    if (pad_id != format::kNoToken && pad_id >= vocab)
        return Status::error(StatusCode::invalid_argument, "pad id ").add(pad_id).add(" is outside the vocabulary");
    if (pad_id == format::kNoToken && format::positions_from_one(positional_encoding))
        return Status::error(StatusCode::invalid_argument, "this model's positions need a pad id");
    return Status::ok();
}

Status read_token_input_config(const ModelFile& f, size_t d_model, uint32_t pad_id,
                               format::PositionalEncoding* positional_encoding, size_t* max_positions,
                               float* embed_scale) {
    using format::ConfigKey;
    using format::PositionalEncoding;
    PositionalEncoding pe = PositionalEncoding::none;
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::positional_encoding, &pe));
    if (pe == PositionalEncoding::relative)
        return Status::error(StatusCode::bad_model, "relative positions are T5 layers' (a forecaster's), not tokens'");
    if (pe != PositionalEncoding::none && pe != PositionalEncoding::learned && d_model % 2 != 0)
        return Status::error(StatusCode::bad_model, "sinusoidal positions need an even d_model");
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::max_positions, 0, kMaxSequenceLength, max_positions));
    if (pe == PositionalEncoding::learned && *max_positions == 0)
        return Status::error(StatusCode::bad_model, "learned positions need max_positions >= 1");
    if (format::positions_from_one(pe) && pad_id == format::kNoToken)
        return Status::error(StatusCode::bad_model, "positions counted from 1 (sinusoidal_pad0) need a pad_id");
    AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::embed_scale, embed_scale));
    *positional_encoding = pe;
    return Status::ok();
}

}  // namespace ax
