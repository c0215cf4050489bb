// Attention over float keys and values (the encoder's own rows, float caches) with generic's bits: generic's
// float operations in generic's order, several keys' sums (scores) or a block of outputs (values) kept in the
// FPU's registers so that each query or output value is loaded once per block, not once per key. Scalar
// FPU code, so subnormals and NaNs behave as in generic; the build does not contract (the Armv7-M VMLA the
// compiler picks rounds its product and its sum on their own, as generic's separate multiply and add do).
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

namespace ax::mcu {

// generic::dot_f32's four partial sums ((s0 + s1) + (s2 + s3), the tail into s0) for two keys at a time, in
// named variables: GCC at -Os keeps arrays of sums on the stack.
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    size_t j = 0;
    for (; j + 2 <= n_keys; j += 2) {
        const float* k0 = k + j * stride;
        const float* k1 = k0 + stride;
        float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f, b0 = 0.0f, b1 = 0.0f, b2 = 0.0f, b3 = 0.0f;
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
        }
        for (; i < n; ++i) {
            a0 += q[i] * k0[i];
            b0 += q[i] * k1[i];
        }
        scores[j] = ((a0 + a1) + (a2 + a3)) * scale;
        scores[j + 1] = ((b0 + b1) + (b2 + b3)) * scale;
    }
    if (j < n_keys) generic::attention_scores_f32(q, k + j * stride, stride, n_keys - j, n, scale, scores + j);
}

// generic::axpy_f32 key after key, eight outputs kept across all keys (named variables, as above).
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    size_t c = 0;
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
