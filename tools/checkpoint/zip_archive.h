// A minimal read-only ZIP reader over a caller-owned buffer: just enough for torch.save archives, which
// store (never compress) their entries and always write ZIP64 end records. Untrusted input: every
// offset and size is checked against the buffer before use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ax::tools {

struct ZipEntry {
    std::string name;
    uint16_t method = 0;           // 0 = stored; anything else is refused when the entry is read
    bool encrypted = false;        // likewise refused when read
    uint64_t data_offset = 0;      // where the entry's (possibly compressed) bytes start in the buffer
    uint64_t compressed_size = 0;  // bytes at data_offset, known to lie inside the buffer
    uint64_t size = 0;             // uncompressed size
};

class ZipArchive {
public:
    // Parses the end records, the central directory and every local header; throws ToolError on
    // anything malformed. The buffer must outlive the archive.
    ZipArchive(const uint8_t* data, size_t size);

    const std::vector<ZipEntry>& entries() const { return entries_; }
    const ZipEntry* find(const std::string& name) const;

    // The bytes of a stored entry; throws ToolError for a compressed or encrypted one.
    const uint8_t* entry_data(const ZipEntry& entry) const;

private:
    const uint8_t* data_;
    std::vector<ZipEntry> entries_;
    std::map<std::string, size_t> by_name_;
};

}  // namespace ax::tools
