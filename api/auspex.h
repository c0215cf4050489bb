/* auspex C API: open a forecaster model held in memory (flash), lay a session out in a caller-provided
 * arena and forecast, from C or C++. Nothing is allocated: the handle is a plain struct the caller places
 * anywhere (a static variable is typical) and every buffer is the caller's.
 *
 *   #include "api/auspex.h"
 *   #include "model.h"        (from `auspex header m.axm -o model.h --name model --window S --horizon H`:
 *                              model[], MODEL_SIZE, MODEL_WINDOW, MODEL_HORIZON, MODEL_ARENA_BYTES, ...)
 *
 *   static auspex_forecaster fc;
 *   static unsigned char arena[MODEL_ARENA_BYTES] __attribute__((aligned(16)));
 *   static float out[MODEL_HORIZON * MODEL_N_FEATURES];
 *
 *   if (auspex_open(&fc, model, MODEL_SIZE, 1) != AUSPEX_OK ||
 *       auspex_session_init(&fc, arena, sizeof arena, MODEL_WINDOW, MODEL_HORIZON) != AUSPEX_OK ||
 *       auspex_forecast(&fc, history, MODEL_WINDOW, MODEL_HORIZON, out) != AUSPEX_OK)
 *       report(auspex_status_message(&fc));
 *
 * Every function returns an auspex_status code (0 = AUSPEX_OK) and keeps the message of the last call for
 * auspex_status_message. The handle refers to itself and to the model bytes: do not copy or move it after
 * auspex_open, and keep the model bytes and the arena alive while it is used. One handle serves one thread.
 */
#ifndef AUSPEX_C_API_H
#define AUSPEX_C_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The runtime's status codes (ax::StatusCode). */
typedef enum auspex_status {
    AUSPEX_OK = 0,
    AUSPEX_INVALID_ARGUMENT = 1, /* unusable arguments: null pointers, lengths, an unopened handle */
    AUSPEX_BAD_MODEL = 2,        /* the model is malformed, truncated, corrupted or inconsistent */
    AUSPEX_UNSUPPORTED = 3,      /* a valid model using something this build does not implement */
    AUSPEX_ARENA_TOO_SMALL = 4,  /* the arena cannot hold the session */
    AUSPEX_BAD_INPUT = 5,        /* input data is unusable (NaN/Inf) or the forecast overflowed */
    AUSPEX_IN_PROGRESS = 6,      /* not an error: auspex_scrub_step has more bytes to hash */
    AUSPEX_BAD_SIGNATURE = 7     /* not signed by a trusted key: unsigned, another key's, or changed since */
} auspex_status;

/* Storage of one opened model and its session (the C++ ModelFile, Forecaster and ForecastSession). The
 * size is checked against the C++ objects when the runtime is compiled. */
#define AUSPEX_FORECASTER_BYTES (sizeof(void*) > 4 ? 1792u : 1024u)

typedef struct auspex_forecaster {
    union {
        unsigned char bytes[AUSPEX_FORECASTER_BYTES];
        unsigned long long align_u64; /* alignment of the C++ objects inside */
        double align_f64;
        void* align_ptr;
    } opaque;
} auspex_forecaster;

/* Opens and validates a .axm model of `size` bytes at `model` (16-byte aligned, used in place, never
 * copied). verify_checksum = 0 skips only the checksum (for a flash image verified another way). A model
 * converted with --integer-only runs in the integer-only mode (docs/integer-only.md): auspex_arena_bytes,
 * auspex_forecast and auspex_run are then that mode's, with no floating-point arithmetic inside the forecast. */
int auspex_open(auspex_forecaster* f, const void* model, size_t size, int verify_checksum);

/* As auspex_open, for a device that runs only models its owner signed (auspex sign; docs/device.md, "Signed
 * models"): the model must be followed by a signature record made with one of the `key_count` Ed25519
 * public keys in `trusted_keys` (auspex header KEY.pub writes one as a C array). An unsigned model, one
 * signed by another key and one changed after signing are refused with AUSPEX_BAD_SIGNATURE before
 * anything else is read; `size` must cover the record (the model's file plus 128 bytes). */
int auspex_open_signed(auspex_forecaster* f, const void* model, size_t size, int verify_checksum,
                       const unsigned char (*trusted_keys)[32], size_t key_count);

/* Input features per time step and outputs per step of an opened model; 0 when not opened. */
size_t auspex_n_features(const auspex_forecaster* f);
size_t auspex_n_outputs(const auspex_forecaster* f);

/* The encoder window (rows) the model was trained on, 0 when the model does not state it; and the longest
 * window or horizon its positions allow, 0 for no limit. 0 when not opened. auspex_session_init refuses a
 * max_window or max_horizon beyond max_positions. */
size_t auspex_window(const auspex_forecaster* f);
size_t auspex_max_positions(const auspex_forecaster* f);

/* Exact arena bytes a session needs for encoder windows up to max_window rows and horizons (decoder
 * lengths) up to max_horizon: the figure `auspex inspect` and `auspex header` print. 0 when not opened or
 * a length is 0 or too large. */
size_t auspex_arena_bytes(const auspex_forecaster* f, size_t max_window, size_t max_horizon);

/* Lays the session out in arena (16-byte aligned, at least auspex_arena_bytes bytes), using the fastest
 * kernel port of this build. Nothing is allocated afterwards. */
int auspex_session_init(auspex_forecaster* f, void* arena, size_t arena_bytes, size_t max_window, size_t max_horizon);

/* ---- Threads: the application's parallel-for ----
 * The runtime starts no thread. A session may be given a parallel-for: a function of the application's that
 * calls task(arg, i) once for every i in [0, n_tasks), on any of its threads and in any order, and returns
 * when every call has returned (a thread pool on Linux; OpenMP's `parallel for` fits too). The session then
 * splits its matrix products' output columns into at most `workers` tasks per call; results are the same
 * bits for every number of workers. Products too small to pay for a hand-off stay on the calling thread.
 * Task i may use scratch slot i in the arena, so the arena is sized for the workers:
 *
 *   size_t bytes = auspex_arena_bytes_parallel(&fc, window, horizon, 4);
 *   auspex_session_init_parallel(&fc, arena, bytes, window, horizon, my_parallel_for, my_pool, 4);
 */
typedef void (*auspex_task)(void* arg, int index);
typedef void (*auspex_parallel_for)(void* ctx, int n_tasks, auspex_task task, void* arg);

/* auspex_arena_bytes for a session whose parallel-for runs up to `workers` tasks at once (1: the same
 * figure as auspex_arena_bytes). */
size_t auspex_arena_bytes_parallel(const auspex_forecaster* f, size_t max_window, size_t max_horizon, size_t workers);

/* auspex_session_init with a parallel-for (null: none) called with ctx and at most `workers` tasks. */
int auspex_session_init_parallel(auspex_forecaster* f, void* arena, size_t arena_bytes, size_t max_window,
                                 size_t max_horizon, auspex_parallel_for parallel_for, void* ctx, size_t workers);

/* A forecast: history holds `rows` time steps x n_features (raw units, row-major); out gets horizon x
 * n_outputs values in the same units. A step-by-step model feeds its predictions back (its outputs are
 * what its decoder reads); a one-pass model (an encoder-only head, one-pass decoding, patches) predicts
 * up to the horizon it was trained on at once (auspex inspect: "forecast:"). A quantile forecaster
 * (auspex_quantiles(f) > 0: Chronos-Bolt) reads one column whose missing values are NaN, uses its last
 * auspex_window(f) values, and writes quantiles x horizon values: row q (out[q * horizon + t]) the forecast of
 * level q, past its trained horizon extended as the authors' pipeline does. auspex_forecast_values(f, horizon)
 * gives the count for every model. */
int auspex_forecast(auspex_forecaster* f, const float* history, size_t rows, size_t horizon, float* out);

/* Quantile levels per step of a quantile forecaster, 0 for a point forecast (and when not opened). */
size_t auspex_quantiles(const auspex_forecaster* f);
/* Copies up to `capacity` of the quantile levels (rising in (0, 1), in the order of auspex_forecast's rows) to
 * out; returns how many the model has. */
size_t auspex_quantile_levels(const auspex_forecaster* f, float* out, size_t capacity);
/* Values auspex_forecast writes for `horizon` steps: horizon x n_outputs, or quantiles x horizon for a
 * quantile forecaster. 0 when not opened. */
size_t auspex_forecast_values(const auspex_forecaster* f, size_t horizon);

/* A forecast whose decoder also reads inputs known ahead (calendar features, a planned setpoint), or whose
 * encoder-only generator predicts some of the columns it reads (the others planned ahead):
 * auspex_known_inputs(f) > 0. future holds future_rows rows laid out like history's (n_features each), row
 * t the inputs at the time out row t predicts; only the known columns are read (the predicted ones may hold
 * anything), and only rows 0..horizon-2: the last prediction is not fed back. */
int auspex_forecast_known(auspex_forecaster* f, const float* history, size_t rows, const float* future,
                          size_t future_rows, size_t horizon, float* out);
/* How many of the decoder's input columns (an encoder-only generator: of its input columns) the model does
 * not predict (0: auspex_forecast suffices). */
size_t auspex_known_inputs(const auspex_forecaster* f);

/* One teacher-forced pass, as the PyTorch module's forward(src, tgt): out gets tgt_rows x n_outputs (an
 * encoder-only model's forward(src) reads no tgt: its horizon, or one row per src row, x n_outputs).
 * model_space != 0 feeds src and tgt to the network as they are; 0 applies the model's stored
 * normalization (raw units in and out). */
int auspex_run(auspex_forecaster* f, const float* src, size_t src_rows, const float* tgt, size_t tgt_rows,
               int model_space, float* out);
/* The rows auspex_run writes for src_rows and tgt_rows (each n_outputs wide): tgt_rows for a step-by-step
 * encoder-decoder; a one-pass decoder's last min(tgt_rows, horizon); an encoder-only model's horizon, or
 * src_rows through a per-row generator; a quantile forecaster's trained horizon (auspex_run writes quantiles
 * x that many values: one call of its forward on src, tgt unused). 0 when not opened. */
size_t auspex_run_rows(const auspex_forecaster* f, size_t src_rows, size_t tgt_rows);

/* Which model is open (`auspex convert --model-name N --model-version V`; docs/FORMAT.md, "Model
 * identity"), for picking between model slots after an update. The texts are copied into the caller's
 * out[capacity] with a terminating zero (truncated to capacity - 1 bytes; AUSPEX_MAX_TEXT_BYTES + 1 always
 * suffices) and the functions return their full length in bytes: 0 when the model has none or no model is
 * open. The numbers return 1 and store the value when the model states it, else 0 (unversioned; a file
 * from an older converter). A newer model has a larger version; created time is seconds since 1970 UTC. */
#define AUSPEX_MAX_TEXT_BYTES 64u
size_t auspex_model_name(const auspex_forecaster* f, char* out, size_t capacity);
int auspex_model_version(const auspex_forecaster* f, uint32_t* version);
int auspex_model_created_time(const auspex_forecaster* f, uint32_t* unix_seconds);
size_t auspex_converter_version(const auspex_forecaster* f, char* out, size_t capacity);
/* Whether a check pair proved the conversion against PyTorch (`auspex convert --check-*`): 1 proven, 0
 * unproven (converted without one: nothing compared the model with PyTorch), -1 not recorded (a file from an
 * older converter) or no model open. */
int auspex_model_proven(const auspex_forecaster* f);

/* The message of the last call on this handle: "ok", or a short description of the error. Never null. */
const char* auspex_status_message(const auspex_forecaster* f);

/* ---- Scrubbing: re-check a model's checksum in the background, a bounded number of bytes per call ----
 * The model is only read, so it may be the one a handle is forecasting with. A whole pass also checks the
 * header's fixed fields, so a flipped bit anywhere in the model is found.
 *
 *   static auspex_scrub scrub;
 *   auspex_scrub_start(&scrub, model, MODEL_SIZE);
 *   for (;;) {                                    (between forecasts)
 *       int r = auspex_scrub_step(&scrub, 4096);  (at most 4096 bytes per call)
 *       if (r != AUSPEX_OK && r != AUSPEX_IN_PROGRESS) report(auspex_scrub_message(&scrub));
 *   }
 */
#define AUSPEX_SCRUB_BYTES (sizeof(void*) > 4 ? 256u : 232u)

typedef struct auspex_scrub {
    union {
        unsigned char bytes[AUSPEX_SCRUB_BYTES];
        unsigned long long align_u64;
        void* align_ptr;
    } opaque;
} auspex_scrub;

/* Starts (or restarts) a pass over the model at `model` (`size` bytes available; the header says where the
 * model ends). AUSPEX_BAD_MODEL when the header is already unusable. */
int auspex_scrub_start(auspex_scrub* s, const void* model, size_t size);

/* Hashes at most max_bytes more. AUSPEX_IN_PROGRESS: call again; AUSPEX_OK: a whole pass matched (the next
 * call starts a new pass); AUSPEX_BAD_MODEL: the model no longer matches its checksum (repeated until
 * auspex_scrub_start); AUSPEX_INVALID_ARGUMENT: not started. */
int auspex_scrub_step(auspex_scrub* s, size_t max_bytes);

/* "ok", "in progress", or what the last call found. Never null. */
const char* auspex_scrub_message(const auspex_scrub* s);

/* ---- Text: words in, words out, with the vocabulary stored in the model (docs/text.md) ----
 * A translator (seq2seq) or classifier converted with --vocab keeps its vocabularies in the model; these
 * turn text into token ids and ids into text with them, in place, without heap. Scratch memory is the
 * caller's: auspex_text_scratch_bytes gives the exact size for the longest text it will pass.
 *
 *   static auspex_text src;
 *   static unsigned char scratch[SCRATCH] __attribute__((aligned(8)));
 *   int32_t ids[64]; size_t n;
 *   if (auspex_text_open(&src, model, MODEL_SIZE, AUSPEX_SOURCE_VOCABULARY) != AUSPEX_OK ||
 *       auspex_text_encode(&src, "ein hund .", 10, scratch, sizeof scratch, ids, 64, &n) != AUSPEX_OK)
 *       report(auspex_text_message(&src));
 */
#define AUSPEX_TEXT_BYTES (sizeof(void*) > 4 ? 384u : 320u)

typedef struct auspex_text {
    union {
        unsigned char bytes[AUSPEX_TEXT_BYTES];
        unsigned long long align_u64;
        void* align_ptr;
    } opaque;
} auspex_text;

/* Which vocabulary: the source side's (a classifier's only one) or a translator's target side. */
#define AUSPEX_SOURCE_VOCABULARY 0
#define AUSPEX_TARGET_VOCABULARY 1

/* Opens the model's vocabulary of `side` (the model's checksum and structure are checked; the model bytes
 * must stay alive). AUSPEX_INVALID_ARGUMENT when the model stores no such vocabulary. */
int auspex_text_open(auspex_text* t, const void* model, size_t size, int side);
/* Exact scratch bytes auspex_text_encode needs for texts up to max_text_bytes, and the most ids it gives. */
size_t auspex_text_scratch_bytes(const auspex_text* t, size_t max_text_bytes);
size_t auspex_text_max_ids(const auspex_text* t, size_t max_text_bytes);
/* UTF-8 text (not zero-terminated) to ids[0..*count). */
int auspex_text_encode(auspex_text* t, const char* text, size_t length, void* scratch, size_t scratch_bytes,
                       int32_t* ids, size_t capacity, size_t* count);
/* ids to text in out[0..*length) (no terminating zero; *length is the full length even when it exceeds
 * capacity, then AUSPEX_INVALID_ARGUMENT). Special ids (<bos>, <eos>, <pad>) are left out. */
int auspex_text_decode(auspex_text* t, const int32_t* ids, size_t count, char* out, size_t capacity, size_t* length);
/* "ok" or what the last call on this handle found. Never null. */
const char* auspex_text_message(const auspex_text* t);

#ifdef __cplusplus
}
#endif

#endif /* AUSPEX_C_API_H */
