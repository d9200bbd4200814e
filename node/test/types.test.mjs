// The shipped types compile against a program using the API (`tsc --noEmit`,
// the pinned typescript), and reject misuse (the @ts-expect-error lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

test('tsc --noEmit on test/types (CommonJS and ES module consumers)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', path.join(here, 'types', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(run.stdout + run.stderr, '');
  assert.equal(run.status, 0);
});
