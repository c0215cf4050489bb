#include "runtime/model_file.h"

#include <cmath>
#include <cstring>

#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "runtime/feature_names.h"
#include "runtime/model_identity.h"

namespace ax {

namespace {

using format::DType;
using format::Role;
namespace hdr = format::header;
namespace rec = format::tensor;

Status bad(const char* text) { return Status::error(StatusCode::bad_model, text); }

Status bad_tensor(uint32_t index, const char* text) { return bad("tensor record ").add(index).add(": ").add(text); }

bool known_family(uint32_t f) {
    return f >= static_cast<uint32_t>(format::Family::forecaster) && f <= static_cast<uint32_t>(format::Family::tvae);
}

// A runtime older than a dtype refuses its tensors here ("unknown dtype 4" for i4, before int4 existed).
bool known_dtype(uint8_t d) { return d <= static_cast<uint8_t>(DType::i4); }

// Checks one region [offset, offset + bytes) lies inside the file, after `*cursor` (regions are stored in
// table order, without overlap), and on the format's alignment; advances the cursor past it.
Status check_region(uint32_t index, const char* what, uint64_t offset, uint64_t bytes, uint64_t file_size,
                    uint64_t* cursor) {
    uint64_t end = 0;
    if (offset % format::kAlignment != 0)
        return bad_tensor(index, what).add(" offset ").add(offset).add(" is not 64-byte aligned");
    if (add_overflows(offset, bytes, &end) || end > file_size)
        return bad_tensor(index, what).add(" [").add(offset).add(", +").add(bytes).add(") ends past the file");
    if (offset < *cursor)
        return bad_tensor(index, what)
            .add(" at ")
            .add(offset)
            .add(" overlaps earlier data (ends at ")
            .add(*cursor)
            .add(")");
    *cursor = end;
    return Status::ok();
}

Status check_tensor(const uint8_t* r, uint32_t index, uint64_t file_size, uint64_t* cursor) {
    const uint16_t role = load_u16(r + rec::role);
    const uint16_t layer = load_u16(r + rec::layer);
    const uint8_t dtype = r[rec::dtype];
    const uint8_t rank = r[rec::rank];
    if (format::role_name(static_cast<Role>(role)) == nullptr) return bad_tensor(index, "unknown role ").add(role);
    const bool per_layer = format::role_is_per_layer(static_cast<Role>(role));
    if (per_layer == (layer == format::kNoLayer))
        return bad_tensor(index, "layer index ")
            .add(layer)
            .add(" does not fit role ")
            .add(format::role_name(static_cast<Role>(role)));
    if (!known_dtype(dtype)) return bad_tensor(index, "unknown dtype ").add(dtype);
    if (rank < 1 || rank > format::kMaxRank) return bad_tensor(index, "rank ").add(rank).add(" outside 1..4");
    if (load_u16(r + rec::reserved) != 0 || load_u32(r + rec::reserved2) != 0)
        return bad_tensor(index, "reserved fields are not zero");
    const float absmax = bits_to_float(load_u32(r + rec::input_absmax));
    if (!(absmax >= 0.0f) || !std::isfinite(absmax))
        return bad_tensor(index, "input range is not a finite number >= 0");
    if (absmax != 0.0f && rank != 2) return bad_tensor(index, "an input range on a tensor that is no matrix");
    uint64_t numel = 1;
    for (uint32_t d = 0; d < format::kMaxRank; ++d) {
        const uint32_t dim = load_u32(r + rec::dims + 4 * d);
        if (d < rank && dim == 0) return bad_tensor(index, "has a zero dimension");
        if (d >= rank && dim != 0) return bad_tensor(index, "unused dimension is not zero");
        if (d < rank && mul_overflows(numel, dim, &numel)) return bad_tensor(index, "element count overflows");
    }
    uint64_t expected = 0;
    if (mul_overflows(numel, format::dtype_bytes(static_cast<DType>(dtype)), &expected))
        return bad_tensor(index, "byte size overflows");
    const bool i4 = static_cast<DType>(dtype) == DType::i4;
    if (i4 && rank != 2) return bad_tensor(index, "int4 data that is no matrix (int4 holds Linear weights only)");
    if (i4 && load_u32(r + rec::dims + 4) % format::kI4Group != 0)
        return bad_tensor(index, "int4 matrix of ")
            .add(load_u32(r + rec::dims + 4))
            .add(" columns, not a multiple of its scale groups of 32");
    if (i4) expected = format::dtype_data_bytes(DType::i4, numel);
    const uint64_t data_offset = load_u64(r + rec::data_offset);
    const uint64_t data_bytes = load_u64(r + rec::data_bytes);
    if (data_bytes != expected)
        return bad_tensor(index, "data size ")
            .add(data_bytes)
            .add(" does not match its shape (")
            .add(expected)
            .add(" bytes)");
    AX_RETURN_IF_ERROR(check_region(index, "data", data_offset, data_bytes, file_size, cursor));

    const uint64_t scale_offset = load_u64(r + rec::scale_offset);
    const uint64_t scale_bytes = load_u64(r + rec::scale_bytes);
    if (static_cast<DType>(dtype) == DType::i8) {
        const uint64_t rows = load_u32(r + rec::dims);
        if (scale_bytes != rows * 4)
            return bad_tensor(index, "int8 scales hold ").add(scale_bytes).add(" bytes, expected ").add(rows * 4);
        AX_RETURN_IF_ERROR(check_region(index, "scales", scale_offset, scale_bytes, file_size, cursor));
    } else if (i4) {
        const uint64_t groups = numel / format::kI4Group;  // rows x (columns / 32), each one f16 scale
        if (scale_bytes != groups * 2)
            return bad_tensor(index, "int4 group scales hold ")
                .add(scale_bytes)
                .add(" bytes, expected ")
                .add(groups * 2);
        AX_RETURN_IF_ERROR(check_region(index, "scales", scale_offset, scale_bytes, file_size, cursor));
    } else if (scale_offset != 0 || scale_bytes != 0) {
        return bad_tensor(index, "has scales but is not int8 or int4");
    }
    return Status::ok();
}

}  // namespace

Status ModelFile::open(const uint8_t* data, size_t size, Checksum checksum, ModelFile* out) {
    if (data == nullptr || out == nullptr) return Status::error(StatusCode::invalid_argument, "null model buffer");
    if (reinterpret_cast<uintptr_t>(data) % 16 != 0)
        return Status::error(StatusCode::invalid_argument, "model buffer is not 16-byte aligned");
    if (size < format::kHeaderBytes) return bad("file of ").add(size).add(" bytes is shorter than the 64-byte header");
    if (std::memcmp(data, format::kMagic, sizeof format::kMagic) != 0) return bad("not an auspex model (wrong magic)");
    const uint32_t version = load_u32(data + hdr::version);
    if (version != format::kVersion)
        return Status::error(StatusCode::unsupported, "model format version ")
            .add(version)
            .add(", this runtime reads version 1");
    if (load_u32(data + hdr::flags) != 0 || load_u32(data + hdr::reserved) != 0)
        return bad("header flags/reserved fields are not zero");
    const uint64_t file_size = load_u64(data + hdr::file_size);
    if (file_size > size)
        return bad("truncated: header says ").add(file_size).add(" bytes, only ").add(size).add(" present");
    if (file_size < format::kHeaderBytes) return bad("header file size is smaller than the header");
    if (checksum == Checksum::verify) {
        const uint64_t stored = load_u64(data + hdr::checksum);
        const uint64_t actual =
            fnv1a64(data + format::kChecksumStart, static_cast<size_t>(file_size - format::kChecksumStart));
        if (stored != actual) return bad("checksum mismatch: the file is corrupted");
    }
    const uint32_t family = load_u32(data + hdr::family);
    if (!known_family(family)) return Status::error(StatusCode::unsupported, "unknown model family ").add(family);

    const uint32_t config_count = load_u32(data + hdr::config_count);
    const uint64_t config_offset = load_u64(data + hdr::config_offset);
    const uint32_t tensor_count = load_u32(data + hdr::tensor_count);
    const uint64_t tensor_offset = load_u64(data + hdr::tensor_offset);
    if (config_count > format::kMaxConfigRecords) return bad("too many config records");
    if (tensor_count == 0 || tensor_count > format::kMaxTensors)
        return bad("tensor count ").add(tensor_count).add(" outside 1..4096");
    // The config and tensor tables follow the header back to back: [64, config end, table end).
    const uint64_t config_end = config_offset + uint64_t{config_count} * format::kConfigRecordBytes;
    const uint64_t table_end = tensor_offset + uint64_t{tensor_count} * format::kTensorRecordBytes;
    if (config_offset != format::kHeaderBytes || tensor_offset != config_end || table_end > file_size)
        return bad("config/tensor tables are not where the format puts them or end past the file");

    uint64_t cursor = table_end;
    for (uint32_t i = 0; i < tensor_count; ++i)
        AX_RETURN_IF_ERROR(check_tensor(data + tensor_offset + i * format::kTensorRecordBytes, i, file_size, &cursor));

    ModelFile m;
    m.data_ = data;
    m.file_size_ = file_size;
    m.family_ = static_cast<format::Family>(family);
    m.config_ = data + config_offset;
    m.config_count_ = config_count;
    m.tensors_ = data + tensor_offset;
    m.tensor_count_ = tensor_count;
    // A role may appear once per layer; a duplicate would make the model ambiguous.
    for (uint32_t i = 0; i < tensor_count; ++i) {
        const uint8_t* a = m.tensors_ + i * format::kTensorRecordBytes;
        for (uint32_t j = 0; j < i; ++j) {
            const uint8_t* b = m.tensors_ + j * format::kTensorRecordBytes;
            if (load_u32(a) == load_u32(b)) return bad_tensor(i, "repeats the role and layer of record ").add(j);
        }
    }
    for (uint32_t i = 0; i < config_count; ++i) {
        for (uint32_t j = 0; j < i; ++j)
            if (load_u32(m.config_ + i * 8) == load_u32(m.config_ + j * 8))
                return bad("config key ").add(load_u32(m.config_ + i * 8)).add(" repeats");
    }
    AX_RETURN_IF_ERROR(check_feature_names(m));
    AX_RETURN_IF_ERROR(check_model_identity(m));
    *out = m;
    return Status::ok();
}

TensorView ModelFile::tensor(uint32_t index) const {
    const uint8_t* r = tensors_ + index * format::kTensorRecordBytes;
    TensorView v;
    v.role = static_cast<Role>(load_u16(r + rec::role));
    v.layer = load_u16(r + rec::layer);
    v.dtype = static_cast<DType>(r[rec::dtype]);
    v.rank = r[rec::rank];
    v.numel = 1;
    for (uint32_t d = 0; d < v.rank; ++d) {
        v.dims[d] = load_u32(r + rec::dims + 4 * d);
        v.numel *= v.dims[d];
    }
    v.data_offset = load_u64(r + rec::data_offset);
    v.data = data_ + v.data_offset;
    v.data_bytes = load_u64(r + rec::data_bytes);
    v.input_absmax = bits_to_float(load_u32(r + rec::input_absmax));
    if (v.dtype == DType::i8) v.scales = reinterpret_cast<const float*>(data_ + load_u64(r + rec::scale_offset));
    if (v.dtype == DType::i4)
        v.group_scales = reinterpret_cast<const uint16_t*>(data_ + load_u64(r + rec::scale_offset));
    return v;
}

bool ModelFile::find(format::Role role, uint16_t layer, TensorView* out) const {
    for (uint32_t i = 0; i < tensor_count_; ++i) {
        const uint8_t* r = tensors_ + i * format::kTensorRecordBytes;
        if (load_u16(r + rec::role) == static_cast<uint16_t>(role) && load_u16(r + rec::layer) == layer) {
            *out = tensor(i);
            return true;
        }
    }
    return false;
}

}  // namespace ax
