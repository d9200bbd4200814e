// A stand-in for the `callfix` package (the napi-rs addon) with the same
// `Toolset` shape, used by scripts/test_node_ai_sdk.sh only until the addon is
// built: each check runs the callfix CLI (`$CALLFIX_BIN -t NAME -f json`), so
// the statuses, repairs and messages are the real ones. `argsJson` is the
// repaired arguments re-serialised (the addon keeps the numbers as sent).

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.CALLFIX_BIN;

export class Toolset {
  #schemas;

  constructor(schemas, options) {
    if (options !== undefined) throw new Error('the fake Toolset takes no options');
    this.#schemas = JSON.parse(JSON.stringify(schemas));
  }

  names() {
    return Object.keys(this.#schemas).sort();
  }

  check(name, args) {
    if (!BIN) throw new Error('CALLFIX_BIN is not set');
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    const dir = mkdtempSync(join(tmpdir(), 'callfix-fake-'));
    try {
      for (const [tool, schema] of Object.entries(this.#schemas)) {
        writeFileSync(join(dir, `${tool}.json`), JSON.stringify(schema));
      }
      const run = spawnSync(BIN, ['--no-config', '-s', dir, '-t', name, '-f', 'json'], {
        input: text,
        encoding: 'utf8',
      });
      if (run.status !== 0 && run.status !== 1) throw new Error(`callfix: ${run.stderr}`);
      const r = JSON.parse(run.stdout);
      return {
        status: r.status,
        tool: r.tool,
        args: r.args,
        argsJson: r.args === null ? null : JSON.stringify(r.args),
        repairs: r.repairs,
        errors: r.errors,
        message: r.message,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
