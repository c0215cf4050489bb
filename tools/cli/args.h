// Command-line arguments of one auspex subcommand: positionals, `--name value` options and `--flag`s.
// Every option a command does not declare is an error, so typos never pass silently.
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ax::cli {

class Args {
public:
    // `options` take a value, `flags` do not.
    Args(const std::vector<std::string>& argv, const std::set<std::string>& options,
         const std::set<std::string>& flags);

    const std::vector<std::string>& positionals() const { return positionals_; }
    bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
    std::string get(const std::string& name, const std::string& fallback = "") const;
    // A whole number within [lo, hi]; error naming the option otherwise.
    size_t get_size(const std::string& name, size_t fallback, size_t lo, size_t hi) const;
    std::string require(const std::string& name) const;
    // Exactly n positionals, named for the message.
    void expect_positionals(size_t n, const char* what) const;

private:
    // An output option (-o, --plot, --find-config) naming the same file as a positional or another option
    // (compared as files: links and other spellings included) is refused before anything is read or written.
    void refuse_output_over_input() const;

    std::vector<std::string> positionals_;
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};

// Thrown for wrong usage: the CLI prints it with the command's usage and exits 2.
struct UsageError {
    std::string message;
};

}  // namespace ax::cli
