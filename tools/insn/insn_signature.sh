#!/bin/sh
# Instructions to check a signed model's signature beside one forecast, on a Cortex-M board: runs
# forecast_signed.elf (apps/firmware/forecast_signed_main.cpp, whose regions "verify" and
# "forecast" the plugin counts) and prints a markdown table. QEMU counts executed instructions, not cycles.
#
#   insn_signature.sh PLUGIN.so MACHINE LABEL ELF MODEL_BYTES
set -eu
if [ $# -ne 5 ]; then
    echo "usage: $0 PLUGIN.so MACHINE LABEL ELF MODEL_BYTES" >&2
    exit 2
fi
plugin=$1 machine=$2 label=$3 elf=$4 bytes=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 600 qemu-system-arm -M "$machine" -nographic -monitor none -semihosting-config enable=on,target=native \
    -plugin "$plugin" -d plugin -D "$tmp/plugin" -kernel "$elf" </dev/null >"$tmp/stdout" 2>"$tmp/stderr" || {
    cat "$tmp/stderr" >&2
    echo "insn-signature: $elf on $machine failed" >&2
    exit 1
}
region() { sed -n "s/^insn region $1 total \([0-9]*\)/\1/p" "$tmp/plugin"; }
verify=$(region verify)
forecast=$(region forecast)
# SHA-512's compression function alone: the pass over the model's bytes.
sha=$(awk '/^insn region verify/{f=1} /^insn end verify/{f=0} f && $1 == "insn" && $2 == "sym" && $5 ~ /Sha5125block/ {print $3}' \
    "$tmp/plugin")
if [ -z "$verify" ] || [ -z "$forecast" ] || [ -z "$sha" ]; then
    echo "insn-signature: no verify/forecast regions in the plugin's output of $elf" >&2
    exit 1
fi
stack=$(sed -n 's/^auspex: stack \([0-9]*\) bytes used.*/\1/p' "$tmp/stderr")
echo "| board | model | signature check | of which SHA-512 | one forecast | check / forecast | stack used (image) |"
echo "|---|---|---|---|---|---|---|"
awk -v l="$label" -v b="$bytes" -v v="$verify" -v s="$sha" -v f="$forecast" -v st="$stack" 'BEGIN {
    printf "| %s | %d bytes | %.1f M | %.1f M | %.1f M | %.2f | %s bytes |\n", l, b, v / 1e6, s / 1e6, f / 1e6, v / f, st
}'
echo
echo "Instructions counted by QEMU's TCG plugin (tools/insn/insn_plugin.c) in forecast_signed.elf: the check of"
echo "the example model signed at build time (check_model_signature: SHA-512 over the model, then Ed25519), and"
echo "one forecast of the same model. The check runs once per boot or update, not per forecast."
