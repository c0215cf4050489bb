// safetensors layout (github.com/huggingface/safetensors, format section): an unsigned 64-bit
// little-endian header length N, N bytes of JSON mapping each tensor name to {"dtype", "shape",
// "data_offsets": [begin, end)} relative to the data section that follows, plus an optional
// "__metadata__" map. Offsets are read as exact 64-bit integers (JsonValue::exact_u64), not doubles.
#include <algorithm>
#include <cstdint>
#include <string>

#include "tools/checkpoint/checkpoint.h"
#include "tools/text/json.h"
#include "tools/common/tool_error.h"

namespace ax::tools {
namespace {

constexpr uint64_t kMaxHeader = uint64_t{100} << 20;  // the reference implementation's own limit
constexpr int kMaxJsonDepth = 16;
// About ten values describe a tensor; the cap bounds the parsed tree of a hostile 100 MB header.
constexpr size_t kMaxJsonValues = size_t{1} << 21;
constexpr size_t kMaxRank = 8;
// Real names are tens of characters. The importers once matched names with std::regex, whose recursion grows
// with the name (a hostile name of ~50 KB overflowed the stack); the limit keeps every later step cheap.
constexpr size_t kMaxNameBytes = 1024;
// Even an empty tensor may not claim a dimension beyond int32 (what .axm stores), so that shape arithmetic
// downstream (3 * d_model, ...) cannot overflow.
constexpr uint64_t kMaxDimension = INT32_MAX;
constexpr int64_t kMinElementBudget = int64_t{1} << 20;

StoredType dtype_of(const std::string& dtype, const std::string& tensor) {
    static const std::pair<const char*, StoredType> kTypes[] = {
        {"F32", StoredType::F32}, {"F64", StoredType::F64},   {"F16", StoredType::F16}, {"BF16", StoredType::BF16},
        {"I64", StoredType::I64}, {"I32", StoredType::I32},   {"I16", StoredType::I16}, {"I8", StoredType::I8},
        {"U8", StoredType::U8},   {"BOOL", StoredType::Bool},
    };
    for (const auto& [name, type] : kTypes) {
        if (dtype == name) return type;
    }
    throw ToolError("tensor '" + tensor + "' has dtype " + dtype + ", which cannot be converted to float32");
}

uint64_t count_of(const JsonValue& v, const std::string& tensor, const char* field) {
    uint64_t n = 0;
    if (!v.exact_u64(&n)) {
        throw ToolError("tensor '" + tensor + "' has a " + field + " that is not a non-negative integer");
    }
    return n;
}

const JsonValue& field(const JsonValue& entry, const char* name, JsonValue::Type type, const std::string& tensor) {
    const JsonValue* v = entry.find(name);
    if (v == nullptr || v->type() != type) {
        throw ToolError("tensor '" + tensor + "' lacks a valid \"" + name + "\" field");
    }
    return *v;
}

// `budget` is the element count still allowed; it is charged before anything is allocated.
HostTensor read_tensor(const JsonValue& entry, const std::string& name, const uint8_t* data, uint64_t data_size,
                       int64_t& budget) {
    if (!entry.is_object()) throw ToolError("tensor '" + name + "' is not described by an object");
    const StoredType type = dtype_of(field(entry, "dtype", JsonValue::Type::String, name).as_string(name), name);
    const auto& shape = field(entry, "shape", JsonValue::Type::Array, name).as_array(name);
    const auto& offsets = field(entry, "data_offsets", JsonValue::Type::Array, name).as_array(name);
    if (shape.size() > kMaxRank) {
        throw ToolError("tensor '" + name + "' has rank " + std::to_string(shape.size()) + ", above the limit of 8");
    }
    if (offsets.size() != 2) throw ToolError("tensor '" + name + "' needs exactly two data_offsets");

    HostTensor t;
    int64_t numel = 1;
    for (const JsonValue& d : shape) {
        const uint64_t n = count_of(d, name, "dimension");
        if (n > static_cast<uint64_t>(INT64_MAX) || __builtin_mul_overflow(numel, static_cast<int64_t>(n), &numel)) {
            throw ToolError("tensor '" + name + "' has a shape whose size overflows 64 bits");
        }
        t.shape.push_back(static_cast<int64_t>(n));
    }
    for (const int64_t n : t.shape) {
        if (static_cast<uint64_t>(n) > kMaxDimension) {
            throw ToolError("tensor '" + name + "' has a dimension of " + std::to_string(n) + ", above the limit of " +
                            std::to_string(kMaxDimension));
        }
    }
    const uint64_t begin = count_of(offsets[0], name, "data offset");
    const uint64_t end = count_of(offsets[1], name, "data offset");
    if (begin > end || end > data_size) {
        throw ToolError("tensor '" + name + "' has data_offsets [" + std::to_string(begin) + ", " +
                        std::to_string(end) + ") outside the " + std::to_string(data_size) + "-byte data section");
    }
    const size_t item = stored_type_size(type);
    if ((end - begin) / item != static_cast<uint64_t>(numel) || (end - begin) % item != 0) {
        throw ToolError("tensor '" + name + "' spans " + std::to_string(end - begin) + " bytes, but its shape and " +
                        "dtype need " + std::to_string(numel) + " elements of " + std::to_string(item) + " bytes");
    }
    if (numel > budget) throw ToolError("safetensors tensors overlap more than the data section can hold");
    budget -= numel;
    t.source_dtype = stored_type_name(type);
    t.data.resize(static_cast<size_t>(numel));
    const uint8_t* p = data + begin;
    for (float& f : t.data) {
        f = widen_element(type, p, name);
        p += item;
    }
    return t;
}

}  // namespace

TensorMap read_safetensors_bytes(const uint8_t* data, size_t size) {
    if (size < 8) throw ToolError("safetensors file is too short to hold a header length");
    uint64_t header = 0;
    for (int i = 0; i < 8; ++i) header |= static_cast<uint64_t>(data[i]) << (8 * i);
    if (header > kMaxHeader) throw ToolError("safetensors header length " + std::to_string(header) + " is implausible");
    if (header > size - 8) throw ToolError("safetensors header runs past the end of the file (truncated?)");
    JsonLimits limits;
    limits.max_bytes = kMaxHeader;
    limits.max_depth = kMaxJsonDepth;
    limits.max_values = kMaxJsonValues;
    const JsonValue root = parse_json(std::string(reinterpret_cast<const char*>(data + 8), static_cast<size_t>(header)),
                                      "safetensors header", limits);
    if (!root.is_object()) throw ToolError("safetensors header is not a JSON object");

    const uint8_t* section = data + 8 + header;
    const uint64_t section_size = size - 8 - header;
    // Entries may overlap, so a small file could claim huge outputs; legitimate files never exceed their
    // data section in elements.
    int64_t budget = std::max(kMinElementBudget, static_cast<int64_t>(section_size));
    TensorMap out;
    for (const auto& [name, entry] : root.as_object("safetensors header")) {
        if (name == "__metadata__") continue;
        if (name.size() > kMaxNameBytes) {
            throw ToolError("tensor name '" + name.substr(0, 64) + "...' is " + std::to_string(name.size()) +
                            " bytes long, above the limit of " + std::to_string(kMaxNameBytes));
        }
        out.emplace(name, read_tensor(entry, name, section, section_size, budget));
    }
    if (out.empty()) throw ToolError("safetensors file holds no tensors");
    return out;
}

TensorMap read_safetensors(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file_bytes(path);
    try {
        return read_safetensors_bytes(bytes.data(), bytes.size());
    } catch (const ToolError& e) {
        throw ToolError(path + ": " + e.what());
    }
}

}  // namespace ax::tools
