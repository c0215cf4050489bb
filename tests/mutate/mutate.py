#!/usr/bin/env python3
"""make mutate: apply each source mutation of tests/mutate/mutations.txt, one at a time, to a scratch copy of
the tree, rebuild incrementally, run the host suite, and print the mutation score.

A mutation is caught when the build of the mutated tree fails to compile (reported separately: a mutation
should compile, so that one is a defect of the list) or when the suite fails. The working tree is never
touched: the current files (tracked and untracked, not ignored) are copied to $MUTATE_DIR/src once per run,
and one build dir $MUTATE_DIR/build is reused, so each mutation costs one incremental rebuild.

A mutation whose original snippet is not found in its file (someone edited the code since) is reported as
"stale" and counts against nothing; one found more than once is "ambiguous". Both must be fixed in the list.

Usage: python3 tests/mutate/mutate.py [--only ID[,ID...]] [--list] [--keep-going]
Environment: MUTATE_DIR (default build-mutate), JOBS (default 2), MUTATE_TIMEOUT (seconds per suite run).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "tests", "mutate", "mutations.txt")


class Mutation:
    def __init__(self, ident, why, path, original, replacement, equivalent):
        self.ident, self.why, self.path = ident, why, path
        self.original, self.replacement, self.equivalent = original, replacement, equivalent


def parse_list(text):
    """The list format (see the head of mutations.txt): blocks of
         === id: why it matters
         file: path/from/root
         [equivalent: reason]        (rare: a mutation no test can tell apart, kept documented)
         <<<
         exact original lines
         ---
         replacement lines
         >>>
    """
    mutations, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("=== "):
            i += 1
            continue
        head = line[4:]
        ident, _, why = head.partition(":")
        ident, why = ident.strip(), why.strip()
        i += 1
        path, equivalent = None, None
        while not lines[i].startswith("<<<"):
            if lines[i].startswith("file:"):
                path = lines[i][5:].strip()
            elif lines[i].startswith("equivalent:"):
                equivalent = lines[i][11:].strip()
            i += 1
        i += 1
        original = []
        while lines[i] != "---":
            original.append(lines[i])
            i += 1
        i += 1
        replacement = []
        while lines[i] != ">>>":
            replacement.append(lines[i])
            i += 1
        i += 1
        if not ident or not path or not original:
            sys.exit("mutations.txt: incomplete block " + head)
        mutations.append(Mutation(ident, why, path, "\n".join(original), "\n".join(replacement), equivalent))
    ids = [m.ident for m in mutations]
    dup = {x for x in ids if ids.count(x) > 1}
    if dup:
        sys.exit("mutations.txt: duplicate ids " + ", ".join(sorted(dup)))
    return mutations


def copy_tree(dest):
    """The working tree's current files (tracked and untracked, minus ignored ones) into dest; only files whose
    content changed are rewritten, so a rerun rebuilds only what changed."""
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                           capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src) or rel.startswith("build"):
            continue
        dst = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src, "rb") as f:
            data = f.read()
        if os.path.exists(dst):
            with open(dst, "rb") as f:
                if f.read() == data:
                    continue
        with open(dst, "wb") as f:
            f.write(data)


def run(cmd, cwd, timeout=None):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout)
        return p.returncode, (p.stdout + p.stderr).decode(errors="replace")
    except subprocess.TimeoutExpired:
        return -1, "timeout"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="", help="comma-separated mutation ids")
    ap.add_argument("--list", action="store_true", help="check the list (stale/ambiguous) without building")
    args = ap.parse_args()

    with open(LIST) as f:
        mutations = parse_list(f.read())
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m.ident for m in mutations}
        if unknown:
            sys.exit("unknown mutation ids: " + ", ".join(sorted(unknown)))
        mutations = [m for m in mutations if m.ident in wanted]

    work = os.path.abspath(os.environ.get("MUTATE_DIR", os.path.join(ROOT, "build-mutate")))
    src, build = os.path.join(work, "src"), os.path.join(work, "build")
    jobs = os.environ.get("JOBS", "2")
    timeout = int(os.environ.get("MUTATE_TIMEOUT", "900"))
    # Find every snippet first, in the working tree: a stale list is reported before any slow build (and
    # --list never touches the scratch copy, which a running `make mutate` may be using).
    state = {}
    for m in mutations:
        path = os.path.join(ROOT, m.path)
        text = open(path).read() if os.path.isfile(path) else ""
        n = text.count(m.original)
        state[m.ident] = "ok" if n == 1 else ("stale" if n == 0 else "ambiguous")
    bad = [m for m in mutations if state[m.ident] != "ok"]
    for m in bad:
        print("%-26s %s (%s)" % (m.ident, state[m.ident].upper(), m.path))
    if args.list:
        print("%d mutations, %d stale or ambiguous" % (len(mutations), len(bad)))
        return 1 if bad else 0

    os.makedirs(work, exist_ok=True)
    lock = os.path.join(work, "lock")
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
    except FileExistsError:
        sys.exit("%s exists: another make mutate is using %s (remove the file if it is not)" % (lock, work))
    try:
        return run_mutations(mutations, state, work, src, build, jobs, timeout)
    finally:
        os.remove(lock)


def run_mutations(mutations, state, work, src, build, jobs, timeout):
    os.makedirs(src, exist_ok=True)
    copy_tree(src)

    def build_and_test():
        code, out = run(["cmake", "--build", build, "-j", jobs, "--target", "auspex_tests", "auspex"], ROOT)
        if code != 0:
            return "build", out
        # The suite stops at its first failure (-aa=1): a caught mutation needs only one.
        code, out = run([os.path.join(build, "auspex_tests"), "-aa=1", "-nv"], build, timeout)
        return ("pass" if code == 0 else "fail"), out

    t0 = time.time()
    code, out = run(["cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Release"], ROOT)
    if code != 0:
        sys.exit("configure failed:\n" + out)
    result, out = build_and_test()
    if result != "pass":
        sys.exit("the unmutated tree does not pass its suite (%s):\n%s" % (result, out[-4000:]))
    print("baseline: suite passes (%.0f s)" % (time.time() - t0))

    results = {}
    for m in mutations:
        if state[m.ident] != "ok":
            results[m.ident] = state[m.ident]
            continue
        path = os.path.join(src, m.path)
        original_text = open(path).read()
        t = time.time()
        try:
            with open(path, "w") as f:
                f.write(original_text.replace(m.original, m.replacement, 1))
            result, out = build_and_test()
        finally:
            with open(path, "w") as f:
                f.write(original_text)
        verdict = {"fail": "caught", "build": "caught (compile error)", "pass": "SURVIVED"}[result]
        if result == "pass" and m.equivalent:
            verdict = "equivalent"
        results[m.ident] = verdict
        first_failure = ""  # the test case that failed first names what caught it
        if result == "fail":
            for line in out.splitlines():
                if line.startswith("TEST CASE:") or "timeout" in line:
                    first_failure = line.replace("TEST CASE:", "").strip()[:110]
                    break
        print("%-26s %-22s %4.0f s  %s" % (m.ident, verdict, time.time() - t, first_failure or m.why[:80]),
              flush=True)

    caught = sum(1 for v in results.values() if v.startswith("caught"))
    equivalent = sum(1 for v in results.values() if v == "equivalent")
    survived = [k for k, v in results.items() if v == "SURVIVED"]
    stale = [k for k, v in results.items() if v in ("stale", "ambiguous")]
    scored = caught + len(survived)
    print("mutation score: %d/%d caught (%d equivalent, %d stale or ambiguous) in %.0f min" %
          (caught, scored, equivalent, len(stale), (time.time() - t0) / 60))
    if survived:
        print("survived: " + ", ".join(survived))
    if stale:
        print("stale or ambiguous (fix tests/mutate/mutations.txt): " + ", ".join(stale))
    return 1 if survived or stale else 0


if __name__ == "__main__":
    sys.exit(main())
