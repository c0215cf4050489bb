// Attention over float keys and values (the encoder's own rows, float caches) with generic's bits: generic's
// float operations in generic's order, several keys' sums (scores) or a block of outputs (values) kept in the
// FPU's registers so that each query or output value is loaded once per block, not once per key. Scalar
// FPU code, so subnormals and NaNs behave as in generic; the build does not contract (the Armv7-M VMLA the
// compiler picks rounds its product and its sum on their own, as generic's separate multiply and add do).
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

namespace ax::mcu {

// generic::dot_f32's four partial sums ((s0 + s1) + (s2 + s3), the tail into s0) of four keys at a time,
// sixteen sums in the FPU's registers (named variables: GCC at -Os keeps arrays of sums on the stack).
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4) {
        const float* k0 = k + j * stride;
        const float* k1 = k0 + stride;
        const float* k2 = k1 + stride;
        const float* k3 = k2 + stride;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f;
        float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f, d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            const float q0 = q[i], q1 = q[i + 1], q2 = q[i + 2], q3 = q[i + 3];
            a0 += q0 * k0[i];
            a1 += q1 * k0[i + 1];
            a2 += q2 * k0[i + 2];
            a3 += q3 * k0[i + 3];
            b0 += q0 * k1[i];
            b1 += q1 * k1[i + 1];
            b2 += q2 * k1[i + 2];
            b3 += q3 * k1[i + 3];
            c0 += q0 * k2[i];
            c1 += q1 * k2[i + 1];
            c2 += q2 * k2[i + 2];
            c3 += q3 * k2[i + 3];
            d0 += q0 * k3[i];
            d1 += q1 * k3[i + 1];
            d2 += q2 * k3[i + 2];
            d3 += q3 * k3[i + 3];
        }
        for (; i < n; ++i) {
            a0 += q[i] * k0[i];
            b0 += q[i] * k1[i];
            c0 += q[i] * k2[i];
            d0 += q[i] * k3[i];
        }
        scores[j] = ((a0 + a1) + (a2 + a3)) * scale;
        scores[j + 1] = ((b0 + b1) + (b2 + b3)) * scale;
        scores[j + 2] = ((c0 + c1) + (c2 + c3)) * scale;
        scores[j + 3] = ((d0 + d1) + (d2 + d3)) * scale;
    }
    if (j < n_keys) generic::attention_scores_f32(q, k + j * stride, stride, n_keys - j, n, scale, scores + j);
}

// generic::axpy_f32 key after key, sixteen or eight outputs kept across all keys (named variables, as above).
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    size_t c = 0;
    for (; c + 16 <= n; c += 16) {  // sixteen outputs: one weight load per sixteen products
        float* o = out + c;
        float o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3], o4 = o[4], o5 = o[5], o6 = o[6], o7 = o[7];
        float o8 = o[8], o9 = o[9], o10 = o[10], o11 = o[11], o12 = o[12], o13 = o[13], o14 = o[14], o15 = o[15];
        const float* vj = v + c;
        for (size_t j = 0; j < n_keys; ++j, vj += stride) {
            const float a = p[j];
            o0 += a * vj[0];
            o1 += a * vj[1];
            o2 += a * vj[2];
            o3 += a * vj[3];
            o4 += a * vj[4];
            o5 += a * vj[5];
            o6 += a * vj[6];
            o7 += a * vj[7];
            o8 += a * vj[8];
            o9 += a * vj[9];
            o10 += a * vj[10];
            o11 += a * vj[11];
            o12 += a * vj[12];
            o13 += a * vj[13];
            o14 += a * vj[14];
            o15 += a * vj[15];
        }
        o[0] = o0;
        o[1] = o1;
        o[2] = o2;
        o[3] = o3;
        o[4] = o4;
        o[5] = o5;
        o[6] = o6;
        o[7] = o7;
        o[8] = o8;
        o[9] = o9;
        o[10] = o10;
        o[11] = o11;
        o[12] = o12;
        o[13] = o13;
        o[14] = o14;
        o[15] = o15;
    }
    for (; c + 8 <= n; c += 8) {
        float* o = out + c;
        float o0 = o[0], o1 = o[1], o2 = o[2], o3 = o[3], o4 = o[4], o5 = o[5], o6 = o[6], o7 = o[7];
        const float* vj = v + c;
        for (size_t j = 0; j < n_keys; ++j, vj += stride) {
            const float a = p[j];
            o0 += a * vj[0];
            o1 += a * vj[1];
            o2 += a * vj[2];
            o3 += a * vj[3];
            o4 += a * vj[4];
            o5 += a * vj[5];
            o6 += a * vj[6];
            o7 += a * vj[7];
        }
        o[0] = o0;
        o[1] = o1;
        o[2] = o2;
        o[3] = o3;
        o[4] = o4;
        o[5] = o5;
        o[6] = o6;
        o[7] = o7;
    }
    if (c < n) generic::attention_values_f32(p, v + c, stride, n_keys, n - c, out + c);
}

}  // namespace ax::mcu
