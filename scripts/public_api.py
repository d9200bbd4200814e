#!/usr/bin/env python3
"""The library's public API, one item a line, compared with docs/public-api.txt,
so the surface changes only on purpose. Exits 1 on a difference, showing it.

The list comes from rustdoc's JSON output for the library, built with the
installed stable toolchain (`RUSTC_BOOTSTRAP=callfix` lets rustdoc's unstable
JSON flag through for this crate only; dependencies build as on stable) into
its own directory, target/public-api/, so the usual build stays warm. The walk
starts at the crate root and follows only what a user of the crate can name:
public modules and items, `pub use` re-exports (under the name they give),
public struct fields, enum variants, trait items, inherent methods, trait
impls (the items of hand-written ones; a derived impl is its one line) and the
auto traits each type has. `#[doc(hidden)]` items and modules are skipped,
blanket impls (`impl<T> From<T> for T` and the like) too.

    python3 scripts/public_api.py            # compare; exit 1 and a diff if it changed
    python3 scripts/public_api.py --write    # accept the current surface
    python3 scripts/public_api.py --list PATH  # another list (the tests use a copy)
"""

import argparse
import difflib
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LIST = ROOT / "docs" / "public-api.txt"
CRATE = "callfix"
HINT = "the public API changed: if on purpose, run python3 scripts/public_api.py --write"
# The rustdoc JSON format versions this walker was checked against (Rust 1.95).
# Another version is read all the same (every field is read with a default,
# attributes as text or as objects), but says so: a changed list after a
# toolchain update may be the format, not the crate.
KNOWN_FORMATS = (57,)
# Module nesting and re-export chains are shallow; a cycle (a module that
# re-exports its parent) must not recurse for ever.
MAX_DEPTH = 32
# The auto traits a user relies on (threads, unwinding, pinning), by name. Others
# (`Freeze`, `UnsafeUnpin`) are the compiler's own and come and go with it.
AUTO_TRAITS = ("Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe")
# Implemented by `#[derive(PartialEq)]` for the compiler's use, not a user's.
INTERNAL_TRAITS = {"core::marker::StructuralPartialEq"}
HEADER = (
    "# The public API of the callfix library, one item a line (scripts/public_api.py).\n"
    "# Generated: do not edit. Run `python3 scripts/public_api.py --write` after a\n"
    "# change to the surface made on purpose, and review the diff.\n"
)
FORMAT_LINE = "# rustdoc JSON format "


def fail(msg):
    print(f"public_api: {msg}", file=sys.stderr)
    sys.exit(2)


def build_json():
    """rustdoc's JSON for the library, built in target/public-api/."""
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--locked"],
        cwd=ROOT, capture_output=True, text=True,
    )
    if meta.returncode != 0:
        fail(f"cargo metadata failed:\n{meta.stderr}")
    target = pathlib.Path(json.loads(meta.stdout)["target_directory"]) / "public-api"
    env = dict(os.environ, CARGO_TARGET_DIR=str(target), RUSTC_BOOTSTRAP=CRATE)
    cmd = ["cargo", "rustdoc", "--lib", "--locked", "--quiet", "-p", CRATE,
           "--", "-Z", "unstable-options", "--output-format", "json"]
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"{' '.join(cmd)} failed:\n{run.stderr}")
    path = target / "doc" / f"{CRATE}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as err:
        fail(f"cannot read rustdoc's JSON at {path}: {err}")


def kind_of(inner):
    """The item kind and its body: `inner` is {"kind": {...}} (or a bare string)."""
    if isinstance(inner, dict) and len(inner) == 1:
        (k, v), = inner.items()
        return k, v if v is not None else {}
    if isinstance(inner, str):
        return inner, {}
    return "?", {}


class Api:
    def __init__(self, doc):
        self.index = doc.get("index") or {}
        self.paths = doc.get("paths") or {}
        self.lines = {}  # line -> sort key
        self.autos = {}  # type path -> set of auto traits

    def item(self, id_):
        return self.index.get(str(id_)) if id_ is not None else None

    # --- types --------------------------------------------------------------

    def path_name(self, p):
        """A path's full name: where rustdoc documents it, else as written."""
        if not isinstance(p, dict):
            return "?"
        entry = self.paths.get(str(p.get("id")))
        name = "::".join(entry["path"]) if entry and entry.get("path") else None
        if not name:
            name = str(p.get("path") or p.get("name") or "?").replace("$crate::", "")
        return name + self.args(p.get("args"))

    def args(self, a):
        if not a:
            return ""
        k, v = kind_of(a)
        if k == "angle_bracketed":
            parts = [self.generic_arg(x) for x in v.get("args") or []]
            for c in v.get("constraints") or v.get("bindings") or []:
                parts.append(self.constraint(c))
            return f"<{', '.join(parts)}>" if parts else ""
        if k == "parenthesized":
            ins = ", ".join(self.ty(t) for t in v.get("inputs") or [])
            out = v.get("output")
            return f"({ins})" + (f" -> {self.ty(out)}" if out else "")
        if k == "return_type_notation":
            return "(..)"
        return json.dumps(a, sort_keys=True)

    def generic_arg(self, g):
        if g == "infer":
            return "_"
        k, v = kind_of(g)
        if k == "lifetime":
            return str(v)
        if k == "type":
            return self.ty(v)
        if k == "const":
            return str(v.get("expr", "_")) if isinstance(v, dict) else str(v)
        return json.dumps(g, sort_keys=True)

    def constraint(self, c):
        name = str(c.get("name")) + self.args(c.get("args"))
        k, v = kind_of(c.get("binding"))
        if k == "equality":
            tk, tv = kind_of(v)
            return f"{name} = " + (self.ty(tv) if tk == "type" else str(tv))
        if k == "constraint":
            return f"{name}: {self.bounds(v)}"
        return name

    def bounds(self, bs):
        out = []
        for b in bs or []:
            k, v = kind_of(b)
            if k == "trait_bound":
                mod = {"maybe": "?", "maybe_const": "~const "}.get(v.get("modifier"), "")
                out.append(self.hrtb(v.get("generic_params")) + mod + self.path_name(v.get("trait")))
            elif k == "outlives":
                out.append(str(v))
            elif k == "use":
                out.append("use<..>")
            else:
                out.append(json.dumps(b, sort_keys=True))
        return " + ".join(out)

    def hrtb(self, params):
        names = [p.get("name") for p in params or []]
        return f"for<{', '.join(names)}> " if names else ""

    def ty(self, t):
        if t is None:
            return "()"
        k, v = kind_of(t)
        if k == "resolved_path":
            return self.path_name(v)
        if k == "generic":
            return str(v)
        if k == "primitive":
            return str(v)
        if k == "tuple":
            items = [self.ty(x) for x in v or []]
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        if k == "slice":
            return f"[{self.ty(v)}]"
        if k == "array":
            return f"[{self.ty(v.get('type'))}; {v.get('len')}]"
        if k == "pat":
            return self.ty(v.get("type"))
        if k == "borrowed_ref":
            life = f"{v['lifetime']} " if v.get("lifetime") else ""
            return f"&{life}{'mut ' if v.get('is_mutable') else ''}{self.ty(v.get('type'))}"
        if k == "raw_pointer":
            return f"*{'mut' if v.get('is_mutable') else 'const'} {self.ty(v.get('type'))}"
        if k == "dyn_trait":
            parts = [self.hrtb(p.get("generic_params")) + self.path_name(p.get("trait"))
                     for p in v.get("traits") or []]
            if v.get("lifetime"):
                parts.append(v["lifetime"])
            return "dyn " + " + ".join(parts)
        if k == "impl_trait":
            return "impl " + self.bounds(v)
        if k == "function_pointer":
            return self.header(v.get("header")) + "fn" + self.sig(v.get("sig"), None)
        if k == "qualified_path":
            trait = v.get("trait")
            self_ty = self.ty(v.get("self_type"))
            name = str(v.get("name")) + self.args(v.get("args"))
            if trait:
                return f"<{self_ty} as {self.path_name(trait)}>::{name}"
            return f"{self_ty}::{name}"
        if k == "infer":
            return "_"
        return json.dumps(t, sort_keys=True)

    # --- signatures ---------------------------------------------------------

    def generics(self, g):
        """`<...>` of a declaration and its `where` clause, as two strings."""
        g = g or {}
        params = []
        for p in g.get("params") or []:
            k, v = kind_of(p.get("kind"))
            name = str(p.get("name"))
            if k == "lifetime":
                outl = v.get("outlives") or []
                params.append(name + (": " + " + ".join(outl) if outl else ""))
            elif k == "type":
                if v.get("is_synthetic"):
                    continue  # `impl Trait` in an argument: shown there
                b = self.bounds(v.get("bounds"))
                d = v.get("default")
                params.append(name + (f": {b}" if b else "") + (f" = {self.ty(d)}" if d else ""))
            elif k == "const":
                params.append(f"const {name}: {self.ty(v.get('type'))}")
            else:
                params.append(name)
        preds = []
        for w in g.get("where_predicates") or []:
            k, v = kind_of(w)
            if k == "bound_predicate":
                preds.append(self.hrtb(v.get("generic_params")) + self.ty(v.get("type"))
                             + ": " + self.bounds(v.get("bounds")))
            elif k in ("lifetime_predicate", "region_predicate"):
                preds.append(f"{v.get('lifetime')}: {' + '.join(v.get('outlives') or [])}")
            elif k == "eq_predicate":
                rk, rv = kind_of(v.get("rhs"))
                preds.append(f"{self.ty(v.get('lhs'))} = {self.ty(rv) if rk == 'type' else rv}")
            else:
                preds.append(json.dumps(w, sort_keys=True))
        return (f"<{', '.join(params)}>" if params else "",
                f" where {', '.join(preds)}" if preds else "")

    def header(self, h):
        h = h or {}
        out = ""
        if h.get("is_const"):
            out += "const "
        if h.get("is_async"):
            out += "async "
        if h.get("is_unsafe"):
            out += "unsafe "
        abi = h.get("abi")
        if abi and abi != "Rust":
            name = abi if isinstance(abi, str) else next(iter(abi), "?")
            out += f'extern "{name}" '
        return out

    def sig(self, s, _self):
        s = s or {}
        ins = []
        for pair in s.get("inputs") or []:
            name, t = (pair + [None, None])[:2] if isinstance(pair, list) else ("_", pair)
            if name == "self":
                k, v = kind_of(t)
                if k == "generic" and v == "Self":
                    ins.append("self")
                    continue
                if k == "borrowed_ref" and kind_of(v.get("type")) == ("generic", "Self"):
                    life = f"{v['lifetime']} " if v.get("lifetime") else ""
                    ins.append(f"&{life}{'mut ' if v.get('is_mutable') else ''}self")
                    continue
            ins.append(f"{name}: {self.ty(t)}")
        if s.get("is_c_variadic"):
            ins.append("...")
        out = s.get("output")
        return f"({', '.join(ins)})" + (f" -> {self.ty(out)}" if out is not None else "")

    def function(self, path, body):
        gen, where = self.generics(body.get("generics"))
        return f"pub {self.header(body.get('header'))}fn {path}{gen}{self.sig(body.get('sig'), path)}{where}"

    # --- the walk -----------------------------------------------------------

    @staticmethod
    def hidden(item):
        for a in item.get("attrs") or []:
            text = a if isinstance(a, str) else json.dumps(a)
            if "doc(hidden)" in text.replace(" ", ""):
                return True
        return False

    @staticmethod
    def non_exhaustive(item):
        return any("non_exhaustive" in (a if isinstance(a, str) else json.dumps(a))
                   for a in item.get("attrs") or [])

    def add(self, key, line):
        self.lines.setdefault(line, key)

    def module(self, id_, path, depth, seen):
        """The items of module `id_`, named under `path`. `seen` holds the modules
        being walked (this one's ancestors): a re-export of one of them is a cycle."""
        item = self.item(id_)
        if item is None or depth > MAX_DEPTH or id_ in seen:
            return
        seen = seen | {id_}
        _, body = kind_of(item.get("inner"))
        for child in body.get("items") or []:
            self.visit(child, path, None, depth + 1, seen)

    def visit(self, id_, parent, name, depth, seen):
        """One item of a module at `parent`, named `name` (a re-export's name) or its own."""
        item = self.item(id_)
        if item is None or depth > MAX_DEPTH or self.hidden(item):
            return
        if item.get("visibility") not in ("public", None) and depth > 0:
            return
        kind, body = kind_of(item.get("inner"))
        if kind == "use":
            target = self.item(body.get("id"))
            if body.get("is_glob"):
                if target is not None and not self.hidden(target):
                    tk, _ = kind_of(target.get("inner"))
                    if tk == "module" and body.get("id") in seen:
                        self.add((parent, 0), f"pub use {parent}::* = {body.get('source')}::* (a cycle)")
                    elif tk == "module":
                        self.module(body.get("id"), parent, depth, seen)
                    elif tk == "enum":
                        self.enum_variants(target, parent, depth, seen)
                else:
                    self.add((parent, 0), f"pub use {parent}::* = {body.get('source')}::*")
                return
            alias = body.get("name") or item.get("name")
            if target is None:
                # A re-export from another crate: its name and where it comes from.
                self.add((f"{parent}::{alias}", 0), f"pub use {parent}::{alias} = {body.get('source')}")
                return
            self.visit(body.get("id"), parent, alias, depth + 1, seen)
            return
        own = name or item.get("name")
        path = f"{parent}::{own}" if parent else str(own)
        ne = "#[non_exhaustive] " if self.non_exhaustive(item) else ""
        if kind == "module" and id_ in seen:
            self.add((path, 0), f"pub mod {path} = {self.path_name({'id': id_})} (a cycle)")
        elif kind == "module":
            self.add((path, 0), f"pub mod {path}")
            self.module(id_, path, depth, seen)
        elif kind == "struct":
            gen, where = self.generics(body.get("generics"))
            self.add((path, 0), f"{ne}pub struct {path}{gen}{where}")
            k, v = kind_of(body.get("kind"))
            fields = v.get("fields") if k == "plain" else (v if k == "tuple" else [])
            for i, f in enumerate(fields or []):
                self.field(f, path, path, str(i) if k == "tuple" else None)
            self.impls(body.get("impls"), path)
        elif kind == "union":
            gen, where = self.generics(body.get("generics"))
            self.add((path, 0), f"pub union {path}{gen}{where}")
            for f in body.get("fields") or []:
                self.field(f, path, path, None)
            self.impls(body.get("impls"), path)
        elif kind == "enum":
            gen, where = self.generics(body.get("generics"))
            self.add((path, 0), f"{ne}pub enum {path}{gen}{where}")
            self.enum_variants(item, path, depth, seen, own_path=True)
            self.impls(body.get("impls"), path)
        elif kind == "function":
            self.add((path, 0), self.function(path, body))
        elif kind == "trait":
            gen, where = self.generics(body.get("generics"))
            b = self.bounds(body.get("bounds"))
            pre = ("unsafe " if body.get("is_unsafe") else "") + ("auto " if body.get("is_auto") else "")
            self.add((path, 0), f"pub {pre}trait {path}{gen}{': ' + b if b else ''}{where}")
            for i in body.get("items") or []:
                self.assoc(i, (path, 1), f"{path}::")
            for i in body.get("implementations") or []:
                self.impl(i, path)
        elif kind == "trait_alias":
            gen, where = self.generics(body.get("generics"))
            self.add((path, 0), f"pub trait {path}{gen} = {self.bounds(body.get('params'))}{where}")
        elif kind == "type_alias":
            gen, where = self.generics(body.get("generics"))
            self.add((path, 0), f"pub type {path}{gen} = {self.ty(body.get('type'))}{where}")
        elif kind == "constant":
            self.add((path, 0), f"pub const {path}: {self.ty(body.get('type'))}")
        elif kind == "static":
            mut = "mut " if body.get("is_mutable") else ""
            self.add((path, 0), f"pub static {mut}{path}: {self.ty(body.get('type'))}")
        elif kind in ("macro", "proc_macro"):
            self.add((path, 0), f"pub macro {path}!")
        elif kind == "extern_crate":
            self.add((path, 0), f"pub extern crate {path}")
        elif kind == "primitive":
            self.add((path, 0), f"pub primitive {path}")
        else:
            self.add((path, 0), f"pub {kind} {path}")

    def enum_variants(self, enum, path, depth, seen, own_path=False):
        _, body = kind_of(enum.get("inner"))
        for vid in body.get("variants") or []:
            var = self.item(vid)
            if var is None or self.hidden(var):
                continue
            vpath = f"{path}::{var.get('name')}"
            _, vbody = kind_of(var.get("inner"))
            k, v = kind_of(vbody.get("kind"))
            if k == "tuple":
                tys = []
                for f in v or []:
                    fi = self.item(f)
                    tys.append(self.ty(kind_of(fi.get("inner"))[1]) if fi else "_")
                self.add((path, 1), f"pub {vpath}({', '.join(tys)})")
            elif k == "struct":
                self.add((path, 1), f"pub {vpath} {{ .. }}")
                for f in v.get("fields") or []:
                    self.field(f, path, vpath, None)
            else:
                self.add((path, 1), f"pub {vpath}")

    def field(self, id_, owner, path, name):
        f = self.item(id_)
        if f is None or self.hidden(f) or f.get("visibility") not in ("public", "default"):
            return
        _, t = kind_of(f.get("inner"))
        fpath = f"{path}::{name or f.get('name')}"
        self.add((owner, 1), f"pub {fpath}: {self.ty(t)}")

    def assoc(self, id_, key, prefix):
        """An item of a trait or an impl, named `prefix` + its name."""
        a = self.item(id_)
        if a is None or self.hidden(a):
            return
        k, v = kind_of(a.get("inner"))
        name = f"{prefix}{a.get('name')}"
        if k == "function":
            self.add(key, self.function(name, v))
        elif k == "assoc_type":
            gen, where = self.generics(v.get("generics"))
            b = self.bounds(v.get("bounds"))
            t = v.get("type")
            self.add(key, f"pub type {name}{gen}{': ' + b if b else ''}"
                          f"{' = ' + self.ty(t) if t is not None else ''}{where}")
        elif k == "assoc_const":
            self.add(key, f"pub const {name}: {self.ty(v.get('type'))}")
        else:
            self.add(key, f"pub {k} {name}")

    def impls(self, ids, path):
        for i in ids or []:
            self.impl(i, path)

    def impl(self, id_, path):
        item = self.item(id_)
        if item is None or self.hidden(item):
            return
        _, body = kind_of(item.get("inner"))
        if body.get("blanket_impl") is not None:
            return
        trait = body.get("trait")
        for_ty = self.ty(body.get("for"))
        if trait is not None and body.get("is_synthetic"):
            name = self.path_name(trait).rsplit("::", 1)[-1]
            if name in AUTO_TRAITS:
                neg = "!" if body.get("is_negative") else ""
                self.autos.setdefault(path, {})[name] = neg + name
            return
        gen, where = self.generics(body.get("generics"))
        if trait is None:
            for i in body.get("items") or []:
                a = self.item(i)
                if a is not None and a.get("visibility") == "public":
                    self.assoc(i, (path, 2), f"{path}::")
            return
        unsafe = "unsafe " if body.get("is_unsafe") else ""
        neg = "!" if body.get("is_negative") else ""
        tname = self.path_name(trait)
        if tname in INTERNAL_TRAITS:
            return
        self.add((path, 3), f"{unsafe}impl{gen} {neg}{tname} for {for_ty}{where}")
        if "automatically_derived" in json.dumps(item.get("attrs") or []):
            return  # derived: the trait fixes every item
        for i in body.get("items") or []:
            self.assoc(i, (path, 5), f"<{for_ty} as {tname}>::")

    def result(self):
        for path, traits in self.autos.items():
            names = " + ".join(traits[t] for t in AUTO_TRAITS if t in traits)
            self.add((path, 6), f"auto traits of {path}: {names}")
        return sorted(self.lines, key=lambda line: (self.lines[line], line))


def render(doc):
    """The format version and the sorted item lines of rustdoc's JSON `doc`."""
    version = doc.get("format_version")
    if not isinstance(version, int):
        fail("rustdoc's JSON has no format_version: not rustdoc JSON?")
    if version not in KNOWN_FORMATS:
        print(f"public_api: warning: rustdoc JSON format {version}; this script was written "
              f"for format {', '.join(map(str, KNOWN_FORMATS))}: a difference may be the format",
              file=sys.stderr)
    if doc.get("includes_private"):
        fail("rustdoc's JSON includes private items (--document-private-items?)")
    root = doc.get("root")
    if str(root) not in (doc.get("index") or {}):
        fail("rustdoc's JSON has no root module")
    api = Api(doc)
    api.visit(root, "", None, 0, frozenset())
    lines = [line.replace("\n", " ") for line in api.result()]
    if not lines:
        fail("rustdoc's JSON gave no public item: has its format changed?")
    return version, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help="write the list instead of comparing")
    ap.add_argument("--list", type=pathlib.Path, default=LIST, help="the list (default docs/public-api.txt)")
    args = ap.parse_args()
    version, now = render(build_json())
    if args.write:
        args.list.write_text(HEADER + f"{FORMAT_LINE}{version}\n" + "".join(f"{x}\n" for x in now))
        print(f"wrote {args.list}: {len(now)} items")
        return 0
    try:
        text = args.list.read_text()
    except OSError as err:
        print(f"cannot read {args.list}: {err}\n{HINT}", file=sys.stderr)
        return 1
    # Comments (the header) are not compared: a new toolchain's format number
    # alone is no change to the API.
    was = [x for x in text.splitlines() if x and x != "#" and not x.startswith("# ")]
    if was == now:
        print(f"ok: {args.list} matches the public API ({len(now)} items)")
        return 0
    sys.stdout.writelines(difflib.unified_diff(
        [f"{x}\n" for x in was], [f"{x}\n" for x in now],
        fromfile=str(args.list), tofile="the public API now"))
    listed = [x[len(FORMAT_LINE):] for x in text.splitlines() if x.startswith(FORMAT_LINE)]
    if listed and listed[0] != str(version):
        print(f"note: the list was written from rustdoc JSON format {listed[0]}, this toolchain "
              f"writes format {version}: a line written differently may be the format, not the crate",
              file=sys.stderr)
    print(HINT, file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
