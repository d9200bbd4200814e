// CLI equality: every shipped example (examples/*.jsonl) through
// `callfix --format json` and through `ts.checkRecord` record by record gives
// the same objects (argsJson aside, which the CLI does not write).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { Toolset } from '../index.mjs';
import { CALLFIX, EXAMPLES, ROOT, SCHEMAS } from './helpers.mjs';

const files = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.jsonl'));

test('there are shipped examples to compare', () => {
  assert.ok(files.length >= 1);
  assert.ok(fs.existsSync(CALLFIX), `the callfix command (${CALLFIX}; set $CALLFIX)`);
});

for (const name of files) {
  test(`checkRecord equals callfix -f json on examples/${name}`, () => {
    const rel = path.join('examples', name);
    // No loop memory: checkRecord judges each record on its own, while the
    // CLI counts repeats across a file (request bodies repeat their history).
    const run = spawnSync(CALLFIX, ['--format', 'json', '--loop-limit', '0', '--schemas', SCHEMAS, rel], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    // Exit 1: some call was rejected (the output is what is compared).
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const out = run.stdout;
    const cli = out.split('\n').filter((l) => l).map((l) => JSON.parse(l));
    const ts = Toolset.fromDir(SCHEMAS);
    const lines = fs.readFileSync(path.join(EXAMPLES, name), 'utf8').split('\n');
    const ours = [];
    let index = 0;
    lines.forEach((line) => {
      if (!line.trim()) return;
      for (const r of ts.checkRecord(line, { source: rel, index })) {
        const { argsJson, ...rest } = r;
        if (r.args === null) assert.equal(argsJson, null);
        else assert.deepEqual(JSON.parse(argsJson), r.args);
        ours.push(rest);
      }
      index += 1;
    });
    assert.ok(cli.length >= files.length);
    assert.deepEqual(ours, cli);
  });
}
