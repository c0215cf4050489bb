// auspex header: a .axm model as a C/C++ header for firmware. The bytes become a 64-byte-aligned
// `static const` array (read-only data: it stays in flash and the runtime uses it in place), with the
// figures the firmware needs to size its buffers at compile time: the exact arena for the declared
// lengths (window and horizon, source and target tokens, or the longest input), the input and output sizes
// and the model size. Every family.
#include <cctype>
#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tools/cli/commands.h"
#include "models/forecaster/chronos_bolt_file.h"
#include "runtime/model_signature.h"
#include "tools/signing/signing_keys.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/future_header.h"
#include "tools/cli/history_header.h"
#include "tools/cli/session_lengths.h"
#include "tools/families/family_common.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// Why `s` cannot name the array and prefix the macros in C and C++ alike, or "" when it can. Only ASCII
// letters count: isalnum would follow the locale.
std::string identifier_problem(const std::string& s) {
    static const char* const kKeywords[] = {"alignas",
                                            "alignof",
                                            "and",
                                            "and_eq",
                                            "asm",
                                            "auto",
                                            "bitand",
                                            "bitor",
                                            "bool",
                                            "break",
                                            "case",
                                            "catch",
                                            "char",
                                            "char8_t",
                                            "char16_t",
                                            "char32_t",
                                            "class",
                                            "compl",
                                            "concept",
                                            "const",
                                            "consteval",
                                            "constexpr",
                                            "constinit",
                                            "const_cast",
                                            "continue",
                                            "co_await",
                                            "co_return",
                                            "co_yield",
                                            "decltype",
                                            "default",
                                            "delete",
                                            "do",
                                            "double",
                                            "dynamic_cast",
                                            "else",
                                            "enum",
                                            "explicit",
                                            "export",
                                            "extern",
                                            "false",
                                            "float",
                                            "for",
                                            "friend",
                                            "goto",
                                            "if",
                                            "inline",
                                            "int",
                                            "long",
                                            "mutable",
                                            "namespace",
                                            "new",
                                            "noexcept",
                                            "not",
                                            "not_eq",
                                            "nullptr",
                                            "operator",
                                            "or",
                                            "or_eq",
                                            "private",
                                            "protected",
                                            "public",
                                            "register",
                                            "reinterpret_cast",
                                            "restrict",
                                            "requires",
                                            "return",
                                            "short",
                                            "signed",
                                            "sizeof",
                                            "static",
                                            "static_assert",
                                            "static_cast",
                                            "struct",
                                            "switch",
                                            "template",
                                            "this",
                                            "thread_local",
                                            "throw",
                                            "true",
                                            "try",
                                            "typedef",
                                            "typeid",
                                            "typename",
                                            "union",
                                            "unsigned",
                                            "using",
                                            "virtual",
                                            "void",
                                            "volatile",
                                            "wchar_t",
                                            "while",
                                            "xor",
                                            "xor_eq",
                                            "_Alignas",
                                            "_Alignof",
                                            "_Atomic",
                                            "_Bool",
                                            "_Complex",
                                            "_Generic",
                                            "_Imaginary",
                                            "_Noreturn",
                                            "_Static_assert",
                                            "_Thread_local"};
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (s.empty()) return "it is empty";
    if (s[0] >= '0' && s[0] <= '9') return "it starts with a digit";
    for (char c : s)
        if (!letter(c) && !(c >= '0' && c <= '9') && c != '_')
            return c >= 0x20 && c < 0x7F ? std::string("'") + c + "' is not a letter, digit or _"
                                         : std::string("it holds a byte that is not printable ASCII");
    for (const char* k : kKeywords)
        if (s == k) return "it is a C or C++ keyword";
    if (s.size() > 1 && s[0] == '_' && (s[1] == '_' || (s[1] >= 'A' && s[1] <= 'Z')))
        return "names starting with __ or _ and a capital letter are reserved for the compiler";
    return "";
}

// "out/model-int8.h" -> "model_int8".
std::string name_from_path(const std::string& path) {
    std::string stem = path.substr(path.find_last_of("/\\") == std::string::npos ? 0 : path.find_last_of("/\\") + 1);
    const size_t dot = stem.find('.');
    if (dot != std::string::npos) stem.erase(dot);
    for (char& c : stem)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    if (stem.empty() || std::isdigit(static_cast<unsigned char>(stem[0]))) stem = "model_" + stem;
    return stem;
}

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

// The weight matrices' storage: the narrowest one present, since every storage but f32 keeps a few matrices
// (lookup tables, the smallest embeddings) float32, and any of them may come first in the file.
std::string weight_dtype(const ModelFile& file) {
    format::DType narrowest = format::DType::f32;
    const auto bits = [](format::DType d) {
        return d == format::DType::i4 ? 4 : d == format::DType::i8 ? 8 : d == format::DType::f16 ? 16 : 32;
    };
    for (uint32_t i = 0; i < file.tensor_count(); ++i) {
        const TensorView v = file.tensor(i);
        if (v.rank == 2 && v.dtype != format::DType::i32 && bits(v.dtype) < bits(narrowest)) narrowest = v.dtype;
    }
    return tools::dtype_name(narrowest);
}

// The family's shape for the header's comment, and its macros beside the arena: the lengths the arena is
// sized for and the sizes of the buffers the firmware hands the session.
struct FamilyFacts {
    std::string shape;
    std::string sized_for;                                    // the macros of the lengths, for the arena's comment
    std::vector<std::pair<std::string, std::string>> macros;  // suffix, "value /* what */"
};

std::string stack_shape(const char* family, const StackConfig& s) {
    return std::string(family) + ": d_model " + std::to_string(s.layer.d_model) + ", nhead " +
           std::to_string(s.layer.nhead) +
           (s.layer.value_dim != 0 ? ", value_dim " + std::to_string(s.layer.value_head_dim()) : std::string()) +
           ", dim_feedforward " + std::to_string(s.layer.dim_feedforward) + ", layers " +
           std::to_string(s.encoder_layers) + "+" + std::to_string(s.decoder_layers);
}

FamilyFacts family_facts(const tools::LoadedModel& m, const SessionLengths& l) {
    const tools::FamilyDescriptor& d = tools::family_descriptor(m.family);
    FamilyFacts f;
    f.shape = stack_shape(is_chronos_bolt(m.file) ? "Chronos-Bolt forecaster" : tools::family_name(m.family),
                          tools::stack_of(m));
    const size_t values[2] = {l.first, l.second};
    for (size_t i = 0; i < d.length_count(); ++i) {
        const tools::LengthSpec& s = d.lengths[i];
        f.sized_for += (i ? " and " : "") + std::string(s.macro);
        f.macros.push_back(tools::macro(s.macro, values[i], s.macro_doc));
    }
    for (const tools::HeaderMacro& macro : d.header_macros(m)) f.macros.push_back(macro);
    return f;
}

}  // namespace

int cmd_header(const Argv& argv) {
    std::set<std::string> options = length_options();
    options.insert(
        {"output", "name", "history", "history-output", "history-name", "future", "future-output", "future-name"});
    const Args args(argv, with_csv_options(options), {});
    args.expect_positionals(1, "one model (.axm)");
    const std::string output = args.require("output");
    const std::string name = args.has("name") ? args.get("name") : name_from_path(output);
    const std::string problem = identifier_problem(name);
    if (!problem.empty())
        throw UsageError{
            (args.has("name") ? "--name" : "the name taken from -o") +
            std::string(" must be a C identifier (letters, digits, _; not starting with a digit), got \"") + name +
            "\": " + problem + (args.has("name") ? "" : "; give --name")};
    const std::string& path = args.positionals()[0];
    if (tools::is_public_key_file(path)) {
        const tools::PublicKey key = tools::read_public_key(path);
        tools::write_file_atomic(output, tools::public_key_header(key, name, path));
        std::printf("wrote %s: %s[1][32], the trusted key %s\n", output.c_str(), name.c_str(),
                    tools::key_fingerprint(key).c_str());
        return 0;
    }
    const auto m = tools::open_model(path, tools::ChronosBoltFiles::open);
    if (!args.has("history") && (args.has("history-output") || args.has("history-name")))
        throw UsageError{"--history-output and --history-name go with --history HISTORY.csv"};
    const bool future_wanted = args.has("future") || args.has("future-output") || args.has("future-name");
    if (!args.has("history") && future_wanted)
        throw UsageError{
            "--future, --future-output and --future-name go with --history HISTORY.csv: the known "
            "inputs are those of the steps that follow the history"};
    const std::string future_output =
        args.has("future-output") ? args.get("future-output") : output.substr(0, output.rfind('.')) + "_future.h";
    const std::string future_name = args.get("future-name", name + "_future");
    if (future_wanted && !identifier_problem(future_name).empty())
        throw UsageError{"--future-name must be a C identifier: " + identifier_problem(future_name)};
    HistoryWindow history;
    if (args.has("history")) history = read_history_window(args, *m);
    const SessionLengths lengths = session_lengths(*m, args, history.rows.rows);
    FutureWindow future;
    if (future_wanted) {
        future = read_future_window(args, *m, history, lengths.second);
    } else if (args.has("history") && m->as<Forecaster>().future_rows(lengths.second) != 0) {
        std::fprintf(stderr,
                     "note: the model's decoder reads inputs known ahead, which %s does not hold for the forecast's "
                     "steps: give --future PLAN.csv (or --future-output FILE.h for calendar columns alone) to "
                     "write them for the firmware\n",
                     args.get("history").c_str());
    }
    const size_t arena = session_arena_bytes(*m, lengths);
    if (arena == 0) throw tools::ToolError("no arena size for " + lengths.text);
    const FamilyFacts facts = family_facts(*m, lengths);
    // A signed model keeps its signature record: the device checks it (auspex_open_signed).
    uint8_t signer[kEd25519PublicKeyBytes];
    const bool signed_model = model_signer(m->bytes.data(), m->bytes.size(), signer);
    const size_t size = static_cast<size_t>(m->file.file_size()) + (signed_model ? kSignatureRecordBytes : 0);
    const std::string N = upper(name);

    std::string h;
    h.reserve(size * 5 + 4096);
    auto line = [&h](const std::string& s) { h += s + "\n"; };
    line("/* Generated by auspex header from " + path + ". Do not edit; regenerate instead.");
    line(" * " + facts.shape + ", weights " + weight_dtype(m->file) + ", " + std::to_string(size) + " bytes.");
    line(" * The model is a `static const` array: read-only data, so it stays in flash and the runtime reads");
    line(" * it in place. Include this header from one C or C++ source file. */");
    line("#ifndef " + N + "_AXM_H");
    line("#define " + N + "_AXM_H");
    line("");
    line("#define " + N + "_SIZE " + std::to_string(size) +
         (signed_model ? " /* bytes of the model and its signature record */" : " /* bytes of the model */"));
    for (const auto& [suffix, text] : facts.macros) line("#define " + N + "_" + suffix + " " + text);
    line("#define " + N + "_ARENA_BYTES " + std::to_string(arena) + " /* exact session arena for " + facts.sized_for +
         " (16-byte aligned) */");
    line("");
    line("#if defined(__GNUC__) || defined(__clang__)");
    line("#define " + N + "_ALIGN __attribute__((aligned(64)))");
    line("#elif defined(__cplusplus)");
    line("#define " + N + "_ALIGN alignas(64)");
    line("#else");
    line("#define " + N + "_ALIGN _Alignas(64)");
    line("#endif");
    line("/* Define " + N + "_SECTION (e.g. __attribute__((section(\".model\")))) to place the array yourself. */");
    line("#ifndef " + N + "_SECTION");
    line("#define " + N + "_SECTION");
    line("#endif");
    line("");
    line(N + "_ALIGN " + N + "_SECTION static const unsigned char " + name + "[" + N + "_SIZE] = {");
    const uint8_t* bytes = m->bytes.data();
    char hex[8];
    for (size_t i = 0; i < size; ++i) {
        if (i % 16 == 0) h += "   ";
        std::snprintf(hex, sizeof hex, " 0x%02x,", bytes[i]);
        h += hex;
        if (i % 16 == 15 || i + 1 == size) h += "\n";
    }
    line("};");
    line("");
    line("#endif /* " + N + "_AXM_H */");

    if (args.has("history")) {
        const std::string history_output = args.has("history-output")
                                               ? args.get("history-output")
                                               : output.substr(0, output.rfind('.')) + "_history.h";
        const std::string history_name = args.get("history-name", name + "_history");
        const std::string bad = identifier_problem(history_name);
        if (!bad.empty()) throw UsageError{"--history-name must be a C identifier: " + bad};
        tools::write_file_atomic(history_output, history_header_text(history, history_name, args.get("history")));
        std::printf("wrote %s: %s[%zu x %zu], the last %zu rows of %s (%s)\n", history_output.c_str(),
                    history_name.c_str(), history.rows.rows, history.rows.cols, history.rows.rows,
                    args.get("history").c_str(), history.source.c_str());
    }
    if (future_wanted) {
        const std::string source = args.has("future")
                                       ? args.get("future") + " matched to the steps after " + args.get("history")
                                       : "computed for the steps after " + args.get("history");
        tools::write_file_atomic(future_output, future_header_text(future, future_name, source));
        if (future.rows == 0)
            std::printf("wrote %s: %s, no rows: the model's decoder reads no input known ahead\n",
                        future_output.c_str(), future_name.c_str());
        else
            std::printf("wrote %s: %s[%zu x %zu], the known inputs of forecast steps 1..%zu (%s)\n",
                        future_output.c_str(), future_name.c_str(), future.rows, future.cols, future.rows,
                        source.c_str());
    }
    tools::write_file_atomic(output, h);
    std::printf("wrote %s: %s[%zu], arena %zu bytes for %s\n", output.c_str(), name.c_str(), size, arena,
                lengths.text.c_str());
    return 0;
}

}  // namespace ax::cli
