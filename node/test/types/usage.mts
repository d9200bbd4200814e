// Compiled by types.test.mjs with `tsc --noEmit` (ES module consumer).
import callfix, { Toolset } from 'callfix';

const a: Toolset = new callfix.Toolset({ read: { type: 'object' } });
const b = Toolset.fromTools([{ name: 'x', input_schema: { type: 'object' } }]);
const names: string[] = a.names().concat(b.names());
// @ts-expect-error: check takes a tool name first
a.check({ path: 1 });
export { names };
