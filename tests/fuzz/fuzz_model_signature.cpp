// Fuzzes the signature check of signed models (runtime/model_signature.cpp) with one owner key. Two
// properties: the check reads nothing outside the buffer whatever it is given; and it accepts a buffer only
// when the owner's own (deterministic) Ed25519 signature of those bytes is the one the record holds, so
// the fuzzer cannot find a changed model that passes. Each input is also signed here and one byte of the
// signed copy flipped, at a place and by a mask the input chooses: that must always be refused.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "fuzz_support.h"
#include "runtime/bytes.h"
#include "runtime/format.h"
#include "runtime/model_signature.h"

namespace {

using namespace ax;

struct Owner {
    uint8_t seed[kEd25519SeedBytes];
    uint8_t key[1][kEd25519PublicKeyBytes];
    Owner() {
        for (size_t i = 0; i < sizeof seed; ++i) seed[i] = static_cast<uint8_t>(3 * i + 1);
        ed25519_public_key(seed, key[0]);
    }
};

const Owner& owner() {
    static const Owner o;
    return o;
}

// The record for data[0, file_size) as the owner signs it.
void sign(const uint8_t* data, uint64_t file_size, uint8_t record[kSignatureRecordBytes]) {
    signature_record_head(file_size, owner().key[0], record);
    ed25519_sign(owner().seed, data, static_cast<size_t>(file_size), record + kSignedPartBytes, record,
                 kSignedPartBytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const TrustedKeys trusted{owner().key, 1};
    fuzz::AlignedCopy buffer(data, size);
    if (check_model_signature(buffer.data(), buffer.size(), trusted).is_ok()) {
        const uint64_t file_size = load_u64(buffer.data() + format::header::file_size);
        uint8_t record[kSignatureRecordBytes];
        sign(buffer.data(), file_size, record);
        if (std::memcmp(record, buffer.data() + file_size, sizeof record) != 0) std::abort();  // a forgery
    }
    if (size < format::kHeaderBytes + 2) return 0;
    uint64_t file_size = load_u64(data + format::header::file_size);
    if (file_size < format::kHeaderBytes || file_size > size) file_size = size;
    std::vector<uint8_t> signed_copy(data, data + file_size);
    // Keep the header's file size what the copy holds, so the record lands where the check looks.
    for (int i = 0; i < 8; ++i) signed_copy[format::header::file_size + i] = static_cast<uint8_t>(file_size >> (8 * i));
    signed_copy.resize(file_size + kSignatureRecordBytes);
    sign(signed_copy.data(), file_size, signed_copy.data() + file_size);
    {
        fuzz::AlignedCopy good(signed_copy.data(), signed_copy.size());
        if (!check_model_signature(good.data(), good.size(), trusted).is_ok()) std::abort();
    }
    const size_t at = (static_cast<size_t>(data[size - 2]) << 8 | data[size - 1]) * 131 % signed_copy.size();
    const uint8_t mask = static_cast<uint8_t>(data[size / 2] | 1);
    signed_copy[at] ^= mask;
    fuzz::AlignedCopy bad(signed_copy.data(), signed_copy.size());
    if (check_model_signature(bad.data(), bad.size(), trusted).is_ok()) std::abort();
    return 0;
}
