#!/usr/bin/env bash
# Seeds the fuzz corpora from the test fixtures: make_corpus.sh BUILD_DIR [MAX_BYTES]
# Writes BUILD_DIR/corpus/<target>/ (kept between runs, so each run starts from what earlier runs found)
# with BUILD_DIR/fuzz/seed_models, which the fuzz build makes. Seeds larger than MAX_BYTES (default 256 KiB,
# the -max_len `make fuzz` uses for binary formats) are left out: libFuzzer would only truncate them.
set -euo pipefail
build=${1:?usage: make_corpus.sh BUILD_DIR [MAX_BYTES]}
max_bytes=${2:-262144}
build=$(mkdir -p "$build" && cd "$build" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
fixtures=$root/tests/fixtures
seeds=$root/tests/fuzz/seeds
corpus=$build/corpus
seed_models=$build/fuzz/seed_models
work=$build/corpus-work
mkdir -p "$corpus" "$work"

# copy TARGET FILE...: copies each file of at most $limit bytes under a name that keeps seeds from different
# folders apart.
limit=$max_bytes
copy() {
    local target=$1
    shift
    mkdir -p "$corpus/$target"
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        [ "$(stat -c %s "$f")" -le "$limit" ] || continue
        local rel=${f#"$work"/}
        rel=${rel#"$root"/}
        cp "$f" "$corpus/$target/seed-${rel//\//_}"
    done
}

# Fixture folders of every model family: <family>/<case>/{model.pt,model.safetensors,config.json,*.csv}.
cases=$(ls -d "$fixtures"/*/*/ 2>/dev/null | grep -v /checkpoints/ || true)

# .axm models: tiny synthetic forecasters, and every fixture case converted as f32, f16 and int8 (a case of
# hand-written modules with the first rename map of tools/import/maps/ that converts it). A case nothing converts
# is reported and skipped (its own tests say why); the corpus is still made.
"$seed_models" tiny "$work"
for case_dir in $cases; do
    name=$(basename "$(dirname "$case_dir")")_$(basename "$case_dir")
    for ckpt in "$case_dir"model.pt "$case_dir"model.safetensors; do
        [ -f "$ckpt" ] && [ -f "$case_dir"config.json ] || continue
        "$seed_models" convert "$ckpt" "$case_dir"config.json "$work/$name.${ckpt##*.}" 2>/dev/null && continue
        converted=no
        for map in "$root"/tools/import/maps/*.map; do
            [ -f "$map" ] || continue
            if "$seed_models" convert "$ckpt" "$case_dir"config.json "$work/$name.${ckpt##*.}" "$map" 2>/dev/null; then
                converted=yes
                break
            fi
        done
        [ $converted = yes ] || echo "make_corpus.sh: warning: no seed models from $ckpt"
    done
done
copy fuzz_model_file "$work"/*.axm
# A whole run of a d_model 32 fixture takes ~50 ms under the sanitizers, of the tiny models ~1 ms: the run
# target starts from the small ones only (every config option is among them).
limit=32768 copy fuzz_model_run "$work"/tiny_*.axm "$work"/forecaster_*.axm
# Each signature check hashes the whole input: small models keep the executions many.
limit=32768 copy fuzz_model_signature "$work"/tiny_*.axm

copy fuzz_torch_checkpoint "$fixtures"/checkpoints/*.pt "$fixtures"/*/*/model.pt
copy fuzz_safetensors "$fixtures"/checkpoints/*.safetensors "$fixtures"/*/*/*.safetensors "$work"/*.safetensors
copy fuzz_config_json "$fixtures"/*/*/*.json "$seeds"/*.json
copy fuzz_csv "$fixtures"/*/*/*.csv "$root"/models/example/*.csv "$seeds"/*.csv
copy fuzz_rename_map "$root"/tools/import/maps/*.map "$seeds"/*.map
copy fuzz_onnx "$fixtures"/onnx/*.onnx "$fixtures"/onnx_convert/*.onnx
copy fuzz_vocabulary "$fixtures"/text/*.model "$fixtures"/text/*.txt

for t in "$corpus"/*/; do
    echo "corpus $(basename "$t"): $(find "$t" -type f | wc -l) files"
done
