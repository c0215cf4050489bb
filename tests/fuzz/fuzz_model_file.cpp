// Fuzzes the .axm opener (runtime/model_file.cpp) and the families' validation on top of it: the
// forecaster's config, tensor binding and arena planning (models/forecaster/forecaster.cpp), a Chronos-Bolt
// model's open and one forecast (models/forecaster/chronos_bolt_file.cpp), and every
// family's open through the host loader (tools/host/model_loader.cpp). A model file is untrusted: any input must
// give a Status (or, in the host loader, a ToolError), never a read outside the buffer.
//
// The checksum is opened both ways: Checksum::skip lets mutations reach the structural checks (a mutated
// file almost never keeps a valid checksum), Checksum::verify covers the checksum path itself. The host
// loader always verifies, so it gets a copy whose checksum was recomputed.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "models/forecaster/chronos_bolt_file.h"
#include "ports/ports.h"
#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "tools/host/model_loader.h"
#include "tools/common/tool_error.h"

namespace {

// The input with the checksum its header's file_size calls for; false when the header cannot say.
bool resealed(const uint8_t* data, size_t size, std::vector<uint8_t>* out) {
    using namespace ax;
    if (size < format::kHeaderBytes) return false;
    const uint64_t file_size = load_u64(data + format::header::file_size);
    if (file_size < format::kHeaderBytes || file_size > size) return false;
    out->assign(data, data + size);
    const uint64_t sum = fnv1a64(out->data() + format::kChecksumStart, file_size - format::kChecksumStart);
    for (int i = 0; i < 8; ++i) (*out)[format::header::checksum + i] = static_cast<uint8_t>(sum >> (8 * i));
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    fuzz::AlignedCopy buffer(data, size);

    ModelFile verified;
    const Status v = ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &verified);
    ModelFile file;
    const Status s = ModelFile::open(buffer.data(), buffer.size(), Checksum::skip, &file);
    // Skipping the checksum only ever accepts more.
    if (v.is_ok() && !s.is_ok()) __builtin_trap();
    if (!s.is_ok()) return 0;
    fuzz::touch_model(file);

    Forecaster model;
    if (Forecaster::open(file, &model).is_ok()) {
        // Planning must neither overflow nor touch memory, for any lengths (0 answers unusable ones).
        static const size_t kLengths[] = {0, 1, 7, 64, 4096, kMaxSequenceLength, kMaxSequenceLength + 1, SIZE_MAX};
        for (size_t w : kLengths)
            for (size_t h : kLengths) fuzz::consume(model.arena_bytes(w, h));
    }

    // A Chronos-Bolt model that opens runs one forecast past its horizon, with missing values in the context
    // (its shapes are bounded by the file that holds its weights).
    static ChronosBoltModel bolt;
    if (chronos_bolt_open(file, &bolt).is_ok()) {
        const ChronosBoltShape& shape = bolt.weights.shape;
        const size_t horizon = shape.prediction_length + 1;
        const size_t floats = chronos_bolt_forecast_floats(shape, horizon);
        if (floats < (size_t{1} << 22) && shape.quantiles * horizon < (size_t{1} << 20)) {
            std::vector<float> work(floats), out(shape.quantiles * horizon), context(40, 1.5f);
            context[3] = __builtin_nanf("");
            chronos_bolt_forecast(generic_kernels(), bolt.weights, context.data(), context.size(), horizon, out.data(),
                                  work.data());
        }
    }

    std::vector<uint8_t> sealed;
    if (resealed(data, size, &sealed)) {
        try {
            const auto loaded = tools::open_model_bytes(sealed, "fuzz.axm");
            fuzz::touch_model(loaded->file);
        } catch (const tools::ToolError&) {
        }
    }
    return 0;
}
