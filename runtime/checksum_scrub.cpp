#include "runtime/checksum_scrub.h"

#include <cstring>

#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "runtime/format.h"

namespace ax {

static_assert(format::kChecksumStart == 24, "ChecksumScrub::kFirst follows the format");

// The bytes before the checksummed range are checked by value instead: the magic, the version and zero
// flags are fixed, and the stored checksum is compared with the one read at start(). So a flip anywhere in
// the file is found, not only in [24, file_size).
Status ChecksumScrub::read_header(uint64_t* end, uint64_t* stored) const {
    if (data_ == nullptr) return Status::error(StatusCode::invalid_argument, "scrub: null model");
    if (size_ < format::kHeaderBytes)
        return Status::error(StatusCode::bad_model, "scrub: ").add(size_).add(" bytes hold no model header");
    if (std::memcmp(data_, format::kMagic, sizeof format::kMagic) != 0 ||
        load_u32(data_ + format::header::version) != format::kVersion || load_u32(data_ + format::header::flags) != 0)
        return Status::error(StatusCode::bad_model, "scrub: the model header's magic, version or flags are corrupted");
    *end = load_u64(data_ + format::header::file_size);
    *stored = load_u64(data_ + format::header::checksum);
    if (*end < format::kHeaderBytes || *end > size_)
        return Status::error(StatusCode::bad_model, "scrub: the header's file size ")
            .add(*end)
            .add(" is outside [64, ")
            .add(size_)
            .add("]: the header is corrupted or the model truncated");
    return Status::ok();
}

Status ChecksumScrub::fail(const Status& s) {
    state_ = State::failed;
    error_ = s;
    return s;
}

Status ChecksumScrub::start(const uint8_t* data, size_t size) {
    data_ = data;
    size_ = size;
    passes_ = 0;
    offset_ = kFirst;
    hash_ = kFnvOffsetBasis;
    state_ = State::hashing;
    error_ = Status::ok();
    const Status s = read_header(&end_, &expected_);
    return s ? s : fail(s);
}

Status ChecksumScrub::step(size_t max_bytes) {
    if (state_ == State::idle) return Status::error(StatusCode::invalid_argument, "scrub: call start() first");
    if (state_ == State::failed) return error_;
    if (state_ == State::matched) {  // the next pass; the header is read again, as it may have changed
        offset_ = kFirst;
        hash_ = kFnvOffsetBasis;
        state_ = State::hashing;
        const Status s = read_header(&end_, &expected_);
        if (!s) return fail(s);
    }
    const uint64_t left = end_ - offset_;
    const size_t n = left < max_bytes ? static_cast<size_t>(left) : max_bytes;
    hash_ = fnv1a64(data_ + offset_, n, hash_);
    offset_ += n;
    if (offset_ < end_) return Status::ok();

    uint64_t end = 0;
    uint64_t stored = 0;
    const Status header = read_header(&end, &stored);
    if (!header) return fail(header);
    if (end != end_ || stored != expected_)
        return fail(Status::error(StatusCode::bad_model,
                                  "scrub: the model header changed during the pass: the model in memory is corrupted "
                                  "or was rewritten"));
    if (hash_ != expected_)
        return fail(Status::error(StatusCode::bad_model, "scrub: checksum mismatch over bytes [24, ")
                        .add(end_)
                        .add("): the model in memory is corrupted (pass ")
                        .add(passes_ + 1)
                        .add(")"));
    ++passes_;
    state_ = State::matched;
    return Status::ok();
}

}  // namespace ax
