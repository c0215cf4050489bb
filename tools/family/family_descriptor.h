// What the host tools know of a model family, written once: one FamilyDescriptor per family (in
// tools/families/<family>_family.cpp), which the CLI commands, the converter and the conversion check iterate
// instead of switching on format::Family. A new family is its models/<family>/, its importer, one
// descriptor file, its line in families.cpp and its alternative in family_model.h.
// This header is the contract, low in tools/ (it includes no stage): the stages that dispatch on a family
// (host/ opening a model, convert/ importing and checking one) include it, while the rows that fill it
// (tools/families/) sit above every stage they call, so no two folders of tools/ include each other.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/format.h"
#include "tools/family/search_axes.h"
#include "runtime/kernels.h"
#include "runtime/memory_plan.h"
#include "runtime/status.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/family/family_model.h"
#include "tools/text/csv.h"

namespace ax::tools {

struct AxmModel;
struct ConvertConfig;
struct CheckFiles;
struct CheckPair;
struct LoadedModel;

// The lengths a session is sized for: forecaster window and horizon, seq2seq source and target tokens,
// classifier and tvae the longest input (second 0).
struct SessionSize {
    size_t first = 0, second = 0;
};

// A length a command sets with an option, and how the other outputs name it.
struct LengthSpec {
    const char* option = nullptr;     // "window": the command-line option, without "--"
    const char* json = nullptr;       // "window": its field in bench --json
    const char* macro = nullptr;      // "WINDOW": its macro in the header, after the model's name
    const char* macro_doc = nullptr;  // the macro's comment
    // The default and the largest value for the model, whose positional limit is `positions`.
    size_t (*default_value)(const LoadedModel& m, size_t positions) = nullptr;
    size_t (*max_value)(const LoadedModel& m, size_t positions) = nullptr;
};

// What inspect prints of the arena at the lengths asked for, and what its fit report varies.
struct ArenaFacts {
    std::string line;          // "N bytes for window 48, horizon 24 (set with --window, --horizon)"
    std::string lengths;       // "window 48, horizon 24"
    std::string longest;       // what the longest-fit search varies: "window for horizon 24"
    size_t longest_limit = 0;  // the largest length the model allows
    size_t exact_length = 0;   // the one length the model reads (a flatten head's window); 0: any up to the limit
    std::string exact_reason;  // why, for the fit report: "its flatten head reads exactly 72 rows"
    // Arena bytes at `length` with caches of `type` (0: no such session).
    std::function<size_t(size_t length, format::CacheType type)> arena_for;
};

// What bench times for one model: a forward pass and, where the family has one, its multi-step path
// (forecast, greedy translation, reconstruction), on sessions sized for the command's lengths. The
// sessions and inputs live in the closures, so a workload built on timed kernels profiles the same pass.
struct Workload {
    std::string forward_label, steps_label;
    std::string steps_json;                // the steps' field in bench --json; empty when the family has no such path
    std::function<void()> forward, steps;  // steps empty: not timed (reported -1 when steps_json is set)
    size_t arena = 0;
};

// One macro of a C header: its name after the model's ("N_FEATURES") and "value /* what */".
using HeaderMacro = std::pair<std::string, std::string>;

struct FamilyDescriptor {
    format::Family family = format::Family::forecaster;
    const char* commands = "";       // the CLI commands that take the family: "run, forecast, verify, ..."
    const char* output_prefix = "";  // output columns without names are "<prefix>_0", "<prefix>_1", ...

    // Import and open.
    AxmModel (*import)(const TensorMap& tensors, const ConvertConfig& config) = nullptr;
    Status (*open)(const ModelFile& file, FamilyModel* out) = nullptr;

    // The session's lengths: lengths[0], and lengths[1] when its option is set.
    LengthSpec lengths[2];
    // Throws ToolError for lengths the model cannot take past the options' limits (null: none).
    void (*check_lengths)(const LoadedModel& m, const SessionSize& l) = nullptr;
    std::string (*lengths_text)(const SessionSize& l) = nullptr;  // "window 48, horizon 24"
    size_t (*arena_bytes)(const LoadedModel& m, const SessionSize& l) = nullptr;

    // inspect: the lines after the stack's ("io: ...", "inputs: ..."), and the arena planned into `plan`.
    std::vector<std::string> (*inspect_lines)(const LoadedModel& m) = nullptr;
    ArenaFacts (*inspect_arena)(const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) = nullptr;

    // header: the model's macros after those of the lengths.
    std::vector<HeaderMacro> (*header_macros)(const LoadedModel& m) = nullptr;

    // bench: the workload at the lengths.
    Workload (*bench)(const LoadedModel& m, const SessionSize& l, const Kernels& k) = nullptr;

    // The conversion check (convert --check-*, verify): what a second input (--target) holds, null when the
    // forward takes one; reading the inputs into a pair; the outputs for them, `output_cols` per row.
    const char* check_target = nullptr;
    void (*read_check_inputs)(const CheckFiles& files, CheckPair* pair) = nullptr;
    std::vector<float> (*run_check)(const LoadedModel& m, const CheckPair& pair, const Kernels& k) = nullptr;
    size_t (*output_cols)(const LoadedModel& m) = nullptr;

    // verify against another conversion: what the forward's outputs are called, and what more it compares
    // (null: nothing): a second output of both models (`second_label`), a line of its own.
    const char* forward_label = "outputs";
    const char* second_label = nullptr;
    Table (*second_outputs)(const LoadedModel& m, const CheckPair& pair, const Kernels& k) = nullptr;
    std::string (*compare_line)(const LoadedModel& a, const LoadedModel& b, const CheckPair& pair,
                                const Kernels& k) = nullptr;

    // convert --find-config: the keys it varies and their values, from what the checkpoint shows.
    std::vector<SearchAxis> (*search_axes)(const SearchFacts& facts) = nullptr;

    size_t length_count() const { return lengths[1].option ? 2 : 1; }
};

// Every family's row, in format::Family order.
const std::vector<const FamilyDescriptor*>& family_descriptors();

// The row of `family`; throws ToolError for a family without one (a file's family is checked on open).
const FamilyDescriptor& family_descriptor(format::Family family);

// "--window, --horizon": how a family's lengths are set.
std::string length_options_text(const FamilyDescriptor& d);

// The model's positional limit: max_positions, or kMaxSequenceLength when it states none.
size_t position_limit(const LoadedModel& m);

// The stack (layers, sizes, cache type) of a model of any family.
const StackConfig& stack_of(const LoadedModel& m);

}  // namespace ax::tools
