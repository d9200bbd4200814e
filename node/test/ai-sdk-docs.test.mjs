// The examples of docs/node-ai-sdk.md run as written: each ```js block, with
// `model` an AI SDK mock model making the call its `<!-- model: TOOL INPUT -->`
// comment names (once; then it says "done"). Run by scripts/test_node_ai_sdk.sh,
// which copies the doc beside this file's directory (../docs).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MockLanguageModelV4 } from 'ai/test';

const here = dirname(fileURLToPath(import.meta.url));
const doc = readFileSync(join(here, '..', 'docs', 'node-ai-sdk.md'), 'utf8');
const examples = [...doc.matchAll(/<!-- model: (\S+) (.*?) -->\n```js\n([\s\S]*?)```/g)];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

test('docs/node-ai-sdk.md has its examples', () => {
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
