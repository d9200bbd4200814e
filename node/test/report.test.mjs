// ts.report: the object `callfix report --format json` writes for the same
// records (the shipped examples, a generated log of every form), whatever
// form they are given in; hostile records are counted, never a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Toolset } from '../index.mjs';
import { CALLFIX, EXAMPLES, ROOT, SCHEMAS } from './helpers.mjs';

const ts = Toolset.fromDir(SCHEMAS);

function cliReport(file, label) {
  const run = spawnSync(
    CALLFIX,
    ['report', '--no-config', '--schemas', SCHEMAS, '--format', 'json', '--label', label, file],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

// A deterministic generator (an LCG), so that a failure can be replayed.
function lcg(seed) {
  let s = BigInt(seed);
  return (n) => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return Number((s >> 33n) % BigInt(n));
  };
}

// A log of every form the filter reads, from models named and not.
function mixedLog(n) {
  const pick = lcg(7);
  const args = ['{"file_path": "/a"}', '{"file_path": "/a", "offset": "3"}', '{"offset": 3}',
    '{"file_path": 5}', '```json\n{"file_path": "/a"}\n```', '{"file_path": "/a", "limit": 1', 'not json'];
  const lines = [];
  for (let i = 0; i < n; i += 1) {
    const a = args[pick(args.length)];
    const tool = ['read', 'Read', 'nope'][pick(3)];
    const model = ['m-a', 'm-b', null][pick(3)];
    const named = model ? { model } : {};
    switch (i % 6) {
      case 0:
        lines.push(JSON.stringify({ ...named, choices: [{ finish_reason: 'tool_calls', message: {
          role: 'assistant', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: tool, arguments: a } }] } }] }));
        break;
      case 1: {
        let input;
        try { input = JSON.parse(a); } catch { input = a; }
        lines.push(JSON.stringify({ ...named, role: 'assistant', stop_reason: 'tool_use',
          content: [{ type: 'tool_use', id: `t${i}`, name: tool, input }] }));
        break;
      }
      case 2:
        lines.push(JSON.stringify({ name: tool, arguments: a }));
        break;
      case 3:
        lines.push(JSON.stringify({ role: 'assistant', content: `<tool_call>{"name": "${tool}", "arguments": ${a}}</tool_call>` }));
        break;
      case 4: {
        const chunk = { ...named, choices: [{ index: 0, delta: { tool_calls: [
          { index: 0, id: `s${i}`, type: 'function', function: { name: tool, arguments: a } }] }, finish_reason: null }] };
        const end = { ...named, choices: [{ index: 0, delta: {}, finish_reason: ['length', 'tool_calls'][pick(2)] }] };
        lines.push(`data: ${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify(end)}\n\ndata: [DONE]\n`);
        break;
      }
      default:
        lines.push(['{"nothing": 1}', 'garbage', '[1, 2'][pick(3)]);
    }
  }
  return lines.join('\n') + '\n';
}

for (const name of ['calls.jsonl', 'stream.sse']) {
  test(`report equals callfix report --format json on examples/${name}`, () => {
    const file = path.join(EXAMPLES, name);
    const cli = cliReport(file, 'agent');
    assert.ok(cli.calls > 0);
    assert.deepEqual(ts.report(fs.readFileSync(file, 'utf8'), { label: 'agent' }), cli);
    assert.deepEqual(ts.report(fs.readFileSync(file), { label: 'agent' }), cli);
    const bytes = new Uint8Array(fs.readFileSync(file));
    assert.deepEqual(ts.report(bytes, { label: 'agent' }), cli);
  });
}

test('report equals callfix report --format json on a generated log, as text and as lines', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callfix-report-'));
  try {
    const log = mixedLog(600);
    const file = path.join(dir, 'mixed.log');
    fs.writeFileSync(file, log);
    const cli = cliReport(file, 'vendor');
    assert.deepEqual(ts.report(log, { label: 'vendor' }), cli);
    // The log has every outcome, several models and the label.
    for (const key of ['valid', 'repaired', 'rejected', 'broken_records']) assert.ok(cli[key] > 10, key);
    assert.deepEqual(Object.keys(cli.by_model).sort(), ['m-a', 'm-b', 'vendor']);
    assert.ok(Object.keys(cli.leaks).length > 0 && Object.keys(cli.cut_off_stops).length > 0);
    assert.equal(cli.version, 1);
    // The same lines as an array and as a generator.
    const lines = log.split(/(?<=\n)/);
    assert.deepEqual(ts.report(lines, { label: 'vendor' }), cli);
    assert.deepEqual(ts.report((function* gen() { yield* lines; })(), { label: 'vendor' }), cli);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('records as objects count as their JSON lines; one object is one record', () => {
  const records = [
    { model: 'm', role: 'assistant', content: [
      { type: 'tool_use', id: 't1', name: 'read', input: { file_path: '/a', offset: '3' } }] },
    { name: 'read', arguments: { offset: 1 } },
    { nothing: 'here' },
  ];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callfix-report-'));
  try {
    const file = path.join(dir, 'r.jsonl');
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r) + '\n').join(''));
    const cli = cliReport(file, 'x');
    assert.deepEqual(ts.report(records, { label: 'x' }), cli);
    assert.deepEqual([cli.calls, cli.repaired, cli.rejected, cli.broken_records], [2, 1, 1, 1]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const one = ts.report(records[0]);
  assert.deepEqual([one.calls, one.repaired, Object.keys(one.by_model)], [1, 1, ['m']]);
  assert.deepEqual(Object.keys(ts.report([{ name: 'read', arguments: {} }]).by_model), ['<records>']);
  const empty = ts.report('');
  assert.deepEqual([empty.calls, empty.schema_accuracy, empty.examples], [0, 0, []]);
});

test('hostile records are counted broken, the rest still counted, never a crash', () => {
  const valid = JSON.stringify({ name: 'read', arguments: { file_path: '/a' } });
  const hostile = [
    'not JSON at all',
    '}}}{{{',
    '['.repeat(300_000) + ']'.repeat(300_000),
    '{"a": ['.repeat(1000),
    Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    'x'.repeat(8 << 20),
    '{"name": "read", "arguments": "' + 'a'.repeat(1 << 20),
  ];
  const records = hostile.flatMap((h) => [h, valid]);
  const r = ts.report(records, { label: 'h' });
  assert.deepEqual([r.calls, r.valid, r.broken_records], [hostile.length, hostile.length, hostile.length], JSON.stringify(r).slice(0, 500));
  // A deep leaked call in text: a counted result.
  const deep = ts.report([{ role: 'assistant', content: '[read(file_path=' + '['.repeat(200_000) + ']'.repeat(200_000) + ')]' }]);
  assert.equal(deep.calls + deep.broken_records, 1);
  // What is no log or record is a TypeError, thrown before any work.
  assert.throws(() => ts.report(42), TypeError);
  assert.throws(() => ts.report(null), TypeError);
  assert.throws(() => ts.report('', { label: 3 }), TypeError);
  assert.throws(() => ts.report([() => 1]), TypeError);
});
