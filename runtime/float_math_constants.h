// Constants of the float32 exp and erf approximations, shared by the scalar versions (runtime/float_math.cpp)
// and the vectorised ones of the ports (ports/avx2/math_avx2.h), so that every implementation evaluates
// the same polynomials.
#pragma once

namespace ax::float_math {

// exp: x = n ln2 + r, n = round(x log2(e)), |r| <= ln2 / 2; e^r = 1 + r + r^2 P(r) with Cephes' expf
// coefficients (kExpP, highest degree first); 2^n built in the exponent field.
constexpr float kLog2e = 1.44269504088896341f;
// Cody-Waite: ln2 = kLn2Hi + kLn2Lo, kLn2Hi exact in 9 bits so n * kLn2Hi is exact.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kExpP[6] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                            4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};
constexpr float kExpMin = -87.33654f;  // e^x < FLT_MIN below: 0
constexpr float kExpMax = 88.72284f;   // e^x > FLT_MAX above: inf

// erf, after Arm's optimized-routines erff: |x| < 0.875: x + x P(x^2) (kErfSmallP, highest degree first);
// 0.875 <= |x| < 4: sign(x) (1 - e^-(a + a Q(a))), a = |x|; beyond: sign(x).
constexpr float kErfSmallLimit = 0.875f;
constexpr float kErfOneLimit = 4.0f;
constexpr float kErfSmallP[6] = {-0x1.3a1a82p-11f, 0x1.473f48p-08f,  -0x1.b68bd2p-06f,
                                 0x1.ce1a46p-04f,  -0x1.8126e0p-02f, 0x1.06eba6p-03f};
// a + a Q(a) is evaluated in this order: q = (kErfQ[0] a + kErfQ[1]) a^2 + (kErfQ[2] a + kErfQ[3]);
// q = q a + kErfQ[4]; q = q a + kErfQ[5]; q = q a + kErfQ[6]; q = q a + a.
constexpr float kErfQ[7] = {0x1.222900p-16f, -0x1.91d2ccp-12f, 0x1.fd1336p-9f, -0x1.8d6300p-6f,
                            0x1.b55cb0p-4f,  0x1.450aa0p-1f,   0x1.079d0cp-3f};

}  // namespace ax::float_math
