#include "tools/cli/fit_report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <vector>

namespace ax::cli {

namespace {

struct Board {
    const char* name;
    uint64_t flash;  // the board's code memory: memory.ld's CODE region
    uint64_t ram;    // the RAM the firmware gets: memory.ld's RAM region
    const char* summary;
    const char* cpu;          // board.cmake's board_cpu: -mcpu's name
    uint64_t external_flash;  // memory-mapped external flash (memory.ld's BIGRAM where board.cmake says so), or 0
};

// One row per folder of ports/firmware/boards/, generated at configure time from its board.cmake and
// memory.ld (ports/firmware/boards.cmake), so the figures are the linker's.
const Board kBoards[] = {
#include "board_table.inc"
};

// The execution mode a model should run in on a core (docs/integer-only.md, "Which mode a board should
// use"): integer-only where there is no FPU, else the faster one in instructions per forecast of the bundled
// example under `make insn` (docs/instruction-counts.md); the int8 mode for a model the integer-only mode
// cannot run, with int8 key/value caches only where there is a decoder. Empty for a core without advice.
std::string board_mode(const std::string& cpu, const ArenaQuery& q) {
    const bool no_fpu = cpu == "cortex-m0" || cpu == "cortex-m0plus" || cpu == "cortex-m3";
    if (!no_fpu && cpu != "cortex-m4" && cpu != "cortex-m7" && cpu != "cortex-m55") return std::string();
    const std::string int8 = q.has_decoder ? "--dtype int8 --kv-cache int8" : "--dtype int8";
    if (!q.integer_refusal.empty())
        return "int8 (convert " + int8 + "), not integer-only: " + q.integer_refusal +
               (no_fpu ? "; with no FPU on this core the int8 mode's float steps run in software" : "");
    const std::string integer = "integer-only (convert --dtype int8 --integer-only --calib DATA.csv): ";
    if (no_fpu) return integer + "no FPU, so the int8 mode's float steps would run in software";
    if (cpu == "cortex-m55")
        return integer +
               "Helium's integer lanes, fewer instructions per forecast than the int8 mode (make insn) and a "
               "smaller arena";
    return integer +
           "no more instructions per forecast than the int8 mode on this core (make insn) and a smaller "
           "arena; the int8 mode (" +
           int8 + ") needs no calibration data and stays closer to float32";
}

std::string board_names() {
    std::string s;
    for (const Board& b : kBoards) s += (s.empty() ? "" : ", ") + std::string(b.name);
    return s;
}

const char* cache_name(format::CacheType t) { return t == format::CacheType::i8 ? "int8" : "f32"; }

std::string phases(const MemoryPlan::Buffer& b) {
    static const char kLetter[] = {'E', 'P', 'D'};
    std::string s(1, kLetter[static_cast<int>(b.first)]);
    if (b.last != b.first) s += std::string("-") + kLetter[static_cast<int>(b.last)];
    return s;
}

// The longest length in [1, limit] whose arena fits in ram (arenas grow with the length), or 0.
size_t longest_fit(const ArenaQuery& q, format::CacheType type, uint64_t ram) {
    const auto fits = [&](size_t n) {
        const size_t a = q.arena_for(n, type);
        return a != 0 && a <= ram;
    };
    if (q.longest_limit == 0 || !fits(1)) return 0;
    size_t lo = 1, hi = q.longest_limit;  // fits(lo) holds
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (fits(mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void print_arena_by_buffer(const MemoryPlan& plan) {
    std::vector<size_t> order(plan.buffer_count());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return plan.buffer(a).offset < plan.buffer(b).offset; });
    uint64_t sum = 0;
    for (size_t i : order) sum += plan.buffer(i).bytes;
    std::printf(
        "\narena by buffer (live in phases E encode, P cross-attention keys/values, D decode; buffers never\n"
        "live together share bytes): %zu bytes planned, %llu bytes if summed\n",
        plan.total_bytes(), static_cast<unsigned long long>(sum));
    std::printf("  %10s %10s %-5s %s\n", "offset", "bytes", "live", "buffer");
    for (size_t i : order) {
        const MemoryPlan::Buffer& b = plan.buffer(i);
        if (b.bytes == 0) continue;
        std::printf("  %10zu %10zu %-5s %s\n", b.offset, b.bytes, phases(b).c_str(), b.name ? b.name : "?");
    }
}

}  // namespace

uint64_t parse_memory_size(const std::string& option, const std::string& text) {
    size_t i = 0;
    uint64_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (n > (UINT64_MAX - 9) / 10) throw UsageError{"--" + option + " " + text + " is too large"};
        n = n * 10 + static_cast<uint64_t>(text[i++] - '0');
    }
    std::string unit = text.substr(i);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    uint64_t scale = 0;
    if (unit.empty() || unit == "B") scale = 1;
    if (unit == "K" || unit == "KB" || unit == "KIB") scale = 1024;
    if (unit == "M" || unit == "MB" || unit == "MIB") scale = 1024 * 1024;
    if (i == 0 || scale == 0 || n == 0)
        throw UsageError{"--" + option + " \"" + text +
                         "\" is not a memory size (bytes, or a whole number with K or M, " + "e.g. 131072, 128K, 1M)"};
    if (n > UINT64_MAX / scale) throw UsageError{"--" + option + " " + text + " is too large"};
    return n * scale;
}

bool read_memory_budget(const Args& args, MemoryBudget* out) {
    if (!args.has("board") && !args.has("flash") && !args.has("ram")) return false;
    MemoryBudget b;
    if (args.has("board")) {
        const std::string name = args.get("board");
        const Board* found = nullptr;
        for (const Board& k : kBoards)
            if (name == k.name) found = &k;
        if (found == nullptr) throw UsageError{"unknown board \"" + name + "\" (known: " + board_names() + ")"};
        b.board = std::string(found->name) + ": " + found->summary;
        b.cpu = found->cpu;
        b.flash = found->flash;
        b.ram = found->ram;
        b.external_flash = found->external_flash;
    }
    if (args.has("flash")) b.flash = parse_memory_size("flash", args.get("flash"));
    if (args.has("ram")) b.ram = parse_memory_size("ram", args.get("ram"));
    *out = b;
    return true;
}

bool print_fit_report(const MemoryBudget& budget, const ArenaQuery& q) {
    const uint64_t arena = q.plan->total_bytes();
    const bool flash_ok = budget.flash == 0 || q.model_bytes <= budget.flash;
    const bool ram_ok = budget.ram == 0 || (arena != 0 && arena <= budget.ram);
    const bool fits = flash_ok && ram_ok;
    const std::string cache = !q.has_decoder   ? ""
                              : q.integer_only ? ", kv cache int8, integer-only"
                                               : std::string(", kv cache ") + cache_name(q.cache);
    std::printf("\nfits:     %s (%s%s%s%s)\n", fits ? "yes" : "no", budget.board.c_str(),
                budget.board.empty() ? "" : "; ", q.lengths.c_str(), cache.c_str());
    const std::string mode = board_mode(budget.cpu, q);
    if (!mode.empty()) std::printf("  mode:   %s\n", mode.c_str());
    if (budget.flash == 0) {
        std::printf("  flash:  not checked (give --flash or --board)\n");
    } else if (flash_ok) {
        std::printf("  flash:  model %llu of %llu bytes: yes, %llu bytes left for the firmware's code\n",
                    static_cast<unsigned long long>(q.model_bytes), static_cast<unsigned long long>(budget.flash),
                    static_cast<unsigned long long>(budget.flash - q.model_bytes));
    } else {
        std::printf("  flash:  model %llu of %llu bytes: no, %llu bytes too large\n",
                    static_cast<unsigned long long>(q.model_bytes), static_cast<unsigned long long>(budget.flash),
                    static_cast<unsigned long long>(q.model_bytes - budget.flash));
    }
    if (budget.ram == 0) {
        std::printf("  RAM:    not checked (give --ram or --board)\n");
        print_arena_by_buffer(*q.plan);
        return fits;
    }
    if (ram_ok)
        std::printf("  RAM:    arena %llu of %llu bytes: yes, %llu bytes left for stack and data\n",
                    static_cast<unsigned long long>(arena), static_cast<unsigned long long>(budget.ram),
                    static_cast<unsigned long long>(budget.ram - arena));
    else
        std::printf("  RAM:    arena %llu of %llu bytes: no, %llu bytes short\n",
                    static_cast<unsigned long long>(arena), static_cast<unsigned long long>(budget.ram),
                    static_cast<unsigned long long>(arena - budget.ram));
    std::string longest;
    const format::CacheType types[] = {format::CacheType::f32, format::CacheType::i8};
    if (q.exact_length != 0) {  // no other length to search: the one the model reads fits or not
        const size_t a = q.arena_for(q.exact_length, q.cache);
        longest = (a != 0 && a <= budget.ram ? std::to_string(q.exact_length) : std::string("none")) + " (" +
                  q.exact_reason + ")";
    }
    for (format::CacheType t : types) {
        if (q.exact_length != 0 || ((!q.has_decoder || q.integer_only) && t != q.cache)) continue;
        const size_t n = longest_fit(q, t, budget.ram);
        if (!longest.empty()) longest += ", ";
        longest += (n == 0 ? std::string("none") : std::to_string(n)) +
                   (q.has_decoder ? std::string(" with ") + cache_name(t) + " caches" : std::string()) +
                   (q.has_decoder && t == q.cache ? " (this model's)" : "");
    }
    std::printf("  longest %s in %llu bytes of RAM: %s\n", q.longest.c_str(),
                static_cast<unsigned long long>(budget.ram), longest.c_str());
    print_arena_by_buffer(*q.plan);
    return fits;
}

bool print_chronos_bolt_fit(const MemoryBudget& budget, uint64_t model_bytes, uint64_t work_bytes,
                            const std::string& lengths) {
    const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
    const uint64_t stack = AUSPEX_RUNTIME_STACK_BUDGET;
    // The weights are read in place: from the code memory when they fit there, else from external flash.
    const bool in_code = budget.flash != 0 && model_bytes <= budget.flash;
    const bool in_external = !in_code && budget.external_flash != 0 && model_bytes <= budget.external_flash;
    const bool flash_ok = budget.flash == 0 || in_code || in_external;
    const uint64_t ram_need = work_bytes + stack;
    const bool ram_ok = budget.ram == 0 || ram_need <= budget.ram;
    const bool fits = flash_ok && ram_ok;
    std::printf("\nfits:     %s (%s%s%s)\n", fits ? "yes" : "no", budget.board.c_str(),
                budget.board.empty() ? "" : "; ", lengths.c_str());
    if (budget.flash == 0)
        std::printf("  flash:  not checked (give --flash or --board)\n");
    else if (in_code)
        std::printf("  flash:  model %llu of %llu bytes of code memory: yes, %llu bytes left for the firmware's code\n",
                    u(model_bytes), u(budget.flash), u(budget.flash - model_bytes));
    else if (in_external)
        std::printf(
            "  flash:  model %llu bytes, more than the %llu bytes of code memory: read in place from the %llu "
            "bytes of memory-mapped external flash, yes, %llu bytes left\n",
            u(model_bytes), u(budget.flash), u(budget.external_flash), u(budget.external_flash - model_bytes));
    else
        std::printf("  flash:  model %llu bytes: no, more than the %llu bytes of code memory%s\n", u(model_bytes),
                    u(budget.flash),
                    budget.external_flash != 0
                        ? (" and the " + std::to_string(budget.external_flash) + " bytes of external flash").c_str()
                        : " (a board with memory-mapped external flash reads it in place from there)");
    std::printf("  work:   %llu bytes: the whole forecast's working memory, one static array (no heap)\n",
                u(work_bytes));
    std::printf(
        "  stack:  at most %llu bytes below the caller's frame (the runtime's budget, which make stack checks "
        "the worst case of every board's images against)\n",
        u(stack));
    if (budget.ram == 0)
        std::printf("  RAM:    not checked (give --ram or --board)\n");
    else if (ram_ok)
        std::printf("  RAM:    work + stack %llu of %llu bytes: yes, %llu bytes left for the firmware's data\n",
                    u(ram_need), u(budget.ram), u(budget.ram - ram_need));
    else
        std::printf("  RAM:    work + stack %llu of %llu bytes: no, %llu bytes short\n", u(ram_need), u(budget.ram),
                    u(ram_need - budget.ram));
    return fits;
}

}  // namespace ax::cli
