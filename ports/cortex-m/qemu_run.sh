#!/bin/sh
# Runs a Cortex-M image on an emulated board with semihosting: its console output goes to stdout and
# main's return value becomes the exit status. With EXPECTED, the output must equal that file byte for
# byte; with a TOLERANCE as well, output that is not identical passes when it has the same shape and every
# number is within TOLERANCE of the expected one (|got - want| / max(1, |want|)), and the differences are
# reported. A hang fails after AUSPEX_QEMU_TIMEOUT seconds (default 120).
#
#   qemu_run.sh BOARD IMAGE.elf [EXPECTED [TOLERANCE]]
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 BOARD IMAGE.elf [EXPECTED [TOLERANCE]]" >&2
    exit 2
fi
board=$1
image=$2
expected=${3:-}
tolerance=${4:-}
limit=${AUSPEX_QEMU_TIMEOUT:-120}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

timeout "$limit" qemu-system-arm -M "$board" -nographic -monitor none \
    -semihosting-config enable=on,target=native -kernel "$image" </dev/null >"$out"
status=$?
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
    if [ -n "$tolerance" ]; then
        report=$(awk -F, -v tol="$tolerance" '
            NR == FNR { want[FNR] = $0; rows = FNR; next }
            {
                got_rows = FNR
                n = split(want[FNR], w, ",")
                if (n != NF) { print "shape: line " FNR " has " NF " values, expected " n; bad = 1; next }
                for (i = 1; i <= NF; ++i) {
                    ++values
                    d = $i - w[i]; if (d < 0) d = -d
                    m = w[i] < 0 ? -w[i] : w[i]; if (m < 1) m = 1
                    e = d / m
                    if (e != 0) ++differ
                    if (e > worst) { worst = e; at = "line " FNR ": " $i " vs " w[i] }
                }
            }
            END {
                if (got_rows != rows) { print "shape: " got_rows " lines, expected " rows; bad = 1 }
                if (bad) exit 1
                printf "%d of %d values differ, largest error %.3g (%s)", differ, values, worst, at
                exit worst > tol
            }' "$expected" "$out")
        status=$?
        if [ $status -eq 0 ]; then
            echo "ok: $(basename "$image") on $board: NOT bit-identical to the host, within $tolerance of $(basename "$expected"): $report"
            exit 0
        fi
        echo "FAIL: the output of $image on $board is not within $tolerance of $expected: $report" >&2
    else
        echo "FAIL: the output of $image on $board differs from $expected:" >&2
    fi
    diff -u "$expected" "$out" >&2
    exit 1
fi
echo "ok: $(basename "$image") on $board: exit status 0"
exit 0
