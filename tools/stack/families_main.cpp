// Links every model family's public entry points into one Cortex-M image, only so that
// tools/stack/stack_worst_case.py can compute each family's worst-case stack from the linked code. It is
// never run: the model bytes and lengths come from volatile objects the compiler cannot see through.
#include <cstddef>
#include <cstdint>

#include "models/classifier/classifier.h"
#include "models/forecaster/forecaster.h"
#include "models/seq2seq/seq2seq.h"
#include "models/tvae/tvae.h"
#include "ports/ports.h"

namespace {

const uint8_t* volatile model_bytes = nullptr;
volatile size_t model_size = 0;
volatile size_t length = 1;
alignas(16) uint8_t arena[64];
float floats[64];
int32_t tokens[64];

ax::ModelFile file;
ax::Forecaster forecaster;
ax::ForecastSession forecast_session;
ax::Seq2Seq seq2seq;
ax::Seq2SeqSession seq2seq_session;
ax::Classifier classifier;
ax::ClassifierSession classifier_session;
ax::Tvae tvae;
ax::TvaeSession tvae_session;

// Keeps each Status alive so no call is dropped; the image is only analysed.
int sink(const ax::Status& s) { return s ? 0 : 1; }

}  // namespace

int main() {
    const size_t n = length;
    const ax::Kernels& k = ax::best_kernels();
    int bad = sink(ax::ModelFile::open(model_bytes, model_size, ax::Checksum::verify, &file));

    bad += sink(ax::Forecaster::open(file, &forecaster));
    bad += sink(forecast_session.init(forecaster, k, arena, sizeof arena, n, n));
    bad += sink(forecast_session.forecast(floats, n, n, floats));
    bad += sink(forecast_session.forecast_recompute(floats, n, n, floats));
    bad += sink(forecast_session.run(floats, n, floats, n, ax::InputSpace::raw, floats));

    bad += sink(ax::Seq2Seq::open(file, &seq2seq));
    bad += sink(seq2seq_session.init(seq2seq, k, arena, sizeof arena, n, n));
    bad += sink(seq2seq_session.set_pad_id(static_cast<uint32_t>(n)));
    bad += sink(seq2seq_session.run(tokens, n, tokens, n, floats));
    size_t out_len = 0;
    bad += sink(seq2seq_session.translate(tokens, n, 1, 2, n, tokens, &out_len));

    bad += sink(ax::Classifier::open(file, &classifier));
    bad += sink(classifier_session.init(classifier, k, arena, sizeof arena, n));
    bad += sink(classifier_session.set_pad_id(static_cast<uint32_t>(n)));
    bad += sink(classifier_session.classify(tokens, n, floats));

    bad += sink(ax::Tvae::open(file, &tvae));
    bad += sink(tvae_session.init(tvae, k, arena, sizeof arena, n));
    bad += sink(tvae_session.encode(floats, n, floats, floats));
    bad += sink(tvae_session.run(floats, n, floats, floats, floats));
    bad += sink(tvae_session.generate(floats, n, floats));
    bad += sink(tvae_session.reconstruct(floats, n, floats));
    return bad + static_cast<int>(out_len);
}
