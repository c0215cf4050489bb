#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>
#include <string>

#include "models/forecaster/forecaster_integer.h"
#include "tools/cli/chronos_bolt_cli.h"
#include "tools/cli/commands.h"
#include "tools/cli/fit_report.h"
#include "tools/cli/unchecked_notes.h"
#include "tools/cli/session_lengths.h"
#include "tools/common/enum_text.h"
#include "tools/family/family_descriptor.h"
#include "tools/import/assumed_defaults.h"
#include "tools/host/column_names.h"
#include "tools/host/model_loader.h"
#include "runtime/model_identity.h"
#include "tools/cli/signatures.h"
#include "tools/convert/quantize.h"
#include "tools/axm/text_record_store.h"

namespace ax::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// Why `convert --integer-only` refuses the model: the check the converter and the runtime make, or "".
std::string integer_refusal(const tools::LoadedModel& m) {
    if (m.family != format::Family::forecaster) return "the integer-only mode runs forecasters only";
    const char* why = integer_mode_unsupported(m.as<Forecaster>().config());
    return why == nullptr ? "" : why;
}

std::string tensor_name(const TensorView& v) {
    std::string name = format::role_name(v.role);
    const size_t at = name.find("{}");
    if (at != std::string::npos) name.replace(at, 2, std::to_string(v.layer));
    return name;
}

// "2026-11-25 06:24:41 UTC".
std::string utc_text(uint32_t unix_seconds) {
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm parts{};
    char text[40];
    if (gmtime_r(&t, &parts) == nullptr || std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &parts) == 0)
        return std::to_string(unix_seconds) + " s since 1970";
    return text;
}

// The model's name and version (convert --model-name, --model-version), when and by what it was converted.
void print_identity(const ModelFile& f) {
    const std::string name = tools::stored_text_records(f, format::kModelNameKey);
    uint32_t version = 0, created = 0;
    const bool versioned = model_version(f, &version);
    if (name.empty() && !versioned)
        std::printf("name:     unversioned (no model name or version stored)\n");
    else
        std::printf("name:     %s, %s\n", name.empty() ? "unnamed" : name.c_str(),
                    versioned ? ("version " + std::to_string(version)).c_str() : "unversioned");
    const std::string converter = tools::stored_text_records(f, format::kConverterVersionKey);
    const bool dated = model_created_time(f, &created);
    if (dated || !converter.empty())
        std::printf("created:  %s%s\n", dated ? utc_text(created).c_str() : "at a time not recorded",
                    converter.empty() ? "" : (" by " + converter).c_str());
}

// A model converted with --integer-only (format::ConfigKey::integer_only): it runs in that mode, whose key and
// value caches are int8 at calibrated per-tensor scales whatever its kv_cache key says.
bool integer_only(const ModelFile& f) {
    uint32_t v = 0;
    return f.config(format::ConfigKey::integer_only, &v) && v != 0;
}

void print_stack(const StackConfig& s, bool integer) {
    const LayerOptions& l = s.layer;
    std::printf("shape:    d_model %zu, nhead %zu, dim_feedforward %zu, encoder_layers %zu, decoder_layers %zu\n",
                l.d_model, l.nhead, l.dim_feedforward, s.encoder_layers, s.decoder_layers);
    if (l.value_head_dim() != l.head_dim())
        std::printf("values:   value_dim %zu per head (queries and keys %zu): each attention's output is %zu wide\n",
                    l.value_head_dim(), l.head_dim(), l.value_width());
    std::printf("layers:   %s, activation %s, layer_norm_eps %g, final norms: encoder %s, decoder %s\n",
                l.norm_first ? "pre-norm (norm_first)" : "post-norm", tools::enum_text(l.activation).c_str(),
                static_cast<double>(l.eps), yes_no(s.encoder_final_norm), yes_no(s.decoder_final_norm));
    if (s.decoder_layers > 0)
        std::printf(
            "kv cache: %s\n",
            integer ? "int8 at calibrated scales, one for each attention's keys and one for its values (integer-only)"
            : s.kv_cache == format::CacheType::i8 ? "int8, one scale per row (--kv-cache int8)"
                                                  : "f32");
}

}  // namespace

int cmd_inspect(const Argv& argv) {
    if (is_onnx_command(argv)) return cmd_inspect_onnx(argv);
    std::set<std::string> options = length_options();
    options.insert({"flash", "ram", "board"});
    const Args args(argv, options, {});
    args.expect_positionals(1, "one model (.axm)");
    if (is_chronos_bolt_model(args.positionals()[0])) return inspect_chronos_bolt(args);
    MemoryBudget budget;
    const bool fit = read_memory_budget(args, &budget);  // before opening, so a malformed size fails first
    const auto m = tools::open_model(args.positionals()[0]);
    // Refused before anything is printed, so that an error stays one line.
    const SessionLengths lengths = session_lengths(*m, args);
    std::printf("model:    %s (%llu bytes, format v%u, checksum ok)\n", m->path.c_str(),
                static_cast<unsigned long long>(m->file.file_size()), format::kVersion);
    std::printf("family:   %s\n", tools::family_name(m->family));
    print_identity(m->file);
    std::printf("proof:    %s\n", proof_text(m->file).c_str());
    std::printf("signature: %s\n", signature_line(m->bytes.data(), m->bytes.size()).c_str());
    std::string features;
    for (const std::string& n : tools::feature_names(m->file)) features += (features.empty() ? "" : ", ") + n;
    if (!features.empty()) std::printf("features: %s (CSV columns are picked by these names)\n", features.c_str());
    const tools::FamilyDescriptor& family = tools::family_descriptor(m->family);
    const bool integer = integer_only(m->file);
    print_stack(tools::stack_of(*m), integer);
    for (const std::string& line : family.inspect_lines(*m)) std::printf("%s\n", line.c_str());
    MemoryPlan plan;
    const tools::ArenaFacts arena = family.inspect_arena(*m, lengths, &plan);
    uint64_t params = 0, weight_bytes = 0;
    bool calibrated = false;
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        calibrated = calibrated || v.input_absmax > 0.0f;
        params += v.numel;
        weight_bytes += v.data_bytes + (v.dtype == format::DType::i8   ? v.dims[0] * 4ull
                                        : v.dtype == format::DType::i4 ? v.numel / format::kI4Group * 2
                                                                       : 0);
    }
    std::printf("tensors:  %u, %llu parameters, %llu bytes of data\n", m->file.tensor_count(),
                static_cast<unsigned long long>(params), static_cast<unsigned long long>(weight_bytes));
    std::printf("arena:    %s\n", arena.line.c_str());
    uint32_t defaults = 0;
    if (m->file.config(format::ConfigKey::defaults, &defaults) && defaults != 0)
        std::printf("assumed:  %s (taken by default at conversion, not stated in the config)\n",
                    tools::assumed_defaults_text(defaults).c_str());
    if (calibrated) std::printf("calibration: input ranges (max |x|) recorded for the weight matrices\n");
    warn_if_unproven(*m);
    if (fit) {
        ArenaQuery query;
        query.model_bytes = m->file.file_size();
        query.plan = &plan;
        query.lengths = arena.lengths;
        query.longest = arena.longest;
        query.longest_limit = arena.longest_limit;
        query.exact_length = arena.exact_length;
        query.exact_reason = arena.exact_reason;
        query.arena_for = arena.arena_for;
        const StackConfig& stack = tools::stack_of(*m);
        query.has_decoder = stack.decoder_layers > 0;
        query.cache = integer ? format::CacheType::i8 : stack.kv_cache;
        query.integer_only = integer;
        query.integer_refusal = integer_refusal(*m);
        print_fit_report(budget, query);
        return 0;  // the answer is printed; the tensor table is for inspect without a fit question
    }
    std::printf("\n%-52s %-5s %-14s %10s %10s%s\n", "tensor", "dtype", "shape", "offset", "bytes",
                calibrated ? "  input |x| max" : "");
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const TensorView v = m->file.tensor(i);
        std::string shape = "[";
        for (uint32_t d = 0; d < v.rank; ++d) shape += (d ? ", " : "") + std::to_string(v.dims[d]);
        shape += "]";
        std::printf("%-52s %-5s %-14s %10llu %10llu", tensor_name(v).c_str(), tools::dtype_name(v.dtype), shape.c_str(),
                    static_cast<unsigned long long>(v.data_offset), static_cast<unsigned long long>(v.data_bytes));
        if (calibrated && v.rank == 2) std::printf("  %14.6g", static_cast<double>(v.input_absmax));
        std::printf("\n");
    }
    return 0;
}

}  // namespace ax::cli
