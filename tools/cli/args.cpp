#include "tools/cli/args.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <vector>

#include "tools/common/did_you_mean.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& options,
           const std::set<std::string>& flags) {
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
            std::string name = a.substr(2);
            std::string value;
            const size_t eq = name.find('=');
            const bool inline_value = eq != std::string::npos;
            if (inline_value) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (flags.count(name) && !inline_value) {
                flags_.insert(name);
            } else if (options.count(name)) {
                if (!inline_value) {
                    if (i + 1 >= argv.size()) throw UsageError{"option --" + name + " needs a value"};
                    value = argv[++i];
                }
                values_[name] = value;
            } else {
                std::vector<std::string> known(options.begin(), options.end());
                known.insert(known.end(), flags.begin(), flags.end());
                throw UsageError{"unknown option --" + name + tools::did_you_mean(name, known, "--")};
            }
        } else if (a == "-o" && options.count("output")) {
            if (i + 1 >= argv.size()) throw UsageError{"option -o needs a file name"};
            values_["output"] = argv[++i];
        } else {
            positionals_.push_back(a);
        }
    }
    refuse_output_over_input();
}

void Args::refuse_output_over_input() const {
    // The options that name files a command writes; every other value may name a file it reads.
    static const char* const kOutputs[] = {"output", "plot", "find-config", "latent"};
    auto spelled = [](const std::string& name) { return name == "output" ? std::string("-o") : "--" + name; };
    for (const char* out : kOutputs) {
        const auto o = values_.find(out);
        if (o == values_.end() || o->second.empty()) continue;
        auto refuse = [&](const std::string& what, const char* harm) {
            throw tools::ToolError(spelled(out) + " " + o->second + " is the same file as " + what + ": " + harm +
                                   "; name another output (nothing was read or written)");
        };
        for (const std::string& p : positionals_)
            if (tools::same_file(o->second, p)) refuse("the input " + p, "writing it would destroy the input");
        for (const auto& [name, value] : values_) {
            if (name == o->first || value.empty() || !tools::same_file(o->second, value)) continue;
            const bool output = std::find(std::begin(kOutputs), std::end(kOutputs), name) != std::end(kOutputs);
            refuse(spelled(name) + " " + value,
                   output ? "one output would overwrite the other" : "writing it would destroy that input");
        }
    }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
    auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

std::string Args::require(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) throw UsageError{"missing --" + name};
    return it->second;
}

size_t Args::get_size(const std::string& name, size_t fallback, size_t lo, size_t hi) const {
    auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    const std::string& s = it->second;
    size_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || v < lo || v > hi)
        throw UsageError{"--" + name + " must be a whole number in " + std::to_string(lo) + ".." + std::to_string(hi) +
                         ", got \"" + s + "\""};
    return v;
}

void Args::expect_positionals(size_t n, const char* what) const {
    if (positionals_.size() != n)
        throw UsageError{std::string("expected ") + what + ", got " + std::to_string(positionals_.size()) +
                         " positional argument(s)"};
}

}  // namespace ax::cli
