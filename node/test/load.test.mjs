// Both entry points load, by path and by the package's own name (its
// `exports`), and hand out the same objects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

import * as esm from '../index.mjs';
import callfixDefault from '../index.mjs';

const require = createRequire(import.meta.url);

test('CommonJS and ES module entry points give the same API', async () => {
  const cjs = require('../index.js');
  for (const name of ['Toolset', 'Session', 'render', 'tools', 'heal', 'version']) {
    assert.ok(cjs[name] !== undefined, `CommonJS exports ${name}`);
    assert.equal(esm[name], cjs[name], `ES module ${name} is the CommonJS one`);
  }
  assert.equal(callfixDefault.Toolset, cjs.Toolset);
  assert.equal(cjs.default, cjs);
  const byName = await import('callfix');
  assert.equal(byName.Toolset, cjs.Toolset);
  assert.equal(require('callfix').Toolset, cjs.Toolset);
  const t = new byName.Toolset({ a: { type: 'object' } });
  assert.equal(t.check('a', {}).status, 'valid');
});

test('a CommonJS program runs in a child process', async () => {
  const { spawnSync } = await import('node:child_process');
  const code = "const { Toolset } = require('callfix'); " +
    "process.stdout.write(new Toolset({a:{type:'object'}}).check('a','{}').status)";
  const run = spawnSync(process.execPath, ['-e', code], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
  assert.equal(run.stderr, '');
  assert.equal(run.stdout, 'valid');
});
