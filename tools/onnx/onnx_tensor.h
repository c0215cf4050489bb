// A tensor as the ONNX tools hold it: its element type as the file states it, its shape, and its values in one of
// two stores, floats (float32, and float64 and float16 graphs cast to float32) or integers (int64, int32, the
// narrower integers and bool). The host reference evaluator computes on these.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ax::onnx {

// TensorProto.DataType numbers.
enum class DataType : int32_t {
    undefined = 0,
    float32 = 1,
    uint8 = 2,
    int8 = 3,
    uint16 = 4,
    int16 = 5,
    int32 = 6,
    int64 = 7,
    string = 8,
    boolean = 9,
    float16 = 10,
    float64 = 11,
    uint32 = 12,
    uint64 = 13,
    complex64 = 14,
    complex128 = 15,
    bfloat16 = 16,
};

const char* data_type_name(DataType t);
// Float types hold their values in Tensor::f, integer and bool types in Tensor::i; others are not computed on.
bool is_float_type(DataType t);
bool is_integer_type(DataType t);

struct Tensor {
    std::string name;
    DataType type = DataType::float32;
    std::vector<int64_t> shape;
    std::vector<float> f;    // float types
    std::vector<int64_t> i;  // integer and bool types

    bool is_float() const { return is_float_type(type); }
    size_t size() const { return is_float() ? f.size() : i.size(); }
    // The value at flat index k as a double / an integer, whichever store holds it.
    double real(size_t k) const { return is_float() ? static_cast<double>(f[k]) : static_cast<double>(i[k]); }
    // A float read as an integer (a hostile graph's float axes or indices): truncated; NaN and values beyond +-2^62
    // saturated there, which every caller's range check then refuses.
    int64_t integer(size_t k) const { return is_float() ? float_as_integer(f[k]) : i[k]; }
    static int64_t float_as_integer(float v);
};

// The most elements one tensor may hold on the host (256 MB of floats): a shape beyond is a damaged or hostile file,
// not a forecaster.
constexpr size_t kMaxElements = size_t{1} << 26;

// The product of the dims; ToolError naming `what` when a dim is negative or the count exceeds `limit`.
size_t element_count(const std::vector<int64_t>& shape, const std::string& what, size_t limit = kMaxElements);

Tensor make_float(std::vector<int64_t> shape, std::vector<float> values);
Tensor make_int(std::vector<int64_t> shape, std::vector<int64_t> values, DataType type = DataType::int64);

// "[1, 7, 3]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace ax::onnx
