// Re-verifies a model's checksum a few bytes at a time, so firmware can re-check its flash in the background
// between forecasts (a bit flipped by radiation, a failing flash cell) without stopping for a whole pass.
// The model is only read: a session may be using it at the same time. The state is a small struct the
// caller owns (a static variable is typical; about 220 bytes, most of it the error message); nothing is
// allocated.
//
//   static ax::ChecksumScrub scrub;
//   scrub.start(model, size);             // once; again to restart from the beginning
//   Status s = scrub.step(4096);          // between forecasts: hashes at most 4096 bytes
//   if (!s) report(s.message());          // the model in flash no longer matches its checksum
//   else if (scrub.finished()) ...        // a whole pass matched; the next step() starts a new pass
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/status.h"

namespace ax {

class ChecksumScrub {
public:
    // Starts a pass over the model at `data` (`size` bytes available, as ModelFile::open takes them). The
    // header is read here: the magic, version and flags must be right and its file size must fit in
    // `size`; otherwise the error is returned and step() keeps returning it.
    Status start(const uint8_t* data, size_t size);

    // Hashes at most max_bytes more (max_bytes 0 hashes nothing). Returns ok while the pass is in progress
    // and when it completed with a match (then finished() is true and the next call starts a new pass),
    // bad_model with a readable message when the pass ended in a mismatch or the header changed since
    // start(); that error stays until start() is called again.
    Status step(size_t max_bytes);

    // True after a pass completed and matched, until the next step().
    bool finished() const { return state_ == State::matched; }
    // Bytes hashed in the current pass, and the bytes a whole pass hashes.
    uint64_t bytes_done() const { return offset_ - kFirst; }
    uint64_t bytes_total() const { return end_ > kFirst ? end_ - kFirst : 0; }
    // Passes that completed with a match since start().
    uint32_t passes() const { return passes_; }
    // The failure step() repeats; ok when there is none.
    const Status& error() const { return error_; }

private:
    enum class State : uint8_t { idle, hashing, matched, failed };
    static constexpr uint64_t kFirst = 24;  // format::kChecksumStart

    Status read_header(uint64_t* end, uint64_t* stored) const;
    Status fail(const Status& s);

    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
    uint64_t end_ = 0;       // the header's file size, read at start()
    uint64_t expected_ = 0;  // the header's checksum, read at start()
    uint64_t offset_ = kFirst;
    uint64_t hash_ = 0;
    uint32_t passes_ = 0;
    State state_ = State::idle;
    Status error_;  // the failure step() repeats
};

}  // namespace ax
