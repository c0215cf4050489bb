#!/bin/sh
# The second `make insn` configuration: the issue #16 benchmark shape (tools/bench/make_bench_models.py
# "tiny": d_model 64, 4 heads, 2+2 layers, ff 256), converted to DTYPE, with a 96-row history (the
# example's 48 rows twice), as example_model.h / example_history.h in OUT for tools/insn/insn_main.cpp.
# DTYPE int8kv is int8 with int8 key/value caches (--kv-cache int8: the attention_*_i8 kernels).
#   bench_headers.sh AUSPEX OUT DTYPE
set -eu
auspex=$1 out=$2 dtype=$3
case $dtype in
int8kv) convert="--dtype int8 --kv-cache int8" ;;
*) convert="--dtype $dtype" ;;
esac
mkdir -p "$out"
python3 tools/bench/make_bench_models.py "$out/.." >/dev/null
# shellcheck disable=SC2086 # $convert is a list of options
"$auspex" convert "$out/../tiny.safetensors" --config "$out/../tiny.json" $convert -o "$out/tiny.axm" >/dev/null
"$auspex" header "$out/tiny.axm" -o "$out/example_model.h" --name example_model --window 96 --horizon 24 >/dev/null
{ echo co2; tail -n +2 models/example/history.csv; tail -n +2 models/example/history.csv; } >"$out/history96.csv"
cmake -DCSV="$out/history96.csv" -DOUT="$out/example_history.h" -DNAME=example_history -P ports/firmware/embed_csv.cmake
