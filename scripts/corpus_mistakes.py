"""The mistakes scripts/repair_corpus.py makes in valid calls.

For every repair rule, the mistake that rule exists for (`MISTAKES`, and the
tool-name cases `NAMES`, with the tools declared beside each in `TOOLBOXES`);
and the mistakes that must stay rejected (`NEGATIVES`, `NAME_NEGATIVES`).
"""
from corpus_json import Num, dumps, loads


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
