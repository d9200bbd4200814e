#!/usr/bin/env python3
"""Measure every repair rule on a generated corpus.

    scripts/repair_corpus.py [--callfix PATH] [--schemas N] [--seed S] [--jobs N] [--markdown]

Generates N realistic tool schemas (file paths, offsets, todo lists, enums, URL
lists, nested objects, closed and open objects) and a valid call for each. Then,
for every rule, applies the mistake that rule exists for, runs callfix over all
calls at once, and checks what came back:

- success: status "repaired" and the arguments are exactly the original valid ones;
- wrong:   status "repaired" (or "valid") but the arguments differ from the original;
- missed:  status "rejected".

Negative cases (mistakes that must stay rejected) count as wrong when repaired.
The original valid calls must come back "valid" and unchanged. Exits 1 if anything
was wrong, a valid call was touched, or a repair was missed: a rule that stops
repairing fails the run as surely as one that repairs wrongly. With `--jobs N`, the corpus is also run
with `callfix --jobs N`, whose stdout, stderr and exit code must be the same
bytes as one job's (with and without loop detection).

Numbers are compared by their text, not their value: the corpus sends numbers
whose text is not the shortest float form (`99.50`, `1.0`, 25-digit integers,
36-digit decimals), and "exact" means the same text came back (corpus_json.py).

The mistakes, rule by rule, and those that must stay rejected are in
corpus_mistakes.py beside this script.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

# The modules beside this script; no __pycache__ left in scripts/.
sys.dont_write_bytecode = True
from corpus_json import Num, dumps, loads  # noqa: E402
from corpus_mistakes import MISTAKES, NAMES, NAME_NEGATIVES, NEGATIVES, TOOLBOXES  # noqa: E402

PLACEHOLDERS = [None, "", "null", "undefined", {}, []]


def make_schema(rng, t):
    """A tool schema drawn from the shapes coding agents use."""
    props, required = {}, []

    def add(name, schema, req):
        props[name] = schema
        if req:
            required.append(name)

    add("file_path", {"type": "string", "minLength": 1, "pattern": "^[^\\[\\]()]+$"}, rng.random() < 0.7)
    if rng.random() < 0.6:
        add("offset", {"type": "integer", "minimum": 1}, False)
        add("limit", {"type": "integer", "minimum": 1, "maximum": 5000}, False)
    if rng.random() < 0.5:
        add("ratio", {"type": "number", "minimum": 0, "maximum": 100}, False)
    if rng.random() < 0.6:
        add("replace_all", {"type": "boolean"}, False)
    if rng.random() < 0.6:
        add("mode", {"enum": ["read_only", "in_progress", "full-access"]}, rng.random() < 0.3)
    if rng.random() < 0.4:
        # A string whose form the schema pins: `true` is one reading of "true".
        add("verbose", {"type": "string", "enum": ["true", "false"]}, False)
    if rng.random() < 0.5:
        add("urls", {"type": "array", "items": {"type": "string", "pattern": "^https://"}, "minItems": 1}, False)
    if rng.random() < 0.6:
        item = {
            "type": "object",
            "properties": {
                "id": {"type": "string", "pattern": "^[0-9]+$"},
                "content": {"type": "string", "minLength": 1},
                "status": {"enum": ["pending", "in_progress", "completed", "cancelled"]},
                "priority": {"enum": ["high", "medium", "low"]},
            },
            "required": ["content", "status", "priority"],
            "additionalProperties": False,
        }
        add("todos", {"type": "array", "items": item}, rng.random() < 0.5)
    if rng.random() < 0.5:
        add("config", {
            "type": "object",
            "properties": {"depth": {"type": "integer"}, "follow": {"type": "boolean"}},
            "additionalProperties": False,
        }, False)
    if rng.random() < 0.5:
        add("description", {"type": "string", "minLength": 1, "maxLength": 200}, rng.random() < 0.5)
    closed = rng.random() < 0.8
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": props,
        "required": required,
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


def make_value(rng, name, schema):
    if "enum" in schema:
        return rng.choice(schema["enum"])
    t = schema.get("type")
    if t == "string":
        if name == "file_path":
            return "/work/src/" + rng.choice(["main.rs", "notes.md", "lib/a.py", "x y.txt"])
        if name == "id":
            return str(rng.randint(1, 99))
        return rng.choice(["Run the tests", "Fix the parser", "Écrire la doc"])
    if t == "integer":
        if "maximum" not in schema and rng.random() < 0.3:
            return Num("1234567890123456789012345")
        return Num(rng.randint(schema.get("minimum", 0), schema.get("maximum", 5000)))
    if t == "number":
        return Num(rng.choice(["0.5", "12.25", "99.0", "3", "99.50", "1.0", "0.100000000000000005551115123125782702"]))
    if t == "boolean":
        return rng.random() < 0.5
    if t == "array":
        n = rng.randint(1, 3)
        return [make_value(rng, name + "_item", schema["items"]) for _ in range(n)]
    if t == "object":
        out = {}
        for k, s in schema["properties"].items():
            if k in schema.get("required", []) or rng.random() < 0.6:
                out[k] = make_value(rng, k, s)
        return out
    if name == "urls_item":
        return "https://example.com/" + str(rng.randint(1, 9))
    raise ValueError(schema)


def make_args(rng, schema):
    args = {}
    for k, s in schema["properties"].items():
        if k in schema["required"] or rng.random() < 0.6:
            if k == "urls":
                args[k] = ["https://example.com/%d" % i for i in range(rng.randint(1, 3))]
            else:
                args[k] = make_value(rng, k, s)
    return args


def xml_text(rng, tool, args):
    """The call written in Qwen3-Coder's markup, every value as untyped text
    (as its chat template writes it: Python's `True`/`None` or JSON's), with
    string values that look like other types: the schema must type each back
    to exactly the original, and leave the strings as they are."""
    original = dict(args)
    for key, texts in (("file_path", ["02134", "3", "1.50", "True", "null", "-0"]),
                       ("description", ["007", "false", "None", "{}"])):
        if key in original:
            original[key] = rng.choice(texts)

    def text(v):
        if isinstance(v, bool):
            return rng.choice(["true", "True"] if v else ["false", "False"])
        if v is None:
            return rng.choice(["null", "None"])
        if isinstance(v, Num):
            return v.text
        if isinstance(v, str):
            return v
        return dumps(v)

    params = "".join("<parameter=%s>\n%s\n</parameter>\n" % (k, text(v)) for k, v in original.items())
    markup = "<tool_call>\n<function=%s>\n%s</function>\n</tool_call>" % (tool, params)
    return {"role": "assistant", "content": markup}, original


def call(tool, arguments, i, case):
    """A generic call; `arguments` is an object, or a string for text mistakes."""
    return {"id": "%s:%d" % (case, i), "name": tool, "arguments": arguments}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--callfix", default="target/release/callfix")
    ap.add_argument("--schemas", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=None, help="also run with --jobs N; the output must be identical")
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="callfix-corpus-")
    try:
        run(a, rng, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(a, rng, work):
    schema_dir = os.path.join(work, "schemas")
    os.makedirs(schema_dir)

    calls, expect, by_record = [], {}, {}
    # Its own generator, so that the other cases draw what they drew before.
    xml_rng = random.Random(a.seed + 1)
    for i in range(a.schemas):
        tool = "tool_%04d" % i
        schema = make_schema(rng, i)
        with open(os.path.join(schema_dir, tool + ".json"), "w") as f:
            json.dump(schema, f)
        for toolbox in TOOLBOXES:
            with open(os.path.join(schema_dir, toolbox.format(n=tool[5:]) + ".json"), "w") as f:
                json.dump(schema, f)
        schema = dict(schema, _tool=tool)  # the tool's name, for the mistakes (not in the file)
        args = make_args(rng, schema)
        calls.append(call(tool, args, i, "valid"))
        expect["valid:%d" % i] = ("valid", args)
        for name, mistake in MISTAKES:
            made = mistake(rng, schema, args)
            if made is None:
                continue
            original = args
            if isinstance(made[0], tuple):  # the mistake needed its own original
                made, original = made
            sent, _how = made
            calls.append(call(tool, sent, i, name))
            expect["%s:%d" % (name, i)] = ("repaired", original)
        # rename-tool: the same call under a differently spelled name
        calls.append({"id": "rename-tool:%d" % i, "name": rng.choice([tool.upper(), tool.replace("_", "-"), "Tool_" + tool[5:]]), "arguments": args})
        expect["rename-tool:%d" % i] = ("repaired", args)
        # xml-text: the call leaked as markup whose values are text, typed by the
        # schema as the call is read (results of leaked calls carry no id: by record)
        message, original = xml_text(xml_rng, tool, args)
        by_record[Num(len(calls))] = "xml-text:%d" % i
        calls.append(message)
        expect["xml-text:%d" % i] = ("repaired", original)
        for name, spelled in NAMES + NAME_NEGATIVES:
            calls.append({"id": "%s:%d" % (name, i), "name": spelled(rng, tool), "arguments": args})
            expect["%s:%d" % (name, i)] = ("repaired", args) if (name, spelled) in NAMES else ("rejected", None)
        for name, negative in NEGATIVES:
            made = negative(rng, schema, args)
            if made is None:
                continue
            sent, _how = made
            calls.append(call(tool, sent, i, name))
            expect["%s:%d" % (name, i)] = ("rejected", None)

    stdin = "\n".join(dumps(c) for c in calls) + "\n"
    command = [a.callfix, "-f", "json", "-s", schema_dir, "--loop-limit", "0"]
    out = subprocess.run(command, input=stdin, capture_output=True, text=True)
    if a.jobs is not None:
        # The same bytes from N threads; with loop detection on too (repeats:
        # the stream twice).
        def ran(cmd, text):
            r = subprocess.run(cmd, input=text, capture_output=True, text=True)
            return r.stdout, r.stderr, r.returncode

        for cmd, text in ((command, stdin), (command[:-2] + ["--stats"], stdin * 2)):
            if ran(cmd, text) != ran(cmd + ["--jobs", str(a.jobs)], text):
                sys.exit("callfix --jobs %d differs from one job: %s" % (a.jobs, " ".join(cmd[1:])))
        print("--jobs %d: the same output as one job (%d calls, and twice over with loop detection)" % (a.jobs, len(calls)))
    if out.returncode not in (0, 1):
        sys.exit("callfix failed: %s" % out.stderr)
    results = [loads(line) for line in out.stdout.splitlines()]
    assert len(results) == len(calls), (len(results), len(calls))

    rows = defaultdict(lambda: {"cases": 0, "success": 0, "wrong": 0, "missed": 0})
    examples = {}
    for r in results:
        if r["id"] is None:
            r["id"] = by_record[r["index"]]
        case = r["id"].rsplit(":", 1)[0]
        want_status, want_args = expect[r["id"]]
        row = rows[case]
        row["cases"] += 1
        if want_status == "rejected":
            if r["status"] == "rejected":
                row["success"] += 1
            else:
                row["wrong"] += 1
                examples.setdefault(case, r)
        elif want_status == "valid":
            if r["status"] == "valid" and r["args"] == want_args and r["repairs"] == []:
                row["success"] += 1
            else:
                row["wrong"] += 1
                examples.setdefault(case, r)
        else:
            if r["status"] == "rejected":
                row["missed"] += 1
                examples.setdefault(case + " (missed)", r)
            elif r["args"] == want_args and r["status"] == "repaired" and (
                    # Typing untyped text is reading the call, not a repair.
                    not case.startswith("xml-text") or [x["kind"] for x in r["repairs"]] == ["extract-from-text"]):
                row["success"] += 1
            else:
                row["wrong"] += 1
                examples.setdefault(case, r)

    order = (["valid"] + [n for n, _ in MISTAKES] + ["rename-tool"] + [n for n, _ in NAMES] + ["xml-text"]
             + [n for n, _ in NEGATIVES] + [n for n, _ in NAME_NEGATIVES])
    if a.markdown:
        print("| case | calls | exact | missed | wrong |")
        print("|---|---:|---:|---:|---:|")
    else:
        print("%-42s %7s %7s %7s %7s %8s" % ("case", "calls", "exact", "missed", "wrong", "success"))
    wrong_total = missed_total = 0
    for case in order:
        row = rows.get(case)
        if not row:
            continue
        wrong_total += row["wrong"]
        missed_total += row["missed"]
        rate = 100.0 * row["success"] / row["cases"]
        repairs = case in ("valid", "xml-text") or case in dict(MISTAKES) or case.startswith("rename-tool")
        label = case if repairs else "must reject: " + case
        if a.markdown:
            print("| %s | %d | %d | %d | %d |" % (label, row["cases"], row["success"], row["missed"], row["wrong"]))
        else:
            print("%-42s %7d %7d %7d %7d %7.1f%%" % (label, row["cases"], row["success"], row["missed"], row["wrong"], rate))
    for case, r in sorted(examples.items()):
        print("example %s: %s" % (case, dumps(r)[:400]), file=sys.stderr)
    print("%d calls over %d schemas; wrong repairs: %d; missed repairs: %d" % (len(calls), a.schemas, wrong_total, missed_total))
    sys.exit(1 if wrong_total or missed_total else 0)


if __name__ == "__main__":
    main()
