#!/bin/sh
# Proof that the auspex runtime needs no heap, no exceptions, no RTTI and no stdio, on the compiled code:
#  1. no object of the runtime library has an undefined reference to an allocator (malloc and friends,
#     operator new/delete), to the C++ exception or RTTI support (__cxa_*, __gxx_personality_v0, the
#     unwinder, typeinfo), or to stdio;
#  2. in a linked firmware (optional), the session arena is a .bss symbol of at least the size the model
#     header declares, and the linker's cross-reference table shows no allocator referenced by the
#     runtime or by the firmware's own objects (newlib's printf may use one: that is the C library's).
#
#   check_heap_free.sh NM LIBRARY [ELF MAP ARENA_SYMBOL ARENA_BYTES]
set -u
if [ $# -ne 2 ] && [ $# -ne 6 ]; then
    echo "usage: $0 NM LIBRARY [ELF MAP ARENA_SYMBOL ARENA_BYTES]" >&2
    exit 2
fi
nm=$1
lib=$2
heap='malloc|free|calloc|realloc|reallocf|memalign|aligned_alloc|posix_memalign|valloc|pvalloc|_malloc_r|_free_r|_calloc_r|_realloc_r|_memalign_r|_sbrk|sbrk|_Znw[jm].*|_Zna[jm].*|_ZdlPv.*|_ZdaPv.*'
cxx='__cxa_.*|__gxx_personality_v0|_Unwind_.*|__aeabi_unwind_cpp_pr[0-9]|_ZTI.*|_ZTS.*|_ZTVN10__cxxabiv1.*|_ZSt9terminatev'
stdio='printf|fprintf|sprintf|snprintf|vprintf|vfprintf|vsnprintf|puts|fputs|fputc|putchar|fwrite|fopen|fclose|_impure_ptr|_global_impure_ptr|__assert_func'
forbidden="^($heap|$cxx|$stdio)\$"
failed=0

undefined=$("$nm" -u -A "$lib" 2>/dev/null | awk '{ print $1 " " $NF }')
bad=$(printf '%s\n' "$undefined" | awk -v re="$forbidden" '$2 ~ re')
if [ -n "$bad" ]; then
    echo "FAIL: runtime objects reference heap, exception, RTTI or stdio symbols:"
    printf '%s\n' "$bad" | sed 's/^/  /'
    failed=1
else
    objects=$("$nm" -A "$lib" 2>/dev/null | awk -F: '{ print $2 }' | sort -u | wc -l)
    echo "ok: $objects runtime objects in $(basename "$lib"): no malloc/free/new/delete, no __cxa_*/personality/typeinfo, no stdio"
    internal=$("$nm" --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
    external=$(printf '%s\n' "$undefined" | awk '{ print $2 }' | sort -u | grep -vxF "$internal" | tr '\n' ' ')
    echo "    the runtime needs from the toolchain only: $external"
fi

if [ $# -eq 6 ]; then
    elf=$3
    map=$4
    symbol=$5
    need=$6
    # nm -S: address size type name; the arena must be zero-initialised static storage (b/B: .bss).
    line=$("$nm" -C -S "$elf" | awk -v s="$symbol" '$NF == s && NF >= 4 { print; exit }')
    if [ -z "$line" ]; then
        echo "FAIL: $elf has no symbol $symbol"
        failed=1
    else
        size=$((0x$(echo "$line" | awk '{ print $2 }')))
        type=$(echo "$line" | awk '{ print $3 }')
        if [ "$type" != b ] && [ "$type" != B ]; then
            echo "FAIL: $symbol in $elf is of type $type, not in .bss"
            failed=1
        elif [ "$size" -lt "$need" ]; then
            echo "FAIL: $symbol in $elf holds $size bytes, the model needs $need"
            failed=1
        else
            echo "ok: $(basename "$elf"): the arena '$symbol' is $size bytes of .bss (model header: $need)"
        fi
    fi
    # The cross-reference table: a symbol's first file defines it, the indented lines below reference it.
    refs=$(awk -v re="^($heap)\$" '
        /^Cross Reference Table/ { on = 1; next }
        !on { next }
        /^[^ \t]/ { sym = $1; first = 1; if (NF >= 2) first = 0; next }
        /^[ \t]/ && sym ~ re { if (first) { first = 0; next } print sym " <- " $1 }
    ' "$map")
    own=$(printf '%s\n' "$refs" | grep -v '/lib[a-z_]*\.a(lib_a-' | grep -v 'libstdc++\|libsupc++\|librdimon\|libgcc' | grep -v '^$')
    if [ -n "$own" ]; then
        echo "FAIL: allocator referenced outside the C library in $(basename "$elf"):"
        printf '%s\n' "$own" | sed 's/^/  /'
        failed=1
    else
        users=$(printf '%s\n' "$refs" | sed -n 's/.*(\(.*\))$/\1/p' | sort -u | tr '\n' ' ')
        echo "ok: $(basename "$elf"): no allocator referenced by the runtime or the firmware's code${users:+ (newlib only: $users)}"
    fi
fi
exit $failed
