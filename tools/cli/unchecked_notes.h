// What no check pair covered, said where the model is used: a conversion no check pair proved
// (runtime/model_identity.h, model_proof) loads and forecasts even when its config is wrong (a wrong nhead
// moves every number), so forecast, verify and inspect warn on stderr; a forecast longer than the model was
// trained for gets a note.
#pragma once
#include <string>

#include "tools/host/model_loader.h"

namespace ax::cli {

// The convert options that prove a conversion of this model's family: "--check-input IN --check-output
// PYTORCH_OUT.csv", with " --check-target TGT" when its forward takes a second input.
std::string check_pair_options(const tools::LoadedModel& m);

// inspect's line: "proven against run_out.csv (max difference 3.1e-07, tolerance 0.0001)", "unproven
// (converted without a check pair)" or "not recorded (...)".
std::string proof_text(const ModelFile& f);

// One line on stderr when the model is recorded as unproven; nothing for a proven model or a file that does
// not say (converted before auspex recorded it: inspect says so). Called after a command succeeded, so that
// an error stays one line.
void warn_if_unproven(const tools::LoadedModel& m);

// forecast's notes after a forecast of `horizon` steps: past the trained horizon, then warn_if_unproven.
void note_unchecked_forecast(const tools::LoadedModel& m, size_t horizon);

}  // namespace ax::cli
