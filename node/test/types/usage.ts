// Compiled by types.test.mjs with `tsc --noEmit` (CommonJS consumer).
import { Toolset, render, tools, heal, type CheckResult, type Report } from 'callfix';

const ts: Toolset = new Toolset({ read: { type: 'object' } }, { repair: ['coerce-number'], maxErrors: 3 });
const r: CheckResult = ts.check('read', { path: '/a' });
const status: 'valid' | 'repaired' | 'rejected' = r.status;
const text: string | null = r.argsJson;
const fromDir = Toolset.fromDir('schemas', { repair: 'none' });
const many: CheckResult[] = fromDir.checkRecord('{}', { source: 'x', index: 1 });
const s = ts.session({ loopLimit: 2 });
const looped: boolean = s.check('read', '{}').loop;
const out: string = render('<PLATFORM>', { V1: 1 });
const payload = tools(ts, 'anthropic', { openaiStrict: false });
const healed = heal({ messages: [] }, ts, { to: 'openai' });
const ok: boolean = healed.ok;
const report: Report = fromDir.report([{ name: 'read', arguments: {} }, '{}'], { label: 'local' });
const after: number = report.by_model['local'].accuracy_after + report.accuracy_after;
const worst: string = report.examples[0].class;
fromDir.report(new Uint8Array(0));
// @ts-expect-error: the label is a string
fromDir.report('', { label: 3 });
// @ts-expect-error: the status is one of three words
const wrong: 'maybe' = r.status;
// @ts-expect-error: options are typed
new Toolset({}, { maxErrors: 'five' });
export { status, text, many, looped, out, payload, ok, wrong, after, worst };
