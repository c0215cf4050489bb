#!/bin/sh
# Converts the firmware example's model (`make firmware`, FIRMWARE_EXAMPLE). ORIGIN says where the convert
# options came from:
#   default           the board's default (board.cmake's board_example_convert) or the build's: made to fit
#                     the model: a --kv-cache option is left out for a model without a decoder (it has no
#                     key/value cache, and convert refuses the option).
#   FIRMWARE_CONVERT  the user's (make FIRMWARE_CONVERT=..., cmake -DAUSPEX_EXAMPLE_CONVERT=...): used as given;
#                     when convert refuses them, the error says which setting to change.
#
#   convert_example.sh AUSPEX MODEL.pt CONFIG.json OUT.axm ORIGIN [convert options...]
set -u
if [ $# -lt 5 ]; then
    echo "usage: $0 AUSPEX MODEL.pt CONFIG.json OUT.axm default|FIRMWARE_CONVERT [convert options...]" >&2
    exit 2
fi
auspex=$1 model=$2 config=$3 out=$4 origin=$5
shift 5
given="$*"

convert() {
    "$auspex" convert "$model" --config "$config" "$@" -o "$out"
}

if [ "$origin" = FIRMWARE_CONVERT ]; then
    if ! convert "$@"; then
        echo "error: FIRMWARE_CONVERT=\"$given\" (cmake: AUSPEX_EXAMPLE_CONVERT) does not fit $model: convert" \
             "refused it (above); give options this model takes, e.g. FIRMWARE_CONVERT=\"--dtype int8\"" >&2
        exit 1
    fi
    exit 0
fi

# The default: first without --kv-cache (a probe, in a file of its own, so that OUT only ever holds the
# conversion kept), then with it when the model turns out to have a decoder.
kv=""
set -- "$@" --end
while [ "$1" != --end ]; do
    if [ "$1" = --kv-cache ] && [ "$2" != --end ]; then
        kv="$2"
        shift 2
        continue
    fi
    set -- "$@" "$1"
    shift
done
shift
probe="$out.probe.axm"
log="$out.probe.log"
trap 'rm -f "$probe" "$log"' EXIT
if ! "$auspex" convert "$model" --config "$config" "$@" -o "$probe" >"$log" 2>&1; then
    cat "$log" >&2
    echo "error: the default conversion of $model (\"$given\") failed (above): give options this model takes" \
         "with FIRMWARE_CONVERT=\"...\" (cmake: AUSPEX_EXAMPLE_CONVERT)" >&2
    exit 1
fi
# `inspect` prints a "kv cache:" line for a model with a decoder only.
if [ -n "$kv" ] && "$auspex" inspect "$probe" | grep -q '^kv cache:'; then
    convert "$@" --kv-cache "$kv" || exit 1
else
    convert "$@" || exit 1
fi
exit 0
