#!/bin/sh
# The worst-case stack tool must refuse a figure when it cannot bound the call graph: links tiny images
# whose "runtime" archive holds a function calling itself, two functions calling each other, and a
# function whose address sits in a pointer outside any kernel table, and expects the tool's refusal
# (exit 1, the reason named) for each; and a figure for an image that calls through the table.
#
#   check_refusals.sh CC PYTHON TOOL CPU_FLAGS...
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 CC PYTHON TOOL CPU_FLAGS..." >&2
    exit 2
fi
cc=$1
python=$2
tool=$3
shift 3
prefix=${cc%gcc}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/kernels.h" <<'H'
#define AX_KERNELS(X) X(linear_f32)
struct Kernels {
    const char* name;
    void (*linear_f32)(void);
};
H
cat >"$dir/main.c" <<'C'
int entry(int n);
int main(void) {
    volatile int n = 3;
    return entry(n);
}
C
# A table the tool recognizes, so that only the recursion can make it refuse.
table='struct Kernels { const char* name; void (*linear_f32)(void); };
void lin(void) {}
const struct Kernels table = {"t", lin};'
printf '%s\nint entry(int n) { return n > 0 ? entry(n - 1) * 3 + 1 : 0; }\n' "$table" >"$dir/self.c"
printf '%s\nint other(int n);\nint entry(int n) { return n > 0 ? other(n - 1) * 3 + 1 : 0; }\nint other(int n) { return n > 0 ? entry(n - 1) * 5 + 2 : 1; }\n' \
    "$table" >"$dir/mutual.c"
printf '%s\nint hidden(int n) { return n + 1; }\nint (*volatile hook)(int) = hidden;\nint entry(int n) { return hook(n); }\n' \
    "$table" >"$dir/pointer.c"
# The control: a call through the table's field is resolved to what the table holds, and a figure comes out.
printf '%s\nconst struct Kernels* volatile k = &table;\nint entry(int n) { k->linear_f32(); return n; }\n' \
    "$table" >"$dir/plain.c"
status=0
for case in self mutual pointer plain; do
    d=$dir/$case
    mkdir -p "$d"
    flags="$* -Os -fno-optimize-sibling-calls -fno-inline -ffunction-sections -fcallgraph-info=su"
    (cd "$d" && $cc $flags -c "$dir/$case.c" -o runtime.o && ${prefix}ar rc libauspex_runtime.a runtime.o &&
        $cc $flags -c ../main.c -o main.o &&
        $cc $* -nostartfiles -nostdlib -Wl,-e,main -Wl,-Map=image.map main.o -L. -lauspex_runtime -o image.elf) || exit 1
    out=$("$python" "$tool" --elf "$d/image.elf" --map "$d/image.map" --ci-dir "$d" --kernels "$dir/kernels.h" \
        --tool-prefix "$prefix" 2>&1)
    rc=$?
    case $case in
    self) want='no figure: entry: calls itself' ;;
    mutual) want='no figure: recursion: ' ;;
    pointer) want='no figure: address of hidden stored outside the kernel tables' ;;
    plain) want='runtime worst case [1-9][0-9]* bytes' ;;
    esac
    expect=1
    [ $case = plain ] && expect=0
    if [ $rc -eq $expect ] && printf '%s\n' "$out" | grep -q "$want"; then
        echo "ok: $case: $(printf '%s\n' "$out" | grep -e 'no figure' -e 'runtime worst case')"
    else
        echo "FAIL: $case: expected exit $expect and '$want', got exit $rc:" >&2
        printf '%s\n' "$out" >&2
        status=1
    fi
done
exit $status
