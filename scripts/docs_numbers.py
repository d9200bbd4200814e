#!/usr/bin/env python3
"""The numbers in docs/ that a script produces, produced again and compared.

    scripts/docs_numbers.py [--callfix PATH] [--suite DIR] [--only NAME] [--write]

Each entry below names a doc, the script that makes its numbers, and how the
script's output becomes the doc's text:

- docs/messages-and-repair.md: the repair table and its "In all" line, from
  `scripts/repair_corpus.py --markdown` (seeded, so the same every run);
- docs/conformance.md: the suite's test count and the "Last run" line, from
  `scripts/conformance.py` (its list of known failures it checks itself).

Exits 1 with a unified diff when a doc says something else than its script
prints now (or when a script fails); `--write` puts the new text in the doc
instead. Timing figures (docs/speed.md) are not here: they move between runs
and machines, so each row names the command that measured it instead.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def thousands(n):
    return "{:,}".format(n)


def run(cmd):
    out = subprocess.run([sys.executable] + cmd, cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("%s failed (exit %d):\n%s%s" % (" ".join(cmd), out.returncode, out.stdout[-2000:], out.stderr[-2000:]))
    return out.stdout


def repair_table(doc, a):
    """The table after the line naming the command, and the "In all" line."""
    out = run(["scripts/repair_corpus.py", "--callfix", a.callfix, "--markdown"])
    table = "\n".join(l for l in out.splitlines() if l.startswith("|")) + "\n"
    m = re.search(r"^(\d+) calls over (\d+) schemas; wrong repairs: (\d+); missed repairs: (\d+)$", out, re.M)
    if not m or table == "\n":
        sys.exit("scripts/repair_corpus.py printed no table or no total:\n" + out[-2000:])
    calls, schemas, wrong, missed = (int(g) for g in m.groups())
    total = "In all, %s calls over %d schemas, with %d wrong and %d missed repairs.\n" % (
        thousands(calls), schemas, wrong, missed)
    # The table: every line of the first block of `|` lines after the command's line.
    doc = re.sub(r"(`python3 scripts/repair_corpus\.py --markdown`:\n\n)(?:\|.*\n)+",
                 lambda m: m.group(1) + table, doc, count=1)
    return re.sub(r"^In all, [\d,]+ calls over \d+ schemas, with \d+ wrong and \d+ missed repairs\.\n",
                  lambda _: total, doc, count=1, flags=re.M)


def conformance(doc, a):
    cmd = ["scripts/conformance.py", "--callfix", a.callfix]
    if a.suite:
        cmd += ["--suite", a.suite]
    out = run(cmd)
    m = re.search(r"^(\d+) tests, (\d+) passed, (\d+) failed", out, re.M)
    if not m:
        sys.exit("scripts/conformance.py printed no total:\n" + out[-2000:])
    tests, passed, failed = (int(g) for g in m.groups())
    doc = re.sub(r"`optional/format/` \([\d,]+ tests\)",
                 lambda _: "`optional/format/` (%s tests)" % thousands(tests), doc, count=1)
    return re.sub(r"^Last run: [\d,]+ tests, [\d,]+ passed, [\d,]+ failed",
                  lambda _: "Last run: %s tests, %s passed, %s failed" % (
                      thousands(tests), thousands(passed), thousands(failed)),
                  doc, count=1, flags=re.M)


DOCS = [
    ("repair", "docs/messages-and-repair.md", repair_table),
    ("conformance", "docs/conformance.md", conformance),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--callfix", default="target/debug/callfix")
    ap.add_argument("--suite", help="passed on to scripts/conformance.py (default: it fetches the suite)")
    ap.add_argument("--only", choices=[name for name, _, _ in DOCS], action="append")
    ap.add_argument("--write", action="store_true", help="put the regenerated numbers in the docs")
    a = ap.parse_args()
    a.callfix = os.path.abspath(a.callfix)
    stale = 0
    for name, path, regenerate in DOCS:
        if a.only and name not in a.only:
            continue
        with open(os.path.join(ROOT, path)) as f:
            old = f.read()
        new = regenerate(old, a)
        if new == old:
            print("ok: %s (%s)" % (path, name))
            continue
        if a.write:
            with open(os.path.join(ROOT, path), "w") as f:
                f.write(new)
            print("written: %s (%s)" % (path, name))
            continue
        stale += 1
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), path, path + " (regenerated)"))
    if stale:
        print("%d doc(s) quote numbers their script no longer prints: run scripts/docs_numbers.py --write"
              " and review the diff" % stale, file=sys.stderr)
    sys.exit(1 if stale else 0)


if __name__ == "__main__":
    main()
