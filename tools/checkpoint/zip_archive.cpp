// Layout per PKWARE's APPNOTE.TXT (sections 4.3.7 local header, 4.3.12 central directory, 4.3.14-16
// ZIP64 and classic end records, 4.5.3 ZIP64 extra field).
#include "tools/checkpoint/zip_archive.h"

#include <algorithm>
#include <utility>

#include "tools/common/tool_error.h"

namespace ax::tools {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;
constexpr size_t kLocalSize = 30;
constexpr size_t kCentralSize = 46;
constexpr size_t kEndSize = 22;
constexpr size_t kEnd64Size = 56;
constexpr size_t kEnd64LocatorSize = 20;
constexpr size_t kMaxComment = 0xFFFF;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint32_t kSaturated32 = 0xFFFFFFFF;

uint16_t u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | p[1] << 8); }
uint32_t u32(const uint8_t* p) { return u16(p) | static_cast<uint32_t>(u16(p + 2)) << 16; }
uint64_t u64(const uint8_t* p) { return u32(p) | static_cast<uint64_t>(u32(p + 4)) << 32; }

// True when [offset, offset + length) lies inside [0, limit); written so nothing can overflow.
bool fits(uint64_t offset, uint64_t length, uint64_t limit) { return offset <= limit && length <= limit - offset; }

struct Directory {
    uint64_t entries = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
};

// The classic end record sits at the very end, followed only by its comment; scanning backwards from
// the last possible position finds it in at most 64 KiB of steps.
size_t find_end_record(const uint8_t* data, size_t size) {
    if (size < kEndSize) throw ToolError("not a zip archive: too short for an end-of-central-directory record");
    const size_t lowest = size - kEndSize > kMaxComment ? size - kEndSize - kMaxComment : 0;
    for (size_t pos = size - kEndSize + 1; pos-- > lowest;) {
        if (u32(data + pos) == kEndSig && pos + kEndSize + u16(data + pos + 20) == size) return pos;
    }
    throw ToolError("not a zip archive (or truncated): no end-of-central-directory record");
}

Directory read_directory_location(const uint8_t* data, size_t size) {
    const size_t end = find_end_record(data, size);
    const uint8_t* e = data + end;
    if (u16(e + 4) != 0 || u16(e + 6) != 0) throw ToolError("multi-part zip archives are not supported");
    Directory dir{u16(e + 10), u32(e + 16), u32(e + 12)};

    if (end < kEnd64LocatorSize || u32(e - kEnd64LocatorSize) != kEnd64LocatorSig) return dir;
    const uint64_t end64 = u64(e - kEnd64LocatorSize + 8);
    if (!fits(end64, kEnd64Size, end - kEnd64LocatorSize) || u32(data + end64) != kEnd64Sig) {
        throw ToolError("zip archive has a broken ZIP64 end-of-central-directory record");
    }
    const uint8_t* z = data + end64;
    if (u32(z + 16) != 0 || u32(z + 20) != 0) throw ToolError("multi-part zip archives are not supported");
    return Directory{u64(z + 32), u64(z + 48), u64(z + 40)};
}

// Sizes and offsets too big for 32 bits are saturated in the central directory and given in full, in
// a fixed order, by the ZIP64 extra field.
void apply_zip64_extra(const uint8_t* extra, size_t length, ZipEntry& entry, uint64_t& local_offset,
                       bool size_saturated, bool compressed_saturated, bool offset_saturated) {
    size_t pos = 0;
    while (length - pos >= 4) {
        const uint16_t id = u16(extra + pos);
        const size_t field_size = u16(extra + pos + 2);
        pos += 4;
        if (field_size > length - pos) throw ToolError("zip entry '" + entry.name + "' has a malformed extra field");
        if (id == kZip64ExtraId) {
            const uint8_t* f = extra + pos;
            size_t used = 0;
            auto take = [&](uint64_t& value) {
                if (field_size - used < 8) throw ToolError("zip entry '" + entry.name + "' has a short ZIP64 field");
                value = u64(f + used);
                used += 8;
            };
            if (size_saturated) take(entry.size);
            if (compressed_saturated) take(entry.compressed_size);
            if (offset_saturated) take(local_offset);
            return;
        }
        pos += field_size;
    }
    if (size_saturated || compressed_saturated || offset_saturated) {
        throw ToolError("zip entry '" + entry.name + "' lacks the ZIP64 field its sizes call for");
    }
}

}  // namespace

ZipArchive::ZipArchive(const uint8_t* data, size_t size) : data_(data) {
    const Directory dir = read_directory_location(data, size);
    if (!fits(dir.offset, dir.size, size)) throw ToolError("zip central directory lies outside the file (truncated?)");
    // Every record takes at least kCentralSize bytes, which bounds the count before anything is allocated.
    if (dir.entries > dir.size / kCentralSize)
        throw ToolError("zip central directory is too small for its entry count");
    entries_.reserve(static_cast<size_t>(dir.entries));
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // [local header, end of data) per entry
    spans.reserve(static_cast<size_t>(dir.entries));

    const uint8_t* cd = data + dir.offset;
    size_t pos = 0;
    for (uint64_t i = 0; i < dir.entries; ++i) {
        if (!fits(pos, kCentralSize, dir.size) || u32(cd + pos) != kCentralSig) {
            throw ToolError("zip central directory record " + std::to_string(i) + " is malformed");
        }
        const uint8_t* r = cd + pos;
        const size_t name_len = u16(r + 28), extra_len = u16(r + 30), comment_len = u16(r + 32);
        if (!fits(pos + kCentralSize, name_len + extra_len + comment_len, dir.size)) {
            throw ToolError("zip central directory record " + std::to_string(i) + " runs past the directory");
        }
        ZipEntry entry;
        entry.name.assign(reinterpret_cast<const char*>(r + kCentralSize), name_len);
        entry.encrypted = (u16(r + 8) & 1) != 0;
        entry.method = u16(r + 10);
        entry.compressed_size = u32(r + 20);
        entry.size = u32(r + 24);
        uint64_t local = u32(r + 42);
        apply_zip64_extra(r + kCentralSize + name_len, extra_len, entry, local, entry.size == kSaturated32,
                          entry.compressed_size == kSaturated32, local == kSaturated32);
        pos += kCentralSize + name_len + extra_len + comment_len;

        // Sizes come from the central directory: torch (like most streaming writers) leaves them zero in
        // the local header and writes a data descriptor after the data.
        if (!fits(local, kLocalSize, size) || u32(data + local) != kLocalSig) {
            throw ToolError("zip entry '" + entry.name + "' has no valid local header");
        }
        const size_t local_name_len = u16(data + local + 26), local_extra_len = u16(data + local + 28);
        if (!fits(local + kLocalSize, local_name_len, size) || local_name_len != name_len ||
            entry.name.compare(0, name_len, reinterpret_cast<const char*>(data + local + kLocalSize), name_len) != 0) {
            throw ToolError("zip entry '" + entry.name + "' has a local header that disagrees with the directory");
        }
        entry.data_offset = local + kLocalSize + local_name_len + local_extra_len;
        if (!fits(entry.data_offset, entry.compressed_size, size)) {
            throw ToolError("zip entry '" + entry.name + "' runs past the end of the file (truncated?)");
        }
        if (entry.method == 0 && !entry.encrypted && entry.compressed_size != entry.size) {
            throw ToolError("zip entry '" + entry.name + "' is stored but its two sizes differ");
        }
        if (!by_name_.emplace(entry.name, entries_.size()).second) {
            throw ToolError("zip archive has two entries named '" + entry.name + "'");
        }
        spans.emplace_back(local, entry.data_offset + entry.compressed_size);
        entries_.push_back(std::move(entry));
    }
    // Overlapping entries would let a small file claim many copies of the same bytes.
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) {
        if (spans[i].first < spans[i - 1].second) throw ToolError("zip archive has overlapping entries");
    }
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
    const auto it = by_name_.find(name);
    return it == by_name_.end() ? nullptr : &entries_[it->second];
}

const uint8_t* ZipArchive::entry_data(const ZipEntry& entry) const {
    if (entry.encrypted) throw ToolError("zip entry '" + entry.name + "' is encrypted");
    if (entry.method != 0) {
        throw ToolError("zip entry '" + entry.name + "' is compressed (method " + std::to_string(entry.method) +
                        "); torch.save writes uncompressed archives, so save the checkpoint again with torch.save "
                        "instead of re-zipping it");
    }
    return data_ + entry.data_offset;
}

}  // namespace ax::tools
