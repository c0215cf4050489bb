#include "tools/onnx/protobuf_reader.h"

#include <cstring>

#include "tools/common/tool_error.h"

namespace ax::onnx {

ProtoReader::ProtoReader(const uint8_t* data, size_t size, const uint8_t* base, const char* what, int depth)
    : at_(data), end_(data + size), base_(base), what_(what), depth_(depth) {
    if (depth > kMaxMessageDepth)
        fail("messages nested more than " + std::to_string(kMaxMessageDepth) + " deep (a damaged or hostile file)");
}

void ProtoReader::fail(const std::string& why) const {
    throw tools::ToolError(std::string(what_) + " at byte " + std::to_string(at_ - base_) + ": " + why +
                           " (the file is not a complete ONNX model: export it again)");
}

uint64_t ProtoReader::read_varint(const uint8_t** at, const uint8_t* end) const {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*at >= end) fail("a number runs past the end of its message");
        const uint8_t b = *(*at)++;
        if (shift == 63 && b > 1) fail("a number longer than 64 bits");
        v |= uint64_t{b & 0x7fu} << shift;
        if ((b & 0x80) == 0) return v;
    }
    fail("a number longer than 10 bytes");
}

bool ProtoReader::next(Field* f) {
    if (at_ >= end_) return false;
    if (++fields_ > kMaxFieldsPerMessage) fail("more than " + std::to_string(kMaxFieldsPerMessage) + " fields");
    const uint64_t key = read_varint(&at_, end_);
    const uint64_t number = key >> 3;
    if (number == 0 || number > 0x1fffffff) fail("field number " + std::to_string(number) + " is not valid");
    f->number = static_cast<uint32_t>(number);
    f->data = nullptr;
    f->size = 0;
    f->value = 0;
    switch (key & 7) {
        case 0:
            f->type = WireType::varint;
            f->value = read_varint(&at_, end_);
            return true;
        case 1:
        case 5: {
            const size_t n = (key & 7) == 1 ? 8 : 4;
            if (static_cast<size_t>(end_ - at_) < n) fail("a fixed-size number runs past the end of its message");
            uint64_t v = 0;
            for (size_t i = 0; i < n; ++i) v |= uint64_t{at_[i]} << (8 * i);  // little-endian on the wire
            at_ += n;
            f->type = n == 8 ? WireType::fixed64 : WireType::fixed32;
            f->value = v;
            return true;
        }
        case 2: {
            const uint64_t n = read_varint(&at_, end_);
            if (n > static_cast<uint64_t>(end_ - at_))
                fail("field " + std::to_string(number) + " claims " + std::to_string(n) + " bytes, " +
                     std::to_string(end_ - at_) + " remain");
            f->type = WireType::bytes;
            f->data = at_;
            f->size = static_cast<size_t>(n);
            at_ += n;
            return true;
        }
        default:
            fail("wire type " + std::to_string(key & 7) + " of field " + std::to_string(number) +
                 " (groups and unknown wire types are not protobuf 3)");
    }
}

ProtoReader ProtoReader::nested(const Field& f, const char* what) const {
    expect(f, WireType::bytes);
    return ProtoReader(f.data, f.size, base_, what, depth_ + 1);
}

void ProtoReader::expect(const Field& f, WireType t) const {
    if (f.type != t)
        fail("field " + std::to_string(f.number) + " has wire type " + std::to_string(static_cast<int>(f.type)) +
             ", the schema says " + std::to_string(static_cast<int>(t)));
}

uint64_t ProtoReader::varint(const Field& f) const {
    expect(f, WireType::varint);
    return f.value;
}

int32_t ProtoReader::int32(const Field& f) const {
    // int32 fields are sign-extended to 64 bits on the wire.
    return static_cast<int32_t>(static_cast<int64_t>(varint(f)));
}

float ProtoReader::float32(const Field& f) const {
    expect(f, WireType::fixed32);
    const uint32_t bits = static_cast<uint32_t>(f.value);
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
}

double ProtoReader::float64(const Field& f) const {
    expect(f, WireType::fixed64);
    double v;
    std::memcpy(&v, &f.value, 8);
    return v;
}

std::string ProtoReader::string(const Field& f) const {
    expect(f, WireType::bytes);
    return std::string(reinterpret_cast<const char*>(f.data), f.size);
}

void ProtoReader::int64s(const Field& f, std::vector<int64_t>* out) const {
    if (f.type == WireType::varint) {
        out->push_back(static_cast<int64_t>(f.value));
        return;
    }
    expect(f, WireType::bytes);
    const uint8_t* p = f.data;
    const uint8_t* e = f.data + f.size;
    while (p < e) {
        if (out->size() >= kMaxFieldsPerMessage) fail("a repeated field with too many values");
        out->push_back(static_cast<int64_t>(read_varint(&p, e)));
    }
}

void ProtoReader::float32s(const Field& f, std::vector<float>* out) const {
    if (f.type == WireType::fixed32) {
        out->push_back(float32(f));
        return;
    }
    expect(f, WireType::bytes);
    if (f.size % 4 != 0) fail("packed floats of " + std::to_string(f.size) + " bytes, not a multiple of 4");
    if (f.size == 0) return;  // an empty packed field: nothing to copy (and no pointer to copy from)
    const size_t n = f.size / 4;
    const size_t at = out->size();
    out->resize(at + n);
    std::memcpy(out->data() + at, f.data, f.size);  // little-endian hosts (checked in the ONNX reader)
}

void ProtoReader::float64s(const Field& f, std::vector<double>* out) const {
    if (f.type == WireType::fixed64) {
        out->push_back(float64(f));
        return;
    }
    expect(f, WireType::bytes);
    if (f.size % 8 != 0) fail("packed doubles of " + std::to_string(f.size) + " bytes, not a multiple of 8");
    if (f.size == 0) return;
    const size_t at = out->size();
    out->resize(at + f.size / 8);
    std::memcpy(out->data() + at, f.data, f.size);
}

}  // namespace ax::onnx
