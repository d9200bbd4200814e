#!/usr/bin/env python3
"""The library's module graph: which top-level module of src/ names which, and
whether any two reach each other (an import cycle). Exits 1 on a cycle, naming it.

A module's files are src/<m>.rs or src/<m>/**.rs; a reference is `crate::<m>`
or `super::<m>` from a top-level file, in code outside `#[cfg(test)]` files
(tests.rs). The command line (src/main.rs, src/app/) is a client, not a module,
and no module may name it (exits 1 if one does).

    python3 scripts/module_graph.py [--print]
"""

import pathlib
import re
import sys

SRC = pathlib.Path(__file__).resolve().parent.parent / "src"
CLIENT = {"main", "app", "lib"}


def modules():
    out = {}
    for path in sorted(SRC.rglob("*.rs")):
        rel = path.relative_to(SRC)
        top = rel.parts[0].removesuffix(".rs")
        if top in CLIENT or rel.name == "tests.rs":
            continue
        out.setdefault(top, []).append(path)
    return out


def edges(mods):
    graph = {m: set() for m in mods}
    for m, files in mods.items():
        for path in files:
            text = path.read_text()
            # Unit tests at the end of a file may use anything.
            text = text.split("#[cfg(test)]\nmod tests {")[0]
            for other in re.findall(r"\bcrate::([a-z_]+)", text):
                if other in mods and other != m:
                    graph[m].add(other)
            if path.parent == SRC:
                for other in re.findall(r"\bsuper::([a-z_]+)", text):
                    if other in mods and other != m:
                        graph[m].add(other)
    return graph


def cycle(graph):
    state = {}
    stack = []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def clients_named(mods):
    """Library files that name the command line (`crate::app`): the app is the
    library's client, hidden in it only so the binary and the Python package run
    the same code; nothing of the library may reach back into it."""
    out = []
    for files in mods.values():
        for path in files:
            text = path.read_text().split("#[cfg(test)]\nmod tests {")[0]
            if re.search(r"\bcrate::app\b", text):
                out.append(str(path.relative_to(SRC.parent)))
    return out


def main():
    mods = modules()
    climbing = clients_named(mods)
    if climbing:
        print("library code names the command line (crate::app): " + ", ".join(climbing), file=sys.stderr)
        return 1
    graph = edges(mods)
    if "--print" in sys.argv:
        for m in sorted(graph):
            print(f"{m} -> {', '.join(sorted(graph[m])) or '(nothing)'}")
    found = cycle(graph)
    if found:
        print("import cycle: " + " -> ".join(found), file=sys.stderr)
        return 1
    print(f"ok: {len(graph)} modules, no import cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main())
