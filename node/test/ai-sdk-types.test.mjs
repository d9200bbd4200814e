// callfix/ai-sdk's types (ai-sdk.d.ts) against the AI SDK's own: a program
// using them as the docs do compiles under `tsc --strict`, and a misuse does
// not. Run by scripts/test_node_ai_sdk.sh, where typescript is installed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

const USE = `
import { generateText, streamText, tool, type LanguageModel } from 'ai';
import { z } from 'zod';
import { callfixRepair, callfixSchema } from 'callfix/ai-sdk';

declare const model: LanguageModel;
const tools = {
  read: tool({ inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => path }),
  grep: tool({
    inputSchema: callfixSchema<{ pattern: string }>(
      { type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] },
      { name: 'grep', onReject: ({ message }) => console.log(message.length) },
    ),
    execute: async ({ pattern }) => pattern.length,
  }),
};
await generateText({
  model,
  tools,
  repairToolCall: callfixRepair({
    onReject: ({ message, result, toolCall, error }) => console.log(message, result.errors[0]?.path, toolCall.toolName, error.name),
    onRepair: ({ result }) => console.log(result.repairs.map((r) => r.kind), result.argsJson),
    sdkMessage: false,
    toolsetOptions: { maxErrors: 3 },
  }),
  prompt: 'x',
});
streamText({ model, tools, experimental_repairToolCall: callfixRepair(), prompt: 'x' });
`;

function compile(source) {
  // Inside the project (so that 'ai' and 'callfix' resolve), in a directory of its own.
  const dir = mkdtempSync(join(here, 'types-'));
  try {
    writeFileSync(join(dir, 'use.mts'), source);
    return spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', join(dir, 'use.mts')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the types compile with the AI SDK, used as documented', () => {
  const run = compile(USE);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});

test('the types refuse a misspelt option and a wrong callback', () => {
  const run = compile(`${USE}
callfixRepair({ onRejct: () => {} });
callfixSchema({ type: 'object' }, { onReject: ({ message }: { message: number }) => message });
`);
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /onRejct/);
  assert.match(run.stdout, /message/);
  assert.equal(run.stdout.match(/error TS/g)?.length, 2, run.stdout);
});
