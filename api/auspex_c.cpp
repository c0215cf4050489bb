// The C API (api/auspex.h) over the C++ forecaster: the handle's bytes hold a ModelFile, a
// Forecaster and a ForecastSession built in place, plus the last status. No heap, no exceptions. A model
// converted with --integer-only (it holds an integer plan) runs in the integer-only mode
// (docs/integer-only.md): an IntegerForecaster and its session instead, the forecast the integer mode's bits.
#include "api/auspex.h"

#include <cstdint>
#include <new>

#include "models/forecaster/forecaster.h"
#include "models/forecaster/forecaster_integer.h"
#include "ports/integer_ports.h"
#include "runtime/model_identity.h"
#include "runtime/model_signature.h"
#include "ports/ports.h"

namespace {

using ax::Status;
using ax::StatusCode;

constexpr uint32_t kMagic = 0x41585046u;  // "AXPF": the handle was opened (its status is meaningful)
constexpr size_t kMaxWorkers = 1024;      // more would only be a mistake (task indices are ints)

struct Handle {
    uint32_t magic;
    bool opened;  // model and file are valid
    bool session_ready;
    bool integer;  // the model holds an integer plan: the integer members serve it
    Status last;
    ax::ModelFile file;
    ax::Forecaster model;
    ax::IntegerForecaster integer_model;
    // One session or the other, built by auspex_open: the handle's bytes fit one of each model but not both
    // sessions.
    union Sessions {
        Sessions() {}
        ~Sessions() {}
        ax::ForecastSession model;
        ax::IntegerForecastSession integer;
    } sessions;
};

static_assert(sizeof(Handle) <= sizeof(auspex_forecaster), "AUSPEX_FORECASTER_BYTES is too small for this build");
static_assert(alignof(Handle) <= alignof(auspex_forecaster), "auspex_forecaster is under-aligned");
static_assert(static_cast<int>(StatusCode::ok) == AUSPEX_OK &&
                  static_cast<int>(StatusCode::invalid_argument) == AUSPEX_INVALID_ARGUMENT &&
                  static_cast<int>(StatusCode::bad_model) == AUSPEX_BAD_MODEL &&
                  static_cast<int>(StatusCode::unsupported) == AUSPEX_UNSUPPORTED &&
                  static_cast<int>(StatusCode::arena_too_small) == AUSPEX_ARENA_TOO_SMALL &&
                  static_cast<int>(StatusCode::bad_input) == AUSPEX_BAD_INPUT,
              "auspex_status and ax::StatusCode disagree");
static_assert(AUSPEX_MAX_TEXT_BYTES == ax::format::kMaxModelNameBytes &&
                  AUSPEX_MAX_TEXT_BYTES == ax::format::kMaxConverterVersionBytes,
              "AUSPEX_MAX_TEXT_BYTES and the format's text limits disagree");

Handle* handle(auspex_forecaster* f) {
    if (f == nullptr) return nullptr;
    Handle* h = std::launder(reinterpret_cast<Handle*>(f->opaque.bytes));
    return h->magic == kMagic ? h : nullptr;
}

const Handle* handle(const auspex_forecaster* f) { return handle(const_cast<auspex_forecaster*>(f)); }

int finish(Handle* h, const Status& s) {
    h->last = s;
    return static_cast<int>(s.code());
}

Status not_ready(const char* what) { return Status::error(StatusCode::invalid_argument, what); }

// A text of the open model through `read` (runtime/model_identity.h); "" and 0 when none is open.
size_t copy_text(const auspex_forecaster* f, size_t (*read)(const ax::ModelFile&, char*, size_t), char* out,
                 size_t capacity) {
    const Handle* h = handle(f);
    if (h != nullptr && h->opened) return read(h->file, out, capacity);
    if (out != nullptr && capacity > 0) out[0] = '\0';
    return 0;
}

}  // namespace

extern "C" {

namespace {

// Opens a model into the handle; `signature` is the outcome of auspex_open_signed's check (ok from
// auspex_open), so firmware that never calls auspex_open_signed links no Ed25519.
int open_model(auspex_forecaster* f, const void* model, size_t size, int verify_checksum, const Status& signature) {
    if (f == nullptr) return AUSPEX_INVALID_ARGUMENT;
    Handle* h = new (f->opaque.bytes) Handle();
    h->magic = kMagic;
    h->opened = false;
    h->session_ready = false;
    h->integer = false;
    if (model == nullptr) return finish(h, not_ready("model is null"));
    Status s = signature;
    if (s)
        s = ax::ModelFile::open(static_cast<const uint8_t*>(model), size,
                                verify_checksum ? ax::Checksum::verify : ax::Checksum::skip, &h->file);
    if (s) s = ax::Forecaster::open(h->file, &h->model);
    if (s && h->model.integer_plan() != nullptr) {
        s = ax::IntegerForecaster::open(h->model, &h->integer_model);
        h->integer = s.is_ok();
    }
    if (h->integer)
        new (&h->sessions.integer) ax::IntegerForecastSession();
    else
        new (&h->sessions.model) ax::ForecastSession();
    h->opened = s.is_ok();
    return finish(h, s);
}

}  // namespace

int auspex_open(auspex_forecaster* f, const void* model, size_t size, int verify_checksum) {
    return open_model(f, model, size, verify_checksum, Status::ok());
}

int auspex_open_signed(auspex_forecaster* f, const void* model, size_t size, int verify_checksum,
                       const unsigned char (*trusted_keys)[32], size_t key_count) {
    Status signature = Status::ok();
    if (trusted_keys == nullptr || key_count == 0)
        signature = not_ready("no trusted keys given");
    else if (model != nullptr)
        signature = ax::check_model_signature(static_cast<const uint8_t*>(model), size,
                                              ax::TrustedKeys{trusted_keys, key_count});
    return open_model(f, model, size, verify_checksum, signature);
}

size_t auspex_n_features(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().n_features : 0;
}

size_t auspex_n_outputs(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().n_outputs : 0;
}

size_t auspex_quantiles(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened && h->model.config().head.quantile() ? h->model.config().quantiles() : 0;
}

size_t auspex_quantile_levels(const auspex_forecaster* f, float* out, size_t capacity) {
    const size_t n = auspex_quantiles(f);
    const float* levels = n != 0 ? handle(f)->model.quantile_levels() : nullptr;
    for (size_t i = 0; i < n && i < capacity && out != nullptr; ++i) out[i] = levels[i];
    return n;
}

size_t auspex_forecast_values(const auspex_forecaster* f, size_t horizon) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().output_values(horizon) : 0;
}

size_t auspex_run_rows(const auspex_forecaster* f, size_t src_rows, size_t tgt_rows) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().run_rows(src_rows, tgt_rows) : 0;
}

size_t auspex_window(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().window : 0;
}

size_t auspex_max_positions(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().max_positions : 0;
}

size_t auspex_arena_bytes(const auspex_forecaster* f, size_t max_window, size_t max_horizon) {
    return auspex_arena_bytes_parallel(f, max_window, max_horizon, 1);
}

size_t auspex_arena_bytes_parallel(const auspex_forecaster* f, size_t max_window, size_t max_horizon, size_t workers) {
    const Handle* h = handle(f);
    if (h == nullptr || !h->opened || workers == 0) return 0;
    // The integer mode runs on the calling thread: one worker's arena.
    return h->integer ? h->integer_model.arena_bytes(max_window, max_horizon)
                      : h->model.arena_bytes(max_window, max_horizon, workers);
}

int auspex_session_init(auspex_forecaster* f, void* arena, size_t arena_bytes, size_t max_window, size_t max_horizon) {
    return auspex_session_init_parallel(f, arena, arena_bytes, max_window, max_horizon, nullptr, nullptr, 1);
}

int auspex_session_init_parallel(auspex_forecaster* f, void* arena, size_t arena_bytes, size_t max_window,
                                 size_t max_horizon, auspex_parallel_for parallel_for, void* ctx, size_t workers) {
    Handle* h = handle(f);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    if (!h->opened) return finish(h, not_ready("no model is open"));
    if (workers == 0 || workers > kMaxWorkers)
        return finish(h, Status::error(StatusCode::invalid_argument, "workers must be 1..").add(kMaxWorkers));
    h->session_ready = false;
    ax::ParallelFor parallel;
    parallel.run = parallel_for;
    parallel.ctx = ctx;
    parallel.workers = workers;
    const Status s = h->integer ? h->sessions.integer.init(h->integer_model, ax::best_integer_kernels(), arena,
                                                           arena_bytes, max_window, max_horizon)
                                : h->sessions.model.init(h->model, ax::best_kernels(), arena, arena_bytes, max_window,
                                                         max_horizon, parallel);
    h->session_ready = s.is_ok();
    return finish(h, s);
}

int auspex_forecast(auspex_forecaster* f, const float* history, size_t rows, size_t horizon, float* out) {
    return auspex_forecast_known(f, history, rows, nullptr, 0, horizon, out);
}

int auspex_forecast_known(auspex_forecaster* f, const float* history, size_t rows, const float* future,
                          size_t future_rows, size_t horizon, float* out) {
    Handle* h = handle(f);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    if (!h->session_ready) return finish(h, not_ready("no session: call auspex_session_init first"));
    if (h->integer) return finish(h, h->sessions.integer.forecast(history, rows, horizon, out, future, future_rows));
    return finish(h, h->sessions.model.forecast(history, rows, horizon, out, future, future_rows));
}

size_t auspex_known_inputs(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    return h && h->opened ? h->model.config().known_inputs : 0;
}

int auspex_run(auspex_forecaster* f, const float* src, size_t src_rows, const float* tgt, size_t tgt_rows,
               int model_space, float* out) {
    Handle* h = handle(f);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    if (!h->session_ready) return finish(h, not_ready("no session: call auspex_session_init first"));
    const ax::InputSpace space = model_space ? ax::InputSpace::model : ax::InputSpace::raw;
    if (h->integer) return finish(h, h->sessions.integer.run(src, src_rows, tgt, tgt_rows, space, out));
    return finish(h, h->sessions.model.run(src, src_rows, tgt, tgt_rows, space, out));
}

size_t auspex_model_name(const auspex_forecaster* f, char* out, size_t capacity) {
    return copy_text(f, ax::model_name, out, capacity);
}

int auspex_model_version(const auspex_forecaster* f, uint32_t* version) {
    const Handle* h = handle(f);
    return h && h->opened && version != nullptr && ax::model_version(h->file, version) ? 1 : 0;
}

int auspex_model_created_time(const auspex_forecaster* f, uint32_t* unix_seconds) {
    const Handle* h = handle(f);
    return h && h->opened && unix_seconds != nullptr && ax::model_created_time(h->file, unix_seconds) ? 1 : 0;
}

size_t auspex_converter_version(const auspex_forecaster* f, char* out, size_t capacity) {
    return copy_text(f, ax::converter_version, out, capacity);
}

int auspex_model_proven(const auspex_forecaster* f) {
    const Handle* h = handle(f);
    if (h == nullptr || !h->opened) return -1;
    const ax::ModelProof p = ax::model_proof(h->file);
    if (!p.recorded) return -1;
    return p.proof == ax::format::Proof::proven ? 1 : 0;
}

const char* auspex_status_message(const auspex_forecaster* f) {
    if (f == nullptr) return "auspex_forecaster is null";
    const Handle* h = handle(f);
    if (h == nullptr) return "auspex_forecaster was never opened (call auspex_open first)";
    return h->last.message();
}

}  // extern "C"
