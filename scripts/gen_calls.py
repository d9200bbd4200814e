#!/usr/bin/env python3
"""Generate a tool set and a stream of tool calls for benchmarks.

    gen_calls.py SCHEMA_DIR CALLS_FILE [--tools N] [--calls N] [--broken FRACTION] [--seed S]

Writes N tool schemas (<tool>.json) into SCHEMA_DIR and a JSON Lines stream of
calls to CALLS_FILE, spread over the tools and over the generic, OpenAI (arguments
as text) and Anthropic envelopes. With --broken, that fraction of calls carries one
mistake (a missing required key, a wrong type, an unknown key or a bad enum value).
"""
import argparse
import json
import os
import random

WORDS = "path file query limit offset mode name target pattern content url timeout tags depth flag".split()


def make_schema(rng):
    props = {}
    for i, word in enumerate(rng.sample(WORDS, rng.randint(3, 8))):
        kind = rng.choice(["string", "integer", "enum", "array", "boolean", "object"])
        if kind == "string":
            props[word] = {"type": "string", "minLength": 1, "description": f"The {word}."}
        elif kind == "integer":
            props[word] = {"type": "integer", "minimum": 1, "maximum": 100000}
        elif kind == "enum":
            props[word] = {"enum": ["alpha", "beta", "gamma", "delta"]}
        elif kind == "array":
            props[word] = {"type": "array", "items": {"type": "string"}, "maxItems": 20}
        elif kind == "boolean":
            props[word] = {"type": "boolean"}
        else:
            props[word] = {
                "type": "object",
                "properties": {"id": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["id"],
                "additionalProperties": False,
            }
    names = list(props)
    required = rng.sample(names, rng.randint(1, len(names)))
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def make_args(rng, schema):
    args = {}
    for name, prop in schema["properties"].items():
        if name not in schema["required"] and rng.random() < 0.4:
            continue
        if "enum" in prop:
            args[name] = rng.choice(prop["enum"])
        elif prop["type"] == "string":
            args[name] = "/work/src/" + "".join(rng.choice("abcdefgh") for _ in range(rng.randint(3, 30)))
        elif prop["type"] == "integer":
            args[name] = rng.randint(1, 100000)
        elif prop["type"] == "array":
            args[name] = ["item%d" % rng.randint(0, 99) for _ in range(rng.randint(0, 5))]
        elif prop["type"] == "boolean":
            args[name] = rng.random() < 0.5
        else:
            args[name] = {"id": "x%d" % rng.randint(0, 999), "n": rng.randint(0, 9)}
    return args


def break_args(rng, schema, args):
    mistake = rng.choice(["missing", "type", "unknown", "enum"])
    if mistake == "missing" and schema["required"]:
        args.pop(schema["required"][0], None)
    elif mistake == "type" and args:
        key = rng.choice(list(args))
        args[key] = "42" if not isinstance(args[key], str) else 42
    elif mistake == "enum":
        args["__enum"] = "omega"
    else:
        args["unexpected_" + rng.choice(WORDS)] = True
    return args


def envelope(rng, i, tool, args):
    shape = i % 3
    if shape == 0:
        return {"id": f"c{i}", "name": tool, "arguments": args}
    if shape == 1:
        return {"id": f"call_{i}", "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}
    return {"type": "tool_use", "id": f"toolu_{i}", "name": tool, "input": args}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schema_dir")
    ap.add_argument("calls_file")
    ap.add_argument("--tools", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=100000)
    ap.add_argument("--broken", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.schema_dir, exist_ok=True)
    schemas = {}
    for t in range(a.tools):
        name = f"tool_{t:05d}"
        schemas[name] = make_schema(rng)
        with open(os.path.join(a.schema_dir, name + ".json"), "w") as f:
            json.dump(schemas[name], f)
    names = list(schemas)
    with open(a.calls_file, "w") as f:
        for i in range(a.calls):
            tool = rng.choice(names)
            args = make_args(rng, schemas[tool])
            if rng.random() < a.broken:
                args = break_args(rng, schemas[tool], args)
                if "__enum" in args:
                    args.pop("__enum")
                    enum_keys = [k for k, p in schemas[tool]["properties"].items() if "enum" in p]
                    if enum_keys:
                        args[enum_keys[0]] = "omega"
                    else:
                        args["unexpected_key"] = 1
            f.write(json.dumps(envelope(rng, i, tool, args), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
