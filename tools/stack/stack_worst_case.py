#!/usr/bin/env python3
"""Worst-case stack of the auspex runtime in a linked Cortex-M image, from the compiler's own figures.

Frames: GCC's per-function stack usage (-fcallgraph-info=su writes it into a .ci file per object, the
same figure -fstack-usage writes to .su, keyed by the mangled name the ELF uses). Functions without a
.ci entry (newlib, libgcc, assembly) get the sum of every stack decrement in their disassembly (push,
vpush, sub sp, #n, pre-decrement stores), which bounds any path through a function with no loop around
a push; a function that moves sp by a register amount is unbounded.
GCC's figure leaves out registers spilled below the frame to rebuild a by-value argument, so where the
code's own sum is larger, it is used.
Calls: the linked image's disassembly (arm-none-eabi-objdump): bl, branches out of a function (tail
calls), and code that runs on into the next function (libgcc's shared entry points); a branch into the
middle of a function costs that whole function.
An indirect call (blx/bx rN) is bounded only when the function's .ci lists its indirect calls and each one's
source text is a call through a field of ax::Kernels (runtime/kernels.h): it then goes to every function
that field holds in any kernel table linked into the image (found in the ELF's data: objects the size of
a Kernels whose words are a name string and function addresses). The one other bounded indirect call is
runtime/parallel.cpp's: the work a session splits (runtime/parallel.h) runs as task(arg, i), and without an
application hook on the calling thread; it goes to every runtime function whose address is stored in the image
and whose mangled signature is a ParallelTask's, void(void*, int). A call through the hook (ParallelFor::run) is
counted as running those tasks inline: the hook's own frame is the application's; a task splits no work
again (runtime/parallel.h), so its own worst case counts no task beneath it. Likewise
runtime/rows_split.cpp's fn(arg, first, count) goes to every stored runtime function whose signature is a
RangeTask's, void(void*, size_t, size_t). Recursion, an unbounded frame,
a branch-future call (bfl) or an unresolved indirect call on a path from a root refuses a figure (exit 1).

Roots: the runtime's entry points, i.e. functions of libauspex_runtime.a (per the linker map) that code
outside the runtime calls. Worst(f) = frame(f) + the largest Worst of its callees; a tail call is
counted as a call (an overestimate of at most the caller's frame).

  stack_worst_case.py --elf forecast.elf --map forecast.map --ci-dir BUILD --kernels runtime/kernels.h
      [--budget BYTES] [--painted-log FILE] [--tool-prefix arm-none-eabi-] [--label TEXT] [--show TEXT]

--budget: fail when the runtime's worst case exceeds BYTES. --painted-log: a run's stderr holding the
startup's "auspex: stack N bytes used" line; the figure for main's path (startup + main + the runtime
entry points main calls) must be >= N, and the margin is printed.
"""
import argparse
import bisect
import os
import re
import struct
import subprocess
import sys


class Refusal(Exception):
    pass


# ---- ELF32 little-endian: sections and symbols ----
class Elf:
    def __init__(self, path):
        with open(path, "rb") as f:
            self.data = f.read()
        d = self.data
        if d[:4] != b"\x7fELF" or d[4] != 1 or d[5] != 1:
            raise Refusal(f"{path}: not a 32-bit little-endian ELF")
        shoff, = struct.unpack_from("<I", d, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x2E)
        self.sections = []
        for i in range(shnum):
            name, typ, flags, addr, off, size, link, info, align, entsize = struct.unpack_from(
                "<IIIIIIIIII", d, shoff + i * shentsize)
            self.sections.append(dict(name=name, type=typ, flags=flags, addr=addr, off=off, size=size, link=link))
        if shstrndx < len(self.sections):
            names = self.sections[shstrndx]
            for s in self.sections:
                end = d.find(b"\0", names["off"] + s["name"])
                s["name_text"] = d[names["off"] + s["name"]:end].decode(errors="replace")
        self.symbols = []  # (name, value, size, type)
        for s in self.sections:
            if s["type"] != 2:  # SHT_SYMTAB
                continue
            strtab = self.sections[s["link"]]
            for off in range(s["off"], s["off"] + s["size"], 16):
                st_name, value, size, info, other, shndx = struct.unpack_from("<IIIBBH", d, off)
                if shndx == 0:
                    continue
                end = d.index(b"\0", strtab["off"] + st_name)
                self.symbols.append((d[strtab["off"] + st_name:end].decode(), value, size, info & 0xF))

    def read(self, addr, n):
        """Bytes at a loaded address (None outside every SHF_ALLOC section with contents)."""
        for s in self.sections:
            if s["flags"] & 2 and s["type"] != 8 and s["addr"] <= addr and addr + n <= s["addr"] + s["size"]:
                o = s["off"] + addr - s["addr"]
                return self.data[o:o + n]
        return None

    def c_string(self, addr):
        b = self.read(addr, 1)
        if b is None:
            return None
        out = bytearray()
        while b is not None and b != b"\0" and len(out) < 64:
            out += b
            addr += 1
            b = self.read(addr, 1)
        return out.decode("ascii", "replace") if b == b"\0" else None


# ---- the compiler's figures: .ci files (VCG) ----
NODE_RE = re.compile(r'^node: \{ title: "([^"]+)" label: "([^"]*)"')
EDGE_RE = re.compile(r'^edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"(?: label: "([^"]*)")?')
BYTES_RE = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)")


def read_ci(ci_dir):
    """name -> (bytes, qualifier) (largest if a local name repeats) and name -> [indirect call locations]."""
    frames, indirect = {}, {}
    found = 0
    for root, _, files in os.walk(ci_dir):
        for fn in files:
            if not fn.endswith(".ci"):
                continue
            found += 1
            with open(os.path.join(root, fn), errors="replace") as f:
                for line in f:
                    # A local function's title is "FILE:NAME"; the ELF knows it as NAME.
                    m = NODE_RE.match(line)
                    if m:
                        b = BYTES_RE.search(m.group(2))
                        if b:
                            name, n, q = m.group(1).rsplit(":", 1)[-1], int(b.group(1)), b.group(2)
                            old = frames.get(name)
                            if old is None or n > old[0] or q == "dynamic":
                                frames[name] = (n, q)
                        continue
                    m = EDGE_RE.match(line)
                    if m and m.group(2) == "__indirect_call":
                        indirect.setdefault(m.group(1).rsplit(":", 1)[-1], []).append(m.group(3) or "")
    if found == 0:
        raise Refusal(f"no .ci files under {ci_dir}: compile with -fcallgraph-info=su")
    return frames, indirect


def kernel_fields(path, macro="AX_KERNELS", struct_name="Kernels"):
    """The fields of a kernel table struct after its name, in order: the kernel list `macro` of `path`
    (struct Kernels and AX_KERNELS of runtime/kernels.h; struct IntegerKernels and AX_INTEGER_KERNELS of
    runtime/integer_kernels.h)."""
    with open(path) as f:
        text = f.read()
    m = re.search(r"#define %s\(X\)((?:[^\n]*\\\n)*[^\n]*)" % macro, text)
    fields = re.findall(r"\bX\((\w+)\)", m.group(1)) if m else []
    key = "struct %s {" % struct_name
    body = text[text.index(key):] if key in text else ""
    if not fields or not re.search(r"const char\* name(\s*=\s*nullptr)?;", body):
        raise Refusal(f"{path}: cannot read struct {struct_name} (a name, then the kernels of {macro})")
    return fields


def table_layouts(kernels_path):
    """Every kernel table struct's fields: Kernels, and IntegerKernels (the integer-only mode's table) when
    runtime/integer_kernels.h sits beside kernels.h."""
    layouts = [kernel_fields(kernels_path)]
    integer = os.path.join(os.path.dirname(kernels_path), "integer_kernels.h")
    if os.path.exists(integer):
        layouts.append(kernel_fields(integer, "AX_INTEGER_KERNELS", "IntegerKernels"))
    return layouts


_source_cache = {}


def kernel_field_at(location, fields):
    """The Kernels field a call at FILE:LINE:COL goes through, or None."""
    m = re.match(r"^(.*):(\d+):(\d+)$", location)
    if not m:
        return None
    path, line, col = m.group(1), int(m.group(2)), int(m.group(3))
    if path not in _source_cache:
        try:
            with open(path, errors="replace") as f:
                _source_cache[path] = f.read().split("\n")
        except OSError:
            _source_cache[path] = None
    lines = _source_cache[path]
    if not lines or line > len(lines):
        return None
    text = lines[line - 1]
    # g++ puts the call at its '(' (the field ends just before), gcc at the callee expression's start.
    m = re.search(r"(?:\.|->)\s*(\w+)\s*$", text[:col - 1]) or \
        re.match(r"[\w\s.\[\]*&]*?(?:\.|->)\s*(\w+)\s*\(", text[col - 1:].replace("->", "."))
    return m.group(1) if m and m.group(1) in fields else None


def call_in_source_at(location, source, call):
    """True when the call at `location` (file:line:col) is in a file ending with `source` and its line matches
    the regular expression `call`."""
    m = re.match(r"^(.*):(\d+):(\d+)$", location)
    if not m or not m.group(1).endswith(source):
        return False
    kernel_field_at(location, [])  # fills the cache
    lines = _source_cache.get(m.group(1))
    line = int(m.group(2))
    if not lines or line > len(lines):
        return False
    return re.search(call, lines[line - 1]) is not None


def parallel_call_at(location):
    """True for runtime/parallel.cpp's calls of a ParallelTask or of the application's hook."""
    return call_in_source_at(location, "runtime/parallel.cpp", r"\btask\s*\(|\.run\s*\(")


def range_call_at(location):
    """True for runtime/rows_split.cpp's calls of a RangeTask."""
    return call_in_source_at(location, "runtime/rows_split.cpp", r"\bfn\s*\(")


# A ParallelTask, void(void*, int), as the Itanium ABI mangles its parameters.
PARALLEL_TASK_SUFFIX = "EPvi"
# A RangeTask, void(void*, size_t, size_t): size_t is unsigned int on 32-bit ARM, unsigned long on 64-bit.
RANGE_TASK_SUFFIXES = ("EPvjj", "EPvmm")


# ---- the linker map: which object each input section came from ----
def read_map(path):
    """Sorted [(start, end, object)] of the loaded input sections."""
    out = []
    pending = None
    on = False
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("Linker script and memory map"):
                on = True
                continue
            if not on:
                continue
            parts = line.split()
            if len(parts) == 1 and line.startswith(" ."):
                pending = parts[0]
                continue
            # Code only: debug and attribute sections sit at address 0 too.
            if len(parts) == 4 and parts[0].startswith(".text") and parts[1].startswith("0x"):
                out.append((int(parts[1], 16), int(parts[1], 16) + int(parts[2], 16), parts[3]))
            elif len(parts) == 3 and pending and pending.startswith(".text") and parts[0].startswith("0x") \
                    and parts[1].startswith("0x"):
                out.append((int(parts[0], 16), int(parts[0], 16) + int(parts[1], 16), parts[2]))
            pending = None
    out.sort()
    return out


# ---- disassembly ----
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
REG_NUM = {"sl": 10, "fp": 11, "ip": 12, "sp": 13, "lr": 14, "pc": 15}


def reg_count(reglist):
    """Registers in '{r4, r5, lr}' or '{d8-d15}', and the bytes each takes."""
    inner = reglist[reglist.index("{") + 1:reglist.index("}")]
    n, width = 0, 4
    for item in inner.split(","):
        item = item.strip()
        if item[0] == "d":
            width = 8
        if "-" in item:
            a, b = item.split("-")
            n += int(b.lstrip("rsdq")) - int(a.lstrip("rsdq")) + 1
        else:
            n += 1
    return n, width


def imm(text):
    m = re.search(r"#(-?\d+)", text)
    return int(m.group(1)) if m else None


class Function:
    def __init__(self, name, start, end):
        self.names = [name]
        self.start, self.end = start, end
        self.insns = []  # (addr, mnemonic, operands)


def disassemble(objdump, elf_path, funcs_by_start):
    """Fills each function's instructions from objdump -d."""
    starts = sorted(funcs_by_start)
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn", elf_path], check=True, capture_output=True,
                         text=True).stdout
    for line in out.split("\n"):
        m = INSN_RE.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            continue
        f = funcs_by_start[starts[i]]
        if addr < f.end:
            f.insns.append((addr, m.group(2), m.group(3).split("@")[0].split(";")[0].strip()))


def scan_function(f):
    """(bytes of every stack decrement or None if sp moves by a register, direct targets, indirect sites,
    a reason to refuse the function or None)."""
    total, bounded = 0, True
    direct, indirect = set(), []
    recursive = unknown_call = False
    for addr, mn, ops in f.insns:
        base = mn.split(".")[0]
        if base in ("push", "vpush") or (base in ("stmdb", "stmfd", "vstmdb") and ops.startswith("sp!")):
            n, w = reg_count(ops)
            total += n * (8 if base.startswith("v") and w == 8 else 4)
        elif base in ("sub", "subw") and re.match(r"sp,\s*(sp,\s*)?#", ops):
            total += imm(ops)
        elif base in ("str", "strd", "vstr") and re.search(r"\[sp,\s*#-\d+\]!", ops):
            total += -imm(ops[ops.index("["):])
        elif base in ("add", "addw") and re.match(r"sp,\s*(sp,\s*)?#", ops):
            pass  # releases
        elif re.match(r"sp\s*,", ops) and base not in ("str", "strd", "cmp", "cmn", "tst"):
            bounded = False  # sp set from a register or memory: alloca, or a frame pointer restore
        # control flow (any condition suffix: IT blocks)
        tm = re.search(r"(?:^|[\s,])([0-9a-f]+) <[^>]*>", ops)
        cf = re.match(r"^(bl|blx|bx|b)(eq|ne|cs|hs|cc|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)?$", base)
        kind = cf.group(1) if cf else None
        if kind in ("bl", "blx"):
            if tm:
                t = int(tm.group(1), 16)
                if t == f.start:
                    recursive = True
                direct.add(t)
            else:
                indirect.append(addr)
        elif kind == "bx":
            if ops != "lr":
                indirect.append(addr)
        elif base in ("bfl", "bflx"):
            unknown_call = True  # Armv8.1-M branch-future calls: not analysed
        elif tm and (kind == "b" or base in ("cbz", "cbnz", "le", "letp", "wls", "wlstp")):
            t = int(tm.group(1), 16)
            if not f.start <= t < f.end:
                direct.add(t)  # a tail call (or any branch out of the function)
        elif re.match(r"^(mov|ldr)[a-z]*$", base) and re.match(r"pc\s*,", ops) and "[sp]" not in ops:
            indirect.append(addr)
        elif base.startswith("ldm") and "pc" in ops and not ops.startswith("sp!"):
            indirect.append(addr)
    if recursive:
        raise_problem = "calls itself"
    elif unknown_call:
        raise_problem = "has a branch-future call (bfl), which this tool does not follow"
    else:
        raise_problem = None
    return (total if bounded else None), direct, indirect, raise_problem


def leaves(f):
    """Whether the function's last instruction (padding and literals aside) never falls through."""
    body = [(mn, ops) for _, mn, ops in f.insns if not mn.startswith(".") and mn.split(".")[0] != "nop"]
    if not body:
        return True
    mn, ops = body[-1]
    base = mn.split(".")[0]
    if base in ("b", "bx"):
        return True
    if base in ("pop", "ldmia", "ldm", "ldmfd") and "pc" in ops:
        return True
    return bool(re.match(r"^(ldr|mov)$", base) and re.match(r"pc\s*,", ops))


def demangle(tool_prefix, names):
    try:
        r = subprocess.run([tool_prefix + "c++filt"], input="\n".join(names), capture_output=True, text=True,
                           check=True)
        out = r.stdout.split("\n")
        return {n: out[i] for i, n in enumerate(names)}
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--elf", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--ci-dir", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--budget", type=int)
    ap.add_argument("--painted-log")
    ap.add_argument("--tool-prefix", default="arm-none-eabi-")
    ap.add_argument("--label", default="")
    ap.add_argument("--runtime-archive", default="libauspex_runtime.a(")
    ap.add_argument("--show", action="append", default=[],
                    help="also print the worst path from the entry points whose name contains this text")
    args = ap.parse_args()
    try:
        return run(args)
    except Refusal as e:
        print(f"stack: {args.label or args.elf}: no figure: {e}", file=sys.stderr)
        return 1


# Boards whose code starts at address 0 have function addresses below 0x10000: such an address's word is two
# bytes and two zeros, as the end of a string is ("in\0\0" of "plain", 0x6e69). A word inside text is a
# string's bytes, not a pointer: it and the word before it hold only printable ASCII and zeros, at least four
# of the eight printable (a pointer, or an instruction before a literal pool word, rarely is).
def inside_text(data, o):
    if o < 4:
        return False
    window = data[o - 4:o + 4]
    printable = sum(1 for b in window if 0x20 <= b < 0x7f)
    return printable >= 4 and all(b == 0 or 0x20 <= b < 0x7f for b in window)


def run(args):
    elf = Elf(args.elf)
    layouts = table_layouts(args.kernels)
    fields = [f for layout in layouts for f in layout]
    frames_ci, indirect_ci = read_ci(args.ci_dir)
    sections = read_map(args.map)
    sec_starts = [s[0] for s in sections]

    # Functions by start address (aliases share one).
    funcs = {}
    for name, value, size, typ in elf.symbols:
        if typ != 2:
            continue
        start = value & ~1
        f = funcs.get(start)
        if f is None:
            funcs[start] = Function(name, start, start + size)
        else:
            f.names.append(name)
            f.end = max(f.end, start + size)
    # Assembly routines may have no size, or overlap (libgcc's __aeabi_fsub is __aeabi_frsub's second
    # instruction): each function's code ends where the next one starts, and one whose last instruction
    # does not leave it runs on into the next (a fall-through edge, below).
    ordered = sorted(funcs)
    following = dict(zip(ordered, ordered[1:] + [None]))
    for a, b in following.items():
        if funcs[a].end <= a or (b is not None and funcs[a].end > b):
            funcs[a].end = b if b is not None else a + 0x10000
    disassemble(args.tool_prefix + "objdump", args.elf, funcs)

    def origin(f):
        i = bisect.bisect_right(sec_starts, f.start) - 1
        return sections[i][2] if i >= 0 and f.start < sections[i][1] else ""

    # Kernel tables: objects the size of a Kernels (or an IntegerKernels) holding a name and function
    # addresses (or null).
    tables, tables_at, field_targets = [], [], {}
    for layout_index, layout in enumerate(layouts):
        table_size = 4 * (1 + len(layout))
        found = []
        for name, value, size, typ in elf.symbols:
            if typ != 1 or size != table_size:
                continue
            raw = elf.read(value, size)
            if raw is None:
                continue
            words = struct.unpack("<%dI" % (1 + len(layout)), raw)
            label = elf.c_string(words[0])
            entries = []
            for w in words[1:]:
                if w == 0:
                    entries.append(None)
                elif w & 1 and (w & ~1) in funcs:
                    entries.append(w & ~1)
                else:
                    break
            if label and len(entries) == len(layout):
                found.append((label, entries))
                tables_at.extend(range(value, value + size, 4))
        if layout_index == 0 and not found:
            raise Refusal("no kernel table (ax::Kernels) found in the image")
        for i, fld in enumerate(layout):
            field_targets[fld] = {t[1][i] for t in found if t[1][i] is not None}
        tables.extend(found)
    table_words = set(tables_at)

    # Each function's frame and callees.
    starts = sorted(funcs)
    info = {}
    task_callers = set()  # functions that call a ParallelTask (their callees get the tasks, below)
    range_callers = set()  # functions that call a RangeTask
    low = []  # (function, compiler's bytes, code's bytes) where the code pushes more
    for start, f in funcs.items():
        own, direct, sites, problem = scan_function(f)
        if f.insns and not leaves(f) and following[start] is not None:
            direct.add(following[start])
        ci = next((frames_ci[n] for n in f.names if n in frames_ci), None)
        if ci is not None:
            frame = ci[0]
            if ci[1] == "dynamic":
                problem = problem or "its frame is dynamic (unbounded) per the compiler"
            elif own is not None and own > frame:
                # GCC leaves out the registers a function spills below its frame to rebuild a by-value
                # argument passed half in registers (ax::Status): the code's own figure is the true one.
                low.append((f.names[0], frame, own))
                frame = own
        elif own is None:
            frame, problem = 0, problem or "no compiler figure and it moves sp by a register amount"
        else:
            frame = own
        callees = set()
        for t in direct:
            # A branch into the middle of another function (libgcc's assembly shares tails) costs at most
            # that whole function.
            k = bisect.bisect_right(starts, t) - 1
            if k < 0 or t >= funcs[starts[k]].end:
                problem = problem or f"branches to {t:#x}, inside no function"
            elif starts[k] != start:
                callees.add(starts[k])
        if sites:
            locs = next((indirect_ci[n] for n in f.names if n in indirect_ci), None)
            if locs is None:
                problem = problem or f"{len(sites)} indirect call(s) and no call-graph information to bound them"
            else:
                for loc in locs:
                    fld = kernel_field_at(loc, fields)
                    if fld is not None:
                        callees |= field_targets[fld]
                    elif parallel_call_at(loc):
                        task_callers.add(start)
                    elif range_call_at(loc):
                        range_callers.add(start)
                    else:
                        problem = problem or f"indirect call at {loc} is not a call through an ax::Kernels field"
        info[start] = dict(frame=frame, callees=callees, problem=problem, ci=ci is not None)

    # Worst case from every function reachable from a root: iterative DFS, recursion refused.
    worst, best = {}, {}
    task_worst = {}  # a parallel task's worst case, which runs no task beneath it (below)
    task_best = {}

    def solve(root):
        stack = [(root, iter(sorted(info[root]["callees"])))]
        on_path = {root}
        while stack:
            node, it = stack[-1]
            child = next(it, None)
            if child is not None:
                if child in on_path:
                    cyc = [funcs[n].names[0] for n, _ in stack] + [funcs[child].names[0]]
                    raise Refusal("recursion: " + " -> ".join(cyc[cyc.index(funcs[child].names[0]):]))
                if child not in worst:
                    on_path.add(child)
                    stack.append((child, iter(sorted(info[child]["callees"]))))
                continue
            stack.pop()
            on_path.discard(node)
            if info[node]["problem"]:
                raise Refusal(f"{funcs[node].names[0]}: {info[node]['problem']}")
            c = max(info[node]["callees"], key=lambda n: worst[n], default=None)
            below = worst[c] if c is not None else 0
            task = info[node].get("task")
            if task is not None and task_worst[task] > below:
                c, below = task, task_worst[task]
            worst[node] = info[node]["frame"] + below
            best[node] = c

    def path(node):
        out, links = [], best
        while node is not None:
            out.append(node)
            if node in task_worst:
                links = task_best  # beneath a task, the paths solved with no task beneath parallel_run
            node = links.get(node)
        return out

    runtime = {s for s, f in funcs.items() if args.runtime_archive in origin(f)}
    if not runtime:
        raise Refusal(f"no function of {args.runtime_archive}...) in {args.map}")
    roots = {}  # runtime entry -> outside callers
    for s, f in funcs.items():
        if s in runtime:
            continue
        for c in info[s]["callees"]:
            if c in runtime:
                roots.setdefault(c, set()).add(s)
    if not roots:
        raise Refusal("nothing outside the runtime calls into it")
    # The tables must be the only way a runtime function is called through a pointer: a runtime function
    # whose address is stored anywhere else in the image (data, literal pools) could be called from where
    # this analysis does not look, e.g. a table built at run time.
    in_tables = set().union(*field_targets.values())
    loose = set()
    for sec in elf.sections:
        if not sec["flags"] & 2 or sec["type"] != 1:  # SHF_ALLOC, SHT_PROGBITS
            continue
        # Embedded model files (ports/firmware/sections.ld): bytes the runtime reads as weights, never as
        # code addresses. Their int8 weights hold many small bytes, so a word of them equals a function's
        # address in the 0x08000000 flash now and then (it happened): not an escaped pointer.
        if sec.get("name_text", "").startswith(".axm_model"):
            continue
        base, data = sec["addr"], elf.data[sec["off"]:sec["off"] + sec["size"]]
        for o in range((-base) % 4, len(data) - 3, 4):
            w, = struct.unpack_from("<I", data, o)
            if w & 1 and (w & ~1) in runtime and (w & ~1) not in in_tables and base + o not in table_words:
                if not inside_text(data, o):
                    loose.add(w & ~1)
    # Parallel tasks: stored to be handed to parallel_run, called from there (and only there).
    tasks = {a for a in loose if any(n.endswith(PARALLEL_TASK_SUFFIX) for n in funcs[a].names)}
    range_tasks = {a for a in loose if any(n.endswith(RANGE_TASK_SUFFIXES) for n in funcs[a].names)}
    loose -= tasks | range_tasks
    if loose:
        raise Refusal("address of " + ", ".join(sorted(funcs[a].names[0] for a in loose)) +
                      " stored outside the kernel tables: calls through it are not bounded")
    for s in range_callers:
        info[s]["callees"] |= range_tasks
    # A task does not split its work again (runtime/parallel.h: its calls run with no hook), though its code
    # reaches parallel_run: each task's worst case is solved with no task beneath parallel_run, then
    # parallel_run's callers run the worst of them.
    for t in tasks:
        solve(t)
    task_worst.update({t: worst[t] for t in tasks})
    if tasks:
        top_task = max(tasks, key=lambda t: task_worst[t])
        for s in task_callers:
            info[s]["task"] = top_task
    task_best.update(best)  # the paths beneath the tasks, to print
    worst.clear()
    best.clear()
    for r in roots:
        solve(r)

    names = sorted({n for f in funcs.values() for n in f.names[:1]})
    pretty = demangle(args.tool_prefix, names)

    def show(node):
        n = pretty.get(funcs[node].names[0], funcs[node].names[0])
        return n if len(n) <= 110 else n[:107] + "..."

    top = max(roots, key=lambda r: worst[r])
    label = args.label or os.path.basename(args.elf)
    ports = ", ".join(t[0] for t in tables)
    print(f"stack: {label}: runtime worst case {worst[top]} bytes (port tables: {ports})")
    for r in sorted(roots, key=lambda r: -worst[r]):
        print(f"  {worst[r]:6d}  {show(r)}")
    shown = [top] + [r for r in sorted(roots, key=lambda r: -worst[r]) if r != top
                     and any(t in pretty.get(funcs[r].names[0], "") for t in args.show)]
    for r in shown:
        print(f"  worst path from {show(r).split('(')[0]} ({worst[r]} bytes; frame, function; "
              f"* = no compiler figure, from its code):")
        for n in path(r):
            print(f"  {info[n]['frame']:6d}{' ' if info[n]['ci'] else '*'} {show(n)}")

    low_on_paths = [x for x in low if any(n in worst for n in funcs if x[0] in funcs[n].names)]
    if low_on_paths:
        print(f"  {len(low_on_paths)} function(s) push more than the compiler's figure (arguments spilled below "
              f"the frame); their code's figure is used, e.g. {low_on_paths[0][0]}: {low_on_paths[0][1]} -> "
              f"{low_on_paths[0][2]}")
    status = 0
    if args.budget is not None:
        if worst[top] > args.budget:
            print(f"stack: FAIL: {label}: runtime worst case {worst[top]} bytes exceeds the budget of "
                  f"{args.budget}", file=sys.stderr)
            status = 1
        else:
            print(f"  budget {args.budget} bytes: met ({args.budget - worst[top]} to spare)")

    if args.painted_log:
        with open(args.painted_log, errors="replace") as f:
            m = re.search(r"auspex: stack (\d+) bytes used of (\d+)", f.read())
        if not m:
            raise Refusal(f"{args.painted_log}: no 'auspex: stack N bytes used' line")
        painted = int(m.group(1))
        # main's path: the startup, main, and the deepest runtime entry main calls (what a forecast uses);
        # main's own printf path is not part of the figure, so it must not be what the paint saw.
        mains = [s for s, f in funcs.items() if "main" in f.names]
        starts = [s for s, f in funcs.items() if "auspex_cortex_m_start" in f.names]
        if not mains or not starts:
            raise Refusal("no main or auspex_cortex_m_start in the image")
        m_roots = [c for c in info[mains[0]]["callees"] if c in roots]
        if not m_roots:
            raise Refusal("main calls no runtime entry point")
        r = max(m_roots, key=lambda n: worst[n])
        bound = info[starts[0]]["frame"] + info[mains[0]]["frame"] + worst[r]
        margin = bound - painted
        print(f"  startup {info[starts[0]]['frame']} + main {info[mains[0]]['frame']} + {worst[r]} "
              f"({show(r)}) = {bound} bytes >= {painted} painted: "
              f"{'yes' if margin >= 0 else 'NO'}, {margin} bytes above ({100.0 * margin / painted:.0f}%)")
        if margin < 0:
            print(f"stack: FAIL: {label}: the painted stack ({painted} B) exceeds the computed worst case "
                  f"({bound} B): the analysis misses something", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
