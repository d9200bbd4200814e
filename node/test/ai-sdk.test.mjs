// callfix/ai-sdk end to end through the AI SDK itself (`ai` 7, its own mock
// model from `ai/test`): the model's tool call goes through generateText, the
// SDK's parsing and validation, our hook or schema, and the tool's execute.
// Run by scripts/test_node_ai_sdk.sh (Node >= 22, pinned `ai`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { generateText, streamText, tool, jsonSchema, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { callfixRepair, callfixSchema } from 'callfix/ai-sdk';

const READ = {
  type: 'object',
  properties: { path: { type: 'string' }, limit: { type: 'integer' } },
  required: ['path'],
  additionalProperties: false,
};
const HOPELESS = 'Please rewrite the input with valid arguments. Errors: path: Required; limit: expected integer, got string';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

// A model that makes one tool call, then (if asked again) says "done".
function model(toolName, input) {
  return new MockLanguageModelV4({
    doGenerate: [
      {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName, input }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      },
      {
        content: [{ type: 'text', text: 'done' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      },
    ],
  });
}

// Tools whose execute records what it was given.
function zodTools(seen) {
  const execute = async (input) => {
    seen.push(input);
    return 'ok';
  };
  return {
    read: tool({
      inputSchema: z.object({ path: z.string(), limit: z.number().int().optional() }).strict(),
      execute,
    }),
    grep: tool({ inputSchema: z.object({ pattern: z.string() }), execute }),
  };
}

function schemaTools(seen) {
  const execute = async (input) => {
    seen.push(input);
    return 'ok';
  };
  return {
    read: tool({ inputSchema: callfixSchema(READ), execute }),
    grep: tool({
      inputSchema: callfixSchema({ type: 'object', properties: { pattern: { type: 'string' } }, required: ['pattern'] }),
      execute,
    }),
  };
}

// A repair hook that counts its calls.
function counted(hook) {
  const calls = [];
  const fn = async (options) => {
    calls.push(options);
    return hook(options);
  };
  return { fn, calls };
}

// The SDK's error for an invalid call: the Error on the invalid tool-call part,
// and the text of the tool-error part (what the model is sent).
function sdkError(result) {
  const [call] = parts(result, 'tool-call').filter((p) => p.invalid);
  const [err] = parts(result, 'tool-error');
  assert.equal(err.toolCallId, call.toolCallId);
  return { error: call.error, text: err.error, toolName: err.toolName };
}

function parts(result, type) {
  return result.steps.flatMap((s) => s.content).filter((p) => p.type === type);
}

// The text of the tool result the model is sent in the next step.
function toolMessageText(m) {
  const prompt = m.doGenerateCalls.at(-1).prompt;
  return JSON.stringify(prompt.filter((x) => x.role === 'tool'));
}

test('callfixRepair: a broken input reaches execute repaired', async () => {
  const seen = [];
  const hook = counted(callfixRepair());
  const result = await generateText({
    model: model('read', '{"path": "/a", "limit": "3"}'),
    tools: zodTools(seen),
    repairToolCall: hook.fn,
    prompt: 'read /a',
  });
  assert.equal(hook.calls.length, 1);
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
  assert.deepEqual(parts(result, 'tool-result').map((p) => [p.toolName, p.input, p.output]), [
    ['read', { path: '/a', limit: 3 }, 'ok'],
  ]);
  assert.deepEqual(parts(result, 'tool-error'), []);
});

test('callfixRepair: a renamed key is repaired (experimental_repairToolCall too)', async () => {
  const seen = [];
  const repairs = [];
  const read = tool({ inputSchema: z.object({ file_path: z.string() }).strict(), execute: async (i) => seen.push(i) });
  await generateText({
    model: model('read', '{"filePath": "/a"}'),
    tools: { read },
    experimental_repairToolCall: callfixRepair({ onRepair: ({ result }) => repairs.push(result.repairs) }),
    prompt: 'read /a',
  });
  assert.deepEqual(seen, [{ file_path: '/a' }]);
  assert.deepEqual(repairs.flat().map((r) => [r.kind, r.from, r.to]), [['rename-key', 'filePath', 'file_path']]);
});

test('callfixRepair: a hopeless input is the SDK tool error, in callfix words, and the model reads them', async () => {
  const seen = [];
  const rejects = [];
  const m = model('read', '{"limit": "x"}');
  const result = await generateText({
    model: m,
    tools: zodTools(seen),
    repairToolCall: callfixRepair({ onReject: (info) => rejects.push(info) }),
    stopWhen: isStepCount(2),
    prompt: 'read',
  });
  assert.deepEqual(seen, []);
  const err = sdkError(result);
  assert.equal(err.toolName, 'read');
  assert.equal(err.error.name, 'AI_InvalidToolInputError');
  assert.equal(err.error.message, HOPELESS);
  assert.equal(err.text, `AI_InvalidToolInputError: ${HOPELESS}`);
  assert.ok(toolMessageText(m).includes(HOPELESS), toolMessageText(m));
  assert.equal(rejects.length, 1);
  assert.equal(rejects[0].message, HOPELESS);
  assert.equal(rejects[0].toolCall.toolCallId, 'c1');
  assert.equal(rejects[0].result.status, 'rejected');
  assert.deepEqual(rejects[0].result.errors, [
    { path: 'path', message: 'Required' },
    { path: 'limit', message: 'expected integer, got string' },
  ]);
});

test('callfixRepair({ sdkMessage: true }) leaves the SDK its own words', async () => {
  const rejects = [];
  const result = await generateText({
    model: model('read', '{"limit": "x"}'),
    tools: zodTools([]),
    repairToolCall: callfixRepair({ sdkMessage: true, onReject: ({ message }) => rejects.push(message) }),
    prompt: 'read',
  });
  const err = sdkError(result);
  assert.match(err.error.message, /^Invalid input for tool read: /);
  assert.ok(!err.text.includes(HOPELESS), err.text);
  assert.deepEqual(rejects, [HOPELESS]);
});

test('callfixRepair: a valid input never calls the repair function', async () => {
  const seen = [];
  const hook = counted(callfixRepair());
  const result = await generateText({
    model: model('read', '{"path": "/a", "limit": 3}'),
    tools: zodTools(seen),
    repairToolCall: hook.fn,
    prompt: 'read /a',
  });
  assert.equal(hook.calls.length, 0);
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
  assert.equal(parts(result, 'tool-result').length, 1);
});

test('callfixRepair: an unknown tool name meaning exactly one declared tool is repaired', async () => {
  const seen = [];
  const hook = counted(callfixRepair());
  const result = await generateText({
    model: model('functions.Read', '{"path": "/a", "limit": "3"}'),
    tools: zodTools(seen),
    repairToolCall: hook.fn,
    prompt: 'read /a',
  });
  assert.equal(hook.calls.length, 1);
  assert.equal(hook.calls[0].error.name, 'AI_NoSuchToolError');
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
  assert.deepEqual(parts(result, 'tool-result').map((p) => p.toolName), ['read']);
});

test('callfixRepair: an unknown tool name matching no declared tool is rejected in callfix words', async () => {
  const rejects = [];
  const result = await generateText({
    model: model('write', '{"path": "/a"}'),
    tools: zodTools([]),
    repairToolCall: callfixRepair({ onReject: ({ message }) => rejects.push(message) }),
    prompt: 'write',
  });
  const err = sdkError(result);
  assert.equal(err.error.name, 'AI_NoSuchToolError');
  assert.equal(rejects.length, 1);
  // The tools are listed in the order of the Toolset's source.
  assert.match(rejects[0], /^Unknown tool "write"\. Available tools: (grep, read|read, grep)/);
  assert.equal(err.error.message, rejects[0]);
  assert.equal(err.text, `AI_NoSuchToolError: ${rejects[0]}`);
});

test('callfixSchema: a broken input reaches execute repaired, with no repair hook', async () => {
  const seen = [];
  const result = await generateText({
    model: model('read', '{"path": "/a", "limit": "3"}'),
    tools: schemaTools(seen),
    prompt: 'read /a',
  });
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
  assert.deepEqual(parts(result, 'tool-error'), []);
});

test('callfixSchema: a hopeless input is the SDK tool error carrying callfix instruction', async () => {
  const seen = [];
  const rejects = [];
  const m = model('read', '{"limit": "x"}');
  const tools = schemaTools(seen);
  tools.read = tool({ inputSchema: callfixSchema(READ, { onReject: ({ message }) => rejects.push(message) }), execute: tools.read.execute });
  const result = await generateText({ model: m, tools, stopWhen: isStepCount(2), prompt: 'read' });
  assert.deepEqual(seen, []);
  const err = sdkError(result);
  assert.equal(err.error.name, 'AI_InvalidToolInputError');
  assert.ok(err.text.endsWith(HOPELESS), err.text);
  assert.ok(toolMessageText(m).includes(HOPELESS));
  assert.deepEqual(rejects, [HOPELESS]);
});

test('callfixSchema: a valid input is passed on as it is and never calls the repair function', async () => {
  const seen = [];
  const hook = counted(callfixRepair());
  await generateText({
    model: model('read', '{"path": "/a", "limit": 3}'),
    tools: schemaTools(seen),
    repairToolCall: hook.fn,
    prompt: 'read /a',
  });
  assert.equal(hook.calls.length, 0);
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
});

test('callfixSchema without callfix is what the issue is about: plain jsonSchema lets "3" through', async () => {
  const seen = [];
  await generateText({
    model: model('read', '{"path": "/a", "limit": "3"}'),
    tools: { read: tool({ inputSchema: jsonSchema(READ), execute: async (i) => seen.push(i) }) },
    prompt: 'read /a',
  });
  assert.deepEqual(seen, [{ path: '/a', limit: '3' }]);
});

test('callfixSchema + callfixRepair: input that is not JSON (never validated) is repaired by the hook', async () => {
  const seen = [];
  const hook = counted(callfixRepair());
  await generateText({
    model: model('read', "{'path': '/a', 'limit': 3,}"),
    tools: schemaTools(seen),
    repairToolCall: hook.fn,
    prompt: 'read /a',
  });
  assert.equal(hook.calls.length, 1);
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
});

test('callfixRepair works the same in streamText', async () => {
  const seen = [];
  const m = new MockLanguageModelV4({
    doStream: {
      stream: new ReadableStream({
        start(c) {
          c.enqueue({ type: 'stream-start', warnings: [] });
          c.enqueue({ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: '{"path": "/a", "limit": "3"}' });
          c.enqueue({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage });
          c.close();
        },
      }),
    },
  });
  const result = streamText({ model: m, tools: zodTools(seen), repairToolCall: callfixRepair(), prompt: 'read /a' });
  await result.consumeStream();
  assert.deepEqual(seen, [{ path: '/a', limit: 3 }]);
  assert.deepEqual((await result.toolResults).map((r) => r.input), [{ path: '/a', limit: 3 }]);
});

test('callfixRepair: a tool name that is an Object.prototype key is an unknown tool, rejected', async () => {
  for (const name of ['constructor', '__proto__', 'hasOwnProperty']) {
    const rejects = [];
    const result = await generateText({
      model: model(name, '{}'),
      tools: zodTools([]),
      repairToolCall: callfixRepair({ onReject: ({ message }) => rejects.push(message) }),
      prompt: 'x',
    });
    assert.equal(sdkError(result).error.name, 'AI_NoSuchToolError');
    assert.equal(rejects.length, 1, name);
    assert.match(rejects[0], /^Unknown tool /);
  }
});

test('callfixRepair: a schema callfix cannot compile is the SDK repair error, naming the tool', async () => {
  const broken = jsonSchema({ type: 'objekt' }, { validate: () => ({ success: false, error: new Error('no') }) });
  const result = await generateText({
    model: model('read', '{}'),
    tools: { read: tool({ inputSchema: broken, execute: async () => 'ok' }) },
    repairToolCall: callfixRepair(),
    prompt: 'x',
  });
  const err = sdkError(result);
  assert.equal(err.error.name, 'AI_ToolCallRepairError');
  assert.match(err.text, /read/);
});

test('callfixRepair hands back the arguments with their numbers as the model wrote them', async () => {
  const hook = callfixRepair();
  const schema = { type: 'object', properties: { size: { type: 'number' }, limit: { type: 'integer' } } };
  const toolCall = { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: '{"size": 1.50, "big": 12345678901234567890, "limit": "3"}' };
  const repaired = await hook({ toolCall, tools: { read: {} }, inputSchema: async () => schema, error: new Error('invalid') });
  assert.deepEqual(repaired, { ...toolCall, input: '{"size":1.50,"big":12345678901234567890,"limit":3}' });
});

// (Through generateText such input overflows the SDK's own stack first, in its
// cloneValue: the hook is called directly.)
test('callfixRepair: input nested past what callfix reads is a thrown Error, not a crash', async () => {
  const deep = `{"path": ${'['.repeat(100000)}${']'.repeat(100000)}}`;
  const toolCall = { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: deep };
  await assert.rejects(
    callfixRepair()({ toolCall, tools: { read: {} }, inputSchema: async () => READ, error: new Error('invalid') }),
    (e) => e instanceof Error && /nest/.test(e.message),
  );
});

test('callfixSchema: a broken schema throws at once, naming the tool', () => {
  assert.throws(() => callfixSchema({ type: 'objekt' }, { name: 'read' }), /read/);
});

test('callfix/ai-sdk is the same module through require (Node >= 22.12)', () => {
  const require = createRequire(import.meta.url);
  const cjs = require('callfix/ai-sdk');
  assert.equal(cjs.callfixRepair, callfixRepair);
  assert.equal(cjs.callfixSchema, callfixSchema);
});
