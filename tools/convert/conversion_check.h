// `convert --check-*`: proves a conversion against PyTorch. Nothing in a checkpoint's weights tells a wrong
// nhead, activation, norm placement or memory mask from the right one, so the user hands in one input and
// what the PyTorch module's forward returned for it, and the float32 model must reproduce it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/axm/axm_writer.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace ax::tools {

// The paths (or, for token families, literal token lists) given on the command line.
struct CheckFiles {
    std::string input;   // --check-input
    std::string target;  // --check-target (forecaster, seq2seq)
    std::string output;  // --check-output: PyTorch's forward output
    // The options the paths came from, for errors (verify reads the same layout as --input/--target).
    std::string input_option = "--check-input", target_option = "--check-target";
    bool given() const { return !input.empty() || !target.empty() || !output.empty(); }
};

// One input and PyTorch's output for it, read for a family:
// - forecaster: input and target CSVs (encoder and decoder input, model units: forward(src, tgt) sees them as
//   they are, no normalization), output rows = target rows, one column per output;
// - seq2seq: source and target token sequences, one per line (or one literal list each), output one row of
//   logits per target token, the pairs' rows one after the other;
// - classifier: token sequences, one per line, output one row per sequence (what forward returns: after the
//   output activation);
// - tvae: one sequence as CSV, output the teacher-forced forward with z = z_mean (same shape).
struct CheckPair {
    format::Family family = format::Family::forecaster;
    Table src, tgt;
    std::vector<std::vector<int32_t>> src_tokens, tgt_tokens;
    Table want;
    std::string want_name;
};

CheckPair read_check_pair(const CheckFiles& files, format::Family family);
// The inputs alone (want stays empty): what `verify --against` runs two models on.
CheckPair read_check_inputs(const CheckFiles& files, format::Family family);

// For the families' readers and runners (tools/families): token sequences, one per non-blank line of a file
// (a value that names no file but reads as a token list, "5 17 9 3", is that one sequence); the check
// output's shape against what the model gives (nothing to compare when the pair holds inputs only); a
// one-input family's refusal of --check-target.
std::vector<std::vector<int32_t>> read_token_lines(const std::string& arg, const std::string& option);
void expect_shape(const CheckPair& pair, size_t rows, size_t cols, const std::string& why);
void refuse_second_input(const CheckFiles& files, const char* family);
// Whether the model's forward takes a second input (--check-target): the forecaster and seq2seq families'
// does, but for an encoder-only forecaster's forward(src).
bool takes_check_target(const LoadedModel& m);

// The model's outputs for the pair's inputs on `kernels`, shaped as the check output is (rows x outputs).
// Checks the wanted output's shape when the pair has one.
Table run_check_inputs(const LoadedModel& model, const CheckPair& pair, const Kernels& kernels);

struct CheckResult {
    bool passed = false;
    double max_diff = 0;  // the largest |got - want|
    size_t row = 0, col = 0;
    float got = 0, want = 0;
    double tolerance = 0;  // kCheckTolerance x max(1, max |want|)
};

// Relative to the output's largest magnitude (at least 1). float32 runtime against PyTorch float32 differs
// by about 1e-6 of that on our fixtures (summation order, exp/erf); a wrong nhead, activation, norm
// placement or mask moves outputs by 1e-2 and more. 1e-4 leaves a margin of 100 to both.
constexpr double kCheckTolerance = 1e-4;

// Runs the float32 `model` (never quantized: the check is about the config, and quantization error is not a
// config error) on the pair with the best kernels of this CPU and compares with the wanted output. A check
// output whose shape does not match what the model gives for the input is an error naming both shapes.
CheckResult check_model(const AxmModel& model, const CheckPair& pair);

// The same comparison for a serialized model of any dtype (the quantized model's difference is reported,
// not checked: it measures quantization, not the config).
CheckResult check_model_bytes(const std::vector<uint8_t>& bytes, const CheckPair& pair);

// The largest difference of `got` from the wanted output (NaN counts as the largest), against the
// conversion check's tolerance.
CheckResult compare_outputs(const std::vector<float>& got, const Table& want);

// "largest difference at row R, column C: got G, want W (|difference| D > tolerance T)".
std::string describe_difference(const CheckResult& r);

}  // namespace ax::tools
