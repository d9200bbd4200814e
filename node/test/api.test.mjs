// The API: every entry point, its options, its errors, and exact numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Toolset, Session, render, tools, heal, version } from '../index.mjs';
import { ROOT, SCHEMAS } from './helpers.mjs';

const ts = Toolset.fromDir(SCHEMAS);

test('fromDir: names sorted, has()', () => {
  assert.deepEqual(ts.names().slice(0, 3), ['bash', 'edit', 'glob']);
  assert.equal(ts.has('read'), true);
  assert.equal(ts.has('nope'), false);
  assert.match(version, /^\d+\.\d+\.\d+/);
});

test('check: repaired, with every change reported', () => {
  const r = ts.check('read', { filePath: '/a', offset: '2' });
  assert.equal(r.status, 'repaired');
  assert.equal(r.tool, 'read');
  assert.deepEqual(r.args, { file_path: '/a', offset: 2 });
  assert.equal(r.argsJson, '{"file_path":"/a","offset":2}');
  assert.deepEqual(r.repairs, [
    { path: 'offset', kind: 'coerce-number', from: '2', to: 2 },
    { path: 'file_path', kind: 'rename-key', from: 'filePath', to: 'file_path' },
  ]);
  assert.deepEqual(r.errors, []);
  assert.equal(r.message, null);
});

test('check: JSON text and object give the same result', () => {
  const a = ts.check('read', { filePath: '/a', offset: '2' });
  const b = ts.check('read', '{"filePath": "/a", "offset": "2"}');
  assert.deepEqual(a, b);
});

test('check: rejected, one instruction line', () => {
  const bad = ts.check('read', '{"limit": "5"}');
  assert.equal(bad.status, 'rejected');
  assert.equal(bad.args, null);
  assert.equal(bad.argsJson, null);
  assert.equal(
    bad.message,
    'Please rewrite the input with valid arguments. Errors: file_path: Required; limit: expected integer, got string',
  );
  assert.deepEqual(bad.errors[0], { path: 'file_path', message: 'Required' });
});

test('check: valid arguments come back as sent', () => {
  const r = ts.check('read', '{"file_path":"/x","offset":3}');
  assert.equal(r.status, 'valid');
  assert.equal(r.argsJson, '{"file_path":"/x","offset":3}');
  assert.deepEqual(r.repairs, []);
});

test('check: an unknown tool close to one name is renamed (rename-tool)', () => {
  const r = ts.check('Read', { file_path: '/a' });
  assert.equal(r.status, 'repaired');
  assert.equal(r.tool, 'read');
  const u = ts.check('nosuch', {});
  assert.equal(u.status, 'rejected');
  assert.match(u.message, /^Unknown tool "nosuch"/);
});

test('checkRecord: any envelope, one result per call, ids kept', () => {
  const [call] = ts.checkRecord({ type: 'tool_use', id: 't1', name: 'read', input: { file_path: '/a' } });
  assert.equal(call.id, 't1');
  assert.equal(call.status, 'valid');
  const openai = ts.checkRecord({
    role: 'assistant',
    tool_calls: [
      { id: 'a', type: 'function', function: { name: 'read', arguments: '{"file_path":"/a"}' } },
      { id: 'b', type: 'function', function: { name: 'read', arguments: '{"file_path":"/b","offset":"7"}' } },
    ],
  });
  assert.deepEqual(openai.map((r) => [r.id, r.call, r.status]), [['a', 0, 'valid'], ['b', 1, 'repaired']]);
  assert.deepEqual(ts.checkRecord({ role: 'assistant', content: 'just text' }), []);
  const broken = ts.checkRecord('{"a":]');
  assert.equal(broken.length, 1);
  assert.equal(broken[0].status, 'rejected');
  assert.equal(broken[0].tool, null);
  assert.match(broken[0].message, /record at <record>:1 is not valid JSON/);
  const named = ts.checkRecord('{"a":]', { source: 'log.jsonl', index: 4 });
  assert.equal(named[0].index, 4);
  assert.match(named[0].message, /record at log\.jsonl:5 /);
  assert.throws(() => ts.checkRecord('{}', { index: -1 }), RangeError);
});

test('session: loop detection after loopLimit repeats; toolset checks never loop', () => {
  const s = ts.session({ loopLimit: 2 });
  assert.ok(s instanceof Session);
  const first = s.check('read', {});
  assert.equal(first.loop, false);
  const second = s.check('read', {});
  assert.equal(second.loop, true);
  assert.match(second.message, /^Stop retrying/);
  assert.equal(second.index, 1, 'a session numbers its checks');
  for (let i = 0; i < 5; i++) assert.equal(ts.check('read', {}).loop, false);
  const none = ts.session({ loopLimit: 0 });
  for (let i = 0; i < 5; i++) assert.equal(none.check('read', {}).loop, false);
  const rec = ts.session({ loopLimit: 2 });
  rec.checkRecord({ name: 'read', arguments: {} });
  assert.equal(rec.checkRecord({ name: 'read', arguments: {} })[0].loop, true);
  assert.throws(() => ts.session({ loopLimit: -1 }), RangeError);
  assert.throws(() => new Session({}), TypeError);
});

test('new Toolset(schemas, options): options as the CLI flags', () => {
  const schemas = { read: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } };
  assert.equal(new Toolset(schemas).check('read', { n: '2' }).status, 'repaired');
  assert.equal(new Toolset(schemas, { repair: 'none' }).check('read', { n: '2' }).status, 'rejected');
  assert.equal(new Toolset(schemas, { repair: ['coerce-number'] }).check('read', { n: '2' }).status, 'repaired');
  assert.equal(new Toolset(schemas, { repair: ['rename-key'] }).check('read', { n: '2' }).status, 'rejected');
  const p = new Toolset(schemas, { repair: 'none', prefix: 'Fix:', maxErrors: 1, maxChars: 80 });
  assert.match(p.check('read', { n: 'x', m: 1 }).message, /^Fix:/);
  assert.equal(new Toolset(JSON.stringify(schemas)).names()[0], 'read');
  assert.throws(() => new Toolset(schemas, { repair: ['no-such-kind'] }), /no-such-kind/);
  assert.throws(() => new Toolset(schemas, { maxErrors: 0 }), /maxErrors: expected 1 to 65535, got 0/);
  assert.throws(() => new Toolset(schemas, { maxRounds: 1.5 }), /maxRounds/);
  assert.throws(() => new Toolset(schemas, { colour: true }), /unknown option 'colour'/);
  assert.throws(() => new Toolset(schemas, 'all'), TypeError);
  assert.throws(() => new Toolset([1, 2]), /expected an object/);
});

test('invalid schemas throw an Error naming the tool', () => {
  assert.throws(() => new Toolset({ good: { type: 'object' }, bad_tool: { type: 12 } }), (e) => {
    assert.ok(e instanceof Error);
    assert.match(e.message, /"bad_tool"/);
    return true;
  });
  assert.throws(
    () => Toolset.fromTools([{ name: 'broken', input_schema: { type: 'object', properties: { a: { minimum: 'x' } } } }]),
    /"broken"/,
  );
  // A directory's schemas are compiled when first needed: its broken one throws then.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'callfix-node-'));
  try {
    fs.writeFileSync(path.join(dir, 'ok.json'), '{"type":"object"}');
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"type": 12}');
    const d = Toolset.fromDir(dir);
    assert.equal(d.check('ok', {}).status, 'valid');
    assert.throws(() => d.check('bad', {}), /"bad"/);
  } finally {
    fs.rmSync(dir, { recursive: true });
  }
  assert.throws(() => Toolset.fromDir(path.join(ROOT, 'no-such-dir')), /no-such-dir/);
  assert.throws(() => Toolset.fromTools({ hello: 1 }), /not a tool list/);
});

test('fromTools: OpenAI, Anthropic and MCP tool lists', () => {
  const schema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
  const lists = [
    [{ type: 'function', function: { name: 'search', parameters: schema } }],
    [{ name: 'search', input_schema: schema }],
    { tools: [{ name: 'search', inputSchema: schema }] },
  ];
  for (const list of lists) {
    const t = Toolset.fromTools(list);
    assert.deepEqual(t.names(), ['search']);
    assert.equal(t.check('search', { q: 'x' }).status, 'valid');
    assert.equal(t.check('search', {}).status, 'rejected');
  }
});

test('exact numbers: argsJson keeps every number as sent', () => {
  const t = new Toolset({
    f: {
      type: 'object',
      properties: { x: { type: 'number' }, y: { type: 'number' }, big: { type: 'integer' }, n: { type: 'integer' } },
    },
  });
  const sent = '{"x":1.0,"y":1e2,"big":1234567890123456789012345}';
  const v = t.check('f', sent);
  assert.equal(v.status, 'valid');
  assert.equal(v.argsJson, sent);
  const r = t.check('f', '{"x": 1.0, "y": 1e2, "big": 1234567890123456789012345, "n": "3"}');
  assert.equal(r.status, 'repaired');
  assert.equal(r.argsJson, '{"x":1.0,"y":1e2,"big":1234567890123456789012345,"n":3}');
  assert.equal(r.args.n, 3);
  const [rec] = t.checkRecord('{"name":"f","arguments":{"x":0.10000000000000000000001,"n":"4"}}');
  assert.equal(rec.argsJson, '{"x":0.10000000000000000000001,"n":4}');
});

test('render and tools: as `callfix render` and `callfix tools`', () => {
  assert.equal(render('version <VERSION>, <NAME>', { VERSION: 3, NAME: 'x' }), 'version 3, x');
  assert.match(render('on <PLATFORM>'), /^on \w+/);
  assert.throws(() => render('<NOPE_X> and <NOPE_Y>'), /NOPE_X.*NOPE_Y/);
  assert.throws(() => render('<A1>', { A1: { no: 1 } }), /"A1" is/);
  const payload = tools(ts, 'anthropic', { descriptions: path.join(ROOT, 'descriptions') });
  assert.equal(payload[0].name, 'bash');
  assert.ok(payload[0].input_schema);
  const openai = tools(ts);
  assert.equal(openai[0].type, 'function');
  assert.throws(() => tools(ts, 'nope'), /unknown provider "nope"/);
  assert.throws(() => tools(ts, 'anthropic', { openaiStrict: true }), /openaiStrict/);
  assert.throws(() => tools({}, 'openai'), TypeError);
});

test('heal: a poisoned OpenAI history made acceptable, the input unchanged', () => {
  const text = fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'heal', 'openai_poisoned.json'), 'utf8');
  const request = JSON.parse(text);
  const healed = heal(request);
  assert.deepEqual(request, JSON.parse(text), 'the input is not changed');
  assert.deepEqual(healed.results.map((r) => r.status), ['valid', 'repaired', 'repaired', 'rejected', 'rejected', 'rejected']);
  assert.equal(healed.neutralised, 3);
  assert.equal(healed.ok, false);
  const calls = healed.request.messages[2].tool_calls;
  assert.equal(calls[1].function.arguments, '{"path":"/b","limit":5}');
  assert.equal(calls[3].function.arguments, '{}');
  assert.deepEqual(JSON.parse(healed.requestJson), healed.request);
  assert.deepEqual(heal(text).results, healed.results);
  assert.throws(() => heal(request, null, { to: 'gemini' }), /heal writes/);
  assert.deepEqual(healed.notCarried, []);
});

test('heal --to: content the other provider cannot hold is said, never silently lost', () => {
  const text = fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'heal', 'openai_content.json'), 'utf8');
  const healed = heal(text, null, { to: 'anthropic' });
  assert.equal(healed.notCarried.length, 7);
  assert.ok(healed.notCarried.includes('messages[2]: a part of type "refusal", written as text'), healed.notCarried.join('; '));
});

test("check's short form for valid calls is the whole object, exactly", () => {
  const full = (name, args) => JSON.parse(ts._native.checkFull(name, typeof args === 'string' ? args : JSON.stringify(args)));
  const cases = [
    ['read', { file_path: '/a', offset: 3 }],
    ['read', '{"file_path": "/a",   "limit": 1.0e1}'],
    ['bash', { command: 'ls', description: 'list' }],
    ['read', { filePath: '/a' }],
    ['Read', { file_path: '/a' }],
    ['read', {}],
    ['nosuch', {}],
  ];
  const forms = [];
  for (const [name, args] of cases) {
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    const out = ts._check(name, text);
    if (out === 'v' || out.startsWith('V')) forms.push(out.slice(0, 1));
    const whole = full(name, args);
    assert.deepEqual(ts.check(name, args), whole, `${name} ${text}`);
    assert.equal(JSON.stringify(ts.check(name, args)), JSON.stringify(whole), `${name} ${text}: the same text`);
    assert.deepEqual({ ...ts.check(name, args) }, whole, `${name} ${text}: spread`);
  }
  // Compact text comes back as `v` (the text sent is the result's argsJson);
  // spaces and `1.0e1` spelled differently, as `V` and the text.
  assert.deepEqual(forms, ['v', 'V', 'v'], 'the valid calls took the short forms');
});

test("check's short form: argsJson is the text sent, args parsed once when read, writable", () => {
  const text = '{"file_path":"/a","offset":12345678901234567890}';
  const r = ts.check('read', text);
  assert.equal(ts._check('read', text), 'v');
  assert.equal(r.status, 'valid');
  assert.equal(r.argsJson, text);
  assert.ok(Object.keys(r).includes('args'), 'args is an own enumerable property');
  assert.deepEqual(r.args, { file_path: '/a', offset: 12345678901234567890 });
  assert.equal(r.args, r.args, 'parsed once: the same object each read');
  r.args.file_path = '/b';
  assert.equal(r.args.file_path, '/b', 'changes to args are kept');
  r.args = 7;
  assert.equal(r.args, 7, 'args can be replaced');
  const frozen = Object.freeze(ts.check('read', text));
  assert.deepEqual(frozen.args, { file_path: '/a', offset: 12345678901234567890 });
  // Not compact: argsJson is callfix's text, not the text sent.
  const spaced = ts.check('read', '{"file_path": "/a"}');
  assert.equal(spaced.argsJson, '{"file_path":"/a"}');
  assert.deepEqual(spaced.args, { file_path: '/a' });
  // A number spelled as sent, both ways.
  const spelled = '{"file_path":"/a","offset":1.0e1}';
  assert.equal(ts._check('read', spelled), 'v');
  assert.equal(ts.check('read', spelled).argsJson, spelled);
  assert.equal(ts.check('read', '{"file_path":"/a", "offset":1.0e1}').argsJson, spelled);
  assert.equal(ts.check('read', '{"file_path":"/a", "offset":1.0e1}').args.offset, 10);
});
