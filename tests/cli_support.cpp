#include "tests/cli_support.h"

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/test_support.h"

namespace ax::test {

namespace {

Result run_command(const std::string& command) {
    Result r{-1, ""};
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

}  // namespace

Result auspex(const std::string& args) { return run_command(std::string(AUSPEX_CLI) + " " + args + " 2>&1"); }

Result auspex_stdout(const std::string& args) {
    return run_command(std::string(AUSPEX_CLI) + " " + args + " 2>/dev/null");
}

std::filesystem::path scratch_dir() {
    static const std::filesystem::path dir = [] {
        std::filesystem::path d =
            std::filesystem::temp_directory_path() / ("auspex_cli_test_" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    // Removed when the test process exits (AUSPEX_KEEP_TEST_FILES set: kept, to look at after a failure).
    static const struct Remover {
        std::filesystem::path d;
        ~Remover() {
            std::error_code ec;
            if (std::getenv("AUSPEX_KEEP_TEST_FILES") == nullptr) std::filesystem::remove_all(d, ec);
        }
    } remover{dir};
    return dir;
}

std::vector<std::string> lines_of(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::string write_file(const std::string& name, const std::string& text) {
    const std::filesystem::path p = scratch_dir() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
}

std::string converted_fixture(const std::string& fixture_case, const std::string& name, const std::string& extra) {
    const std::string out = (scratch_dir() / name).string();
    if (!std::filesystem::exists(out)) {
        const std::string dir = fixture_path(fixture_case);
        const Result r = auspex("convert " + dir + "/model.pt --config " + dir + "/config.json" +
                                (extra.empty() ? "" : " " + extra) + " -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    }
    return out;
}

void check_error(const Result& r, int code, const std::string& phrase) {
    INFO("output: " << r.output);
    CHECK(r.exit_code == code);
    CHECK(r.output.find(phrase) != std::string::npos);
    if (code == 1) CHECK(r.output.find('\n') == r.output.size() - 1);
}

std::map<std::string, double> verify_max_abs(const std::string& output, const std::string& title) {
    std::map<std::string, double> rows;
    std::istringstream lines(output);
    std::string line;
    bool in_table = false;
    while (std::getline(lines, line)) {
        if (line.rfind(title + " (", 0) == 0) {
            in_table = true;
            std::getline(lines, line);  // column names
            continue;
        }
        if (!in_table) continue;
        if (line.rfind("  ", 0) != 0) break;
        std::istringstream f(line);
        std::string name, word;
        f >> name;
        if (name == "all") f >> word, name += " " + word;
        double v = -1;
        f >> v;
        rows[name] = v;
    }
    return rows;
}

}  // namespace ax::test
