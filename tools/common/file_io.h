// Writing the tools' output files so that a failure never costs the user a file: every writer (models,
// headers, CSVs, plots, configs) goes through write_file_atomic, and the CLI refuses an output that is one
// of its inputs before it reads or writes anything.
#pragma once
#include <cstddef>
#include <string>

namespace ax::tools {

// Writes `size` bytes to `path` as a whole or not at all: into a hidden partial file in the same folder
// (".NAME.PID.auspex-partial", so the rename stays on one file system), flushed to disk, then renamed over
// `path`. On any error the partial file is removed, `path` keeps its old content, and ToolError names the
// cause. A replaced file keeps its permission bits; a symbolic link is written through (its target is
// replaced, the link stays); a device or pipe (/dev/null, a FIFO) is written in place. A partial file left by a killed
// run is never read; the next successful write of the same output removes it (partial files of processes still running
// are left alone).
//
// Test hook: with AUSPEX_TEST_PAUSE_WRITE=1 in the environment, the writer stops after flushing the first
// half of the partial file, prints "auspex: test hook: paused writing PARTIAL" on stderr and waits to be
// killed, so a test can interrupt a write at a known point (tests/test_atomic_output.cpp).
void write_file_atomic(const std::string& path, const void* data, size_t size);
inline void write_file_atomic(const std::string& path, const std::string& bytes) {
    write_file_atomic(path, bytes.data(), bytes.size());
}

// True when a and b name the same file: the same device and inode when both exist (so hard links and
// symbolic links are caught), otherwise the same normalised absolute path.
bool same_file(const std::string& a, const std::string& b);

}  // namespace ax::tools
