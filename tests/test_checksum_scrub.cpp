// Background scrubbing (runtime/checksum_scrub.h and the C API's auspex_scrub_*): a flipped bit anywhere in
// a model is found, each call hashes at most the bytes it is given, a pass resumes across calls and restarts
// on request, and the model stays usable by a session while it is scrubbed.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "api/auspex.h"
#include "runtime/checksum_scrub.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const std::vector<uint8_t>& fixture_model(format::DType dtype = format::DType::i8) {
    static std::vector<uint8_t> cached[3];
    std::vector<uint8_t>& bytes = cached[static_cast<int>(dtype)];
    if (bytes.empty()) {
        tools::ConvertOptions o;
        o.checkpoint_path = test::fixture_path("forecaster/post_relu_tril/model.pt");
        o.config_path = test::fixture_path("forecaster/post_relu_tril/config.json");
        o.dtype = dtype;
        bytes = tools::convert_model(o);
    }
    return bytes;
}

// Steps until the pass ends; returns the final status and counts the calls.
Status run_pass(ChecksumScrub& scrub, size_t max_bytes, size_t* calls = nullptr) {
    size_t n = 0;
    for (;;) {
        const uint64_t before = scrub.finished() ? 0 : scrub.bytes_done();  // a finished pass: step() starts anew
        const Status s = scrub.step(max_bytes);
        ++n;
        if (!s || scrub.finished()) {
            if (calls) *calls = n;
            return s;
        }
        REQUIRE(scrub.bytes_done() - before == max_bytes);  // in progress: exactly max_bytes more, never more
    }
}

bool message_has(const Status& s, const char* text) { return std::strstr(s.message(), text) != nullptr; }

}  // namespace

TEST_CASE("a scrub pass matches an intact model, at any step size, with bounded work per call") {
    tools::AlignedBuffer model(fixture_model());
    const uint64_t total = model.size() - 24;
    ChecksumScrub scrub;
    REQUIRE(scrub.start(model.data(), model.size()).is_ok());
    CHECK(scrub.bytes_total() == total);
    CHECK(!scrub.finished());

    for (size_t n :
         {size_t{1}, size_t{7}, size_t{64}, size_t{4096}, size_t(total), size_t(total) + 1, size_t{1} << 30}) {
        INFO("step of " << n << " bytes");
        REQUIRE(scrub.start(model.data(), model.size()).is_ok());
        size_t calls = 0;
        const Status s = run_pass(scrub, n, &calls);
        CHECK(s.is_ok());
        CHECK(scrub.finished());
        CHECK(scrub.passes() == 1);
        CHECK(scrub.bytes_done() == total);
        CHECK(calls == (total + n - 1) / n);
    }
    // A step of 0 bytes hashes nothing and stays in progress.
    REQUIRE(scrub.start(model.data(), model.size()).is_ok());
    CHECK(scrub.step(0).is_ok());
    CHECK(scrub.bytes_done() == 0);
    CHECK(!scrub.finished());
    // A partition larger than the model: the header says where the model ends.
    std::vector<uint8_t> padded(fixture_model());
    padded.resize(padded.size() + 1000, 0xFF);
    tools::AlignedBuffer partition(padded);
    REQUIRE(scrub.start(partition.data(), partition.size()).is_ok());
    CHECK(scrub.bytes_total() == total);
    CHECK(run_pass(scrub, 4096).is_ok());
}

TEST_CASE("a flipped bit anywhere in the model fails the scrub with a readable bad_model status") {
    tools::AlignedBuffer model(fixture_model());
    const size_t size = model.size();
    // Every byte of the header and the tables, then positions spread over the tensor data, and the last byte.
    std::vector<size_t> positions;
    for (size_t i = 0; i < 1024 && i < size; ++i) positions.push_back(i);
    for (size_t i = 1024; i < size; i += 1 + size / 600) positions.push_back(i);
    positions.push_back(size - 1);
    ChecksumScrub scrub;
    size_t found = 0;
    for (size_t k = 0; k < positions.size(); ++k) {
        const size_t at = positions[k];
        const uint8_t bit = static_cast<uint8_t>(1u << (k % 8));
        model.data()[at] ^= bit;
        // A flipped header may already make start() refuse; otherwise the pass must end in a mismatch.
        Status s = scrub.start(model.data(), size);
        if (s) s = run_pass(scrub, 1 + k % 5000);
        if (s.code() == StatusCode::bad_model && std::strncmp(s.message(), "scrub: ", 7) == 0) ++found;
        if (s) FAIL_CHECK("flip of bit " << int(bit) << " at byte " << at << " was not found");
        model.data()[at] ^= bit;
    }
    CHECK(found == positions.size());

    // The mismatch names the range and says what it means; it repeats until start() is called again.
    model.data()[size / 2] ^= 0x10;
    REQUIRE(scrub.start(model.data(), size).is_ok());
    const Status s = run_pass(scrub, 4096);
    CHECK(s.code() == StatusCode::bad_model);
    CHECK(message_has(s, "checksum mismatch over bytes [24, "));
    CHECK(message_has(s, "corrupted"));
    CHECK(scrub.step(4096).code() == StatusCode::bad_model);
    CHECK(scrub.error().code() == StatusCode::bad_model);
    model.data()[size / 2] ^= 0x10;
    REQUIRE(scrub.start(model.data(), size).is_ok());
    CHECK(run_pass(scrub, 4096).is_ok());
}

TEST_CASE("scrubbing resumes across calls, restarts on request, and notices damage in the next pass") {
    tools::AlignedBuffer model(fixture_model());
    const size_t size = model.size();
    ChecksumScrub scrub;
    REQUIRE(scrub.start(model.data(), size).is_ok());
    REQUIRE(scrub.step(1000).is_ok());
    REQUIRE(scrub.step(1000).is_ok());
    CHECK(scrub.bytes_done() == 2000);
    // start() again: back to the beginning.
    REQUIRE(scrub.start(model.data(), size).is_ok());
    CHECK(scrub.bytes_done() == 0);
    CHECK(run_pass(scrub, 333).is_ok());
    // After a matching pass the next step begins a new one.
    CHECK(scrub.step(10).is_ok());
    CHECK(!scrub.finished());
    CHECK(scrub.bytes_done() == 10);
    CHECK(run_pass(scrub, 4096).is_ok());
    CHECK(scrub.passes() == 2);

    // Damage behind the cursor is missed by this pass (those bytes were hashed intact) and found by the next.
    REQUIRE(scrub.start(model.data(), size).is_ok());
    REQUIRE(scrub.step(size / 2).is_ok());
    model.data()[100] ^= 0x01;
    CHECK(run_pass(scrub, 4096).is_ok());
    CHECK(run_pass(scrub, 4096).code() == StatusCode::bad_model);
    model.data()[100] ^= 0x01;

    // The stored checksum rewritten during a pass.
    REQUIRE(scrub.start(model.data(), size).is_ok());
    REQUIRE(scrub.step(100).is_ok());
    model.data()[16] ^= 0x80;
    const Status s = run_pass(scrub, 4096);
    CHECK(s.code() == StatusCode::bad_model);
    CHECK(message_has(s, "header changed"));
    model.data()[16] ^= 0x80;

    // A truncated partition and a null model are refused at start, and step() repeats the error.
    CHECK(scrub.start(model.data(), size - 1).code() == StatusCode::bad_model);
    CHECK(scrub.step(4096).code() == StatusCode::bad_model);
    CHECK(message_has(scrub.error(), "truncated"));
    CHECK(scrub.start(nullptr, size).code() == StatusCode::invalid_argument);
    CHECK(scrub.start(model.data(), 10).code() == StatusCode::bad_model);
    ChecksumScrub never_started;
    CHECK(never_started.step(10).code() == StatusCode::invalid_argument);
}

TEST_CASE("a session forecasts from the model while it is scrubbed, with the same result") {
    tools::AlignedBuffer model(fixture_model());
    const tools::Table history = tools::read_csv(test::fixture_path("forecaster/post_relu_tril/history.csv"));
    ModelFile file;
    Forecaster f;
    REQUIRE(ModelFile::open(model.data(), model.size(), Checksum::verify, &file).is_ok());
    REQUIRE(Forecaster::open(file, &f).is_ok());
    const size_t rows = history.rows;
    const size_t horizon = 8;
    tools::AlignedBuffer arena(f.arena_bytes(rows, horizon));
    ForecastSession session;
    REQUIRE(session.init(f, best_kernels(), arena.data(), arena.size(), rows, horizon).is_ok());
    std::vector<float> first(horizon * history.cols), again(first.size());
    REQUIRE(session.forecast(history.values.data(), rows, horizon, first.data()).is_ok());

    ChecksumScrub scrub;
    REQUIRE(scrub.start(model.data(), model.size()).is_ok());
    while (!scrub.finished()) {
        REQUIRE(scrub.step(model.size() / 5).is_ok());
        REQUIRE(session.forecast(history.values.data(), rows, horizon, again.data()).is_ok());
        CHECK(std::memcmp(first.data(), again.data(), first.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("the C API scrubs: in progress, ok, a mismatch with its message") {
    tools::AlignedBuffer model(fixture_model(format::DType::f32));
    static auspex_scrub scrub;  // static storage, as firmware holds it
    CHECK(auspex_scrub_step(nullptr, 10) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_scrub_message(nullptr)) == "auspex_scrub is null");
    REQUIRE(auspex_scrub_start(&scrub, model.data(), model.size()) == AUSPEX_OK);
    int r = AUSPEX_IN_PROGRESS;
    size_t calls = 0;
    while (r == AUSPEX_IN_PROGRESS) {
        r = auspex_scrub_step(&scrub, 1000);
        ++calls;
        if (r == AUSPEX_IN_PROGRESS) CHECK(std::string(auspex_scrub_message(&scrub)) == "in progress");
    }
    CHECK(r == AUSPEX_OK);
    CHECK(calls == (model.size() - 24 + 999) / 1000);
    CHECK(std::string(auspex_scrub_message(&scrub)) == "ok");

    model.data()[model.size() - 1] ^= 0x04;
    REQUIRE(auspex_scrub_start(&scrub, model.data(), model.size()) == AUSPEX_OK);
    r = AUSPEX_IN_PROGRESS;
    while (r == AUSPEX_IN_PROGRESS) r = auspex_scrub_step(&scrub, 1u << 20);
    CHECK(r == AUSPEX_BAD_MODEL);
    CHECK(std::strstr(auspex_scrub_message(&scrub), "checksum mismatch") != nullptr);
    CHECK(auspex_scrub_step(&scrub, 10) == AUSPEX_BAD_MODEL);

    CHECK(auspex_scrub_start(&scrub, model.data(), 32) == AUSPEX_BAD_MODEL);
    CHECK(std::strstr(auspex_scrub_message(&scrub), "no model header") != nullptr);
}
