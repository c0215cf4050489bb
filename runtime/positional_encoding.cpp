#include "runtime/positional_encoding.h"

#include <cmath>

namespace ax {

void add_sinusoidal_positions(float* x, size_t rows, size_t d, size_t first_position) {
    // Same float32 steps as the tutorial: div_term = exp(2i * (-ln(10000) / d)); angle = pos * div_term.
    const float log_base = -std::log(10000.0f) / static_cast<float>(d);
    for (size_t i = 0; i + 1 <= d; i += 2) {
        const float div_term = std::exp(static_cast<float>(i) * log_base);
        for (size_t r = 0; r < rows; ++r) {
            const float angle = static_cast<float>(first_position + r) * div_term;
            x[r * d + i] += std::sin(angle);
            if (i + 1 < d) x[r * d + i + 1] += std::cos(angle);
        }
    }
}

void add_sinusoidal_position(float* row, size_t d, size_t position) {
    add_sinusoidal_positions(row, 1, d, position);
}

}  // namespace ax
