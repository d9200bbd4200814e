// The peer for scripts/bench.sh: callfix's work done with ajv (Node). Reads JSON
// Lines of tool calls (generic, OpenAI or Anthropic envelope), compiles each
// tool's schema once (lazily), validates, and prints the arguments or the errors.
//
//   node ajv_filter.js SCHEMA_DIR < calls.jsonl
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const Ajv2020 = require("ajv/dist/2020").default;
const addFormats = require("ajv-formats");

const dir = process.argv[2];
const ajv = new Ajv2020({ allErrors: true, strict: false });
addFormats(ajv);
const cache = new Map();
function validator(name) {
  let v = cache.get(name);
  if (v === undefined) {
    const file = path.join(dir, name + ".json");
    v = fs.existsSync(file) ? ajv.compile(JSON.parse(fs.readFileSync(file, "utf8"))) : null;
    cache.set(name, v);
  }
  return v;
}

const out = [];
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (!line.trim()) return;
  let rec;
  try { rec = JSON.parse(line); } catch (e) { out.push("invalid record"); return; }
  let name, args;
  if (rec.function) { name = rec.function.name; args = rec.function.arguments; }
  else if (rec.type === "tool_use") { name = rec.name; args = rec.input; }
  else { name = rec.name; args = rec.arguments; }
  if (typeof args === "string") {
    try { args = JSON.parse(args); } catch (e) { out.push("invalid arguments"); return; }
  }
  const v = validator(name);
  if (!v) { out.push("unknown tool " + name); return; }
  out.push(v(args) ? JSON.stringify(args) : ajv.errorsText(v.errors));
  if (out.length >= 4096) { process.stdout.write(out.join("\n") + "\n"); out.length = 0; }
});
rl.on("close", () => { if (out.length) process.stdout.write(out.join("\n") + "\n"); });
