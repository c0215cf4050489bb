// convert MODEL.onnx: forecasters exported with torch.onnx.export, lowered onto the forecaster's blocks and imported
// through the checkpoint importer, give the same tensors, records and forecasts bit for bit as the same module's
// torch.save'd state_dict with its config; both reproduce PyTorch's forward; the converter proves itself against
// the graph; nodes no block explains are refused by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "ports/ports.h"
#include "tests/test_support.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/convert/converter.h"
#include "tools/host/model_loader.h"
#include "tools/import/convert_config.h"
#include "tools/onnx_import/onnx_convert.h"
#include "tools/text/csv.h"

using namespace ax;

namespace {

struct Case {
    const char* name;
    bool decoder;
};
const Case kCases[] = {{"post_relu_sin", true},
                       {"pre_gelu_learned", true},
                       {"post_gelu_nofold", true},
                       {"encoder_flatten", false},
                       {"encoder_last_row", false}};

std::string path_of(const std::string& name, const std::string& ext) {
    return test::fixture_path("onnx_convert/" + name + ext);
}

tools::CheckPair pytorch_pair(const Case& c) {
    tools::CheckFiles files{path_of(c.name, ".src.csv"), c.decoder ? path_of(c.name, ".tgt.csv") : "",
                            path_of(c.name, ".out.csv")};
    return tools::read_check_pair(files, format::Family::forecaster);
}

std::vector<float> run(const std::vector<uint8_t>& bytes, const tools::CheckPair& pair) {
    const std::unique_ptr<tools::LoadedModel> m = tools::open_model_bytes(bytes, "test model");
    return tools::run_check_inputs(*m, pair, best_kernels()).values;
}

}  // namespace

TEST_CASE("onnx convert: an exported forecaster and its state_dict convert to the same tensors and forecasts") {
    for (const Case& c : kCases) {
        const std::string name = c.name;
        CAPTURE(name);
        tools::ConvertOptions from_pt;
        from_pt.checkpoint_path = path_of(c.name, ".pt");
        from_pt.config_path = path_of(c.name, ".json");
        const tools::AxmModel pt =
            tools::import_model(tools::read_model_tensors(from_pt), tools::read_convert_config(from_pt.config_path));
        tools::ConvertOptions from_onnx;
        from_onnx.checkpoint_path = path_of(c.name, ".onnx");
        if (std::filesystem::exists(path_of(c.name, ".onnx.json"))) from_onnx.config_path = path_of(c.name, ".onnx.json");
        const onnx_import::OnnxImport ox = onnx_import::import_onnx(from_onnx);

        // The same tensors (role, layer, shape, bytes) in the same order, and the same records but for the
        // "defaults" record (which keys the checkpoint's config left to defaults the graph states).
        REQUIRE(pt.tensors.size() == ox.model.tensors.size());
        for (size_t i = 0; i < pt.tensors.size(); ++i) {
            CAPTURE(pt.tensors[i].source_name);
            CHECK(pt.tensors[i].role == ox.model.tensors[i].role);
            CHECK(pt.tensors[i].layer == ox.model.tensors[i].layer);
            CHECK(pt.tensors[i].dims == ox.model.tensors[i].dims);
            CHECK(pt.tensors[i].data == ox.model.tensors[i].data);
        }
        auto records = [](const tools::AxmModel& m) {
            std::vector<std::pair<format::ConfigKey, uint32_t>> r;
            for (const auto& kv : m.config)
                if (kv.first != format::ConfigKey::defaults) r.push_back(kv);
            return r;
        };
        const auto want = records(pt), got = records(ox.model);
        std::string diff;
        for (const auto& kv : want)
            if (std::find(got.begin(), got.end(), kv) == got.end())
                diff += " checkpoint " + std::to_string(static_cast<int>(kv.first)) + "=" + std::to_string(kv.second);
        for (const auto& kv : got)
            if (std::find(want.begin(), want.end(), kv) == want.end())
                diff += " onnx " + std::to_string(static_cast<int>(kv.first)) + "=" + std::to_string(kv.second);
        CHECK_MESSAGE(want == got, "records differ:" << diff);

        // Forecasts: bit for bit the same, and both PyTorch's within the conversion check's tolerance.
        const tools::CheckPair pair = pytorch_pair(c);
        const std::vector<float> a = run(tools::serialize_axm(pt), pair);
        const std::vector<float> b = run(tools::serialize_axm(ox.model), pair);
        REQUIRE(a.size() == b.size());
        CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
        const tools::CheckResult r = tools::compare_outputs(b, pair.want);
        MESSAGE(name << ": ONNX-lowered vs PyTorch max difference " << r.max_diff);
        CHECK(r.passed);
        CHECK(r.max_diff < 2e-6);

        // The converter's own proof against the graph.
        const tools::ConversionProof proof = onnx_import::prove_against_graph(ox, from_onnx.checkpoint_path);
        MESSAGE(name << ": lowered vs the graph (host reference) max difference " << proof.max_diff);
        CHECK(proof.proven);
        CHECK(proof.max_diff < 2e-6);
    }
}
