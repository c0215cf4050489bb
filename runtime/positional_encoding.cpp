#include "runtime/positional_encoding.h"

#include "runtime/float_math.h"

namespace ax {

float sinusoidal_div_term(size_t i, size_t d) {
    const float log_base = -9.21034037f / static_cast<float>(d);  // ln(10000) rounded to float
    return exp_f32(static_cast<float>(i) * log_base);
}

void add_sinusoidal_positions(float* x, size_t rows, size_t d, size_t first_position) {
    // Same float32 steps as the tutorial: div_term = exp(2i * (-ln(10000) / d)); angle = pos * div_term.
    // exp, sin and cos are the runtime's own, so every target computes the same encoding to the bit.
    for (size_t i = 0; i + 1 <= d; i += 2) {
        const float div_term = sinusoidal_div_term(i, d);
        for (size_t r = 0; r < rows; ++r) {
            const float angle = static_cast<float>(first_position + r) * div_term;
            float s, c;
            sin_cos_f32(angle, &s, &c);
            x[r * d + i] += s;
            if (i + 1 < d) x[r * d + i + 1] += c;
        }
    }
}

void add_sinusoidal_position(float* row, size_t d, size_t position) { add_sinusoidal_positions(row, 1, d, position); }

}  // namespace ax
