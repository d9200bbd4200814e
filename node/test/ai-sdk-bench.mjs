// What callfix/ai-sdk costs per call, beside Toolset.check alone (not a test:
// run with Node 22 in the project scripts/test_node_ai_sdk.sh sets up, e.g.
// TMP/project/node_modules/.bin/node ai-sdk-bench.mjs copied there).
import { callfixRepair, callfixSchema } from 'callfix/ai-sdk';
import { Toolset } from 'callfix';
const schema = { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } }, required: ['path'], additionalProperties: false };
const tools = { read: {}, grep: {}, glob: {} };
const hook = callfixRepair();
const toolCall = { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: '{"path": "/a", "limit": "3"}' };
const opts = { toolCall, tools, inputSchema: async () => schema, error: new Error('x') };
const N = 100000;
for (let i = 0; i < 1000; i++) await hook(opts);
let t = performance.now();
for (let i = 0; i < N; i++) await hook(opts);
console.log(`callfixRepair, repaired call, cached Toolset: ${((performance.now() - t) * 1000 / N).toFixed(2)} µs/call`);
const ts = new Toolset({ read: schema });
t = performance.now();
for (let i = 0; i < N; i++) ts.check('read', toolCall.input);
console.log(`Toolset.check alone, same call: ${((performance.now() - t) * 1000 / N).toFixed(2)} µs/call`);
const v = callfixSchema(schema, { name: 'read' }).validate;
t = performance.now();
for (let i = 0; i < N; i++) await v({ path: '/a', limit: 3 });
console.log(`callfixSchema validate, valid value: ${((performance.now() - t) * 1000 / N).toFixed(2)} µs/call`);
t = performance.now();
for (let i = 0; i < 1000; i++) new Toolset({ read: schema });
console.log(`new Toolset (one schema), what the cache saves: ${((performance.now() - t) * 1000 / 1000).toFixed(2)} µs`);
