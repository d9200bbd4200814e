// Hostile input never crashes the process: deep nesting, huge strings, lone
// UTF-16 surrogates, values JSON cannot hold. Each gives a result or a thrown
// Error, and the toolset keeps working after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Toolset, heal } from '../index.mjs';

const ts = new Toolset({
  t: { type: 'object', properties: { s: { type: 'string' }, n: { type: 'integer' } } },
});

function stillWorks() {
  assert.equal(ts.check('t', { s: 'ok' }).status, 'valid');
}

// A result or an Error, never a crash.
function resultOrError(fn) {
  try {
    const r = fn();
    return r;
  } catch (e) {
    assert.ok(e instanceof Error, `threw ${e}`);
    return e;
  }
}

test('deep nesting, as text: a result or an Error at every depth', () => {
  for (const depth of [10, 100, 1000, 10_000, 49_000, 60_000, 1_000_000]) {
    const text = '{"s":' + '['.repeat(depth) + ']'.repeat(depth) + '}';
    const r = resultOrError(() => ts.check('t', text));
    if (!(r instanceof Error)) assert.equal(r.status, 'rejected');
    const rec = resultOrError(() => ts.checkRecord('{"name":"t","arguments":' + text + '}'));
    if (!(rec instanceof Error)) assert.equal(rec[0].status, 'rejected');
    resultOrError(() => ts.session().check('t', text));
    resultOrError(() => heal('{"messages":' + '['.repeat(depth) + ']'.repeat(depth) + '}'));
    // Unbalanced: only openers.
    resultOrError(() => ts.check('t', '['.repeat(depth)));
  }
  assert.throws(() => ts.check('t', '['.repeat(60_000) + ']'.repeat(60_000)), /nests deeper than 50000 levels/);
  stillWorks();
});

test('deep nesting, as an object: JSON.stringify refuses it with an Error', () => {
  let deep = {};
  for (let i = 0; i < 200_000; i++) deep = { a: deep };
  assert.throws(() => ts.check('t', deep), Error);
  let ok = { s: 'x' };
  for (let i = 0; i < 500; i++) ok = [ok];
  const r = ts.check('t', { s: 'x', n: 1, deep: ok });
  assert.equal(typeof r.status, 'string');
  stillWorks();
});

test('huge strings and many keys', () => {
  const big = 'x'.repeat(20 * 1024 * 1024);
  const r = ts.check('t', { s: big });
  assert.equal(r.status, 'valid');
  assert.equal(r.args.s.length, big.length);
  const many = {};
  for (let i = 0; i < 100_000; i++) many['k' + i] = i;
  assert.equal(typeof ts.check('t', many).status, 'string');
  const name = 'n'.repeat(1_000_000);
  assert.equal(ts.check(name, {}).status, 'rejected');
  stillWorks();
});

test('lone UTF-16 surrogates, in objects and in text', () => {
  for (const s of ['\uD800', 'a\uDC00b', '\uDBFF\uDBFF', 'ok\uD83D']) {
    const r = ts.check('t', { s });
    assert.equal(typeof r.status, 'string');
    const t = ts.check('t', `{"s":"${s}"}`);
    assert.equal(typeof t.status, 'string');
    assert.equal(typeof ts.check(s, {}).status, 'string');
    resultOrError(() => ts.checkRecord({ name: s, arguments: { s } }));
    resultOrError(() => new Toolset({ [s]: { type: 'object' } }).check(s, {}));
  }
  // An escaped lone surrogate in the JSON text itself.
  assert.equal(typeof ts.check('t', '{"s":"\\ud800"}').status, 'string');
  stillWorks();
});

test('a lone surrogate in arguments text is read as U+FFFD, as napi reads strings', () => {
  const fffd = new Toolset({ t: { type: 'object', properties: { s: { const: 'x'.repeat(40) + '\uFFFD' } } } });
  for (const lone of ['\uD800', '\uDC00', '\uDBFF']) {
    assert.equal(fffd.check('t', `{"s":"${'x'.repeat(40)}${lone}"}`).status, 'valid');
    assert.equal(fffd.check('t', `{"s":"${'x'.repeat(40)}${lone}a"}`).status, 'rejected');
  }
  assert.equal(fffd.check('t', `{"s":"${'x'.repeat(40)}\uD83D\uDE00"}`).status, 'rejected');
});

test('names and arguments beyond ASCII cross as they are, wherever they start', () => {
  for (const s of ['é', '日本', 'a😀b', '\u0080', '\u0100', 'x'.repeat(40) + 'é', 'x'.repeat(31) + '€' + 'y'.repeat(40), 'x'.repeat(40) + '\u0141']) {
    const tools = new Toolset({ [`t${s}`]: { type: 'object', properties: { s: { const: s } }, required: ['s'] } });
    const r = tools.check(`t${s}`, `{"s": ${JSON.stringify(s)}}`);
    assert.equal(r.status, 'valid', s);
    assert.deepEqual(r.args, { s });
    assert.equal(tools.check(`t${s}`, `{"s": ${JSON.stringify(s + 'z')}}`).status, 'rejected', s);
  }
});

test('values JSON cannot hold and wrong types: a thrown Error', () => {
  assert.throws(() => ts.check('t', { n: 10n }), TypeError);
  assert.throws(() => ts.check('t', undefined), TypeError);
  assert.throws(() => ts.check('t', () => 1), TypeError);
  assert.throws(() => ts.check(1, {}), TypeError);
  assert.throws(() => ts.checkRecord(Symbol('x')), TypeError);
  const cyclic = {};
  cyclic.self = cyclic;
  assert.throws(() => ts.check('t', cyclic), TypeError);
  assert.equal(ts.check('t', 'not json at all').status, 'rejected');
  assert.deepEqual(ts.check('t', '').repairs, [{ path: '', kind: 'empty-arguments', from: '', to: {} }]);
  assert.equal(ts.check('t', '\u0000').status, 'rejected');
  assert.equal(ts.check('t', [1, 2]).status, 'rejected');
  assert.throws(() => new Toolset('{not json'), /schemas: not JSON/);
  assert.throws(() => Toolset.fromTools('['.repeat(100_000)), Error);
  stillWorks();
});

test("the addon's check function, called directly with what index.js never gives it: an Error", () => {
  // `_check` is what `ts.check` calls, after its own type checks; called
  // around them, the native side still answers with an Error, not a crash.
  const check = ts._check;
  assert.throws(() => check(), Error);
  assert.throws(() => check('t'), Error);
  assert.throws(() => check(1, '{}'), Error);
  assert.throws(() => check('t', {}), Error);
  assert.throws(() => check('t', null), Error);
  // Bound to its toolset, not to `this`.
  assert.equal(check.call(undefined, 't', '{"s":"ok"}'), 'v');
  assert.equal(check.call({}, 't', '{"s":"ok"}'), 'v');
  assert.equal(check('t', '{"s":"ok"}', 'more', 'arguments', 'than', 'four'), 'v');
  stillWorks();
});

test('a key given twice: rejected when the readings differ', () => {
  // JSON.parse keeps the last value; some readers keep the first.
  const r = ts.check('t', '{"n": 1, "n": 2}');
  assert.equal(r.status, 'rejected');
  assert.deepEqual(r.errors.map((e) => e.path), ['n']);
  assert.match(r.message, /n: given twice; send each key once$/);
  const same = ts.checkRecord('{"type": "tool_use", "id": "a", "name": "t", "input": {"n": 1, "n": 1}}');
  assert.deepEqual(same.map((x) => x.status), ['valid']);
  stillWorks();
});
