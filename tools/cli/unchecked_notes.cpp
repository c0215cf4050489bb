#include "tools/cli/unchecked_notes.h"

#include <cstdio>

#include "models/forecaster/forecaster.h"
#include "runtime/model_identity.h"
#include "tools/convert/conversion_check.h"
#include "tools/host/forecast_window.h"

namespace ax::cli {

std::string check_pair_options(const tools::LoadedModel& m) {
    return std::string("--check-input IN --check-output PYTORCH_OUT.csv") +
           (tools::takes_check_target(m) ? " --check-target TGT" : "");
}

std::string proof_text(const ModelFile& f) {
    const ModelProof p = model_proof(f);
    if (!p.recorded) return "not recorded (converted by an auspex that did not record whether a check pair proved it)";
    if (p.proof == format::Proof::unproven)
        return "unproven (converted without a check pair: nothing compared it with PyTorch)";
    char against[format::kMaxProofAgainstBytes + 1];
    const std::string name = proof_against(f, against, sizeof against) > 0 ? std::string(against) : "";
    // convert MODEL.onnx records the graph it was proven against (the host reference evaluator's output for
    // deterministic inputs) when no check pair from PyTorch was given.
    const bool graph = name.size() > 5 && name.compare(name.size() - 5, 5, ".onnx") == 0;
    std::string text = graph
                           ? "proven: the float32 model reproduced the ONNX graph " + name +
                                 " (evaluated by the host reference on deterministic inputs; no check pair from "
                                 "PyTorch)"
                           : "proven: the float32 model reproduced PyTorch's output" + (name.empty() ? "" : " " + name);
    if (p.measured) {
        char numbers[96];
        std::snprintf(numbers, sizeof numbers, " (max difference %.3g, tolerance %.3g)",
                      static_cast<double>(p.max_diff), static_cast<double>(p.tolerance));
        text += numbers;
    }
    return text + " when converted";
}

void warn_if_unproven(const tools::LoadedModel& m) {
    const ModelProof p = model_proof(m.file);
    if (!p.recorded || p.proof != format::Proof::unproven) return;
    std::fprintf(stderr,
                 "warning: %s is unproven: it was converted without a check pair, so nothing compared it with "
                 "PyTorch, and a wrong config (nhead, activation, norm_first, ...) gives wrong numbers without an "
                 "error. Prove it: convert again with %s, the input and output of one forward call of the trained "
                 "module in eval mode (docs/importing-models.md, \"Proving a conversion against PyTorch\")\n",
                 m.path.c_str(), check_pair_options(m).c_str());
}

void note_unchecked_forecast(const tools::LoadedModel& m, size_t horizon) {
    const std::string note =
        tools::horizon_note(m.as<Forecaster>().config(), horizon, "--horizon " + std::to_string(horizon));
    if (!note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());
    warn_if_unproven(m);
}

}  // namespace ax::cli
