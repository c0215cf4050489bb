#include "runtime/attention.h"

#include <cmath>

namespace ax {

void attend(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float* scores, float* out,
            size_t out_stride) {
    const size_t d = nhead * head_dim;
    const size_t stride = out_stride != 0 ? out_stride : d;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    // Unpadded float keys: a port may take all query rows of a head at once.
    if (k.attention_rows_f32 != nullptr && in.k_i8 == nullptr && in.key_valid == nullptr && in.n_kv > 0 &&
        in.residual_scores == nullptr) {
        bool done = true;
        for (size_t h = 0; h < nhead && done; ++h)
            done = k.attention_rows_f32(in.q + h * head_dim, in.q_stride, in.n_q, in.k + h * head_dim,
                                        in.v + h * head_dim, in.kv_stride, in.n_kv, in.first_position, in.causal,
                                        head_dim, scale, out + h * head_dim, stride);
        if (done) return;  // the shape is the same for every head: either all are done or none
    }
    for (size_t i = 0; i < in.n_q; ++i) {
        const size_t position = in.first_position + i;
        const size_t visible = in.causal && position + 1 < in.n_kv ? position + 1 : in.n_kv;
        float* out_row = out + i * stride;
        for (size_t c = 0; c < d; ++c) out_row[c] = 0.0f;
        size_t valid = visible;
        if (in.key_valid != nullptr) {
            valid = 0;
            for (size_t j = 0; j < visible; ++j) valid += in.key_valid[j] ? 1 : 0;
            if (valid == 0) continue;  // no key to attend to: the row keeps its zero output
        }
        for (size_t h = 0; h < nhead; ++h) {
            const float* q = in.q + i * in.q_stride + h * head_dim;
            if (in.k_i8 != nullptr)
                k.attention_scores_i8(q, in.k_i8 + h * head_dim, in.k_scale, in.kv_stride, visible, head_dim, scale,
                                      scores);
            else
                k.attention_scores_f32(q, in.k + h * head_dim, in.kv_stride, visible, head_dim, scale, scores);
            if (in.residual_scores != nullptr) {
                float* carried = in.residual_scores + (h * in.n_q + i) * in.n_kv;
                for (size_t j = 0; j < visible; ++j) carried[j] = scores[j] = scores[j] + carried[j];
            }
            if (valid == visible) {
                k.softmax_f32(scores, visible);
            } else {
                // Padded keys are left out of the softmax, as a -inf mask does: the valid keys' scores are
                // packed at the front, normalized, then spread back with zero weight on the padded keys.
                size_t n = 0;
                for (size_t j = 0; j < visible; ++j)
                    if (in.key_valid[j]) scores[n++] = scores[j];
                k.softmax_f32(scores, n);
                for (size_t j = visible; j-- > 0;) scores[j] = in.key_valid[j] ? scores[--n] : 0.0f;
            }
            if (in.v_i8 != nullptr)
                k.attention_values_i8(scores, in.v_i8 + h * head_dim, in.v_scale, in.kv_stride, visible, head_dim,
                                      out_row + h * head_dim);
            else
                k.attention_values_f32(scores, in.v + h * head_dim, in.kv_stride, visible, head_dim,
                                       out_row + h * head_dim);
        }
    }
}

}  // namespace ax
