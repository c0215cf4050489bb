/* Forecasts with the C API: reads a model file and a history of rows x features floats (whitespace
 * separated), prints the forecast. Usage: consumer_c model.axm history.txt rows horizon */
#include <stdio.h>
#include <stdlib.h>

#include "api/auspex.h"

static void* read_file(const char* path, size_t* size) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void* p = n > 0 ? aligned_alloc(64, ((size_t)n + 63) / 64 * 64) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

int main(int argc, char** argv) {
    if (argc != 5) return 2;
    size_t model_size = 0;
    void* model = read_file(argv[1], &model_size);
    const size_t rows = (size_t)atol(argv[3]), horizon = (size_t)atol(argv[4]);
    static auspex_forecaster fc;
    if (!model || auspex_open(&fc, model, model_size, 1) != AUSPEX_OK) {
        fprintf(stderr, "open: %s\n", model ? auspex_status_message(&fc) : "cannot read the model");
        return 1;
    }
    const size_t nf = auspex_n_features(&fc), no = auspex_n_outputs(&fc);
    float* history = malloc(rows * nf * sizeof(float));
    float* out = malloc(horizon * no * sizeof(float));
    FILE* h = fopen(argv[2], "r");
    for (size_t i = 0; h && i < rows * nf; ++i)
        if (fscanf(h, "%f", &history[i]) != 1) return 1;
    if (h) fclose(h);
    const size_t arena_bytes = auspex_arena_bytes(&fc, rows, horizon);
    void* arena = aligned_alloc(64, (arena_bytes + 63) / 64 * 64);
    if (auspex_session_init(&fc, arena, arena_bytes, rows, horizon) != AUSPEX_OK ||
        auspex_forecast(&fc, history, rows, horizon, out) != AUSPEX_OK) {
        fprintf(stderr, "forecast: %s\n", auspex_status_message(&fc));
        return 1;
    }
    for (size_t i = 0; i < horizon * no; ++i) printf("%.9g\n", out[i]);
    return 0;
}
