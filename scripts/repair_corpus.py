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
36-digit decimals), and "exact" means the same text came back.
"""
import argparse
import json
import os
import random
import shutil
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

PLACEHOLDERS = [None, "", "null", "undefined", {}, []]


class Num(tuple):
    """A JSON number by its exact text (a tuple, so it never equals a str or list)."""

    def __new__(cls, text):
        return tuple.__new__(cls, ("#num", str(text)))

    @property
    def text(self):
        return self[1]


def _plain(obj):
    if isinstance(obj, Num):
        return "\x00num:%s\x00" % obj.text
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    return obj


def dumps(obj, **kw):
    """json.dumps that writes each Num as its exact text."""
    return re.sub(r'"\\u0000num:([^"\\]*)\\u0000"', r"\1", json.dumps(_plain(obj), **kw))


def loads(text):
    """json.loads that keeps every number's text."""
    return json.loads(text, parse_float=Num, parse_int=Num)


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


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


# Each mistake returns (arguments to send, how: "value" | "text") or None when it
# does not apply to this schema and call.
def m_parse_json_string(rng, schema, args):
    keys = [k for k, v in args.items() if isinstance(v, (list, dict)) and not isinstance(v, Num) and v]
    if not keys:
        return None
    k = rng.choice(keys)
    return dict(args, **{k: dumps(args[k])}), "value"


def m_coerce_number(rng, schema, args):
    keys = [k for k, v in args.items() if schema["properties"][k].get("type") in ("integer", "number")]
    if not keys:
        return None
    k = rng.choice(keys)
    return dict(args, **{k: dumps(args[k])}), "value"


def m_coerce_boolean(rng, schema, args):
    keys = [k for k, v in args.items() if isinstance(v, bool)]
    if not keys:
        return None
    k = rng.choice(keys)
    return dict(args, **{k: "true" if args[k] else "false"}), "value"


def m_coerce_string(rng, schema, args):
    # Only where the schema pins the string's form: the todo id (a pattern of
    # digits) and `verbose` (an enum of "true"/"false").
    todos = args.get("todos")
    if "verbose" in args and (not todos or "id" not in todos[0] or rng.random() < 0.5):
        return dict(args, verbose=args["verbose"] == "true"), "value"
    if not todos or "id" not in todos[0]:
        return None
    mutated = loads(dumps(args))
    mutated["todos"][0]["id"] = Num(todos[0]["id"])
    return mutated, "value"


def m_wrap_array(rng, schema, args):
    if "urls" not in args:
        return None
    original = dict(args, urls=args["urls"][:1])
    return (dict(original, urls=original["urls"][0]), "value"), original


def m_drop_placeholder(rng, schema, args):
    absent = [k for k in schema["properties"] if k not in args and k not in schema["required"]]
    if not absent:
        return None
    k = rng.choice(absent)
    t = schema["properties"][k].get("type")
    choices = [None, "undefined", "null"] if t != "string" else [None, ""]
    if t == "array" and schema["properties"][k].get("minItems", 0) > 0:
        choices.append([])
    if t == "object":
        choices = [None]
    return dict(args, **{k: rng.choice(choices)}), "value"


def m_rename_key(rng, schema, args):
    # In an open object an optional key under another spelling is allowed as is.
    closed = schema.get("additionalProperties") is False
    keys = [k for k in args if "_" in k and camel(k) != k and (closed or k in schema["required"])]
    if not keys:
        return None
    k = rng.choice(keys)
    renamed = {(camel(key) if key == k else key): v for key, v in args.items()}
    return renamed, "value"


def m_rename_then_coerce(rng, schema, args):
    # A renamed key's value is repaired in the same call: `"Offset": "3"`.
    closed = schema.get("additionalProperties") is False
    keys = [k for k, v in args.items() if closed and k in ("offset", "limit", "replace_all")]
    if not keys:
        return None
    k = rng.choice(keys)
    v = args[k]
    text = ("true" if v else "false") if isinstance(v, bool) else dumps(v)
    return {(k.title() if key == k else key): (text if key == k else val) for key, val in args.items()}, "value"


def m_drop_unknown(rng, schema, args):
    if schema.get("additionalProperties") is not False:
        return None
    return dict(args, explanation="I will now read the file."), "value"


def m_enum_case(rng, schema, args):
    keys = [k for k in args if "enum" in schema["properties"][k]]
    if not keys:
        return None
    k = rng.choice(keys)
    v = args[k]
    spelled = rng.choice([v.upper(), v.replace("_", "-").title(), v.replace("-", "_").replace("_", " ")])
    if spelled == v:
        return None
    return dict(args, **{k: spelled}), "value"


def m_autolink_values(rng, schema, args):
    # Autolinkers turn bare file names (`notes.md`: .md is a TLD) into links.
    if "file_path" not in args:
        return None
    original = dict(args, file_path="notes.md")
    return (dict(original, file_path="[notes.md](http://notes.md)"), "value"), original


def m_unwrap_arguments(rng, schema, args):
    # The arguments one level down, as models repeat the call's envelope inside
    # it. An open schema with nothing required accepts the wrapper as it is.
    if schema.get("additionalProperties") is not False and not schema["required"]:
        return None
    form = rng.choice(["arguments", "parameters", "input", "args", "tool_call", "named", "text"])
    if form == "named":
        return {"name": schema["_tool"], "arguments": args}, "value"
    if form == "text":
        return {"arguments": dumps(args)}, "value"
    return {form: args}, "value"


def m_strip_fence(rng, schema, args):
    return "```json\n%s\n```" % dumps(args, indent=2), "text"


def m_strip_leaked_tag(rng, schema, args):
    return dumps(args) + rng.choice(["</tool_call>", "\n</parameter>\n</invoke>", "</function>"]), "text"


def m_tolerant_parse(rng, schema, args):
    text = dumps(args)
    if not args:
        return None
    if all(isinstance(v, (str, bool, type(None))) for v in args.values()) and not any(
        isinstance(v, str) and ("'" in v or "\\" in v or not v.isascii()) for v in args.values()
    ):
        return repr(args), "text"  # Python: single quotes, True/False/None
    return text[:-1] + ",}", "text"  # a trailing comma


def m_double_encoded(rng, schema, args):
    return dumps(dumps(args)), "text"


def m_duplicate_object(rng, schema, args):
    return dumps(args) + dumps(args), "text"


def m_empty_arguments(rng, schema, args):
    if schema["required"]:
        return None
    return (" ", "text"), {}


MISTAKES = [
    ("strip-fence", m_strip_fence),
    ("strip-leaked-tag", m_strip_leaked_tag),
    ("tolerant-parse", m_tolerant_parse),
    ("double-encoded", m_double_encoded),
    ("empty-arguments", m_empty_arguments),
    ("duplicate-object", m_duplicate_object),
    ("parse-json-string", m_parse_json_string),
    ("coerce-number", m_coerce_number),
    ("coerce-boolean", m_coerce_boolean),
    ("coerce-string", m_coerce_string),
    ("wrap-array", m_wrap_array),
    ("drop-placeholder", m_drop_placeholder),
    ("rename-key", m_rename_key),
    ("rename-key+coerce", m_rename_then_coerce),
    ("drop-unknown", m_drop_unknown),
    ("enum-case", m_enum_case),
    ("unwrap-autolink", m_autolink_values),
    ("unwrap-arguments", m_unwrap_arguments),
]


# Tool names: each returns the name to call the tool by, or None.
def t_namespace(rng, tool):
    return rng.choice(["functions.", "default_api.", "srv__", "mcp__srv__", "ns:", "ns/"]) + tool


def t_special_token(rng, tool):
    return rng.choice(["", "functions."]) + tool + rng.choice(["<|channel|>commentary", "<|constrain|>json", "<|call|>"])


def t_toolbox_dropped(rng, tool):
    # `kit_open_page_0007` declared beside `tool_0007`, called without its toolbox.
    return "open_page_" + tool[5:]


def t_unseparated_prefix(rng, tool):
    # `unread` is not `read`: only a separated namespace is dropped.
    return rng.choice(["un", "x", "re", "my"]) + tool


def t_one_word(rng, tool):
    # One word of a tool's name is no name of it (`0007` for `tool_0007`).
    return tool.split("_")[-1]


def t_broken_token(rng, tool):
    return tool + rng.choice(["<|channel", "<||>", "<|a b|>x"])


def t_verb_dropped(rng, tool):
    # `delete_all_rows_0007` declared: `all_rows_0007` does not ask to delete.
    return "all_rows_" + tool[5:]


def t_two_words_dropped(rng, tool):
    return "page_" + tool[5:]


def t_other_namespace(rng, tool):
    # `mcp__srv__find_0007` and `kit_open_page_0007` declared: a namespace of
    # another server or toolbox is never dropped onto them (attack F1).
    # (Chosen by the tool's number, so the other cases draw what they drew.)
    spaces = ["mcp__other__find_", "other__find_", "gitlab.find_", "other.open_page_", "mcp__other__open_page_"]
    return spaces[int(tool[5:]) % len(spaces)] + tool[5:]


def t_lone_prefix_dropped(rng, tool):
    # `p0007_all_items_0007` declared: `p0007` starts no other tool, so it is
    # no toolbox, and `all_items_0007` is no name of it (attack F10).
    return "all_items_" + tool[5:]


# Tools declared beside each `tool_NNNN`, with its schema, for the name cases
# (`{n}`: the tool's number).
TOOLBOXES = ["kit_open_page_{n}", "delete_all_rows_{n}", "mcp__srv__find_{n}", "p{n}_all_items_{n}"]


NAMES = [
    ("rename-tool: namespace", t_namespace),
    ("rename-tool: special token", t_special_token),
    ("rename-tool: toolbox dropped", t_toolbox_dropped),
]
NAME_NEGATIVES = [
    ("unseparated-name-prefix", t_unseparated_prefix),
    ("one-word-of-a-name", t_one_word),
    ("broken-name-token", t_broken_token),
    ("verb-prefix-dropped", t_verb_dropped),
    ("two-name-words-dropped", t_two_words_dropped),
    ("other-namespace-dropped", t_other_namespace),
    ("lone-prefix-dropped", t_lone_prefix_dropped),
]


# Mistakes that must stay rejected.
def n_enum_unknown(rng, schema, args):
    keys = [k for k in args if "enum" in schema["properties"][k]]
    return (dict(args, **{keys[0]: "failed"}), "value") if keys else None


def n_missing_required(rng, schema, args):
    if not schema["required"]:
        return None
    k = rng.choice(schema["required"])
    return {key: v for key, v in args.items() if key != k}, "value"


def n_truncated(rng, schema, args):
    text = dumps(args)
    if len(text) < 4:
        return None
    return text[: rng.randint(1, len(text) - 1)], "text"


def n_bad_number(rng, schema, args):
    keys = [k for k in args if schema["properties"][k].get("type") == "integer"]
    return (dict(args, **{keys[0]: rng.choice(["1e5", " 5", "0x10", "+5", ".5", "5."])}), "value") if keys else None


def n_zero_padded_number(rng, schema, args):
    # "007": a code as often as 7; more than one reading.
    keys = [k for k in args if schema["properties"][k].get("type") in ("integer", "number")]
    if not keys:
        return None
    k = rng.choice(keys)
    return dict(args, **{k: rng.choice(["007", "01", "-05", "00.5"])}), "value"


def n_scalar_for_plain_string(rng, schema, args):
    # A number or boolean where any string goes (`write_file {"path": 7}`,
    # `bash {"command": true}`): no reading, coerce-string never fires.
    scalar = rng.choice([Num(7), Num("3.10"), True, False])
    if "description" in args:
        return dict(args, description=scalar), "value"
    todos = args.get("todos")
    if todos:
        mutated = loads(dumps(args))
        mutated["todos"][0]["content"] = scalar
        return mutated, "value"
    return None


def n_two_objects(rng, schema, args):
    if not args:
        return None
    other = dict(args, extra_marker=1)
    return dumps(args) + dumps(other), "text"


def n_alias_for_required(rng, schema, args):
    if "file_path" not in schema["required"]:
        return None
    mutated = {("path_to_file" if k == "file_path" else k): v for k, v in args.items()}
    return mutated, "value"


def n_real_markdown(rng, schema, args):
    if "file_path" not in args:
        return None
    return dict(args, file_path="[click](https://example.com)"), "value"


def n_wrapper_with_another_name(rng, schema, args):
    # Another tool's name beside the wrapper: not this tool's arguments.
    if not schema["required"]:
        return None
    return {"name": "other_tool", "arguments": args}, "value"


def n_wrapper_that_does_not_fit(rng, schema, args):
    if "file_path" not in schema["required"]:
        return None
    inner = {("path_to_file" if k == "file_path" else k): v for k, v in args.items()}
    return {"arguments": inner}, "value"


def n_near_miss_key(rng, schema, args):
    # `forced` for `force`: may carry the declared key's meaning, never dropped.
    if schema.get("additionalProperties") is not False:
        return None
    keys = [k for k in args if k not in schema["required"]]
    if not keys:
        return None
    k = rng.choice(keys)
    return {(k + rng.choice(["s", "d", "_x"]) if key == k else key): v for key, v in args.items()}, "value"


def n_list_as_text(rng, schema, args):
    # Two URLs in one text where an array is wanted: two items or one, never
    # wrapped as one (attack F13). (No draw: the other cases draw what they drew.)
    urls = args.get("urls")
    if not urls:
        return None
    sep = [", ", ",", "\n"][len(urls[0]) % 3]
    return dict(args, urls=urls[0] + sep + "https://b.example"), "value"


NEGATIVES = [
    ("enum-unknown-value", n_enum_unknown),
    ("missing-required", n_missing_required),
    ("truncated-text", n_truncated),
    ("bad-number-string", n_bad_number),
    ("zero-padded-number", n_zero_padded_number),
    ("scalar-for-plain-string", n_scalar_for_plain_string),
    ("two-different-objects", n_two_objects),
    ("alias-for-required", n_alias_for_required),
    ("real-markdown-link", n_real_markdown),
    ("near-miss-key", n_near_miss_key),
    ("wrapper-with-another-name", n_wrapper_with_another_name),
    ("wrapper-that-does-not-fit", n_wrapper_that_does_not_fit),
    ("list-as-text-for-array", n_list_as_text),
]


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
