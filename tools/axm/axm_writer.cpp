#include "tools/axm/axm_writer.h"

#include <cstring>

#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

void put_u16(std::vector<uint8_t>& b, size_t at, uint16_t v) {
    b[at] = static_cast<uint8_t>(v);
    b[at + 1] = static_cast<uint8_t>(v >> 8);
}
void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

size_t align_up(size_t n) { return (n + format::kAlignment - 1) / format::kAlignment * format::kAlignment; }

// Appends a region at the next aligned offset and returns that offset.
uint64_t append_aligned(std::vector<uint8_t>& b, const void* data, size_t bytes) {
    b.resize(align_up(b.size()), 0);
    const uint64_t at = b.size();
    b.resize(b.size() + bytes);
    if (bytes) std::memcpy(b.data() + at, data, bytes);
    return at;
}

}  // namespace

std::vector<uint8_t> serialize_axm(const AxmModel& model) {
    namespace hdr = format::header;
    namespace rec = format::tensor;
    if (model.tensors.empty() || model.tensors.size() > format::kMaxTensors)
        throw ToolError("a model needs 1 to 4096 tensors");
    const size_t config_offset = format::kHeaderBytes;
    const size_t table_offset = config_offset + model.config.size() * format::kConfigRecordBytes;
    const size_t table_end = table_offset + model.tensors.size() * format::kTensorRecordBytes;
    std::vector<uint8_t> b(table_end, 0);

    std::memcpy(b.data() + hdr::magic, format::kMagic, sizeof format::kMagic);
    put_u32(b, hdr::version, format::kVersion);
    put_u32(b, hdr::family, static_cast<uint32_t>(model.family));
    put_u32(b, hdr::config_count, static_cast<uint32_t>(model.config.size()));
    put_u64(b, hdr::config_offset, config_offset);
    put_u32(b, hdr::tensor_count, static_cast<uint32_t>(model.tensors.size()));
    put_u64(b, hdr::tensor_offset, table_offset);
    for (size_t i = 0; i < model.config.size(); ++i) {
        put_u32(b, config_offset + i * 8, static_cast<uint32_t>(model.config[i].first));
        put_u32(b, config_offset + i * 8 + 4, model.config[i].second);
    }
    for (size_t i = 0; i < model.tensors.size(); ++i) {
        const AxmTensor& t = model.tensors[i];
        if (t.dims.empty() || t.dims.size() > format::kMaxRank)
            throw ToolError("tensor " + t.source_name + ": rank outside 1..4");
        const size_t r = table_offset + i * format::kTensorRecordBytes;
        put_u16(b, r + rec::role, static_cast<uint16_t>(t.role));
        put_u16(b, r + rec::layer, t.layer);
        b[r + rec::dtype] = static_cast<uint8_t>(t.dtype);
        b[r + rec::rank] = static_cast<uint8_t>(t.dims.size());
        for (size_t d = 0; d < t.dims.size(); ++d) put_u32(b, r + rec::dims + 4 * d, t.dims[d]);
        const uint64_t data_at = append_aligned(b, t.data.data(), t.data.size());
        put_u64(b, r + rec::data_offset, data_at);
        put_u64(b, r + rec::data_bytes, t.data.size());
        put_u32(b, r + rec::input_absmax, float_to_bits(t.input_absmax));
        if (t.dtype == format::DType::i8) {
            const uint64_t scales_at = append_aligned(b, t.scales.data(), t.scales.size() * sizeof(float));
            put_u64(b, r + rec::scale_offset, scales_at);
            put_u64(b, r + rec::scale_bytes, t.scales.size() * sizeof(float));
        } else if (t.dtype == format::DType::i4) {
            const uint64_t scales_at =
                append_aligned(b, t.group_scales.data(), t.group_scales.size() * sizeof(uint16_t));
            put_u64(b, r + rec::scale_offset, scales_at);
            put_u64(b, r + rec::scale_bytes, t.group_scales.size() * sizeof(uint16_t));
        }
    }
    // Pad the end too, so that models concatenated or embedded keep the alignment of the next thing.
    b.resize(align_up(b.size()), 0);
    put_u64(b, hdr::file_size, b.size());
    reseal_axm(b);
    return b;
}

void reseal_axm(std::vector<uint8_t>& b) {
    if (b.size() < format::kHeaderBytes) return;
    put_u64(b, format::header::checksum, fnv1a64(b.data() + format::kChecksumStart, b.size() - format::kChecksumStart));
}

}  // namespace ax::tools
