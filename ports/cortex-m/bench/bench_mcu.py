#!/usr/bin/env python3
"""make bench-mcu's kernel table: runs each board's bench_mcu images (bench_mcu.cpp) under the instruction-count
plugin and prints, per board, the mcu port's linear_i8 on every shape, and, when the images with CMSIS-NN were
built, CMSIS-NN's arm_fully_connected_s8 (FC) and arm_nn_mat_mult_nt_t_s8 (GEMM) beside it.

    bench_mcu.py PLUGIN.so FIRMWARE_DIR OUT_DIR CMSIS_NN_DIR BOARD...     (CMSIS_NN_DIR may be "")

A kernel's count is its region's total minus the instructions of the bench's own functions (bench_mcu...);
every region runs twice and both runs must agree. Exit status 1 when an image's checks fail."""
import os
import re
import subprocess
import sys

# The targets: one-row shapes at most 0.9x FC; multi-row shapes at most 0.9x GEMM with the DSP
# extension (M4, M7) and 1.0x with Helium (M55).
ONE_ROW_LIMIT = 0.9
MULTI_ROW_LIMIT = {"DSP": 0.9, "Helium": 1.0}


def run(plugin, machine, elf, log):
    proc = subprocess.run(["timeout", "600", "qemu-system-arm", "-M", machine, "-nographic", "-monitor", "none",
                           "-semihosting-config", "enable=on,target=native", "-plugin", plugin, "-d", "plugin",
                           "-D", log, "-kernel", elf], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    checks = [l for l in proc.stdout.splitlines() if l.startswith("check")]
    if proc.returncode != 0 or not checks or checks[-1] != "check: ALL OK":
        sys.stdout.write(proc.stdout + proc.stderr)
        raise SystemExit(f"bench-mcu: {elf} on {machine} failed its checks")
    counts = {}
    region, total, own = None, 0, 0
    with open(log) as f:
        for line in f:
            p = line.split()
            if line.startswith("insn region "):
                region, total, own = p[2], int(p[4]), 0
            elif line.startswith("insn sym ") and region is not None and "bench_mcu" in p[4]:
                own += int(p[2])
            elif line.startswith("insn end ") and region is not None:
                counts.setdefault(region, []).append(total - own)
                region = None
    for name, reps in counts.items():
        if len(set(reps)) != 1:
            raise SystemExit(f"bench-mcu: {elf}: region {name} counted {reps} on its repetitions")
    return {name: reps[0] for name, reps in counts.items()}


def fmt(v):
    if v is None:
        return "-"
    if v >= 1_000_000:
        return f"{v / 1e6:.2f}M"
    if v >= 10_000:
        return f"{v / 1e3:.1f}k"
    return str(v)


def shapes(counts):
    out = []
    for name in counts:
        m = re.match(r"ax_(\d+)x(\d+)x(\d+)$", name)
        if m:
            out.append(tuple(int(g) for g in m.groups()))
    return out


def cmake_cache(tree, key):
    with open(os.path.join(tree, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split("=", 1)[1].strip()
    return ""


def first_line(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        return "unknown"


def cmsis_version(d):
    # A checkout of its own (not a folder inside another repository): its commit.
    top = subprocess.run(["git", "-C", d, "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode == 0 and os.path.realpath(top.stdout.strip()) == os.path.realpath(d):
        rev = subprocess.run(["git", "-C", d, "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
        return rev.stdout.strip()
    commit = os.path.join(d, "COMMIT")
    return open(commit).read().strip()[:12] if os.path.exists(commit) else "unknown commit"


def main():
    plugin, fw_dir, out_dir, cmsis = sys.argv[1:5]
    boards = sys.argv[5:]
    os.makedirs(out_dir, exist_ok=True)
    print(f"{first_line(['arm-none-eabi-gcc', '--version'])}; {first_line(['qemu-system-arm', '--version'])}"
          + (f"; CMSIS-NN {cmsis_version(cmsis)}" if cmsis else "") + ".\n")
    print("Instructions per call (per multiply-accumulate) counted by the QEMU TCG plugin "
          "(tests/insn/insn_plugin.c) under emulation: they rank code, they are not cycles. auspex's `linear_i8` "
          "returns float (its rescale included), CMSIS-NN's kernels int8 (their requantization included); the "
          "int32 sums of every kernel were checked equal to a scalar reference on every shape.\n")
    all_met = True
    for board in boards:
        tree = os.path.join(fw_dir, board)
        label = open(os.path.join(tree, "insn_label")).read().strip()
        machine = open(os.path.join(tree, "insn_runner")).read().strip().split(":", 1)[1]
        flags = cmake_cache(tree, "CMAKE_CXX_FLAGS") + " " + cmake_cache(tree, "CMAKE_CXX_FLAGS_RELEASE")
        unit = "Helium" if "cortex-m55" in flags or "cortex-m85" in flags else "DSP"
        runs = {"": run(plugin, machine, os.path.join(tree, "bench_mcu.elf"), os.path.join(out_dir, f"{board}.log"))}
        if cmsis:
            for opt in ("Os", "Ofast"):
                elf = os.path.join(tree, f"bench_mcu_cmsis_{opt}.elf")
                runs[opt] = run(plugin, machine, elf, os.path.join(out_dir, f"{board}.cmsis-{opt}.log"))
                # The auspex kernels are the same -Os code in every image: their counts must not move.
                for k, v in runs[opt].items():
                    if k.startswith("ax") and runs[""].get(k) != v:
                        raise SystemExit(f"bench-mcu: {board}: {k} counts {v} beside CMSIS-NN -{opt}, "
                                         f"{runs[''].get(k)} alone")
        base = runs[""]
        print(f"### {label}: int8 products\n")
        print(f"auspex (and the bench): `{flags.strip()}`" + (
            "; CMSIS-NN: the same CPU flags at -Os (Os:Os, the firmware's setting) and at -Ofast (Os:Ofast, "
            "CMSIS-NN's own default)." if cmsis else "."))
        print()
        head = "| rows x in x out | MACs | auspex mcu | auspex generic | auspex quantize_rows_i8 |"
        rule = "|---|---:|---:|---:|---:|"
        if cmsis:
            for opt in ("Os", "Ofast"):
                head += f" CMSIS FC (Os:{opt}) | CMSIS GEMM (Os:{opt}) | auspex / compared (Os:{opt}) |"
                rule += "---:|---:|---:|"
            head += " target |"
            rule += "---|"
        print(head)
        print(rule)
        for r, i, o in shapes(base):
            sh = f"{r}x{i}x{o}"
            macs = r * i * o
            ax = base[f"ax_{sh}"]
            line = (f"| {sh} | {macs} | {fmt(ax)} ({ax / macs:.2f}) | {fmt(base[f'axg_{sh}'])} "
                    f"({base[f'axg_{sh}'] / macs:.2f}) | {fmt(base[f'axq_{sh}'])} |")
            if cmsis:
                # One row: against the one-row kernel (FC); several: against the GEMM.
                limit = ONE_ROW_LIMIT if r == 1 else MULTI_ROW_LIMIT[unit]
                met = True
                for opt in ("Os", "Ofast"):
                    fc, mm = runs[opt][f"fc_{sh}"], runs[opt][f"mm_{sh}"]
                    ref = fc if r == 1 else mm
                    met = met and ax / ref <= limit
                    line += (f" {fmt(fc)} ({fc / macs:.2f}) | {fmt(mm)} ({mm / macs:.2f}) | "
                             f"{ax / ref:.2f} x {'FC' if r == 1 else 'GEMM'} |")
                all_met = all_met and met
                line += f" {'met' if met else 'NOT met'} (<= {limit}x) |"
            print(line)
        print()
    if cmsis:
        print("Targets: one-row shapes at most 0.9x FC; multi-row shapes at most 0.9x GEMM with the DSP extension "
              "(M4, M7), 1.0x with Helium (M55); at both flag sets. " + ("All met." if all_met else "NOT all met."))


if __name__ == "__main__":
    main()
