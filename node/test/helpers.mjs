// Paths shared by the tests: the repository's root, its shipped schemas and
// examples, and the callfix command ($CALLFIX, else target/debug/callfix).
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCHEMAS = path.join(ROOT, 'schemas');
export const EXAMPLES = path.join(ROOT, 'examples');
export const CALLFIX = process.env.CALLFIX || path.join(ROOT, 'target', 'debug', 'callfix');
