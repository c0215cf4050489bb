#!/bin/sh
# Runs insn programs under QEMU with the instruction-count plugin and prints markdown tables: instructions of
# one forecast and of each kernel, generic port against the best port of the target.
#
#   insn_report.sh PLUGIN.so LABEL:RUNNER:PROGRAM...
#
# RUNNER is "system:<qemu -M machine>" for a Cortex-M image (qemu-system-arm with semihosting) or
# "user:<qemu-user binary>:<cpu>" for a Linux program. QEMU counts executed guest instructions, not cycles.
# A Cortex-M image X.elf with a file X.qemu beside it gets that file's qemu options too (e.g. -device loader,...
# writing a model into the board's external flash; paths without spaces).
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 PLUGIN.so LABEL:RUNNER:PROGRAM..." >&2
    exit 2
fi
plugin=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
filt=c++filt
command -v $filt >/dev/null 2>&1 || filt=arm-none-eabi-c++filt

n=0
for spec in "$@"; do
    n=$((n + 1))
    label=${spec%%:*}
    rest=${spec#*:}
    kind=${rest%%:*}
    rest=${rest#*:}
    out=$tmp/$n.plugin
    case $kind in
    system)
        machine=${rest%%:*}
        prog=${rest#*:}
        options=""
        [ -f "${prog%.elf}.qemu" ] && options=$(cat "${prog%.elf}.qemu")
        # shellcheck disable=SC2086 # $options is a list of options
        timeout 600 qemu-system-arm -M "$machine" -nographic -monitor none \
            -semihosting-config enable=on,target=native -plugin "$plugin" -d plugin -D "$out" \
            -kernel "$prog" $options </dev/null >"$tmp/$n.stdout" 2>"$tmp/$n.stderr" || {
            cat "$tmp/$n.stdout" "$tmp/$n.stderr" >&2
            echo "insn: $prog on $machine failed" >&2
            exit 1
        }
        ;;
    user)
        emu=${rest%%:*}
        rest=${rest#*:}
        cpu=${rest%%:*}
        prog=${rest#*:}
        timeout 600 "$emu" -cpu "$cpu" -plugin "$plugin" -d plugin -D "$out" "$prog" \
            >"$tmp/$n.stdout" 2>"$tmp/$n.stderr" || {
            cat "$tmp/$n.stdout" "$tmp/$n.stderr" >&2
            echo "insn: $prog under $emu failed" >&2
            exit 1
        }
        ;;
    *)
        echo "insn: unknown runner $kind in $spec" >&2
        exit 2
        ;;
    esac
    best=$(sed -n 's/^insn: best port: \([a-z0-9-]*\).*/\1/p' "$tmp/$n.stdout")
    echo "$label" >"$tmp/$n.label"
    echo "${best:-generic}" >"$tmp/$n.best"
    # region, attributed instructions, demangled name without its arguments
    awk '/^insn region/ { r = $3 } /^insn sym/ { n = $4; print r, $4, $5 }' "$out" | $filt |
        awk '{ name = $3; for (i = 4; i <= NF; ++i) name = name " " $i; sub(/\(.*/, "", name); print $1, $2, name }' \
        >"$tmp/$n.syms"
    awk '/^insn region/ { print $3, $5 }' "$out" >"$tmp/$n.totals"
    # The kernels of runtime/kernels.h as the program lists them (the same in every program).
    [ -n "${kernels:-}" ] || kernels=$(sed -n 's/^insn: kernels: //p' "$tmp/$n.stdout")
done
if [ -z "${kernels:-}" ]; then
    echo "insn: the programs did not list their kernels (insn: kernels: ...)" >&2
    exit 1
fi
# And dot_f32 and axpy_f32: no table entries, but functions the linear and attention kernels call.
kernels="$kernels dot_f32 axpy_f32"

# Value of a kernel (or "total") in one run's region: instructions attributed to ax::<port>::<kernel>.
value() { # run region what
    if [ "$3" = total ]; then
        awk -v r="$2" '$1 == r { print $2; f = 1 } END { if (!f) print "" }' "$tmp/$1.totals"
    else
        awk -v r="$2" -v k="$3" '$1 == r && $3 ~ ("^ax::[a-z0-9_]+::" k "$") { s += $2; f = 1 } END { if (f) print s; else print "" }' "$tmp/$1.syms"
    fi
}
fmt() { # instructions -> "12.3M" / "456.7k" / "123"
    awk -v v="$1" 'BEGIN { if (v == "") print "-"; else if (v >= 1e6) printf "%.2fM\n", v / 1e6; else if (v >= 1e4) printf "%.1fk\n", v / 1e3; else print v }'
}
ratio() {
    awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print ""; else printf " (%.1fx)\n", a / b }'
}

header="| instructions: generic / best port (generic ÷ best) |"
rule="|---|"
i=1
while [ $i -le $n ]; do
    header="$header $(cat $tmp/$i.label), best = $(cat $tmp/$i.best) |"
    rule="$rule---|"
    i=$((i + 1))
done
echo "$header"
echo "$rule"
for what in total $kernels; do
    line=""
    any=0
    i=1
    while [ $i -le $n ]; do
        g=$(value $i generic $what)
        if [ "$(cat $tmp/$i.best)" = generic ]; then b=$g; else b=$(value $i best $what); fi
        [ -n "$g$b" ] && any=1
        if [ "$(cat $tmp/$i.best)" = generic ]; then
            cell="$(fmt "$g")"
        else
            cell="$(fmt "$g") / $(fmt "$b")$(ratio "$g" "$b")"
        fi
        line="$line $cell |"
        i=$((i + 1))
    done
    if [ $any = 1 ]; then
        if [ $what = total ]; then echo "| **one forecast** |$line"; else echo "| $what |$line"; fi
    fi
done
echo
echo "Instructions executed (QEMU TCG plugin tools/insn/insn_plugin.c), not cycles. A kernel's count includes the"
echo "C-library and libgcc code it calls (software floating point on the M3); \"one forecast\" is everything"
echo "ForecastSession::forecast executes. A board whose best port is generic shows one figure."
