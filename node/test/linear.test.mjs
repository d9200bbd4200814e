// The complexity check for the Node binding (the project's rule, as
// scripts/complexity.py applies it to the CLI): every surface a caller can
// reach with a large value, at two sizes 10x apart, must take at most 20x the
// user CPU time. A quadratic surface takes 100x; JSON crossing the boundary, the
// lazy `args`, messages, repairs, leaks, heal, render and tool lists are all
// covered. When the big run takes less than FLOOR seconds the ratio is noise
// and the surface passes.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Toolset, heal, render, tools } from '../index.mjs';

const FLOOR = 0.1;
const MAX_RATIO = 20;

// User CPU seconds of `fn()`, best of three runs. User time, not user plus
// system: a quadratic algorithm shows in user time, while system time is the
// kernel faulting in memory, which jumps when a run's memory outgrows what the
// allocator kept from the last one (20,000 tools: 0.03 s of system time on a
// quiet machine, 0.7 s on a loaded one) and made this check flaky.
function cpu(fn) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const start = process.cpuUsage();
    fn();
    best = Math.min(best, process.cpuUsage(start).user / 1e6);
  }
  return best;
}

// `make(n)` builds the input; `run(input)` drives the binding with it.
function linear(name, n, make, run) {
  const small = make(n);
  const big = make(10 * n);
  run(small); // warm up: compile, JIT
  const a = cpu(() => run(small));
  const b = cpu(() => run(big));
  const ratio = b / Math.max(a, 1e-6);
  assert.ok(
    b < FLOOR || ratio <= MAX_RATIO,
    `${name}: ${n} -> ${a.toFixed(4)} s, ${10 * n} -> ${b.toFixed(4)} s: ratio ${ratio.toFixed(1)} > ${MAX_RATIO}`,
  );
}

const READ = {
  type: 'object',
  properties: {
    file_path: { type: 'string' },
    offset: { type: 'integer' },
    limit: { type: 'integer' },
    tags: { type: 'array', items: { type: 'integer' } },
  },
  required: ['file_path'],
};
const ts = new Toolset({ read: READ });

test('an argument object with many keys (text and object)', () => {
  const make = (n) => {
    const o = { file_path: '/a' };
    for (let i = 0; i < n; i++) o[`k${i}`] = i;
    return o;
  };
  linear('many keys, text', 5_000, (n) => JSON.stringify(make(n)), (t) => ts.check('read', t).status);
  linear('many keys, object', 5_000, make, (o) => ts.check('read', o).status);
});

test('a valid call with a long array, its lazy args read', () => {
  const make = (n) => JSON.stringify({ file_path: '/a', tags: Array.from({ length: n }, (_, i) => i) });
  linear('long array', 20_000, make, (t) => ts.check('read', t).args.tags.length);
});

test('a rejected call with many errors: the message stays linear', () => {
  const make = (n) => JSON.stringify({ file_path: 1, tags: Array.from({ length: n }, (_, i) => `x${i}`) });
  linear('many errors', 5_000, make, (t) => {
    const r = ts.check('read', t);
    assert.equal(r.status, 'rejected');
    return r.message.length;
  });
});

test('repairs over many values (numbers sent as strings)', () => {
  const make = (n) => JSON.stringify({ file_path: '/a', tags: Array.from({ length: n }, (_, i) => String(i)) });
  linear('many repairs', 2_000, make, (t) => {
    const r = ts.check('read', t);
    assert.notEqual(r.status, 'valid');
    return r.repairs.length;
  });
});

test('a long string value, and arguments that are not JSON', () => {
  linear('long string', 200_000, (n) => JSON.stringify({ file_path: 'x'.repeat(n) }), (t) => ts.check('read', t).status);
  linear('not JSON', 200_000, (n) => '{"file_path": "' + 'x'.repeat(n), (t) => ts.check('read', t).status);
});

test('a record whose text leaks many calls', () => {
  const make = (n) =>
    JSON.stringify({
      choices: [
        {
          message: {
            role: 'assistant',
            content: '<tool_call>{"name":"read","arguments":{"file_path":"/a"}}</tool_call>\n'.repeat(n),
          },
        },
      ],
    });
  linear('leaked calls', 500, make, (t) => ts.checkRecord(t).length);
});

test('heal on a long history', () => {
  const make = (n) => {
    const messages = [{ role: 'user', content: 'go' }];
    for (let i = 0; i < n; i++) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: '{"file_path": 1}' } }],
      });
      messages.push({ role: 'tool', tool_call_id: `c${i}`, content: 'ok' });
    }
    return JSON.stringify({ model: 'm', messages });
  };
  linear('heal', 300, make, (t) => heal(t, ts).results.length);
});

test('render with a long template, and a long tool list', () => {
  linear('render', 20_000, (n) => 'Use <TOOL> on <PLATFORM>. '.repeat(n), (t) => render(t, { TOOL: 'read', PLATFORM: 'linux' }).length);
  // As text: what is measured is the binding, not JSON.stringify. Below about
  // 2,000 tools the time per tool still grows with the caches; above, it is flat.
  const list = (n) =>
    JSON.stringify(Array.from({ length: n }, (_, i) => ({ type: 'function', function: { name: `t${i}`, parameters: READ } })));
  linear('tool list', 2_000, list, (l) => Toolset.fromTools(l).names().length);
  const toolset = (n) => Toolset.fromTools(list(n));
  linear('tools payload', 2_000, toolset, (ts) => tools(ts, 'anthropic').length);
});
