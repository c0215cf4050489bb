#include "tools/onnx/onnx_tensor.h"

#include <cstdint>

#include "tools/common/tool_error.h"

namespace ax::onnx {

int64_t Tensor::float_as_integer(float v) {
    // Saturated at +-2^62 (exact as a float), not at int64's ends: callers add and subtract sizes to what they read
    // (an axis plus a rank, an end minus a start), which must not overflow on a hostile value.
    constexpr int64_t kLimit = int64_t{1} << 62;
    if (v != v || v <= -static_cast<float>(kLimit)) return -kLimit;
    if (v >= static_cast<float>(kLimit)) return kLimit;
    return static_cast<int64_t>(v);
}

const char* data_type_name(DataType t) {
    switch (t) {
        case DataType::undefined:
            return "undefined";
        case DataType::float32:
            return "float32";
        case DataType::uint8:
            return "uint8";
        case DataType::int8:
            return "int8";
        case DataType::uint16:
            return "uint16";
        case DataType::int16:
            return "int16";
        case DataType::int32:
            return "int32";
        case DataType::int64:
            return "int64";
        case DataType::string:
            return "string";
        case DataType::boolean:
            return "bool";
        case DataType::float16:
            return "float16";
        case DataType::float64:
            return "float64";
        case DataType::uint32:
            return "uint32";
        case DataType::uint64:
            return "uint64";
        case DataType::complex64:
            return "complex64";
        case DataType::complex128:
            return "complex128";
        case DataType::bfloat16:
            return "bfloat16";
    }
    return "unknown";
}

bool is_float_type(DataType t) {
    return t == DataType::float32 || t == DataType::float64 || t == DataType::float16 || t == DataType::bfloat16;
}

bool is_integer_type(DataType t) {
    switch (t) {
        case DataType::uint8:
        case DataType::int8:
        case DataType::uint16:
        case DataType::int16:
        case DataType::int32:
        case DataType::int64:
        case DataType::boolean:
        case DataType::uint32:
        case DataType::uint64:
            return true;
        default:
            return false;
    }
}

size_t element_count(const std::vector<int64_t>& shape, const std::string& what, size_t limit) {
    size_t n = 1;
    for (int64_t d : shape) {
        if (d < 0)
            throw tools::ToolError(what + ": negative dimension " + std::to_string(d) + " in " + shape_text(shape));
        if (d != 0 && n > limit / static_cast<uint64_t>(d))
            throw tools::ToolError(what + ": shape " + shape_text(shape) + " has more than " + std::to_string(limit) +
                                   " elements");
        n *= static_cast<size_t>(d);
    }
    return n;
}

Tensor make_float(std::vector<int64_t> shape, std::vector<float> values) {
    Tensor t;
    t.type = DataType::float32;
    t.shape = std::move(shape);
    t.f = std::move(values);
    return t;
}

Tensor make_int(std::vector<int64_t> shape, std::vector<int64_t> values, DataType type) {
    Tensor t;
    t.type = type;
    t.shape = std::move(shape);
    t.i = std::move(values);
    return t;
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
    return s + "]";
}

}  // namespace ax::onnx
