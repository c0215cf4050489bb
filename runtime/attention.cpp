#include "runtime/attention.h"

#include <cmath>

namespace ax {

void attend(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float* scores, float* out) {
    const size_t d = nhead * head_dim;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    for (size_t i = 0; i < in.n_q; ++i) {
        const size_t position = in.first_position + i;
        const size_t visible = in.causal && position + 1 < in.n_kv ? position + 1 : in.n_kv;
        float* out_row = out + i * d;
        for (size_t c = 0; c < d; ++c) out_row[c] = 0.0f;
        if (in.key_valid == nullptr) {
            for (size_t h = 0; h < nhead; ++h) {
                const float* q = in.q + i * in.q_stride + h * head_dim;
                k.attention_scores_f32(q, in.k + h * head_dim, in.kv_stride, visible, head_dim, scale, scores);
                k.softmax_f32(scores, visible);
                k.attention_values_f32(scores, in.v + h * head_dim, in.kv_stride, visible, head_dim,
                                       out_row + h * head_dim);
            }
            continue;
        }
        // Padded keys are left out (scores of the valid keys packed at the front), which is what a -inf
        // mask does; a row without any valid key keeps its zero output.
        for (size_t h = 0; h < nhead; ++h) {
            const float* q = in.q + i * in.q_stride + h * head_dim;
            size_t n = 0;
            for (size_t j = 0; j < visible; ++j)
                if (in.key_valid[j]) scores[n++] = k.dot_f32(q, in.k + j * in.kv_stride + h * head_dim, head_dim) * scale;
            if (n == 0) break;
            k.softmax_f32(scores, n);
            n = 0;
            for (size_t j = 0; j < visible; ++j)
                if (in.key_valid[j])
                    k.axpy_f32(head_dim, scores[n++], in.v + j * in.kv_stride + h * head_dim, out_row + h * head_dim);
        }
    }
}

}  // namespace ax
