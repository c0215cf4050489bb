#!/usr/bin/env python3
"""Instructions per forecast of the integer-only example (forecast_integer.elf, docs/integer-only.md) on
Cortex-M boards under QEMU with the instruction-count plugin, beside the int8 mode's best-port figure of the
same board from make insn's table. Prints a markdown table. QEMU counts executed instructions, not cycles.

    insn_integer.py PLUGIN.so INSN.md LABEL:MACHINE:ELF...

LABEL is make insn's column label of the board ("M4 (mps2-an386)"), or any label for an image the int8
table has no column for (the Cortex-M0+ build run on the M3 board). A spec starting with "?" is skipped when
its ELF does not exist (the Cortex-M0+ build exists on the M3 board only).
"""
import os
import re
import subprocess
import sys
import tempfile


def integer_total(plugin, machine, elf):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "plugin.txt")
        subprocess.run(["qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none", "-semihosting-config",
                        "enable=on,target=native", "-plugin", plugin, "-d", "plugin", "-D", log, "-kernel", elf],
                       stdin=subprocess.DEVNULL, capture_output=True, check=True, timeout=600)
        for line in open(log):
            m = re.match(r"insn region integer total (\d+)", line)
            if m:
                return int(m.group(1))
    sys.exit("insn_integer: %s on %s printed no region \"integer\"" % (elf, machine))


# label -> the int8 mode's best-port count ("39.07M"), from make insn's "one forecast" row.
def int8_figures(table_path):
    header = row = None
    for line in open(table_path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| instructions:") and header is None:
            header = cells
        elif line.startswith("| **one forecast**") and row is None:
            row = cells
    if header is None or row is None:
        return {}
    figures = {}
    for label, cell in zip(header[1:], row[1:]):
        name = label.split(", best =")[0]
        best = cell.split(" / ")[-1].split(" ")[0]
        figures[name] = best
    return figures


def parse_count(text):
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}
    return float(text[:-1]) * scale[text[-1]] if text and text[-1] in scale else float(text)


def main():
    if len(sys.argv) < 4:
        print("usage: insn_integer.py PLUGIN.so INSN.md LABEL:MACHINE:ELF...", file=sys.stderr)
        return 2
    plugin, table = sys.argv[1:3]
    int8 = int8_figures(table) if os.path.exists(table) else {}
    print("| core (board) | integer-only | int8 mode, best port | integer-only ÷ int8 |")
    print("|---|---|---|---|")
    for spec in sys.argv[3:]:
        optional = spec.startswith("?")
        label, machine, elf = spec.lstrip("?").split(":", 2)
        if optional and not os.path.exists(elf):
            continue
        n = integer_total(plugin, machine, elf)
        other = int8.get(label)
        ratio = "%.2f" % (n / parse_count(other)) if other else "-"
        print("| %s | %.2fM | %s | %s |" % (label, n / 1e6, other or "-", ratio))
    print()
    print("Instructions of one forecast (IntegerForecastSession::forecast, window 48, horizon 24) under QEMU with "
          "tools/insn/insn_plugin.c, not cycles; the int8 column is the \"one forecast\" row above.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
