// How far auspex's float32 results may be from PyTorch's float32 goldens, per model family: a small multiple
// of the worst error measured, so a real defect (a wrong eps, a lost mask, a shifted position) fails.
//
// Measured with `AUSPEX_REPORT_ERRORS=1 ./auspex_tests` (prints every comparison's worst mixed error,
// |got - want| / max(1, |want|)) on x86-64 with the generic, avx2 and avx2-vnni ports, which round
// differently (FMA, summation order, vector exp); the generic port is built with -ffp-contract=off and
// its own exp/erf/sin/cos, so on aarch64, armhf and Cortex-M it gives the x86 generic port's bits, and the
// NEON kernels agree with generic within the 1e-5 of tests/test_ports.cpp, far below these bounds' headroom.
// Re-measure when a kernel changes rounding; a bound raised beyond 10x the measured worst hides defects.
// One shared header so the firmware suite (tests/firmware) holds the board to the same numbers.
#pragma once

namespace ax::test::tolerance {

// Forecaster fixtures and the bundled example: worst 1.1e-6 (odd_sizes, 24-step forecast). A LayerNorm eps
// of 1e-5 where the model was trained with 1e-6 gives 4e-5 there: caught.
constexpr double forecaster = 1e-5;
// seq2seq logits: worst 6.6e-6 (bentrevett_map, trained weights with sharp attention; the others 3.3e-6).
constexpr double seq2seq = 4e-5;
// Classifier probabilities: worst 6.2e-7 (decoder_start).
constexpr double classifier = 5e-6;
// Transformer-VAE (encoder outputs, teacher-forced pass, reconstruction, generation): worst 6.9e-7.
constexpr double tvae = 5e-6;
// One multi-head attention call against PyTorch (tests/test_attention.cpp): worst 9.2e-7 (wide_head, ARMv7
// NEON; 8.3e-7 on x86-64, generic).
constexpr double attention = 5e-6;
// One encoder layer against torch.nn.TransformerEncoderLayer (tests/test_transformer_layer.cpp): worst 3.6e-7
// (pre_gelu_causal, avx2).
constexpr double layer = 3e-6;
// The KV-cached forecast against a full recompute on the same port: the same float operations in another
// order; worst measured 6.9e-7 (post_relu_tril).
constexpr double kv_cache = 5e-6;

}  // namespace ax::test::tolerance
