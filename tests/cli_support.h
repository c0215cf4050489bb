// Running the auspex CLI from the doctest suites: a command's exit code and output, a scratch folder for
// the files it reads and writes, and the check that an error is one line with the right exit code.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ax::test {

struct Result {
    int exit_code;
    std::string output;  // stdout and stderr together
};

// Runs `auspex ARGS` (through the cross-compiling emulator when there is one; AUSPEX_CLI).
Result auspex(const std::string& args);

// The same with stderr thrown away: what a script reading stdout gets.
Result auspex_stdout(const std::string& args);

// A folder of this test process's own, made on first use.
std::filesystem::path scratch_dir();

// The whole content of a file ("" when it cannot be read).
std::string read_file(const std::string& path);

// The lines of a file, without their '\n' (a CR before it is kept).
std::vector<std::string> lines_of(const std::string& path);

// Writes `text` to scratch_dir()/name and returns the path.
std::string write_file(const std::string& name, const std::string& text);

// Converts the fixture case tests/fixtures/CASE (its model.pt and config.json, with `extra` convert options)
// to scratch_dir()/NAME once per test process, and returns that path: NAME tells conversions of one case
// with other options apart.
std::string converted_fixture(const std::string& fixture_case, const std::string& name, const std::string& extra = "");

// The "max abs" column of verify's error table titled `title` (its first number), by output name ("all N" for
// the row over every output).
std::map<std::string, double> verify_max_abs(const std::string& output, const std::string& title);

// An error is one line naming the problem, with exit code 1 (2 for wrong usage).
void check_error(const Result& r, int code, const std::string& phrase);

}  // namespace ax::test
