// The protobuf wire format, read from a byte buffer without a schema compiler: ONNX files are protobuf messages,
// and the reader is written here rather than depending on libprotobuf. Every length and count is checked
// against the bytes that hold it; an ONNX file is untrusted input, and a malformed one ends in a ToolError that
// names the message being read and the byte offset, never in a read past the buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ax::onnx {

// Nested messages deeper than this are refused (ONNX nests graphs in attributes; real models stay under 10).
constexpr int kMaxMessageDepth = 32;
// Fields in one message, elements in one repeated field: far above any real model, low enough that a
// hostile count cannot ask for gigabytes.
constexpr size_t kMaxFieldsPerMessage = size_t{1} << 24;

enum class WireType : uint8_t { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

struct Field {
    uint32_t number = 0;
    WireType type = WireType::varint;
    uint64_t value = 0;             // varint, fixed32 and fixed64 fields
    const uint8_t* data = nullptr;  // length-delimited fields: their bytes (inside the buffer)
    size_t size = 0;
};

// Reads the fields of one message in order. `what` names the message for errors ("ONNX GraphProto").
class ProtoReader {
public:
    // `base` is the start of the whole file, so errors give offsets in it; `depth` is this message's nesting.
    ProtoReader(const uint8_t* data, size_t size, const uint8_t* base, const char* what, int depth);

    // The next field, or false at the end of the message. Throws ToolError on a malformed field.
    bool next(Field* field);

    // A nested message in a length-delimited field.
    ProtoReader nested(const Field& field, const char* what) const;

    int depth() const { return depth_; }
    [[noreturn]] void fail(const std::string& why) const;

    // Field accessors that check the wire type the schema expects.
    uint64_t varint(const Field& f) const;
    int64_t int64(const Field& f) const { return static_cast<int64_t>(varint(f)); }
    int32_t int32(const Field& f) const;
    float float32(const Field& f) const;
    double float64(const Field& f) const;
    std::string string(const Field& f) const;
    // Repeated scalars, packed (one length-delimited field) or not (one field per element); appended.
    void int64s(const Field& f, std::vector<int64_t>* out) const;
    void float32s(const Field& f, std::vector<float>* out) const;
    void float64s(const Field& f, std::vector<double>* out) const;

private:
    void expect(const Field& f, WireType t) const;
    uint64_t read_varint(const uint8_t** at, const uint8_t* end) const;

    const uint8_t* at_;
    const uint8_t* end_;
    const uint8_t* base_;
    const char* what_;
    int depth_;
    size_t fields_ = 0;
};

}  // namespace ax::onnx
