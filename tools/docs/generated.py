#!/usr/bin/env python3
"""Figures that a build or a benchmark produces live in docs/ between markers, written by that run:

    <!-- begin generated: NAME (make TARGET) -->
    ...rewritten by the run, never by hand...
    <!-- end generated: NAME -->

    generated.py write DOC NAME [FILE]   replace the block's lines with FILE (default: standard input)
    generated.py check DOC NAME [FILE]   every line of FILE (standard input) must be a line of the block;
                                         else exit 1 naming the line and the command that rewrites it

`check` lets a test compare one board's row with the table the run of every board wrote.
Python 3 standard library only.
"""
import os
import re
import sys
import tempfile


def find_block(lines, doc, name):
    begin = re.compile(r"^<!-- begin generated: %s \((.*)\) -->$" % re.escape(name))
    end = "<!-- end generated: %s -->" % name
    start = command = None
    for i, line in enumerate(lines):
        m = begin.match(line)
        if m:
            start, command = i, m.group(1)
        elif line == end and start is not None:
            return start, i, command
    sys.exit("%s: no block '%s' (a line '<!-- begin generated: %s (COMMAND) -->' and a line '%s')"
             % (doc, name, name, end))


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    mode, doc, name = sys.argv[1:4]
    src = open(sys.argv[4], encoding="utf-8") if len(sys.argv) == 5 else sys.stdin
    new = src.read().splitlines()
    with open(doc, encoding="utf-8") as f:
        lines = f.read().splitlines()
    start, stop, command = find_block(lines, doc, name)
    if mode == "check":
        if not any(new):
            # The producer failed before writing a line (it runs upstream of a pipe, whose status is ours).
            print("%s: nothing to check block '%s' against: the command that reports it failed" % (doc, name),
                  file=sys.stderr)
            return 1
        current = set(lines[start + 1:stop])
        stale = [line for line in new if line and line not in current]
        if stale:
            print("%s: the generated block '%s' is not what this build reports; rewrite it with `%s`.\n"
                  "this build reports:\n  %s" % (doc, name, command, "\n  ".join(stale)), file=sys.stderr)
            return 1
        print("%s: '%s' matches this build" % (doc, name))
        return 0
    out = lines[:start + 1] + new + lines[stop:]
    # Replace the file in one rename: an interrupted run leaves the old page.
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(doc)), prefix=".generated.")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, doc)
    print("%s: block '%s' rewritten" % (doc, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
