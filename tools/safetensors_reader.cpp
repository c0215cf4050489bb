// safetensors layout (github.com/huggingface/safetensors, format section): an unsigned 64-bit
// little-endian header length N, N bytes of JSON mapping each tensor name to {"dtype", "shape",
// "data_offsets": [begin, end)} relative to the data section that follows, plus an optional
// "__metadata__" map. The JSON reader here is local because offsets need exact 64-bit integers.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>

#include "tools/checkpoint.h"
#include "tools/tool_error.h"

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

struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object };
    Type type = Type::Null;
    bool is_count = false;  // a number that is a non-negative integer fitting in 64 bits
    uint64_t count = 0;
    std::string text;                // String
    std::vector<Json> items;         // Array elements; Object values
    std::vector<std::string> keys;   // Object keys, parallel to items

    const Json* find(const std::string& key) const {
        for (size_t i = 0; i < keys.size(); ++i) {
            if (keys[i] == key) return &items[i];
        }
        return nullptr;
    }
};

class JsonReader {
public:
    JsonReader(const char* text, size_t size) : p_(text), end_(text + size), begin_(text) {}

    Json document() {
        Json v = value(0);
        skip_space();
        if (p_ != end_) fail("unexpected text after the header object");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ToolError("safetensors header: " + what + " at byte " + std::to_string(p_ - begin_));
    }
    void skip_space() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }
    bool eat(char c) {
        skip_space();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    void expect(char c) {
        if (!eat(c)) fail(std::string("expected '") + c + "'");
    }

    Json value(int depth) {
        if (depth > kMaxJsonDepth) fail("nesting is too deep");
        if (++values_ > kMaxJsonValues) fail("too many values");
        skip_space();
        if (p_ == end_) fail("unexpected end");
        Json v;
        if (*p_ == '{') {
            ++p_;
            v.type = Json::Type::Object;
            std::set<std::string> seen;
            if (eat('}')) return v;
            do {
                skip_space();
                std::string key = string();
                if (!seen.insert(key).second) fail("duplicate key '" + key + "'");
                expect(':');
                v.keys.push_back(std::move(key));
                v.items.push_back(value(depth + 1));
            } while (eat(','));
            expect('}');
        } else if (*p_ == '[') {
            ++p_;
            v.type = Json::Type::Array;
            if (eat(']')) return v;
            do v.items.push_back(value(depth + 1));
            while (eat(','));
            expect(']');
        } else if (*p_ == '"') {
            v.type = Json::Type::String;
            v.text = string();
        } else if (*p_ == '-' || (*p_ >= '0' && *p_ <= '9')) {
            number(v);
        } else if (literal("true") || literal("false")) {
            v.type = Json::Type::Bool;
        } else if (!literal("null")) {
            fail("unexpected character");
        }
        return v;
    }

    bool literal(const char* word) {
        const size_t n = std::char_traits<char>::length(word);
        if (static_cast<size_t>(end_ - p_) < n || std::string(p_, n) != word) return false;
        p_ += n;
        return true;
    }

    bool digit() const { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; }

    void number(Json& v) {
        v.type = Json::Type::Number;
        const bool negative = *p_ == '-';
        if (negative) ++p_;
        if (!digit()) fail("malformed number");
        bool fits = true;
        if (*p_ == '0') {
            ++p_;
        } else {
            while (digit()) {
                const uint64_t d = static_cast<uint64_t>(*p_++ - '0');
                fits = fits && v.count <= (UINT64_MAX - d) / 10;
                if (fits) v.count = v.count * 10 + d;
            }
        }
        bool integral = true;
        if (p_ != end_ && *p_ == '.') {
            ++p_;
            if (!digit()) fail("malformed number");
            while (digit()) ++p_;
            integral = false;
        }
        if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            if (!digit()) fail("malformed number");
            while (digit()) ++p_;
            integral = false;
        }
        v.is_count = fits && integral && !negative;
    }

    unsigned hex4() {
        if (end_ - p_ < 4) fail("truncated \\u escape");
        unsigned u = 0;
        for (int i = 0; i < 4; ++i, ++p_) {
            const char c = *p_;
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) fail("malformed \\u escape");
            u = u << 4 | static_cast<unsigned>(d);
        }
        return u;
    }

    static void append_utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | cp >> 6);
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | cp >> 12);
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | cp >> 18);
            out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
            out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    // Python's json.dumps escapes every non-ASCII character, so tensor names often arrive as \u escapes.
    std::string string() {
        if (p_ == end_ || *p_ != '"') fail("expected a string");
        ++p_;
        std::string out;
        for (;;) {
            if (p_ == end_) fail("unterminated string");
            const char c = *p_++;
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (p_ == end_) fail("unterminated string");
            const char e = *p_++;
            switch (e) {
                case '"': case '\\': case '/': out += e; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00) {
                        if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') fail("unpaired surrogate");
                        p_ += 2;
                        const unsigned low = hex4();
                        if (low < 0xDC00 || low >= 0xE000) fail("unpaired surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                    } else if (cp >= 0xDC00 && cp < 0xE000) {
                        fail("unpaired surrogate");
                    }
                    append_utf8(out, cp);
                    break;
                }
                default: fail("unknown escape");
            }
        }
    }

    const char* p_;
    const char* end_;
    const char* begin_;
    size_t values_ = 0;
};

StoredType dtype_of(const std::string& dtype, const std::string& tensor) {
    static const std::pair<const char*, StoredType> kTypes[] = {
        {"F32", StoredType::F32}, {"F64", StoredType::F64}, {"F16", StoredType::F16}, {"BF16", StoredType::BF16},
        {"I64", StoredType::I64}, {"I32", StoredType::I32}, {"I16", StoredType::I16}, {"I8", StoredType::I8},
        {"U8", StoredType::U8},   {"BOOL", StoredType::Bool},
    };
    for (const auto& [name, type] : kTypes) {
        if (dtype == name) return type;
    }
    throw ToolError("tensor '" + tensor + "' has dtype " + dtype + ", which cannot be converted to float32");
}

uint64_t count_of(const Json* v, const std::string& tensor, const char* field) {
    if (v == nullptr || !v->is_count) {
        throw ToolError("tensor '" + tensor + "' has a " + field + " that is not a non-negative integer");
    }
    return v->count;
}

const Json& field(const Json& entry, const char* name, Json::Type type, const std::string& tensor) {
    const Json* v = entry.find(name);
    if (v == nullptr || v->type != type) {
        throw ToolError("tensor '" + tensor + "' lacks a valid \"" + name + "\" field");
    }
    return *v;
}

// `budget` is the element count still allowed; it is charged before anything is allocated.
HostTensor read_tensor(const Json& entry, const std::string& name, const uint8_t* data, uint64_t data_size,
                       int64_t& budget) {
    if (entry.type != Json::Type::Object) throw ToolError("tensor '" + name + "' is not described by an object");
    const StoredType type = dtype_of(field(entry, "dtype", Json::Type::String, name).text, name);
    const Json& shape = field(entry, "shape", Json::Type::Array, name);
    const Json& offsets = field(entry, "data_offsets", Json::Type::Array, name);
    if (shape.items.size() > kMaxRank) {
        throw ToolError("tensor '" + name + "' has rank " + std::to_string(shape.items.size()) + ", above the limit of 8");
    }
    if (offsets.items.size() != 2) throw ToolError("tensor '" + name + "' needs exactly two data_offsets");

    HostTensor t;
    int64_t numel = 1;
    for (const Json& d : shape.items) {
        const uint64_t n = count_of(&d, name, "dimension");
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
    const uint64_t begin = count_of(&offsets.items[0], name, "data offset");
    const uint64_t end = count_of(&offsets.items[1], name, "data offset");
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
    const Json root = JsonReader(reinterpret_cast<const char*>(data + 8), static_cast<size_t>(header)).document();
    if (root.type != Json::Type::Object) throw ToolError("safetensors header is not a JSON object");

    const uint8_t* section = data + 8 + header;
    const uint64_t section_size = size - 8 - header;
    // Entries may overlap, so a small file could claim huge outputs; legitimate files never exceed their
    // data section in elements.
    int64_t budget = std::max(kMinElementBudget, static_cast<int64_t>(section_size));
    TensorMap out;
    for (size_t i = 0; i < root.keys.size(); ++i) {
        const std::string& name = root.keys[i];
        if (name == "__metadata__") continue;
        if (name.size() > kMaxNameBytes) {
            throw ToolError("tensor name '" + name.substr(0, 64) + "...' is " + std::to_string(name.size()) +
                            " bytes long, above the limit of " + std::to_string(kMaxNameBytes));
        }
        out.emplace(name, read_tensor(root.items[i], name, section, section_size, budget));
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
