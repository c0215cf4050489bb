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
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

namespace {

// Token sequences, one per non-blank line of a file; a value that names no file but reads as a token list
// ("5 17 9 3") is that one sequence.
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

std::string shape_of(const Table& t) { return std::to_string(t.rows) + " x " + std::to_string(t.cols); }

void refuse_option(const std::string& value, const char* option, const char* family) {
    if (!value.empty())
        throw ToolError(std::string(option) + " does not apply to a " + family + " (its forward takes one input)");
}

// The check output must have the shape the model gives for the check input.
// Nothing to compare with when the pair holds inputs only (verify --against).
void expect_shape(const CheckPair& pair, size_t rows, size_t cols, const std::string& why) {
    if (pair.want_name.empty()) return;
    if (pair.want.rows != rows || pair.want.cols != cols)
        throw ToolError("check output " + pair.want_name + " has " + shape_of(pair.want) + " values, the model gives " +
                        std::to_string(rows) + " x " + std::to_string(cols) + " (" + why + ")");
}

std::vector<float> run_forecaster(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    const ForecasterConfig& c = m.forecaster.config();
    if (c.encoder_only() && p.tgt.rows != 0)
        throw ToolError("an encoder-only forecaster's forward(src) reads no decoder input: drop --check-target");
    if (!c.encoder_only() && p.tgt.rows == 0)
        throw ToolError("a forecaster with a decoder needs --check-target: forward(src, tgt)");
    for (const Table* t : {&p.src, &p.tgt}) {
        const size_t takes = t == &p.src ? c.n_features : c.decoder_features;
        if (t->rows != 0 && t->cols != takes)
            throw ToolError(std::string("check ") + (t == &p.src ? "input" : "target") + " has " +
                            std::to_string(t->cols) + " column(s), the model's " +
                            (t == &p.src ? "encoder" : "decoder") + " takes " + std::to_string(takes) + " feature(s)");
    }
    expect_shape(p, c.run_rows(p.src.rows, p.tgt.rows), c.n_outputs,
                 c.encoder_only() ? (c.head == format::ForecastHead::generator ? "one row per input row"
                                                                               : "one row per horizon step")
                 : c.one_pass()   ? "the last horizon rows of the decoder, as forward returns them"
                                  : "one row per target row, one column per output");
    HostSession session(m, k, p.src.rows, c.run_horizon(p.tgt.rows));
    // forward(src, tgt) in PyTorch sees its inputs as they are: no normalization.
    return session.run(p.src.values.data(), p.src.rows, p.tgt.values.data(), p.tgt.rows, InputSpace::model);
}

std::vector<float> run_seq2seq(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    if (p.src_tokens.size() != p.tgt_tokens.size())
        throw ToolError("check input has " + std::to_string(p.src_tokens.size()) + " source sequence(s), the target " +
                        std::to_string(p.tgt_tokens.size()) + ": they go in pairs, one per line");
    size_t max_src = 0, max_tgt = 0, rows = 0;
    for (size_t i = 0; i < p.src_tokens.size(); ++i) {
        max_src = std::max(max_src, p.src_tokens[i].size());
        max_tgt = std::max(max_tgt, p.tgt_tokens[i].size());
        rows += p.tgt_tokens[i].size();
    }
    expect_shape(p, rows, m.seq2seq.config().tgt_vocab, "one row of logits per target token");
    HostSeq2Seq session(m, k, max_src, max_tgt);
    std::vector<float> out;
    for (size_t i = 0; i < p.src_tokens.size(); ++i) {
        const std::vector<float> logits = session.run(p.src_tokens[i], p.tgt_tokens[i]);
        out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
}

std::vector<float> run_classifier(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    size_t max_len = 0;
    for (const auto& seq : p.src_tokens) max_len = std::max(max_len, seq.size());
    expect_shape(p, p.src_tokens.size(), m.classifier.config().n_labels, "one row per input sequence");
    HostClassifier session(m, k, max_len);
    std::vector<float> out;
    for (const auto& seq : p.src_tokens) {
        const std::vector<float> row = session.classify(seq);
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

std::vector<float> run_tvae(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    const TvaeConfig& c = m.tvae.config();
    if (p.src.cols != c.n_features)
        throw ToolError("check input has " + std::to_string(p.src.cols) + " column(s), the model takes " +
                        std::to_string(c.n_features) + " feature(s)");
    expect_shape(p, p.src.rows, c.n_features, "the teacher-forced reconstruction of the input");
    HostTvae session(m, k, p.src.rows);
    return session.run(p.src.values, p.src.rows);
}

}  // namespace

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
    switch (family) {
        case format::Family::forecaster:
            // An encoder-only forecaster's forward(src) has no target; the model decides (run_forecaster).
            p.src = read_csv(files.input);
            if (!files.target.empty()) p.tgt = read_csv(files.target);
            break;
        case format::Family::seq2seq:
            if (files.target.empty())
                throw ToolError("a seq2seq check needs --check-target: the target tokens of forward(src, tgt)");
            p.src_tokens = read_token_lines(files.input, files.input_option);
            p.tgt_tokens = read_token_lines(files.target, files.target_option);
            break;
        case format::Family::classifier:
            refuse_option(files.target, "--check-target", "classifier");
            p.src_tokens = read_token_lines(files.input, files.input_option);
            break;
        case format::Family::tvae:
            refuse_option(files.target, "--check-target", "tvae model");
            p.src = read_csv(files.input);
            break;
    }
    return p;
}

Table run_check_inputs(const LoadedModel& m, const CheckPair& pair, const Kernels& kernels) {
    if (m.family != pair.family) throw ToolError("internal error: check pair read for another family");
    Table out;
    switch (m.family) {
        case format::Family::forecaster:
            out.values = run_forecaster(m, pair, kernels);
            out.cols = m.forecaster.config().n_outputs;
            break;
        case format::Family::seq2seq:
            out.values = run_seq2seq(m, pair, kernels);
            out.cols = m.seq2seq.config().tgt_vocab;
            break;
        case format::Family::classifier:
            out.values = run_classifier(m, pair, kernels);
            out.cols = m.classifier.config().n_labels;
            break;
        case format::Family::tvae:
            out.values = run_tvae(m, pair, kernels);
            out.cols = m.tvae.config().n_features;
            break;
    }
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
