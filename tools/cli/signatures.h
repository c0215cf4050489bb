// What verify and inspect say of a model's signature (cmd_sign.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "tools/cli/args.h"

namespace ax::cli {

// verify MODEL --public KEY.pub[,KEY2.pub]: exit 0 when one of the keys signed the model as it is.
int verify_signature(const Args& args, const std::string& path);

// "unsigned", or "signed by ed25519:..." (the record's key, not checked).
std::string signature_line(const uint8_t* bytes, size_t size);

}  // namespace ax::cli
