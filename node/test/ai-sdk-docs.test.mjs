// The examples of the AI SDK section of the docs run as written: each ```js block, with
// `model` an AI SDK mock model making the call its `<!-- model: TOOL INPUT -->`
// comment names (once; then it says "done"). Run by scripts/test_node_ai_sdk.sh,
// which copies docs/node.md to ../docs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MockLanguageModelV4 } from 'ai/test';

const here = dirname(fileURLToPath(import.meta.url));
// The "## AI SDK" section of docs/node.md.
const file = join(here, '..', 'docs', 'node.md');
const all = readFileSync(file, 'utf8');
const start = all.indexOf('## AI SDK\n');
assert.notEqual(start, -1, `no "## AI SDK" section in ${file}`);
const next = all.indexOf('\n## ', start + 1);
const doc = all.slice(start, next === -1 ? undefined : next + 1);
const examples = [...doc.matchAll(/<!-- model: (\S+) (.*?) -->\n```js\n([\s\S]*?)```/g)];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

test('the AI SDK section of the docs has its examples', () => {
  assert.equal(examples.length, 2);
  assert.equal(examples.length, [...doc.matchAll(/```js\n/g)].length);
});

for (const [, toolName, input, code] of examples) {
  test(`docs example: ${toolName} ${input}`, async () => {
    globalThis.model = new MockLanguageModelV4({
      doGenerate: [
        {
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        },
      ],
    });
    // Written beside this file so that its imports resolve from the project.
    const dir = mkdtempSync(join(here, 'doc-example-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, code);
      await import(pathToFileURL(file).href);
      assert.equal(globalThis.model.doGenerateCalls.length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      delete globalThis.model;
    }
  });
}
