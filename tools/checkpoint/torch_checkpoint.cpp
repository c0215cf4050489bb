// torch.save's zip layout (torch >= 1.6): <archive>/data.pkl pickles the object; each storage it
// references by persistent id is the stored entry <archive>/data/<key>; <archive> is usually the file's
// stem but may be anything. Also the element widening both readers share, and format detection.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tools/checkpoint/checkpoint.h"
#include "tools/checkpoint/pickle_reader.h"
#include "tools/common/tool_error.h"
#include "tools/checkpoint/zip_archive.h"

namespace ax::tools {
namespace {

// A hostile pickle can point any number of names at one big storage; real files share a storage at
// most a few times (tied weights, views of a fused parameter), so cap the total output against the
// data actually present, with a floor so that small expanded buffers still load.
constexpr int64_t kViewFactor = 8;
constexpr int64_t kMinElementBudget = int64_t{1} << 20;

const char* const kLegacyMessage =
    "this is a legacy torch checkpoint (written with _use_new_zipfile_serialization=False or by torch < 1.6); "
    "load it in Python and save the weights again with torch.save(model.state_dict(), path)";

// Legacy files are a bare sequence of pickles, the first being this magic number, which lands within
// the first bytes whatever the pickle protocol.
bool is_legacy_torch(const uint8_t* data, size_t size) {
    static const uint8_t kMagic[] = {0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};
    const uint8_t* end = data + std::min<size_t>(size, 32);
    return size > 0 && data[0] == 0x80 && std::search(data, end, std::begin(kMagic), std::end(kMagic)) != end;
}

uint64_t load_le(const uint8_t* p, size_t bytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    return v;
}

float float_from_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h >> 15) << 31;
    const uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24 is exact in float32
        const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 0x1f) return float_from_bits(sign | 0x7f800000u | mantissa << 13);  // inf, NaN
    return float_from_bits(sign | (exponent + 127 - 15) << 23 | mantissa << 13);
}

// float32 has a 24-bit significand: an integer is exact if what remains after its trailing zero bits fits.
float exact_integer(int64_t v, const std::string& tensor, StoredType type) {
    uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (magnitude != 0) magnitude >>= __builtin_ctzll(magnitude);
    if (magnitude >= (uint64_t{1} << 24)) {
        throw ToolError("tensor '" + tensor + "' (" + stored_type_name(type) + ") holds the value " +
                        std::to_string(v) + ", which float32 cannot represent exactly");
    }
    return static_cast<float>(v);
}

StoredType storage_type(const std::string& storage_class, const std::string& tensor) {
    static const std::pair<const char*, StoredType> kTypes[] = {
        {"FloatStorage", StoredType::F32},     {"DoubleStorage", StoredType::F64}, {"HalfStorage", StoredType::F16},
        {"BFloat16Storage", StoredType::BF16}, {"LongStorage", StoredType::I64},   {"IntStorage", StoredType::I32},
        {"ShortStorage", StoredType::I16},     {"CharStorage", StoredType::I8},    {"ByteStorage", StoredType::U8},
        {"BoolStorage", StoredType::Bool},
    };
    for (const auto& [name, type] : kTypes) {
        if (storage_class == name) return type;
    }
    throw ToolError("tensor '" + tensor + "' is stored as torch." + storage_class +
                    ", which cannot be converted to float32");
}

std::string archive_prefix(const ZipArchive& zip) {
    const std::string suffix = "/data.pkl";
    std::string prefix;
    for (const ZipEntry& e : zip.entries()) {
        const std::string& n = e.name;
        if (n.size() <= suffix.size() || n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
        const std::string candidate = n.substr(0, n.size() - suffix.size());
        if (candidate.find('/') != std::string::npos) continue;
        if (!prefix.empty()) throw ToolError("zip archive holds several data.pkl records");
        prefix = candidate;
    }
    if (prefix.empty()) throw ToolError("zip archive has no <name>/data.pkl record: not a torch.save checkpoint");
    return prefix;
}

struct Storage {
    const uint8_t* bytes = nullptr;
    StoredType type = StoredType::F32;
};

// Strided gather into a contiguous row-major copy. The parser checked that the furthest element lies in
// the storage; stepping only ever moves between addressed elements, so no intermediate overflows.
HostTensor gather(const PickledTensor& t, const Storage& s) {
    HostTensor out;
    out.shape = t.size;
    out.source_dtype = stored_type_name(s.type);
    out.data.resize(static_cast<size_t>(t.numel));
    const size_t item = stored_type_size(s.type), rank = t.size.size();
    std::vector<int64_t> index(rank, 0);
    int64_t src = t.offset;
    for (int64_t i = 0; i < t.numel; ++i) {
        out.data[static_cast<size_t>(i)] = widen_element(s.type, s.bytes + static_cast<size_t>(src) * item, t.name);
        for (size_t d = rank; d-- > 0;) {
            if (index[d] + 1 < t.size[d]) {
                ++index[d];
                src += t.stride[d];
                break;
            }
            src -= t.stride[d] * index[d];
            index[d] = 0;
        }
    }
    return out;
}

template <typename Read>
TensorMap naming_path(const std::string& path, Read read) {
    const std::vector<uint8_t> bytes = read_file_bytes(path);
    try {
        return read(bytes.data(), bytes.size());
    } catch (const ToolError& e) {
        throw ToolError(path + ": " + e.what());
    }
}

}  // namespace

size_t stored_type_size(StoredType type) {
    switch (type) {
        case StoredType::F64:
        case StoredType::I64:
            return 8;
        case StoredType::F32:
        case StoredType::I32:
            return 4;
        case StoredType::F16:
        case StoredType::BF16:
        case StoredType::I16:
            return 2;
        case StoredType::I8:
        case StoredType::U8:
        case StoredType::Bool:
            return 1;
    }
    return 1;
}

const char* stored_type_name(StoredType type) {
    switch (type) {
        case StoredType::F32:
            return "float32";
        case StoredType::F64:
            return "float64";
        case StoredType::F16:
            return "float16";
        case StoredType::BF16:
            return "bfloat16";
        case StoredType::I64:
            return "int64";
        case StoredType::I32:
            return "int32";
        case StoredType::I16:
            return "int16";
        case StoredType::I8:
            return "int8";
        case StoredType::U8:
            return "uint8";
        case StoredType::Bool:
            return "bool";
    }
    return "unknown";
}

float widen_element(StoredType type, const uint8_t* bytes, const std::string& tensor) {
    switch (type) {
        case StoredType::F32:
            return float_from_bits(static_cast<uint32_t>(load_le(bytes, 4)));
        case StoredType::F64: {
            const uint64_t bits = load_le(bytes, 8);
            double d;
            std::memcpy(&d, &bits, sizeof d);
            return static_cast<float>(d);
        }
        case StoredType::F16:
            return half_to_float(static_cast<uint16_t>(load_le(bytes, 2)));
        case StoredType::BF16:
            return float_from_bits(static_cast<uint32_t>(load_le(bytes, 2)) << 16);
        case StoredType::I64:
            return exact_integer(static_cast<int64_t>(load_le(bytes, 8)), tensor, type);
        case StoredType::I32:
            return exact_integer(static_cast<int32_t>(load_le(bytes, 4)), tensor, type);
        case StoredType::I16:
            return static_cast<float>(static_cast<int16_t>(load_le(bytes, 2)));
        case StoredType::I8:
            return static_cast<float>(static_cast<int8_t>(bytes[0]));
        case StoredType::U8:
            return static_cast<float>(bytes[0]);
        case StoredType::Bool:
            return bytes[0] != 0 ? 1.0f : 0.0f;
    }
    return 0.0f;
}

TensorMap read_torch_checkpoint_bytes(const uint8_t* data, size_t size, StateDictChoice* choice) {
    if (is_legacy_torch(data, size)) throw ToolError(kLegacyMessage);
    const ZipArchive zip(data, size);
    const std::string prefix = archive_prefix(zip);

    if (const ZipEntry* order = zip.find(prefix + "/byteorder")) {
        const uint8_t* text = zip.entry_data(*order);
        if (std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(order->size)) != "little") {
            throw ToolError("checkpoint was written on a big-endian machine; only little-endian data is supported");
        }
    }
    const ZipEntry* pickle = zip.find(prefix + "/data.pkl");
    const PickledStateDict dict =
        parse_torch_pickle(zip.entry_data(*pickle), static_cast<size_t>(pickle->size), choice);

    // Storages are checked against their entries first, so the output budget reflects real data.
    std::vector<Storage> storages(dict.storages.size());
    std::vector<bool> resolved(dict.storages.size(), false);
    int64_t stored_elements = 0;
    for (const PickledTensor& t : dict.tensors) {
        if (resolved[t.storage]) continue;
        const PickledStorage& ps = dict.storages[t.storage];
        Storage& s = storages[t.storage];
        s.type = storage_type(ps.type, t.name);
        const ZipEntry* entry = zip.find(prefix + "/data/" + ps.key);
        if (entry == nullptr) {
            throw ToolError("tensor '" + t.name + "' needs archive entry data/" + ps.key + ", which is missing");
        }
        int64_t bytes = 0;
        if (__builtin_mul_overflow(ps.numel, static_cast<int64_t>(stored_type_size(s.type)), &bytes) ||
            static_cast<uint64_t>(bytes) > entry->size) {
            throw ToolError("archive entry data/" + ps.key + " is smaller than its storage (truncated?)");
        }
        s.bytes = zip.entry_data(*entry);
        stored_elements += ps.numel;  // cannot overflow: entries do not overlap, so all fit in the file
        resolved[t.storage] = true;
    }
    const int64_t budget = std::max(kMinElementBudget, kViewFactor * stored_elements);
    int64_t total = 0;
    for (const PickledTensor& t : dict.tensors) {
        if (__builtin_add_overflow(total, t.numel, &total) || total > budget) {
            throw ToolError("tensors view their storages more than " + std::to_string(kViewFactor) +
                            " times over; refusing to expand them");
        }
    }

    TensorMap out;
    for (const PickledTensor& t : dict.tensors) out.emplace(t.name, gather(t, storages[t.storage]));
    return out;
}

TensorMap read_torch_checkpoint(const std::string& path) {
    return naming_path(path, [](const uint8_t* data, size_t size) { return read_torch_checkpoint_bytes(data, size); });
}

TensorMap read_checkpoint(const std::string& path, StateDictChoice* choice) {
    return naming_path(path, [choice](const uint8_t* data, size_t size) {
        // Byte 8 of a zip is its first entry's method, never '{'; a safetensors header length may start with
        // anything, so it is tested first.
        if (size > 8 && data[8] == '{') {
            if (choice && !choice->key.empty())
                throw ToolError(
                    "a safetensors file holds one flat tensor dict; --state-dict-key is for torch.save "
                    "dicts holding several");
            return read_safetensors_bytes(data, size);
        }
        if (size >= 2 && data[0] == 'P' && data[1] == 'K') return read_torch_checkpoint_bytes(data, size, choice);
        if (is_legacy_torch(data, size)) throw ToolError(kLegacyMessage);
        throw ToolError("neither a torch.save zip checkpoint nor a safetensors file");
    });
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
    std::error_code ignored;
    // A directory opens as a stream and reports a nonsense size.
    if (std::filesystem::is_directory(path, ignored)) throw ToolError(path + ": is a directory, not a file");
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw ToolError(path + ": cannot open file");
    const std::streamoff length = in.tellg();
    if (length < 0) throw ToolError(path + ": cannot determine the file size");
    std::vector<uint8_t> bytes(static_cast<size_t>(length));
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(bytes.data()), length)) throw ToolError(path + ": cannot read file");
    return bytes;
}

}  // namespace ax::tools
