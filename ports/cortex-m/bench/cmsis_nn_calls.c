/* The CMSIS-NN side of bench_mcu.cpp (built only with CMSIS_NN_DIR): its API is C, and its support header, which
 * declares the GEMM and the requantization, does not compile as C++. Symmetric int8 (input and filter offsets
 * 0, as auspex's quantization), output offset 0. */
#include <stdint.h>

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

static void clamp_range(int unclamped, int32_t* lo, int32_t* hi) {
    *lo = unclamped ? INT32_MIN : -128;
    *hi = unclamped ? INT32_MAX : 127;
}

int32_t bench_mcu_kernel_sums_bytes(int32_t in, int32_t out) {
    const cmsis_nn_dims filter = {in, 1, 1, out};
    return arm_fully_connected_s8_get_buffer_size(&filter);
}

/* What arm_fully_connected_s8 reads from its context buffer when it asks for one (Helium): prepared once per layer,
 * the weights being constant, so not measured. */
void bench_mcu_kernel_sums(const int8_t* w, const int32_t* bias, int32_t in, int32_t out, int32_t* kernel_sums) {
    arm_vector_sum_s8(kernel_sums, in, out, w, 0, 0, bias);
}

void bench_mcu_fc(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t rows, int32_t in, int32_t out,
                  int32_t mult, int32_t shift, int unclamped, int32_t* kernel_sums, int8_t* y) {
    cmsis_nn_context ctx = {kernel_sums, bench_mcu_kernel_sums_bytes(in, out)};
    cmsis_nn_fc_params fc = {0, 0, 0, {0, 0}};
    clamp_range(unclamped, &fc.activation.min, &fc.activation.max);
    const cmsis_nn_per_tensor_quant_params quant = {mult, shift};
    const cmsis_nn_dims in_dims = {rows, 1, 1, in}, filter_dims = {in, 1, 1, out}, bias_dims = {1, 1, 1, out},
                        out_dims = {rows, 1, 1, out};
    arm_fully_connected_s8(&ctx, &fc, &quant, &in_dims, x, &filter_dims, w, &bias_dims, bias, &out_dims, y);
}

/* arm_nn_mat_mult_nt_t_s8 as arm_convolve_1x1_s8_fast calls it: rows of `in` inputs, `out` outputs per row. */
void bench_mcu_mm(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t rows, int32_t in, int32_t out,
                  const int32_t* mults, const int32_t* shifts, int unclamped, int8_t* y) {
    int32_t lo, hi;
    clamp_range(unclamped, &lo, &hi);
    arm_nn_mat_mult_nt_t_s8(x, w, bias, y, mults, shifts, rows, out, in, 0, 0, lo, hi, out, in);
}

int32_t bench_mcu_requantize(int32_t v, int32_t mult, int32_t shift) { return arm_nn_requantize(v, mult, shift); }
