// ts.check against ajv (compiled validators) on the same valid calls, one run
// each, every run in a fresh process: the tool set and calls come from
// scripts/gen_calls.py (what scripts/bench.sh uses), each tool's schema is
// compiled when first called (ajv.compile, callfix's lazy compile) and the
// time counts it, as a program that starts and checks N calls pays it.
// Printed too: the second pass over the same calls (compile excluded), and
// the CPU time of each first pass (every thread of the process: V8's garbage
// collector's too), which moves less than wall time on a shared machine.
//
//   node bench/check.mjs [CALLS] [TOOLS] [ROUNDS]     (defaults 100000 1000 3)
//
// Each round runs the four measurements one after another, each in a fresh
// process; every round's ratios are printed, then their median: on a shared
// machine one process's time moves by a third between runs, and rounds that
// alternate the sides let both meet the same moments.
//
// Forms: "text" is the arguments' JSON text as the model sent it (callfix
// takes it as is; ajv needs JSON.parse first); "object" is the parsed value
// (callfix serialises it with JSON.stringify; ajv validates it in place).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const ROOT = path.resolve(here, '..', '..');

function load(dir) {
  const calls = [];
  for (const line of fs.readFileSync(path.join(dir, 'calls.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const rec = JSON.parse(line);
    let name;
    let args;
    if (rec.function) [name, args] = [rec.function.name, rec.function.arguments];
    else if (rec.type === 'tool_use') [name, args] = [rec.name, rec.input];
    else [name, args] = [rec.name, rec.arguments];
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    calls.push({ name, text, object: JSON.parse(text) });
  }
  return calls;
}

// One measurement, in this process: [first pass seconds, second pass seconds,
// first pass CPU seconds].
function measure(mode, dir) {
  const calls = load(dir);
  const schemas = path.join(dir, 'schemas');
  let check;
  let bad = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  if (mode.startsWith('callfix')) {
    const { Toolset } = require('../index.js');
    const ts = Toolset.fromDir(schemas);
    const text = mode === 'callfix-text';
    check = () => {
      for (const c of calls) {
        if (ts.check(c.name, text ? c.text : c.object).status !== 'valid') bad++;
      }
    };
  } else {
    const Ajv2020 = require('ajv/dist/2020').default;
    const addFormats = require('ajv-formats');
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    const cache = new Map();
    const validator = (name) => {
      let v = cache.get(name);
      if (v === undefined) {
        v = ajv.compile(JSON.parse(fs.readFileSync(path.join(schemas, name + '.json'), 'utf8')));
        cache.set(name, v);
      }
      return v;
    };
    const text = mode === 'ajv-text';
    check = () => {
      for (const c of calls) {
        if (!validator(c.name)(text ? JSON.parse(c.text) : c.object)) bad++;
      }
    };
  }
  check();
  const first = Number(process.hrtime.bigint() - start) / 1e9;
  const used = process.cpuUsage(cpu);
  const firstCpu = (used.user + used.system) / 1e6;
  const again = process.hrtime.bigint();
  check();
  const second = Number(process.hrtime.bigint() - again) / 1e9;
  if (bad) throw new Error(`${mode}: ${bad} calls not valid`);
  return [first, second, firstCpu];
}

if (process.argv[2] === '--measure') {
  process.stdout.write(JSON.stringify(measure(process.argv[3], process.argv[4])));
} else {
  const calls = process.argv[2] || '100000';
  const tools = process.argv[3] || '1000';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callfix-node-bench-'));
  try {
    const gen = spawnSync('python3', [
      path.join(ROOT, 'scripts', 'gen_calls.py'), path.join(dir, 'schemas'), path.join(dir, 'calls.jsonl'),
      '--calls', calls, '--tools', tools,
    ], { stdio: 'inherit' });
    if (gen.status !== 0) throw new Error('scripts/gen_calls.py failed');
    const n = Number(calls);
    const rounds = Number(process.argv[4] || '3');
    const ratios = { text: [], object: [], textCpu: [], objectCpu: [], textAgain: [], objectAgain: [] };
    console.log(`${n} valid calls over ${tools} tools (node ${process.version}); seconds, first pass (compile included) / second pass`);
    for (let round = 1; round <= rounds; round++) {
      const secs = {};
      for (const mode of ['callfix-text', 'callfix-object', 'ajv-text', 'ajv-object']) {
        const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--measure', mode, dir], {
          encoding: 'utf8',
        });
        if (run.status !== 0) throw new Error(`${mode}: ${run.stderr}`);
        secs[mode] = JSON.parse(run.stdout);
      }
      console.log(`round ${round}:`);
      for (const [mode, [a, b, c]] of Object.entries(secs)) {
        console.log(`  ${mode.padEnd(15)} ${a.toFixed(3)} s (${Math.round(n / a)} calls/s, CPU ${c.toFixed(3)} s)   again ${b.toFixed(3)} s (${Math.round(n / b)} calls/s)`);
      }
      const r = (x, y, i) => secs[x][i] / secs[y][i];
      ratios.text.push(r('ajv-text', 'callfix-text', 0));
      ratios.object.push(r('ajv-object', 'callfix-object', 0));
      ratios.textCpu.push(r('ajv-text', 'callfix-text', 2));
      ratios.objectCpu.push(r('ajv-object', 'callfix-object', 2));
      ratios.textAgain.push(r('ajv-text', 'callfix-text', 1));
      ratios.objectAgain.push(r('ajv-object', 'callfix-object', 1));
      const f = (k) => ratios[k][round - 1].toFixed(1);
      console.log(`  ajv ÷ callfix: text ${f('text')}x, object ${f('object')}x; CPU time: text ${f('textCpu')}x, object ${f('objectCpu')}x; second pass: text ${f('textAgain')}x, object ${f('objectAgain')}x`);
    }
    const median = (k) => {
      const sorted = [...ratios[k]].sort((a, b) => a - b);
      return sorted[Math.floor(sorted.length / 2)].toFixed(1);
    };
    const all = (k) => ratios[k].map((x) => x.toFixed(1)).join(' / ');
    console.log(`ajv ÷ callfix, first pass, each round: text ${all('text')}, object ${all('object')}`);
    console.log(`ajv ÷ callfix, median of ${rounds} rounds: text ${median('text')}x, object ${median('object')}x`);
    console.log(`ajv ÷ callfix, median of ${rounds} rounds, CPU time: text ${median('textCpu')}x, object ${median('objectCpu')}x`);
    console.log(`ajv ÷ callfix, median of ${rounds} rounds, second pass: text ${median('textAgain')}x, object ${median('objectAgain')}x`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
