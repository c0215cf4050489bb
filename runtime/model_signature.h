// Signed models: a device runs only the models its owner signed. `auspex sign` appends a signature record
// after the model's last byte (docs/FORMAT.md, "Signature record"); readers that do not look for it are
// unaffected, since a model's buffer may be longer than the model. The record holds the signer's Ed25519
// public key and a signature over the whole model and the record's own first 64 bytes, so the model's
// name and version records (runtime/model_identity.h) are signed with it and an old signed model cannot
// be passed off as a newer one.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/ed25519.h"
#include "runtime/status.h"

namespace ax {

constexpr size_t kSignatureRecordBytes = 128;
constexpr size_t kSignedPartBytes = 64;  // of the record: magic, sizes, the signer's key
constexpr char kSignatureMagic[8] = {'A', 'X', 'S', 'I', 'G', 'N', '0', '1'};

// The public keys a device trusts (a small set: a current and a next key, say).
struct TrustedKeys {
    const uint8_t (*keys)[kEd25519PublicKeyBytes] = nullptr;
    size_t count = 0;
};

// Checks the signature record after the model in data[0, size): ok when a trusted key signed exactly
// these bytes; bad_signature, saying which, when the model is unsigned, signed by a key not in `trusted`
// (or `trusted` is empty), or changed after signing; bad_model when the header's file size does not fit.
Status check_model_signature(const uint8_t* data, size_t size, const TrustedKeys& trusted);

// The signer's public key as the record states it (not checked): false for an unsigned model.
bool model_signer(const uint8_t* data, size_t size, uint8_t public_key[kEd25519PublicKeyBytes]);

// The record's first kSignedPartBytes for a model of `file_size` bytes signed by `public_key`: what the
// signer signs after the model, and what check_model_signature reads back.
void signature_record_head(uint64_t file_size, const uint8_t public_key[kEd25519PublicKeyBytes],
                           uint8_t head[kSignedPartBytes]);

}  // namespace ax
