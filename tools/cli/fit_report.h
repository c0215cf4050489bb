// "Will it fit?": a model's flash and its session arena against a board's memories (auspex inspect
// --flash/--ram/--board), the arena by buffer, and the longest sequence that fits.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/format.h"
#include "runtime/memory_plan.h"
#include "tools/cli/args.h"

namespace ax::cli {

struct MemoryBudget {
    std::string board;            // empty: sizes given by hand
    std::string cpu;              // the board's core (-mcpu's name), for the mode advice; empty: no advice
    uint64_t flash = 0;           // 0: not checked
    uint64_t ram = 0;             // 0: not checked
    uint64_t external_flash = 0;  // memory-mapped external flash a model too big for `flash` is read from; 0: none
};

// "131072", "128K", "128KB", "1M", "1MiB" (K and M are 1024 and 1024 * 1024); a malformed size is a usage
// error naming the option.
uint64_t parse_memory_size(const std::string& option, const std::string& text);

// From --board NAME (the boards the project knows) and --flash/--ram (which override the board's figures).
// False when none of the three was given.
bool read_memory_budget(const Args& args, MemoryBudget* out);

// What inspect knows about a model's arena, for the fit report.
struct ArenaQuery {
    uint64_t model_bytes = 0;
    const MemoryPlan* plan = nullptr;  // the session at the lengths inspect was asked about
    std::string lengths;               // "window 48, horizon 24"
    std::string longest;               // what the longest-fit search varies: "window for horizon 24"
    size_t longest_limit = 0;          // the largest length the model allows
    size_t exact_length = 0;   // the one length the model reads (a flatten head's window); 0: any up to the limit
    std::string exact_reason;  // why: "its flatten head reads exactly 72 rows"
    bool has_decoder = false;  // then both cache types are reported
    format::CacheType cache = format::CacheType::f32;  // the model's
    bool integer_only = false;                         // int8 caches at calibrated scales, no other choice
    // Why convert --integer-only refuses this model (its own check's words); empty when it can run it.
    std::string integer_refusal;
    // Arena bytes at `length` with caches of `type` (0: no such session).
    std::function<size_t(size_t length, format::CacheType type)> arena_for;
};

// Prints the yes/no answer, the mode advice, the flash and RAM lines, the longest fitting length and the arena by
// buffer. Returns true when everything checked fits.
bool print_fit_report(const MemoryBudget& budget, const ArenaQuery& q);

// A Chronos-Bolt model (its weights read in place, all working memory one caller-provided array): the model
// against the code memory or else the board's external flash, the working memory plus the runtime's stack
// budget against RAM. Returns true when everything checked fits.
bool print_chronos_bolt_fit(const MemoryBudget& budget, uint64_t model_bytes, uint64_t work_bytes,
                            const std::string& lengths);

}  // namespace ax::cli
