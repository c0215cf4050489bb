// Owner keys for signed models (runtime/model_signature.h): an Ed25519 key pair in two small text files,
// the secret one readable by its owner only, and the signature record `auspex sign` appends to a model.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/ed25519.h"

namespace ax::tools {

using PublicKey = std::array<uint8_t, kEd25519PublicKeyBytes>;

// Writes a new key pair: PREFIX.key (the secret seed, mode 0600, never overwritten: a key in use must not
// be lost to a typo) and PREFIX.pub. The seed comes from the system's random source. Returns the public key.
PublicKey generate_key_pair(const std::string& prefix);

// Reads a key file written by generate_key_pair; ToolError naming the file when it is not one. A secret key
// file that others can read is refused (its owner should know it leaked).
std::array<uint8_t, kEd25519SeedBytes> read_secret_key(const std::string& path);
PublicKey read_public_key(const std::string& path);

// "ed25519:" and the first 8 bytes of SHA-512(key) in hex: short enough to read aloud, as inspect shows it.
std::string key_fingerprint(const PublicKey& key);

// `model` (an .axm file, with or without a signature record after it) signed with `seed`: the model's
// bytes followed by a new signature record.
std::vector<uint8_t> signed_model(const std::vector<uint8_t>& model,
                                  const std::array<uint8_t, kEd25519SeedBytes>& seed);

}  // namespace ax::tools

namespace ax::tools {

// True when the file starts as a public key file does (auspex header takes one in place of a model).
bool is_public_key_file(const std::string& path);

// A C header holding the key as `static const unsigned char NAME[1][32]` (the trusted-key array
// auspex_open_signed and ModelSlots::require_signature take) and NAME_COUNT.
std::string public_key_header(const PublicKey& key, const std::string& name, const std::string& source);

}  // namespace ax::tools
