#include "tools/convert/conversion_check.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "ports/ports.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/family_sessions.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

namespace {

std::string shape_of(const Table& t) { return std::to_string(t.rows) + " x " + std::to_string(t.cols); }

}  // namespace

std::vector<std::vector<int32_t>> read_token_lines(const std::string& arg, const std::string& option) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(arg, ec)) {
        bool list_like = !arg.empty();
        for (char c : arg)
            list_like = list_like && (std::isdigit(static_cast<unsigned char>(c)) || c == ' ' || c == ',');
        if (!list_like) throw ToolError(option + " " + arg + ": no such file (and not a token list like \"5 17 9 3\")");
        return {parse_token_list(arg, option)};
    }
    const std::vector<uint8_t> bytes = read_file_bytes(arg);
    const std::string text(bytes.begin(), bytes.end());
    std::vector<std::vector<int32_t>> lines;
    size_t start = 0, line_no = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        ++line_no;
        const std::string line = text.substr(start, end - start);
        if (line.find_first_not_of(" \t\r,") != std::string::npos)
            lines.push_back(parse_token_list(line, arg + ":" + std::to_string(line_no)));
        start = end + 1;
    }
    if (lines.empty()) throw ToolError(arg + " holds no token ids");
    return lines;
}

void refuse_second_input(const CheckFiles& files, const char* family) {
    if (!files.target.empty())
        throw ToolError(std::string("--check-target does not apply to a ") + family + " (its forward takes one input)");
}

void expect_shape(const CheckPair& pair, size_t rows, size_t cols, const std::string& why) {
    if (pair.want_name.empty()) return;
    if (pair.want.rows != rows || pair.want.cols != cols)
        throw ToolError("check output " + pair.want_name + " has " + shape_of(pair.want) + " values, the model gives " +
                        std::to_string(rows) + " x " + std::to_string(cols) + " (" + why + ")");
}

bool takes_check_target(const LoadedModel& m) {
    return family_descriptor(m.family).check_target != nullptr &&
           !(m.family == format::Family::forecaster && m.as<Forecaster>().config().encoder_only());
}

CheckPair read_check_pair(const CheckFiles& files, format::Family family) {
    if (files.input.empty() || files.output.empty())
        throw ToolError(
            "a conversion check needs --check-input and --check-output (and --check-target for a "
            "forecaster or seq2seq model)");
    CheckPair p = read_check_inputs(files, family);
    p.want = read_csv(files.output);
    p.want_name = files.output;
    return p;
}

CheckPair read_check_inputs(const CheckFiles& files, format::Family family) {
    CheckPair p;
    p.family = family;
    family_descriptor(family).read_check_inputs(files, &p);
    return p;
}

Table run_check_inputs(const LoadedModel& m, const CheckPair& pair, const Kernels& kernels) {
    if (m.family != pair.family) throw ToolError("internal error: check pair read for another family");
    const FamilyDescriptor& d = family_descriptor(m.family);
    Table out;
    out.values = d.run_check(m, pair, kernels);
    out.cols = d.output_cols(m);
    out.rows = out.values.size() / out.cols;
    return out;
}

CheckResult check_model(const AxmModel& model, const CheckPair& pair) {
    for (const AxmTensor& t : model.tensors)
        if (t.dtype != format::DType::f32)
            throw ToolError("internal error: the conversion check needs the float32 model");
    return check_model_bytes(serialize_axm(model), pair);
}

CheckResult check_model_bytes(const std::vector<uint8_t>& bytes, const CheckPair& pair) {
    const std::unique_ptr<LoadedModel> m = open_model_bytes(bytes, "checked model");
    return compare_outputs(run_check_inputs(*m, pair, best_kernels()).values, pair.want);
}

CheckResult compare_outputs(const std::vector<float>& got, const Table& want) {
    CheckResult r;
    double scale = 1.0;
    for (float w : want.values) scale = std::max(scale, static_cast<double>(std::fabs(w)));
    r.tolerance = kCheckTolerance * scale;
    r.max_diff = -1.0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double d = std::fabs(static_cast<double>(got[i]) - want.values[i]);
        // NaN counts as the largest difference: a model giving NaN never matches.
        if (d > r.max_diff || std::isnan(d)) {
            r.max_diff = std::isnan(d) ? HUGE_VAL : d;
            r.row = i / want.cols;
            r.col = i % want.cols;
            r.got = got[i];
            r.want = want.values[i];
        }
    }
    r.passed = r.max_diff <= r.tolerance;
    return r;
}

std::string describe_difference(const CheckResult& r) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "largest difference at row %zu, column %zu (counting from 1): got %.9g, want %.9g "
                  "(|difference| %.3g %s tolerance %.3g)",
                  r.row + 1, r.col + 1, static_cast<double>(r.got), static_cast<double>(r.want), r.max_diff,
                  r.passed ? "<=" : ">", r.tolerance);
    return text;
}

}  // namespace ax::tools
