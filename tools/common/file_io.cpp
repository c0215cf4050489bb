#include "tools/common/file_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPartialSuffix = ".auspex-partial";

[[noreturn]] void fail(const std::string& path, int err) {
    throw ToolError("cannot write '" + path + "': " + std::strerror(err));
}

// The file a write to `path` replaces: a symbolic link's target, so that the link stays a link.
fs::path write_target(const std::string& path) {
    std::error_code ec;
    if (fs::is_symlink(path, ec)) {
        fs::path target = fs::weakly_canonical(path, ec);
        if (!ec) return target;
    }
    return fs::path(path);
}

std::string partial_name(const std::string& file, long pid) {
    return "." + file + "." + std::to_string(pid) + kPartialSuffix;
}

// Removes ".FILE.PID.auspex-partial" files of processes that no longer run (a killed earlier write).
void remove_stale_partials(const fs::path& dir, const std::string& file) {
    const std::string prefix = "." + file + ".";
    const std::string suffix = kPartialSuffix;
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
        const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
        if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const long pid = std::strtol(digits.c_str(), nullptr, 10);
        if (pid <= 0 || pid == static_cast<long>(::getpid())) continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
            std::error_code ignored;
            fs::remove(it->path(), ignored);
        }
    }
}

bool write_all(int fd, const uint8_t* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

// A device or pipe (/dev/null, /dev/stdout, a FIFO) cannot be replaced by renaming: it is written in place.
void write_in_place(const std::string& path, const uint8_t* bytes, size_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail(path, errno);
    const bool ok = write_all(fd, bytes, size);
    const int err = errno;
    if (::close(fd) != 0 && ok) fail(path, errno);
    if (!ok) fail(path, err);
}

void pause_for_test_hook(const std::string& partial) {
    const char* hook = std::getenv("AUSPEX_TEST_PAUSE_WRITE");
    if (hook == nullptr || std::strcmp(hook, "1") != 0) return;
    std::fprintf(stderr, "auspex: test hook: paused writing %s\n", partial.c_str());
    std::fflush(stderr);
    for (;;) ::pause();
}

}  // namespace

void write_file_atomic(const std::string& path, const void* data, size_t size) {
    const fs::path target = write_target(path);
    const fs::path dir = target.parent_path();
    const std::string file = target.filename().string();
    if (file.empty() || file == "." || file == "..") fail(path, EISDIR);
    const fs::path partial = dir / partial_name(file, static_cast<long>(::getpid()));
    struct stat old {};
    const bool exists = ::stat(target.c_str(), &old) == 0;
    if (exists && S_ISDIR(old.st_mode)) fail(path, EISDIR);
    if (exists && !S_ISREG(old.st_mode)) return write_in_place(path, static_cast<const uint8_t*>(data), size);
    // A file with this process's id can only be left over from an earlier process with the same id.
    ::unlink(partial.c_str());
    const int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) fail(path, errno);
    const auto* bytes = static_cast<const uint8_t*>(data);
    const size_t half = size / 2;
    bool ok = !exists || ::fchmod(fd, old.st_mode & 07777) == 0;
    ok = ok && write_all(fd, bytes, half);
    if (ok && std::getenv("AUSPEX_TEST_PAUSE_WRITE") != nullptr) {
        ok = ::fsync(fd) == 0;
        if (ok) pause_for_test_hook(partial.string());
    }
    ok = ok && write_all(fd, bytes + half, size - half) && ::fsync(fd) == 0;
    int err = ok ? 0 : errno;
    if (::close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && ::rename(partial.c_str(), target.c_str()) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        ::unlink(partial.c_str());
        fail(path, err);
    }
    // The rename is durable once the folder is synced; a file system that cannot sync folders still renamed.
    const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        ::fsync(dfd);
        ::close(dfd);
    }
    remove_stale_partials(dir, file);
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {
    }, sb{};
    if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    std::error_code ea, eb;
    const fs::path ca = fs::weakly_canonical(fs::absolute(a, ea), ea);
    const fs::path cb = fs::weakly_canonical(fs::absolute(b, eb), eb);
    return !ea && !eb && ca == cb;
}

}  // namespace ax::tools
