// Ed25519 signatures (RFC 8032), written for devices: no heap, no tables (Cortex-M4, -Os: about 6.5 KB of
// code with SHA-512 and the record check; docs/device.md has its stack and instructions). A device verifies
// that a model was signed by its owner before it runs it; the host tools sign with the same
// arithmetic. Verification is strict where verifiers differ: S must be below the group order, A and R
// must be canonical encodings of points that are not of small order, and the cofactorless equation
// [S]B = R + [k]A must hold exactly.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

constexpr size_t kEd25519PublicKeyBytes = 32;
constexpr size_t kEd25519SeedBytes = 32;  // the secret key: 32 random bytes
constexpr size_t kEd25519SignatureBytes = 64;

// True when `signature` is `public_key`'s signature of the message. The message may be split in two
// parts (a model's bytes and its signature record's header), hashed in order; `second` may be null.
bool ed25519_verify(const uint8_t public_key[kEd25519PublicKeyBytes], const uint8_t* message, size_t size,
                    const uint8_t signature[kEd25519SignatureBytes], const uint8_t* second = nullptr,
                    size_t second_size = 0);

// The public key of a secret seed.
void ed25519_public_key(const uint8_t seed[kEd25519SeedBytes], uint8_t public_key[kEd25519PublicKeyBytes]);

// Signs a message (two parts, as ed25519_verify reads them) with a secret seed.
void ed25519_sign(const uint8_t seed[kEd25519SeedBytes], const uint8_t* message, size_t size,
                  uint8_t signature[kEd25519SignatureBytes], const uint8_t* second = nullptr, size_t second_size = 0);

}  // namespace ax
