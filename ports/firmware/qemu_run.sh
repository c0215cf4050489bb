#!/bin/sh
# Runs a Cortex-M image on an emulated board with semihosting: its console output goes to stdout and
# main's return value becomes the exit status. With EXPECTED, the output must equal that file byte for
# byte. A hang fails after AUSPEX_QEMU_TIMEOUT seconds (default 120). With AUSPEX_QEMU_STDERR set, the
# image's stderr (the startup's stack line among it) is also kept in that file, for the stack test.
# QEMU_OPTIONS after EXPECTED go to qemu as they are (e.g. -device loader,file=model.axm,addr=0x60000000 to
# write a model into the board's external flash region).
#
#   qemu_run.sh BOARD IMAGE.elf [EXPECTED [QEMU_OPTIONS...]]
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BOARD IMAGE.elf [EXPECTED]" >&2
    exit 2
fi
board=$1
image=$2
expected=${3:-}
shift $(($# < 3 ? $# : 3))
limit=${AUSPEX_QEMU_TIMEOUT:-120}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() {
    timeout "$limit" qemu-system-arm -M "$board" -nographic -monitor none \
        -semihosting-config enable=on,target=native -kernel "$image" "$@" </dev/null >"$out"
}
if [ -n "${AUSPEX_QEMU_STDERR:-}" ]; then
    run "$@" 2>"$AUSPEX_QEMU_STDERR"
    status=$?
    cat "$AUSPEX_QEMU_STDERR" >&2
else
    run "$@"
    status=$?
fi
cat "$out"
if [ $status -eq 124 ]; then
    echo "FAIL: $image on $board did not finish within ${limit}s" >&2
    exit 1
fi
if [ $status -ne 0 ]; then
    echo "FAIL: $image on $board exited with status $status" >&2
    exit 1
fi
if [ -n "$expected" ]; then
    if cmp -s "$expected" "$out"; then
        echo "ok: $(basename "$image") on $board: bit-identical to the host ($(wc -l <"$out") lines equal to $(basename "$expected"))"
        exit 0
    fi
    echo "FAIL: the output of $image on $board differs from $expected:" >&2
    diff -u "$expected" "$out" >&2
    exit 1
fi
echo "ok: $(basename "$image") on $board: exit status 0"
exit 0
