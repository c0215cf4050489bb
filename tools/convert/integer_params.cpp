#include "tools/convert/integer_params.h"

#include <cmath>
#include <string>

#include "tools/common/tool_error.h"

namespace ax::tools {

fixed::Requant requant_of(double m) {
    if (!(m >= 0.0) || !std::isfinite(m))
        throw ToolError("integer-only: a rescaling factor is " + std::to_string(m) +
                        " (a scale is negative or not finite)");
    fixed::Requant r;
    if (m < std::ldexp(1.0, -32)) return r;  // from here on e >= -31 = kMinShift
    int e = 0;
    const double f = std::frexp(m, &e);  // m = f 2^e, f in [0.5, 1)
    int64_t q = std::llround(f * 2147483648.0);
    if (q == (int64_t{1} << 31)) {  // f rounded up to 1
        q >>= 1;
        ++e;
    }
    if (e > fixed::kMaxShift)
        throw ToolError("integer-only: a rescaling factor of " + std::to_string(m) +
                        " is beyond the fixed-point range (2^30): the calibration ranges of two consecutive "
                        "tensors differ too much");
    r.multiplier = static_cast<int32_t>(q);
    r.shift = e;
    return r;
}

double requant_value(fixed::Requant m) { return std::ldexp(static_cast<double>(m.multiplier), m.shift - 31); }

double symmetric_scale(double absmax, int32_t top) { return absmax > 0.0 ? absmax / top : 1.0; }

LayerNormQ layer_norm_params(const float* gamma, const float* beta, size_t n, double eps, double x_scale,
                             double y_scale) {
    LayerNormQ p;
    double top = 0.0;
    for (size_t i = 0; i < n; ++i) top = std::fmax(top, std::fabs(gamma[i] / y_scale));
    // The largest shift (at most 30) that keeps every gamma below 2^30: the most precise that fits.
    while (p.shift < 30 && top * std::ldexp(1.0, p.shift + 1) < std::ldexp(1.0, 30)) ++p.shift;
    p.gamma.resize(n);
    p.beta.resize(n);
    const double beta_limit = std::ldexp(1.0, 20);  // beyond 2^20 / 256 output steps the output saturates anyway
    for (size_t i = 0; i < n; ++i) {
        p.gamma[i] = static_cast<int32_t>(std::llround(gamma[i] / y_scale * std::ldexp(1.0, p.shift)));
        const double b = std::fmax(-beta_limit, std::fmin(beta_limit, beta[i] / y_scale * 256.0));
        p.beta[i] = static_cast<int32_t>(std::llround(b));
    }
    const double e = std::round(eps / (x_scale * x_scale));
    p.eps = e >= 1.8e19 ? UINT64_MAX / 2 : static_cast<uint64_t>(e);
    return p;
}

double activation_value(format::Activation activation, double x) {
    switch (activation) {
        case format::Activation::gelu:
            return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
        case format::Activation::gelu_tanh:
            return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
        case format::Activation::elu:
            return x > 0.0 ? x : std::expm1(x);
        case format::Activation::relu:
            break;
    }
    return x > 0.0 ? x : 0.0;
}

std::vector<int8_t> activation_table(format::Activation activation, double x_scale, double y_scale) {
    std::vector<int8_t> table(256);
    for (int q = -128; q < 128; ++q) {
        const double y = std::round(activation_value(activation, x_scale * q) / y_scale);
        table[q + 128] = static_cast<int8_t>(std::fmax(-128.0, std::fmin(127.0, y)));
    }
    return table;
}

}  // namespace ax::tools
