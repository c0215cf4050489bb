// Signed models: keygen (an owner's key pair), sign (a model signed with it), and the checks verify and
// inspect make of a signature (runtime/model_signature.h).
#include <cstdio>

#include "runtime/model_identity.h"
#include "runtime/model_signature.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/cli/commands.h"
#include "tools/cli/signatures.h"
#include "tools/common/file_io.h"
#include "tools/common/split_text.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"
#include "tools/signing/signing_keys.h"

namespace ax::cli {

int cmd_keygen(const Argv& argv) {
    const Args args(argv, {"output"}, {});
    args.expect_positionals(0, "nothing (the key pair goes to -o PREFIX)");
    const std::string prefix = args.require("output");
    const tools::PublicKey key = tools::generate_key_pair(prefix);
    std::printf("wrote %s.key (the secret key: keep it off devices and out of version control) and %s.pub (%s)\n",
                prefix.c_str(), prefix.c_str(), tools::key_fingerprint(key).c_str());
    return 0;
}

int cmd_sign(const Argv& argv) {
    const Args args(argv, {"key", "output"}, {});
    args.expect_positionals(1, "one model (.axm)");
    const std::string& path = args.positionals()[0];
    const std::string output = args.get("output", path);
    const auto seed = tools::read_secret_key(args.require("key"));
    const std::vector<uint8_t> bytes = tools::read_file_bytes(path);
    const auto model = tools::open_model_bytes(bytes, path);  // only a valid model is worth signing
    uint32_t version = 0;
    if (!model_version(model->file, &version))
        std::fprintf(stderr,
                     "note: %s states no version (convert --model-version N): a device cannot tell it from an "
                     "older signed model, and the A/B slots take no update without one\n",
                     path.c_str());
    const std::vector<uint8_t> signed_bytes = tools::signed_model(bytes, seed);
    tools::PublicKey key;
    model_signer(signed_bytes.data(), signed_bytes.size(), key.data());
    tools::write_file_atomic(output, signed_bytes.data(), signed_bytes.size());
    std::printf("signed %s with %s: %s (%zu bytes, the last %zu the signature record)\n", path.c_str(),
                tools::key_fingerprint(key).c_str(), output.c_str(), signed_bytes.size(), kSignatureRecordBytes);
    return 0;
}

int verify_signature(const Args& args, const std::string& path) {
    std::vector<tools::PublicKey> keys;
    for (const std::string& file : tools::split_text(args.get("public"), ','))
        keys.push_back(tools::read_public_key(file));
    const std::vector<uint8_t> bytes = tools::read_file_bytes(path);
    const Status s = check_model_signature(
        bytes.data(), bytes.size(),
        TrustedKeys{reinterpret_cast<const uint8_t(*)[kEd25519PublicKeyBytes]>(keys.data()), keys.size()});
    tools::PublicKey signer;
    const bool named = model_signer(bytes.data(), bytes.size(), signer.data());
    if (!s) {
        throw tools::ToolError(path + ": " + s.message() +
                               (named && s.code() == StatusCode::bad_signature
                                    ? std::string(" (the record names ") + tools::key_fingerprint(signer) + ")"
                                    : std::string()));
    }
    tools::open_model_bytes(bytes, path);  // the signed bytes are a valid model too
    std::printf("%s: signature good, signed by %s\n", path.c_str(), tools::key_fingerprint(signer).c_str());
    return 0;
}

std::string signature_line(const uint8_t* bytes, size_t size) {
    tools::PublicKey signer;
    if (!model_signer(bytes, size, signer.data())) return "unsigned";
    return "signed by " + tools::key_fingerprint(signer) + " (checked against a key by verify --public KEY.pub)";
}

}  // namespace ax::cli
