#include "runtime/ed25519.h"

#include <cstring>

#include "runtime/sha512.h"

namespace ax {

namespace {

// ---- The field GF(p), p = 2^255 - 19: sixteen limbs of 16 bits, held in int32 (sums and differences of a
// few stay far below 2^31; a product's terms are summed in int64, and 2^256 = 38 mod p folds its high half
// back). int32 storage halves every element, and the stack a device needs to verify.
struct Fe {
    int32_t v[16];
};

Fe fe(int32_t x) {
    Fe r{};
    r.v[0] = x;
    return r;
}

// One carry pass over sixteen limbs of any signed type: each limb brought into [0, 2^16), the top carry
// folded into limb 0 times 38.
template <typename T>
void carry_limbs(T* v) {
    for (int i = 0; i < 16; ++i) {
        const T c = v[i] >> 16;  // floor division: limbs may be negative after a subtraction
        v[i] -= c * 65536;
        if (i < 15)
            v[i + 1] += c;
        else
            v[0] += 38 * c;
    }
}

void carry(Fe& a) { carry_limbs(a.v); }

Fe add(const Fe& a, const Fe& b) {
    Fe r;
    for (int i = 0; i < 16; ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
}

Fe sub(const Fe& a, const Fe& b) {
    Fe r;
    for (int i = 0; i < 16; ++i) r.v[i] = a.v[i] - b.v[i];
    return r;
}

Fe mul(const Fe& a, const Fe& b) {
    // The limbs of mul's inputs are below 2^18 in magnitude (sums and differences of carried limbs), so each
    // product is one 32 x 32 -> 64-bit multiply, not the three a 64 x 64 one costs on a 32-bit core.
    int64_t t[31] = {};
    for (int i = 0; i < 16; ++i) {
        const int32_t x = static_cast<int32_t>(a.v[i]);
        for (int j = 0; j < 16; ++j) t[i + j] += static_cast<int64_t>(x) * static_cast<int32_t>(b.v[j]);
    }
    for (int i = 0; i < 15; ++i) t[i] += 38 * t[i + 16];
    // Two passes in int64 bring every limb below 2^16 plus a small carry into limb 0: then int32 holds it.
    carry_limbs(t);
    carry_limbs(t);
    Fe r;
    for (int i = 0; i < 16; ++i) r.v[i] = static_cast<int32_t>(t[i]);
    return r;
}

// a^e for an exponent given as 32 little-endian bytes (bit 255 clear).
Fe power(const Fe& a, const uint8_t e[32]) {
    Fe r = fe(1);
    for (int i = 254; i >= 0; --i) {
        r = mul(r, r);
        if ((e[i / 8] >> (i % 8)) & 1) r = mul(r, a);
    }
    return r;
}

// Exponents: p - 2 (the inverse), (p - 5) / 8 (the square root's), (p - 1) / 4 (sqrt(-1) = 2^((p-1)/4)).
constexpr uint8_t kPMinus2[32] = {0xeb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
constexpr uint8_t kPMinus5Over8[32] = {0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0f};
constexpr uint8_t kPMinus1Over4[32] = {0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                       0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x1f};

Fe inverse(const Fe& a) { return power(a, kPMinus2); }

// The canonical 32 bytes of a (in [0, p)).
void pack(uint8_t out[32], Fe a) {
    for (;;) {
        carry(a);
        bool settled = true;
        for (int i = 0; i < 16; ++i) settled = settled && a.v[i] >= 0 && a.v[i] < 65536;
        if (settled) break;
    }
    // Now 0 <= a < 2^256 < 2p + 38: subtract p at most twice.
    for (int k = 0; k < 2; ++k) {
        Fe m;
        int32_t borrow = 0;
        for (int i = 0; i < 16; ++i) {
            const int32_t limb = i == 0 ? 0xffed : i == 15 ? 0x7fff : 0xffff;
            m.v[i] = a.v[i] - limb - borrow;
            borrow = m.v[i] < 0 ? 1 : 0;
            m.v[i] += borrow * 65536;
        }
        if (!borrow) a = m;
    }
    for (int i = 0; i < 16; ++i) {
        out[2 * i] = static_cast<uint8_t>(a.v[i] & 0xff);
        out[2 * i + 1] = static_cast<uint8_t>(a.v[i] >> 8);
    }
}

Fe unpack(const uint8_t in[32]) {
    Fe r;
    for (int i = 0; i < 16; ++i) r.v[i] = in[2 * i] | (int32_t{in[2 * i + 1]} << 8);
    r.v[15] &= 0x7fff;
    return r;
}

bool equal(const Fe& a, const Fe& b) {
    uint8_t x[32], y[32];
    pack(x, a);
    pack(y, b);
    return std::memcmp(x, y, 32) == 0;
}

int parity(const Fe& a) {
    uint8_t x[32];
    pack(x, a);
    return x[0] & 1;
}

// ---- The curve -x^2 + y^2 = 1 + d x^2 y^2, points in extended coordinates (x = X/Z, y = Y/Z, xy = T/Z).
struct Point {
    Fe x, y, z, t;
};

struct Curve {
    Fe d, d2, sqrt_m1;
    Point base;
};

Point identity() { return Point{fe(0), fe(1), fe(1), fe(0)}; }

// The unified addition of twisted Edwards curves with a = -1 (complete: it also doubles).
Point add(const Point& p, const Point& q, const Curve& c) {
    const Fe a = mul(sub(p.y, p.x), sub(q.y, q.x));
    const Fe b = mul(add(p.y, p.x), add(q.y, q.x));
    const Fe cc = mul(mul(p.t, q.t), c.d2);
    const Fe zz = mul(p.z, q.z);
    const Fe dd = add(zz, zz);
    const Fe e = sub(b, a), f = sub(dd, cc), g = add(dd, cc), h = add(b, a);
    return Point{mul(e, f), mul(g, h), mul(f, g), mul(e, h)};
}

// [s]p for a 256-bit little-endian scalar; the same operations whatever the scalar's bits (the host signs
// with a secret one).
Point scalar_mul(const Point& p, const uint8_t s[32], const Curve& c) {
    Point q = identity();
    for (int i = 255; i >= 0; --i) {
        q = add(q, q, c);
        const Point r = add(q, p, c);
        const int32_t mask = -static_cast<int32_t>((s[i / 8] >> (i % 8)) & 1);
        for (int k = 0; k < 16; ++k) {
            q.x.v[k] ^= mask & (q.x.v[k] ^ r.x.v[k]);
            q.y.v[k] ^= mask & (q.y.v[k] ^ r.y.v[k]);
            q.z.v[k] ^= mask & (q.z.v[k] ^ r.z.v[k]);
            q.t.v[k] ^= mask & (q.t.v[k] ^ r.t.v[k]);
        }
    }
    return q;
}

void encode(uint8_t out[32], const Point& p) {
    const Fe zi = inverse(p.z);
    pack(out, mul(p.y, zi));
    out[31] = static_cast<uint8_t>(out[31] ^ (parity(mul(p.x, zi)) << 7));
}

// RFC 8032 5.1.3; false for a y of p or more, or no x for it, or x = 0 with the sign bit set.
bool decode(const uint8_t in[32], const Curve& c, Point& p) {
    // y >= p: the low 255 bits are 2^255 - 19 .. 2^255 - 1.
    bool all_ones = (in[31] & 0x7f) == 0x7f && in[0] >= 0xed;
    for (int i = 1; i < 31; ++i) all_ones = all_ones && in[i] == 0xff;
    if (all_ones) return false;
    const int sign = in[31] >> 7;
    p.y = unpack(in);
    p.z = fe(1);
    const Fe y2 = mul(p.y, p.y);
    const Fe u = sub(y2, fe(1));
    const Fe v = add(mul(c.d, y2), fe(1));
    const Fe v3 = mul(mul(v, v), v);
    const Fe v7 = mul(mul(v3, v3), v);
    Fe x = mul(mul(u, v3), power(mul(u, v7), kPMinus5Over8));
    const Fe vx2 = mul(v, mul(x, x));
    if (!equal(vx2, u)) {
        if (!equal(vx2, sub(fe(0), u))) return false;
        x = mul(x, c.sqrt_m1);
    }
    if (equal(x, fe(0)) && sign) return false;
    if (parity(x) != sign) x = sub(fe(0), x);
    p.x = x;
    p.t = mul(x, p.y);
    return true;
}

Curve curve() {
    Curve c;
    c.d = mul(sub(fe(0), fe(121665)), inverse(fe(121666)));
    c.d2 = add(c.d, c.d);
    c.sqrt_m1 = power(fe(2), kPMinus1Over4);
    // The base point: y = 4/5, x even (RFC 8032 5.1).
    uint8_t b[32];
    std::memset(b, 0x66, sizeof b);
    b[0] = 0x58;
    decode(b, c, c.base);
    return c;
}

bool small_order(const Point& p, const Curve& c) {
    Point q = add(p, p, c);
    q = add(q, q, c);
    q = add(q, q, c);
    return equal(q.x, fe(0)) && equal(q.y, q.z);
}

// ---- Scalars modulo the group order L = 2^252 + 27742317777372353535851937790883648493, as eight 32-bit
// words, little-endian.
constexpr uint32_t kOrder[8] = {0x5cf5d3ed, 0x5812631a, 0xa2f79cd6, 0x14def9de, 0, 0, 0, 0x10000000};

bool below_order(const uint32_t w[8]) {
    for (int i = 7; i >= 0; --i)
        if (w[i] != kOrder[i]) return w[i] < kOrder[i];
    return false;
}

void words_from(const uint8_t in[32], uint32_t w[8]) {
    for (int i = 0; i < 8; ++i)
        w[i] = in[4 * i] | (uint32_t{in[4 * i + 1]} << 8) | (uint32_t{in[4 * i + 2]} << 16) |
               (uint32_t{in[4 * i + 3]} << 24);
}

// The `size`-byte little-endian number `in`, modulo L, as 32 bytes: one bit at a time from the top
// (r = 2r + bit, less L when that reaches it), simple and plenty fast for one signature.
void reduce(const uint8_t* in, size_t size, uint8_t out[32]) {
    uint32_t r[8] = {};
    for (size_t bit = size * 8; bit-- > 0;) {
        uint32_t carry = (in[bit / 8] >> (bit % 8)) & 1;
        for (int i = 0; i < 8; ++i) {
            const uint32_t next = r[i] >> 31;
            r[i] = (r[i] << 1) | carry;
            carry = next;
        }
        if (!below_order(r)) {
            uint64_t borrow = 0;
            for (int i = 0; i < 8; ++i) {
                const uint64_t d = uint64_t{r[i]} - kOrder[i] - borrow;
                r[i] = static_cast<uint32_t>(d);
                borrow = (d >> 63) & 1;
            }
        }
    }
    for (int i = 0; i < 8; ++i)
        for (int k = 0; k < 4; ++k) out[4 * i + k] = static_cast<uint8_t>(r[i] >> (8 * k));
}

// (a * b + c) mod L for 32-byte scalars.
void mul_add(const uint8_t a[32], const uint8_t b[32], const uint8_t c[32], uint8_t out[32]) {
    uint32_t x[8], y[8], z[8];
    words_from(a, x);
    words_from(b, y);
    words_from(c, z);
    uint64_t acc[16] = {};
    for (int i = 0; i < 8; ++i) {
        uint64_t carry = 0;
        for (int j = 0; j < 8; ++j) {
            const uint64_t t = acc[i + j] + uint64_t{x[i]} * y[j] + carry;
            acc[i + j] = t & 0xffffffffu;
            carry = t >> 32;
        }
        acc[i + 8] += carry;
    }
    uint64_t carry = 0;
    for (int i = 0; i < 16; ++i) {
        const uint64_t t = acc[i] + (i < 8 ? z[i] : 0) + carry;
        acc[i] = t & 0xffffffffu;
        carry = t >> 32;
    }
    uint8_t wide[64];
    for (int i = 0; i < 16; ++i)
        for (int k = 0; k < 4; ++k) wide[4 * i + k] = static_cast<uint8_t>(acc[i] >> (8 * k));
    reduce(wide, sizeof wide, out);
}

// SHA-512(first || second || message || more) mod L.
void hash_to_scalar(const uint8_t* first, size_t first_size, const uint8_t* second, size_t second_size,
                    const uint8_t* message, size_t size, const uint8_t* more, size_t more_size, uint8_t out[32]) {
    Sha512 h;
    h.update(first, first_size);
    h.update(second, second_size);
    h.update(message, size);
    if (more) h.update(more, more_size);
    uint8_t digest[kSha512Bytes];
    h.finish(digest);
    reduce(digest, sizeof digest, out);
}

// The secret scalar (clamped) and the nonce prefix of a seed (RFC 8032 5.1.5).
void expand(const uint8_t seed[32], uint8_t scalar[32], uint8_t prefix[32]) {
    uint8_t h[kSha512Bytes];
    sha512(seed, 32, h);
    std::memcpy(scalar, h, 32);
    scalar[0] &= 248;
    scalar[31] &= 127;
    scalar[31] |= 64;
    std::memcpy(prefix, h + 32, 32);
}

}  // namespace

bool ed25519_verify(const uint8_t public_key[kEd25519PublicKeyBytes], const uint8_t* message, size_t size,
                    const uint8_t signature[kEd25519SignatureBytes], const uint8_t* second, size_t second_size) {
    uint32_t s[8];
    words_from(signature + 32, s);
    if (!below_order(s)) return false;  // a non-canonical S would make signatures malleable
    const Curve c = curve();
    Point a, r;
    if (!decode(public_key, c, a) || small_order(a, c)) return false;
    if (!decode(signature, c, r) || small_order(r, c)) return false;
    uint8_t k[32];
    hash_to_scalar(signature, 32, public_key, 32, message, size, second, second_size, k);
    // [S]B - [k]A must be R; R was decoded canonically, so comparing encodings compares points.
    const Point minus_a{sub(fe(0), a.x), a.y, a.z, sub(fe(0), a.t)};
    const Point check = add(scalar_mul(c.base, signature + 32, c), scalar_mul(minus_a, k, c), c);
    uint8_t encoded[32];
    encode(encoded, check);
    return std::memcmp(encoded, signature, 32) == 0;
}

void ed25519_public_key(const uint8_t seed[kEd25519SeedBytes], uint8_t public_key[kEd25519PublicKeyBytes]) {
    uint8_t scalar[32], prefix[32];
    expand(seed, scalar, prefix);
    const Curve c = curve();
    encode(public_key, scalar_mul(c.base, scalar, c));
}

void ed25519_sign(const uint8_t seed[kEd25519SeedBytes], const uint8_t* message, size_t size,
                  uint8_t signature[kEd25519SignatureBytes], const uint8_t* second, size_t second_size) {
    uint8_t scalar[32], prefix[32], public_key[32];
    expand(seed, scalar, prefix);
    const Curve c = curve();
    encode(public_key, scalar_mul(c.base, scalar, c));
    uint8_t r[32];
    hash_to_scalar(prefix, 32, nullptr, 0, message, size, second, second_size, r);
    encode(signature, scalar_mul(c.base, r, c));
    uint8_t k[32];
    hash_to_scalar(signature, 32, public_key, 32, message, size, second, second_size, k);
    mul_add(k, scalar, r, signature + 32);
}

}  // namespace ax
