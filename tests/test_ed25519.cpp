// SHA-512 and Ed25519 against their standards' own vectors (FIPS 180-4's examples, RFC 8032 section 7.1),
// and the inputs verifiers get wrong: S not below the group order, public keys and R of small order or
// encoded non-canonically, another message, another key, every bit of a signature flipped.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/ed25519.h"
#include "runtime/sha512.h"

namespace {

std::vector<uint8_t> hex(const std::string& h) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i + 1 < h.size(); i += 2)
        out.push_back(static_cast<uint8_t>(std::stoul(h.substr(i, 2), nullptr, 16)));
    return out;
}

std::string hex_of(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) s += std::string(1, digits[p[i] >> 4]) + digits[p[i] & 15];
    return s;
}

struct Vector {
    const char* secret;
    const char* public_key;
    const char* message;
    const char* signature;
};

// RFC 8032 7.1, TEST 1, 2, 3 and SHA(abc).
const Vector kVectors[] = {
    {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
     "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
     "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe246"
     "55141"
     "438e7a100b"},
    {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
     "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
     "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb"
     "00d29"
     "1612bb0c00"},
    {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
     "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
     "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc"
     "027be"
     "ceea1ec40a"},
    {"833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
     "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
     "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2"
     "a9ac9"
     "4fa54ca49f",
     "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad"
     "9bef1"
     "177331a704"},
};

}  // namespace

TEST_CASE("sha512: FIPS 180-4's examples, split at every point") {
    auto digest = [](const std::string& m) {
        uint8_t d[ax::kSha512Bytes];
        ax::sha512(reinterpret_cast<const uint8_t*>(m.data()), m.size(), d);
        return hex_of(d, sizeof d);
    };
    CHECK(digest("abc") ==
          "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643c"
          "e80e2a"
          "9ac94fa54ca49f");
    CHECK(digest("") ==
          "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd4741"
          "7a81a5"
          "38327af927da3e");
    const std::string two_blocks =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrs"
        "tu";
    const std::string want =
        "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26"
        "545e96e5"
        "5b874be909";
    CHECK(digest(two_blocks) == want);
    for (size_t cut = 0; cut <= two_blocks.size(); ++cut) {
        ax::Sha512 s;
        s.update(reinterpret_cast<const uint8_t*>(two_blocks.data()), cut);
        s.update(reinterpret_cast<const uint8_t*>(two_blocks.data()) + cut, two_blocks.size() - cut);
        uint8_t d[ax::kSha512Bytes];
        s.finish(d);
        CHECK(hex_of(d, sizeof d) == want);
    }
}

TEST_CASE("ed25519: RFC 8032's vectors sign and verify, in one part or two") {
    for (const Vector& v : kVectors) {
        const std::vector<uint8_t> seed = hex(v.secret), pub = hex(v.public_key), msg = hex(v.message),
                                   sig = hex(v.signature);
        uint8_t p[32], s[64];
        ax::ed25519_public_key(seed.data(), p);
        CHECK(hex_of(p, 32) == v.public_key);
        ax::ed25519_sign(seed.data(), msg.data(), msg.size(), s);
        CHECK(hex_of(s, 64) == v.signature);
        CHECK(ax::ed25519_verify(pub.data(), msg.data(), msg.size(), sig.data()));
        // The message split in two parts is the same message.
        const size_t half = msg.size() / 2;
        CHECK(ax::ed25519_verify(pub.data(), msg.data(), half, sig.data(), msg.data() + half, msg.size() - half));
        uint8_t s2[64];
        ax::ed25519_sign(seed.data(), msg.data(), half, s2, msg.data() + half, msg.size() - half);
        CHECK(std::memcmp(s, s2, 64) == 0);
    }
}

TEST_CASE("ed25519: what a verifier must refuse") {
    const Vector& v = kVectors[2];
    const std::vector<uint8_t> pub = hex(v.public_key), msg = hex(v.message), sig = hex(v.signature);
    // Every bit of the signature, the key and the message flipped in turn.
    for (size_t bit = 0; bit < 64 * 8; ++bit) {
        std::vector<uint8_t> s = sig;
        s[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
        CHECK_FALSE(ax::ed25519_verify(pub.data(), msg.data(), msg.size(), s.data()));
    }
    for (size_t bit = 0; bit < 32 * 8; ++bit) {
        std::vector<uint8_t> p = pub;
        p[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
        CHECK_FALSE(ax::ed25519_verify(p.data(), msg.data(), msg.size(), sig.data()));
    }
    for (size_t bit = 0; bit < msg.size() * 8; ++bit) {
        std::vector<uint8_t> m = msg;
        m[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
        CHECK_FALSE(ax::ed25519_verify(pub.data(), m.data(), m.size(), sig.data()));
    }
    // S + L: the same equation holds, but a canonical verifier refuses the second encoding (malleability).
    {
        const uint8_t order[32] = {0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
                                   0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
                                   0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
        std::vector<uint8_t> s = sig;
        unsigned carry = 0;
        for (int i = 0; i < 32; ++i) {
            const unsigned t = s[32 + i] + order[i] + carry;
            s[32 + i] = static_cast<uint8_t>(t);
            carry = t >> 8;
        }
        REQUIRE(carry == 0);
        CHECK_FALSE(ax::ed25519_verify(pub.data(), msg.data(), msg.size(), s.data()));
    }
    // The identity as public key and as R, with S = 0: [0]B = identity + [k]identity holds for every
    // message, so a verifier that accepts small-order points accepts this forgery.
    {
        std::vector<uint8_t> identity(32, 0);
        identity[0] = 1;
        std::vector<uint8_t> forged(64, 0);
        forged[0] = 1;
        CHECK_FALSE(ax::ed25519_verify(identity.data(), msg.data(), msg.size(), forged.data()));
        // A point of order 2 (x = 0, y = -1) as the key.
        std::vector<uint8_t> minus_one = hex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
        CHECK_FALSE(ax::ed25519_verify(minus_one.data(), msg.data(), msg.size(), forged.data()));
    }
    // A key whose y is p or more (a non-canonical encoding of a small y).
    {
        std::vector<uint8_t> p = hex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");
        CHECK_FALSE(ax::ed25519_verify(p.data(), msg.data(), msg.size(), sig.data()));
        p = hex("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f");  // y = 1 written as p + 1
        CHECK_FALSE(ax::ed25519_verify(p.data(), msg.data(), msg.size(), sig.data()));
    }
    // Another vector's valid signature with this key.
    const std::vector<uint8_t> other = hex(kVectors[1].signature), other_msg = hex(kVectors[1].message);
    CHECK_FALSE(ax::ed25519_verify(pub.data(), other_msg.data(), other_msg.size(), other.data()));
}
