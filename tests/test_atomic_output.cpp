// No lost files (issue 18.1): the CLI refuses an output that is one of its inputs before reading or writing
// anything, and every output is written to a partial file renamed into place, so a write killed halfway
// leaves the previous file intact (tools/common/file_io.h).
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"

namespace {

namespace fs = std::filesystem;

using ax::test::auspex;
using ax::test::check_error;
using ax::test::read_file;
using ax::test::Result;
using ax::test::scratch_dir;

std::string case_file(const std::string& f) { return ax::test::fixture_path("forecaster/post_relu_tril/" + f); }

// A fresh folder of this test's own, so partial-file listings see nothing of other tests.
fs::path fresh_dir(const std::string& name) {
    const fs::path d = scratch_dir() / name;
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string convert_args(const std::string& out) {
    return "convert " + case_file("model.pt") + " --config " + case_file("config.json") + " -o " + out;
}

std::vector<std::string> partial_files(const fs::path& dir) {
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find(".auspex-partial") != std::string::npos)
            found.push_back(e.path().string());
    return found;
}

// Starts `auspex ARGS` with the write test hook on, waits until it reports that it paused halfway through
// writing its partial file, kills it (SIGKILL, as a power cut or the OOM killer would) and returns the
// partial file's path.
std::string kill_mid_write(const std::string& args) {
    int out[2];
    REQUIRE(::pipe(out) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::dup2(out[1], 2);
        ::close(out[0]);
        ::close(out[1]);
        ::setenv("AUSPEX_TEST_PAUSE_WRITE", "1", 1);
        const std::string command = "exec " + std::string(AUSPEX_CLI) + " " + args;
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(out[1]);
    std::string said;
    const std::string marker = "auspex: test hook: paused writing ";
    char buffer[512];
    auto reported = [&] {
        const size_t at = said.find(marker);
        return at != std::string::npos && said.find('\n', at) != std::string::npos;
    };
    while (!reported()) {
        const ssize_t n = ::read(out[0], buffer, sizeof buffer);
        if (n <= 0) break;
        said.append(buffer, static_cast<size_t>(n));
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ::close(out[0]);
    INFO("child said: " << said);
    REQUIRE(said.find(marker) != std::string::npos);
    CHECK(WIFSIGNALED(status));
    const size_t from = said.find(marker) + marker.size();
    return said.substr(from, said.find('\n', from) - from);
}

}  // namespace

TEST_CASE("cli: an output naming one of the inputs is refused before anything is read or written") {
    const fs::path dir = fresh_dir("same_file");
    const std::string model = (dir / "m.axm").string();
    REQUIRE(auspex(convert_args(model)).exit_code == 0);
    const std::string good = read_file(model);
    const std::string history = case_file("history.csv");

    check_error(auspex("forecast " + model + " --input " + history + " -o " + model), 1,
                "-o " + model + " is the same file as the input " + model);
    check_error(auspex("header " + model + " -o " + model + " --name m"), 1, "is the same file as the input");
    const std::string tgt = (dir / "tgt.csv").string();
    fs::copy_file(case_file("tgt.csv"), tgt);
    check_error(auspex("run " + model + " --src " + case_file("src.csv") + " --tgt " + tgt + " -o " + tgt), 1,
                "is the same file as --tgt");
    CHECK(read_file(tgt) == read_file(case_file("tgt.csv")));
    // Spelled differently, through a symbolic link, through a hard link: still the same file.
    const std::string dotted = (dir / "." / ".." / dir.filename() / "m.axm").string();
    check_error(auspex("forecast " + dotted + " --input " + history + " -o " + model), 1, "is the same file");
    fs::create_symlink(model, dir / "link.axm");
    check_error(auspex("forecast " + (dir / "link.axm").string() + " --input " + history + " -o " + model), 1,
                "is the same file");
    fs::create_hard_link(model, dir / "hard.axm");
    check_error(auspex("forecast " + model + " --input " + history + " -o " + (dir / "hard.axm").string()), 1,
                "is the same file");
    // Two outputs into one file, and a plot over the history.
    const std::string fc = (dir / "fc.csv").string();
    check_error(auspex("forecast " + model + " --input " + history + " -o " + fc + " --plot " + fc), 1,
                "one output would overwrite the other");
    CHECK_FALSE(fs::exists(fc));
    // convert: the checkpoint, the config, the calibration data are inputs too.
    const std::string pt = (dir / "copy.pt").string();
    fs::copy_file(case_file("model.pt"), pt);
    const std::string pt_bytes = read_file(pt);
    check_error(auspex("convert " + pt + " --config " + case_file("config.json") + " -o " + pt), 1,
                "is the same file as the input " + pt);
    CHECK(read_file(pt) == pt_bytes);
    const std::string config = (dir / "config.json").string();
    fs::copy_file(case_file("config.json"), config);
    const std::string config_bytes = read_file(config);
    check_error(auspex("convert " + pt + " --config " + config + " -o " + config), 1, "is the same file as --config");
    CHECK(read_file(config) == config_bytes);
    check_error(auspex("convert " + pt + " --config " + config + " -o " + model + " --calib " + model), 1,
                "is the same file as --calib");
    check_error(auspex("convert " + pt + " --config " + config + " -o " + model + " --find-config " + config +
                       " --check-input " + case_file("src.csv") + " --check-target " + case_file("tgt.csv") +
                       " --check-output " + case_file("run_out.csv")),
                1, "--find-config " + config + " is the same file as --config");
    CHECK(read_file(config) == config_bytes);

    CHECK(read_file(model) == good);
    CHECK(partial_files(dir).empty());
    CHECK(ax::tools::same_file(model, (dir / "hard.axm").string()));
    CHECK_FALSE(ax::tools::same_file(model, fc));
}

TEST_CASE("cli: a convert killed halfway through writing leaves the previous model intact") {
    const fs::path dir = fresh_dir("killed_convert");
    const std::string model = (dir / "model.axm").string();
    REQUIRE(auspex(convert_args(model) + " --model-version 1").exit_code == 0);
    const std::string good = read_file(model);

    const std::string partial = kill_mid_write(convert_args(model) + " --model-version 2");
    // Killed with half of the new model written next to the old one, which is untouched.
    CHECK(fs::path(partial).parent_path() == dir);
    REQUIRE(fs::exists(partial));
    CHECK(fs::file_size(partial) == good.size() / 2);
    CHECK(read_file(model) == good);
    const auto opened = ax::tools::load_model(model);  // checksum verified
    CHECK(opened->family == ax::format::Family::forecaster);
    const Result info = auspex("inspect " + model);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(info.output.find("version 1") != std::string::npos);

    // The stale partial file is never read, and the next successful write of that output removes it.
    REQUIRE(auspex(convert_args(model) + " --model-version 2").exit_code == 0);
    CHECK_FALSE(fs::exists(partial));
    CHECK(partial_files(dir).empty());
    CHECK(auspex("inspect " + model).output.find("version 2") != std::string::npos);
}

TEST_CASE("cli: every kind of output (CSV, plot, header) is replaced whole or not at all") {
    const fs::path dir = fresh_dir("killed_outputs");
    const std::string model = (dir / "m.axm").string();
    REQUIRE(auspex(convert_args(model)).exit_code == 0);
    const std::string history = case_file("history.csv");
    const std::string old_text = "the previous file\n";
    struct Case {
        std::string file, args;
    };
    const std::vector<Case> cases = {
        {"fc.csv", "forecast " + model + " --input " + history + " --horizon 4 -o "},
        {"fc.svg", "forecast " + model + " --input " + history + " --horizon 4 --plot "},
        {"model.h", "header " + model + " --name model -o "},
    };
    for (const Case& c : cases) {
        INFO(c.args);
        const std::string path = (dir / c.file).string();
        std::ofstream(path, std::ios::binary) << old_text;
        const std::string partial = kill_mid_write(c.args + path);
        CHECK(fs::exists(partial));
        CHECK(read_file(path) == old_text);
        const Result done = auspex(c.args + path);
        REQUIRE_MESSAGE(done.exit_code == 0, done.output);
        CHECK(read_file(path) != old_text);
        CHECK_FALSE(fs::exists(partial));
    }
    CHECK(partial_files(dir).empty());
}

TEST_CASE("file_io: a failed write leaves the old file and no partial file; links and permissions stay") {
    const fs::path dir = fresh_dir("file_io");
    const std::string path = (dir / "out.txt").string();
    ax::tools::write_file_atomic(path, std::string("first"));
    CHECK(read_file(path) == "first");
    ::chmod(path.c_str(), 0640);
    ax::tools::write_file_atomic(path, std::string("second"));
    CHECK(read_file(path) == "second");
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);

    // Writing through a symbolic link replaces its target and keeps the link.
    fs::create_symlink(path, dir / "link.txt");
    ax::tools::write_file_atomic((dir / "link.txt").string(), std::string("third"));
    CHECK(fs::is_symlink(dir / "link.txt"));
    CHECK(read_file(path) == "third");

    // A folder in the way, a folder that does not exist: errors naming the path, nothing left behind.
    fs::create_directories(dir / "taken");
    CHECK_THROWS_WITH_AS(ax::tools::write_file_atomic((dir / "taken").string(), std::string("x")),
                         doctest::Contains("cannot write"), ax::tools::ToolError);
    CHECK_THROWS_WITH_AS(ax::tools::write_file_atomic((dir / "missing" / "f.txt").string(), std::string("x")),
                         doctest::Contains("No such file or directory"), ax::tools::ToolError);
    CHECK(partial_files(dir).empty());
    CHECK(read_file(path) == "third");

    // A device is written in place, never replaced by a regular file.
    ax::tools::write_file_atomic("/dev/null", std::string("discarded"));
    CHECK(fs::is_character_file("/dev/null"));
}
