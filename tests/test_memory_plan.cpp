// The session memory plan (runtime/memory_plan.h): buffers share bytes only when their lifetimes do not
// meet, the figure a model reports is the one init uses to the byte, and the bundled example meets issue
// 12's targets (window 48, horizon 24: at most 160 KB with float32 caches, 100 KB with int8 weights and
// int8 caches).
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "runtime/memory_plan.h"
#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"

namespace {

using namespace ax;

// No two buffers live in a common phase overlap in bytes, and each lies inside the total.
void check_plan_is_sound(const MemoryPlan& plan) {
    for (size_t i = 0; i < plan.buffer_count(); ++i) {
        const MemoryPlan::Buffer& a = plan.buffer(i);
        CHECK(a.offset % MemoryPlan::kAlignment == 0);
        CHECK(a.offset + a.bytes <= plan.total_bytes());
        for (size_t j = i + 1; j < plan.buffer_count(); ++j) {
            const MemoryPlan::Buffer& b = plan.buffer(j);
            const bool live_together = !(a.last < b.first || b.last < a.first);
            const bool share_bytes =
                a.bytes > 0 && b.bytes > 0 && a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
            INFO(a.name << " and " << b.name);
            CHECK(!(live_together && share_bytes));
        }
    }
}

std::vector<uint8_t> convert_example(format::DType dtype, format::CacheType cache) {
    return test::convert_case(std::string(AUSPEX_SOURCE_DIR) + "/models/example", dtype, cache, "forecaster.pt");
}

}  // namespace

TEST_CASE("memory plan: buffers never live together share bytes, others do not") {
    MemoryPlan plan;
    plan.alloc<float>("encoder only", 1000, Phase::encode, Phase::encode);
    plan.alloc<float>("decoder only", 800, Phase::decode, Phase::decode);
    plan.alloc<uint8_t>("whole call", 10, Phase::encode, Phase::decode);
    plan.alloc<float>("encode to prepare", 100, Phase::encode, Phase::prepare);
    REQUIRE(plan.solve());
    check_plan_is_sound(plan);
    // Largest first at offset 0; the decoder's buffer shares the encoder's bytes.
    CHECK(plan.buffer(0).offset == 0);
    CHECK(plan.buffer(1).offset == 0);
    // 4000 (encoder) + 400 (encode..prepare, 64-aligned at 4032) + 10 (whole call at 4480): the peak of the
    // encode phase, far below the 7610-byte sum.
    CHECK(plan.total_bytes() == 4490);
}

TEST_CASE("memory plan: placing needs the planned requests in order, and enough memory") {
    const auto describe = [](MemoryPlan& p, size_t n) {
        float* a = p.alloc<float>("a", n, Phase::encode, Phase::prepare);
        float* b = p.alloc<float>("b", 16, Phase::decode, Phase::decode);
        return std::pair{a, b};
    };
    MemoryPlan planned;
    describe(planned, 32);
    REQUIRE(planned.solve());
    CHECK(planned.total_bytes() == 128);
    alignas(64) static uint8_t memory[256];
    {
        MemoryPlan placing(planned, memory, sizeof memory);
        const auto [a, b] = describe(placing, 32);
        CHECK(!placing.failed());
        CHECK(reinterpret_cast<uint8_t*>(a) == memory);
        CHECK(reinterpret_cast<uint8_t*>(b) == memory);  // never live with a
    }
    {
        MemoryPlan placing(planned, memory, sizeof memory);
        describe(placing, 33);  // not the planned request
        CHECK(placing.failed());
    }
    {
        MemoryPlan placing(planned, memory, 127);
        describe(placing, 32);
        CHECK(placing.failed());
    }
}

TEST_CASE("memory plan: overflowing sizes and too many buffers fail instead of wrapping") {
    MemoryPlan huge;
    huge.alloc<float>("huge", SIZE_MAX / 2, Phase::encode, Phase::encode);
    CHECK(!huge.solve());
    CHECK(huge.total_bytes() == 0);
    MemoryPlan many;
    for (size_t i = 0; i <= MemoryPlan::kMaxBuffers; ++i) many.alloc<float>("x", 1, Phase::encode, Phase::encode);
    CHECK(!many.solve());
    MemoryPlan backwards;
    backwards.alloc<float>("x", 1, Phase::decode, Phase::encode);
    CHECK(!backwards.solve());
}

TEST_CASE("the bundled example meets issue 12's arena targets at window 48, horizon 24") {
    struct Variant {
        format::DType dtype;
        format::CacheType cache;
        size_t limit;
    };
    const Variant variants[] = {{format::DType::f32, format::CacheType::f32, 160 * 1024},
                                {format::DType::i8, format::CacheType::f32, 160 * 1024},
                                {format::DType::i8, format::CacheType::i8, 100 * 1024}};
    for (const Variant& v : variants) {
        const auto model = tools::load_model_bytes(convert_example(v.dtype, v.cache), "example");
        MemoryPlan plan;
        REQUIRE(plan_forecaster_arena(model->as<Forecaster>().config(), 48, 24, &plan));
        INFO("weights " << int(v.dtype) << ", cache " << int(v.cache) << ": " << plan.total_bytes() << " bytes");
        check_plan_is_sound(plan);
        CHECK(plan.total_bytes() == model->as<Forecaster>().arena_bytes(48, 24));
        CHECK(plan.total_bytes() <= v.limit);
        // The figure is planned from byte counts only: the plan holds no pointer-sized quantity besides the
        // fixed-size records, so a 32-bit board plans the same layout (the firmware test checks it there).
        size_t sum = 0;
        for (size_t i = 0; i < plan.buffer_count(); ++i) sum += plan.buffer(i).bytes;
        CHECK(plan.total_bytes() < sum);
    }
}

TEST_CASE("a session does not depend on what its arena held before: shared bytes are written before read") {
    // Every buffer that shares bytes with one of an earlier phase must be written before it is read. Garbage
    // (all bits set: NaN floats) in the arena must give the same bits as a zeroed arena, for both cache types,
    // teacher-forced and autoregressive, twice in a row.
    const std::string dir = std::string(AUSPEX_SOURCE_DIR) + "/models/example";
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    for (const format::CacheType cache : {format::CacheType::f32, format::CacheType::i8}) {
        const auto model = tools::load_model_bytes(convert_example(format::DType::i8, cache), "example");
        const size_t bytes = model->as<Forecaster>().arena_bytes(48, 24);
        REQUIRE(bytes > 0);
        REQUIRE(bytes < (size_t{1} << 30));
        std::vector<std::vector<float>> results;
        for (const uint8_t fill : {uint8_t{0x00}, uint8_t{0xFF}}) {
            tools::AlignedBuffer arena(bytes + 64);
            for (size_t i = 0; i < bytes; ++i) arena.data()[i] = fill;
            for (size_t i = bytes; i < bytes + 64; ++i) arena.data()[i] = 0xA5;
            ForecastSession s;
            REQUIRE(s.init(model->as<Forecaster>(), generic_kernels(), arena.data(), bytes, 48, 24).is_ok());
            std::vector<float> fc(24), again(24), run(24);
            REQUIRE(s.forecast(history.values.data(), 48, 24, fc.data()).is_ok());
            REQUIRE(
                s.run(history.values.data(), 48, history.values.data() + 24, 24, InputSpace::raw, run.data()).is_ok());
            REQUIRE(s.forecast(history.values.data(), 48, 24, again.data()).is_ok());
            CHECK(std::memcmp(fc.data(), again.data(), fc.size() * sizeof(float)) == 0);
            for (size_t i = bytes; i < bytes + 64; ++i) CHECK(arena.data()[i] == 0xA5);
            fc.insert(fc.end(), run.begin(), run.end());
            results.push_back(fc);
        }
        INFO("cache " << int(cache));
        CHECK(std::memcmp(results[0].data(), results[1].data(), results[0].size() * sizeof(float)) == 0);
    }
}
