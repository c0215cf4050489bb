#!/usr/bin/env python3
"""Proof that the integer-only forecast runs no floating-point code, on the linked image.

From the entry functions (by default the integer forecast, IntegerForecastSession::forecast_q, and every
integer kernel of runtime/integer_kernels.h, generic's or the mcu port's, which it reaches through its table), follows every direct call
and tail call in the disassembly and fails when a reachable function is a floating-point support routine
(libgcc's __aeabi_f*/__aeabi_d*, __addsf3 and kin, conversions to and from float) or executes a
floating-point instruction (VFP/MVE on cores that have them).

    check_float_free.py OBJDUMP IMAGE.elf RUNTIME_DIR [ENTRY_PREFIX...]
"""
import re
import subprocess
import sys

LABEL = re.compile(r"^([0-9a-f]+) <(.+)>:$")
CALL = re.compile(r"\t(?:bl|blx|b|b\.w|b\.n|b[a-z]{2}(?:\.[wn])?)\s+[0-9a-f]+ <(.+?)(?:\+0x[0-9a-f]+)?>")
SOFT_FLOAT = re.compile(r"^__aeabi_(?:f|d|[ilu]+2[fd])|^__(?:add|sub|mul|div|neg|cmp|eq|ne|lt|le|gt|ge|unord)[sd]f\d|"
                        r"^__(?:float|fix|extend|trunc)\w*[sd]f|^(?:sqrt|exp|log|pow|sin|cos|erf)f?$")
# A VFP/MVE instruction on floating-point data (integer MVE, loads and stores of registers are not).
FLOAT_INSN = re.compile(r"\tv[a-z]+(?:\.[a-z0-9]+)*\.f(?:16|32|64)\b|\tv(?:cvt|sqrt|div)")


def kernel_names(runtime_dir):
    text = open(runtime_dir + "/integer_kernels.h").read()
    block = re.search(r"#define AX_INTEGER_KERNELS\(X\)((?:[^\n]*\\\n)*[^\n]*)", text).group(1)
    return re.findall(r"X\((\w+)\)", block)


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    objdump, elf, runtime_dir = sys.argv[1:4]
    # Each entry a list of alternatives, one of which the image must have: a kernel is generic's or the mcu
    # port's (ports/mcu/integer_mcu.h), and the image may hold both.
    groups = [[e] for e in sys.argv[4:]] or [["ax::IntegerForecastSession::forecast_q("]] + [
        ["ax::%s::%s(" % (port, k) for port in ("generic", "mcu")] for k in kernel_names(runtime_dir)]
    entries = [e for g in groups for e in g]
    listing = subprocess.run([objdump, "-d", "-C", elf], check=True, capture_output=True, text=True).stdout
    calls, floating, current = {}, {}, None
    for line in listing.splitlines():
        m = LABEL.match(line)
        if m:
            current = m.group(2)
            calls.setdefault(current, set())
            continue
        if current is None:
            continue
        c = CALL.search(line)
        if c and c.group(1) != current:
            calls[current].add(c.group(1))
        if FLOAT_INSN.search(line) and current not in floating:
            floating[current] = line.strip()
    roots = [f for f in calls if any(f.startswith(e) for e in entries)]
    missing = [" or ".join(g) for g in groups if not any(f.startswith(e) for e in g for f in calls)]
    if missing:
        print("FAIL: %s has no function %s" % (elf, ", ".join(missing)))
        return 1
    seen, stack, parent = set(roots), list(roots), {}
    while stack:
        f = stack.pop()
        for g in calls.get(f, ()):
            if g not in seen:
                seen.add(g)
                parent[g] = f
                stack.append(g)

    def path(f):
        chain = [f]
        while chain[-1] in parent:
            chain.append(parent[chain[-1]])
        return " <- ".join(chain)

    bad = sorted(f for f in seen if SOFT_FLOAT.search(f))
    insns = sorted(f for f in seen if f in floating)
    if bad or insns:
        for f in bad:
            print("FAIL: the integer forecast reaches the floating-point routine %s" % path(f))
        for f in insns:
            print("FAIL: %s executes a floating-point instruction: %s" % (path(f), floating[f]))
        return 1
    print("ok: %s: %d functions reachable from the integer forecast and its %d kernels, none a floating-point "
          "routine or instruction" % (elf.split("/")[-1], len(seen), len(entries) - 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
