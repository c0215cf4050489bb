#include "tools/signing/signing_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "runtime/bytes.h"
#include "runtime/format.h"
#include "runtime/model_signature.h"
#include "runtime/sha512.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

constexpr const char* kSecretHeader = "auspex ed25519 secret key";
constexpr const char* kPublicHeader = "auspex ed25519 public key";

std::string hex(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) s += std::string(1, digits[p[i] >> 4]) + digits[p[i] & 15];
    return s;
}

// The key bytes of a file "HEADER\n<hex>\n".
std::vector<uint8_t> read_key_file(const std::string& path, const char* header, size_t bytes) {
    std::ifstream in(path);
    if (!in) throw ToolError(path + ": cannot read the key file");
    std::string first, digits;
    std::getline(in, first);
    std::getline(in, digits);
    if (!first.empty() && first.back() == '\r') first.pop_back();
    if (!digits.empty() && digits.back() == '\r') digits.pop_back();
    if (first != header) {
        const bool other = first == kSecretHeader || first == kPublicHeader;
        throw ToolError(path +
                        (other ? ": this is the " + std::string(first == kSecretHeader ? "secret" : "public") +
                                     " key of a pair; give the " + (first == kSecretHeader ? ".pub file" : ".key file")
                               : ": not a key file written by auspex keygen"));
    }
    if (digits.size() != 2 * bytes)
        throw ToolError(path + ": the key is not " + std::to_string(bytes) + " bytes of hex");
    std::vector<uint8_t> out(bytes);
    for (size_t i = 0; i < bytes; ++i) {
        unsigned v = 0;
        for (int k = 0; k < 2; ++k) {
            const char c = digits[2 * i + static_cast<size_t>(k)];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) throw ToolError(path + ": the key is not hex");
            v = v * 16 + static_cast<unsigned>(d);
        }
        out[i] = static_cast<uint8_t>(v);
    }
    return out;
}

void random_bytes(uint8_t* out, size_t n) {
    std::ifstream in("/dev/urandom", std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n)))
        throw ToolError("cannot read the system's random source /dev/urandom");
}

// Creates `path` readable and writable by its owner only; refuses an existing file.
void write_new_private_file(const std::string& path, const std::string& text) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        throw ToolError(path + (errno == EEXIST ? ": exists; a key is never overwritten (move it away first)"
                                                : ": cannot create it: " + std::string(std::strerror(errno))));
    const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
    ::close(fd);
    if (!ok) {
        ::unlink(path.c_str());
        throw ToolError(path + ": writing the key failed");
    }
}

}  // namespace

PublicKey generate_key_pair(const std::string& prefix) {
    std::array<uint8_t, kEd25519SeedBytes> seed;
    random_bytes(seed.data(), seed.size());
    PublicKey pub;
    ed25519_public_key(seed.data(), pub.data());
    const std::string pub_path = prefix + ".pub";
    struct stat st;
    if (::stat(pub_path.c_str(), &st) == 0)
        throw ToolError(pub_path + ": exists; a key is never overwritten (move it away first)");
    write_new_private_file(prefix + ".key", std::string(kSecretHeader) + "\n" + hex(seed.data(), seed.size()) + "\n");
    std::memset(seed.data(), 0, seed.size());
    write_file_atomic(pub_path, std::string(kPublicHeader) + "\n" + hex(pub.data(), pub.size()) + "\n");
    return pub;
}

std::array<uint8_t, kEd25519SeedBytes> read_secret_key(const std::string& path) {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0)
        throw ToolError(path + ": the secret key is readable by others (mode " + std::to_string((st.st_mode >> 6) & 7) +
                        std::to_string((st.st_mode >> 3) & 7) + std::to_string(st.st_mode & 7) +
                        "); treat it as leaked, or chmod 600 it if it never left your hands");
    const std::vector<uint8_t> bytes = read_key_file(path, kSecretHeader, kEd25519SeedBytes);
    std::array<uint8_t, kEd25519SeedBytes> seed;
    std::memcpy(seed.data(), bytes.data(), seed.size());
    return seed;
}

PublicKey read_public_key(const std::string& path) {
    const std::vector<uint8_t> bytes = read_key_file(path, kPublicHeader, kEd25519PublicKeyBytes);
    PublicKey key;
    std::memcpy(key.data(), bytes.data(), key.size());
    return key;
}

std::string key_fingerprint(const PublicKey& key) {
    uint8_t digest[kSha512Bytes];
    sha512(key.data(), key.size(), digest);
    return "ed25519:" + hex(digest, 8);
}

std::vector<uint8_t> signed_model(const std::vector<uint8_t>& model,
                                  const std::array<uint8_t, kEd25519SeedBytes>& seed) {
    if (model.size() < format::kHeaderBytes) throw ToolError("not a model: shorter than its header");
    const uint64_t file_size = load_u64(model.data() + format::header::file_size);
    if (file_size < format::kHeaderBytes || file_size > model.size())
        throw ToolError("not a model: its file size does not fit the file");
    const size_t extra = model.size() - static_cast<size_t>(file_size);
    uint8_t signer[kEd25519PublicKeyBytes];
    if (extra != 0 && !(extra == kSignatureRecordBytes && model_signer(model.data(), model.size(), signer)))
        throw ToolError("the file holds " + std::to_string(extra) +
                        " byte(s) after the model that are not a signature record");
    PublicKey pub;
    ed25519_public_key(seed.data(), pub.data());
    std::vector<uint8_t> out(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(file_size));
    uint8_t record[kSignatureRecordBytes];
    signature_record_head(file_size, pub.data(), record);
    ed25519_sign(seed.data(), out.data(), out.size(), record + kSignedPartBytes, record, kSignedPartBytes);
    out.insert(out.end(), record, record + sizeof record);
    return out;
}

}  // namespace ax::tools

namespace ax::tools {

bool is_public_key_file(const std::string& path) {
    std::ifstream in(path);
    std::string first;
    return in && std::getline(in, first) && first.rfind(kPublicHeader, 0) == 0;
}

std::string public_key_header(const PublicKey& key, const std::string& name, const std::string& source) {
    std::string N;
    for (char ch : name) N += static_cast<char>(ch >= 'a' && ch <= 'z' ? ch - 'a' + 'A' : ch);
    std::string text = "/* Generated by auspex header from " + source + " (" + key_fingerprint(key) +
                       "): the public key a device trusts. Do not edit; regenerate instead. */\n";
    text += "#ifndef " + N + "_KEY_H\n#define " + N + "_KEY_H\n";
    text += "#define " + N + "_COUNT 1\n";
    text += "static const unsigned char " + name + "[" + N + "_COUNT][32] = {{\n   ";
    char byte[8];
    for (size_t i = 0; i < key.size(); ++i) {
        std::snprintf(byte, sizeof byte, " 0x%02x,", key[i]);
        text += byte;
        if (i % 8 == 7) text += i + 1 < key.size() ? "\n   " : "\n";
    }
    return text + "}};\n#endif\n";
}

}  // namespace ax::tools
