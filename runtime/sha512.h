// SHA-512 (FIPS 180-4): the hash Ed25519 signatures are made with (RFC 8032). Streaming, no heap; the
// state is 208 bytes, so a device can hash a model as it reads it from flash.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

constexpr size_t kSha512Bytes = 64;

class Sha512 {
public:
    Sha512();
    void update(const uint8_t* data, size_t size);
    void finish(uint8_t digest[kSha512Bytes]);

private:
    void block(const uint8_t* p);
    uint64_t h_[8];
    uint8_t buffer_[128];
    size_t buffered_ = 0;
    uint64_t total_ = 0;  // bytes hashed; the message is far below 2^64 bytes
};

void sha512(const uint8_t* data, size_t size, uint8_t digest[kSha512Bytes]);

}  // namespace ax
