// The converter's path after a checkpoint reader (tools/import/*_import.cpp, tools/import/import_common.cpp,
// tools/convert/quantize.cpp, tools/axm/axm_writer.cpp, tools/host/model_loader.cpp), shared by the two checkpoint
// fuzz targets: whatever tensors a reader returns are mapped to each model family in turn, and what imports is stored
// as f32/f16/int8, serialized and opened again.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz_support.h"
#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/classifier_import.h"
#include "tools/import/convert_config.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"
#include "tools/import/seq2seq_import.h"
#include "tools/common/tool_error.h"
#include "tools/import/tvae_import.h"

namespace ax::fuzz {

// What every reader promises about the tensors it returns.
inline void check_tensors(const tools::TensorMap& tensors) {
    for (const auto& [name, t] : tensors) {
        int64_t n = 1;
        for (int64_t d : t.shape) {
            if (d < 0) std::abort();
            n *= d;
        }
        if (n != static_cast<int64_t>(t.data.size())) std::abort();
        uint32_t acc = 0;
        for (float f : t.data) {
            uint32_t bits;
            std::memcpy(&bits, &f, sizeof bits);
            acc ^= bits;
        }
        consume(acc + name.size());
    }
}

// `selector` (a byte of the input) picks the weight storage type and a few config choices.
inline void convert_tensors(const tools::TensorMap& tensors, uint8_t selector) {
    using Import = tools::AxmModel (*)(const tools::TensorMap&, const tools::ConvertConfig&);
    static const std::pair<format::Family, Import> kFamilies[] = {
        {format::Family::forecaster, tools::import_forecaster},
        {format::Family::seq2seq, tools::import_seq2seq},
        {format::Family::classifier, tools::import_classifier},
        {format::Family::tvae, tools::import_tvae},
    };
    const format::DType dtype = selector % 3 == 0   ? format::DType::f32
                                : selector % 3 == 1 ? format::DType::f16
                                                    : format::DType::i8;
    for (const auto& [arch, import] : kFamilies) {
        tools::ConvertConfig config;
        config.arch = arch;
        config.nhead = (selector & 4) ? 2 : 1;
        if (selector & 8)
            config.positional_encoding =
                (selector & 16) ? format::PositionalEncoding::sinusoidal : format::PositionalEncoding::none;
        tools::AxmModel model;
        try {
            model = import(tensors, config);
            tools::store_weights_as(model, dtype);
        } catch (const tools::ToolError&) {
            continue;  // the checkpoint does not make this family: a clean refusal
        }
        const std::vector<uint8_t> bytes = tools::serialize_axm(model);
        try {
            const auto loaded = tools::open_model_bytes(bytes, "converted");
            touch_model(loaded->file);
        } catch (const tools::ToolError&) {
            // The importer accepted tensors that make an invalid model: the converter would report an
            // "internal error" instead of naming the problem in the checkpoint. Opt-in, as that is a poor
            // message rather than a memory-safety bug.
            if (std::getenv("AUSPEX_FUZZ_STRICT_CONVERT")) std::abort();
        }
    }
}

}  // namespace ax::fuzz
