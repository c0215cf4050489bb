#!/usr/bin/env bash
# Runs the fuzz targets for SECONDS each, JOBS of them at a time (libFuzzer runs a target on one core):
#   run_fuzz.sh BUILD_DIR SECONDS JOBS TARGET:MAX_LEN:DICT...
# Each target's output goes to BUILD_DIR/logs/TARGET.log, a finding to BUILD_DIR/artifacts/TARGET-*. Prints
# each target's executions when it ends; after all of them, the targets with findings (and exit 1), or
# "fuzz: no findings".
set -uo pipefail
build=${1:?usage: run_fuzz.sh BUILD_DIR SECONDS JOBS TARGET:MAX_LEN:DICT...}
seconds=${2:?seconds}
jobs=${3:?jobs}
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/artifacts" "$build/logs"

# fuzz_one TARGET:MAX_LEN:DICT: one target for $seconds; its exit status is libFuzzer's.
fuzz_one() {
    local spec=$1 target len dict
    target=${spec%%:*}
    len=${spec#*:}
    dict=${len#*:}
    len=${len%%:*}
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/fuzz/$target" "$build/corpus/$target" -max_total_time="$seconds" -max_len="$len" \
        -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -dict="$root/tests/fuzz/$dict.dict" \
        -artifact_prefix="$build/artifacts/$target-" >"$build/logs/$target.log" 2>&1
}

queue=()  # the pids of the running targets, oldest first
specs=()  # their TARGET:MAX_LEN:DICT, in the same order
failed=""
# report: waits for the oldest running target (every target runs for the same time, so it ends first) and
# prints its statistics or its finding.
report() {
    local pid=${queue[0]} spec=${specs[0]} target status
    target=${spec%%:*}
    queue=("${queue[@]:1}")
    specs=("${specs[@]:1}")
    wait "$pid"
    status=$?
    if [ "$status" -eq 0 ]; then
        echo "== fuzz $target: ${seconds} s"
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec)' "$build/logs/$target.log" | sed 's/^/   /'
    else
        tail -n 60 "$build/logs/$target.log"
        echo "== fuzz $target: FINDING (full log: $build/logs/$target.log)"
        failed="$failed $target"
    fi
}

for spec in "$@"; do
    while [ "${#queue[@]}" -ge "$jobs" ]; do report; done
    fuzz_one "$spec" &
    queue+=("$!")
    specs+=("$spec")
done
while [ "${#queue[@]}" -gt 0 ]; do report; done

if [ -n "$failed" ]; then
    echo "fuzz findings in:$failed; inputs in $build/artifacts"
    exit 1
fi
echo "fuzz: no findings"
