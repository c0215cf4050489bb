#include "runtime/model_signature.h"

#include <cstring>

#include "runtime/bytes.h"
#include "runtime/format.h"

namespace ax {

namespace {

// Record fields (little-endian).
constexpr size_t kMagicAt = 0;        // char[8]
constexpr size_t kRecordBytesAt = 8;  // u32, 128
constexpr size_t kFlagsAt = 12;       // u32, 0
constexpr size_t kModelBytesAt = 16;  // u64, the model's file size (where the record starts)
constexpr size_t kPublicKeyAt = 24;   // u8[32], the signer's Ed25519 key
constexpr size_t kReservedAt = 56;    // u8[8], 0
constexpr size_t kSignatureAt = 64;   // u8[64]: Ed25519 over model[0, file_size) || record[0, 64)
static_assert(kRecordBytesAt + 4 == kFlagsAt && kFlagsAt + 4 == kModelBytesAt, "the u32 fields sit side by side");
static_assert(kReservedAt + 8 == kSignedPartBytes, "the signed part ends where the signature starts");
static_assert(kSignatureAt + kEd25519SignatureBytes == kSignatureRecordBytes, "the record ends with its signature");

// The record after the model, or null (with `why`) when there is none.
const uint8_t* find_record(const uint8_t* data, size_t size, uint64_t* file_size, Status* why) {
    if (data == nullptr || size < format::kHeaderBytes) {
        *why = Status::error(StatusCode::bad_model, "no model header to find a signature after");
        return nullptr;
    }
    *file_size = load_u64(data + format::header::file_size);
    if (*file_size < format::kHeaderBytes || *file_size > size) {
        *why = Status::error(StatusCode::bad_model, "the model's file size does not fit its buffer");
        return nullptr;
    }
    if (size - *file_size < kSignatureRecordBytes ||
        std::memcmp(data + *file_size + kMagicAt, kSignatureMagic, sizeof kSignatureMagic) != 0) {
        *why = Status::error(StatusCode::bad_signature, "the model is unsigned: no signature record follows it ")
                   .add("(sign it with auspex sign)");
        return nullptr;
    }
    return data + *file_size;
}

}  // namespace

void signature_record_head(uint64_t file_size, const uint8_t public_key[kEd25519PublicKeyBytes],
                           uint8_t head[kSignedPartBytes]) {
    std::memset(head, 0, kSignedPartBytes);
    std::memcpy(head + kMagicAt, kSignatureMagic, sizeof kSignatureMagic);
    const uint32_t record_bytes = kSignatureRecordBytes;
    for (int i = 0; i < 4; ++i) head[kRecordBytesAt + i] = static_cast<uint8_t>(record_bytes >> (8 * i));
    for (int i = 0; i < 8; ++i) head[kModelBytesAt + i] = static_cast<uint8_t>(file_size >> (8 * i));
    std::memcpy(head + kPublicKeyAt, public_key, kEd25519PublicKeyBytes);
}

bool model_signer(const uint8_t* data, size_t size, uint8_t public_key[kEd25519PublicKeyBytes]) {
    uint64_t file_size = 0;
    Status why;
    const uint8_t* record = find_record(data, size, &file_size, &why);
    if (record == nullptr) return false;
    std::memcpy(public_key, record + kPublicKeyAt, kEd25519PublicKeyBytes);
    return true;
}

Status check_model_signature(const uint8_t* data, size_t size, const TrustedKeys& trusted) {
    uint64_t file_size = 0;
    Status why;
    const uint8_t* record = find_record(data, size, &file_size, &why);
    if (record == nullptr) return why;
    // The fields the signature covers must also say what the signer wrote: a record moved to another
    // model, or with other flags, is refused before any arithmetic.
    uint8_t head[kSignedPartBytes];
    signature_record_head(file_size, record + kPublicKeyAt, head);
    if (std::memcmp(head, record, kSignedPartBytes) != 0)
        return Status::error(StatusCode::bad_signature, "the signature record is malformed or belongs to another ")
            .add("model");
    size_t k = 0;
    while (k < trusted.count && std::memcmp(trusted.keys[k], record + kPublicKeyAt, kEd25519PublicKeyBytes) != 0) ++k;
    if (k == trusted.count)
        return Status::error(StatusCode::bad_signature,
                             trusted.count == 0 ? "no trusted key was given to check the model's signature"
                                                : "the model is signed by a key this device does not trust");
    if (!ed25519_verify(trusted.keys[k], data, static_cast<size_t>(file_size), record + kSignatureAt, record,
                        kSignedPartBytes))
        return Status::error(StatusCode::bad_signature, "the model's signature does not match its bytes: it was ")
            .add("changed after signing");
    return Status::ok();
}

}  // namespace ax
