// Types for the `callfix` package (CommonJS `index.js`, ES module `index.mjs`).

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The repair kinds (`callfix --help`), or `'all'` / `'none'`. */
export type RepairKind = string;

/** The options every constructor takes (Python's keyword options, camelCased). */
export interface Options {
  /** `'all'` (default), `'none'`, a comma-separated string or a list of kinds. */
  repair?: 'all' | 'none' | string | RepairKind[];
  /** At most this many errors in a message (1..65535, default 5). */
  maxErrors?: number;
  /** Each error cut to this many characters (10..65535, default 100). */
  maxChars?: number;
  /** The text a rejection message starts with. */
  prefix?: string;
  /** Repair rounds at most (1..100, default 6). */
  maxRounds?: number;
}

export interface Repair {
  /** Where (`a.b[0]`; `""` for the whole arguments or the tool name). */
  path: string;
  kind: string;
  from: Json;
  to: Json;
}

export interface ArgError {
  path: string;
  message: string;
}

/** One call's result: the object `callfix --format json` writes, plus `argsJson`. */
export interface CheckResult {
  status: 'valid' | 'repaired' | 'rejected';
  /** The tool called (after `rename-tool`); `null` for a record with no usable call. */
  tool: string | null;
  /** The arguments to use (valid or repaired), parsed; `null` when rejected. */
  args: Json | null;
  /** The arguments' JSON text, every number spelled as sent; `null` when rejected. */
  argsJson: string | null;
  repairs: Repair[];
  errors: ArgError[];
  /** The one line for the model when rejected, else `null`. */
  message: string | null;
  /** The record's number (from 0). */
  index: number;
  /** The call's place in its record (from 0). */
  call: number;
  /** The call's id as sent (`null` when it had none). */
  id: Json;
  /** Whether the model was told to stop retrying (a session only). */
  loop: boolean;
}

/** Calls counted: as sent and after callfix (`callfix report`, docs/report.md). */
export interface ReportCounts {
  calls: number;
  valid: number;
  repaired: number;
  rejected: number;
  /** Calls valid as sent ÷ calls (0 with no calls). */
  schema_accuracy: number;
  /** Calls valid or repaired ÷ calls (0 with no calls). */
  accuracy_after: number;
}

/** One of the most frequent error paths, with the first call that showed it. */
export interface ReportExample {
  tool: string;
  /** `unknown-tool`, `missing-required`, `wrong-type`, `cut-off`, `not-json` or `other`. */
  class: string;
  /** The path of the first error (`""`: the whole arguments). */
  path: string;
  count: number;
  /** The call as sent: one line, escaped, cut. */
  call: string;
}

/** `callfix report --format json`'s object, version 1 (a field may be added, never changed). */
export interface Report extends ReportCounts {
  version: 1;
  /** Per model (the record's `model`, else the label). */
  by_model: Record<string, ReportCounts>;
  by_tool: Record<string, ReportCounts>;
  /** Repair kind → repairs made. */
  repairs: Record<string, number>;
  /** Leak family → calls found written in text. */
  leaks: Record<string, number>;
  /** Rejection class → rejected calls. */
  rejections: Record<string, number>;
  /** Stop reason → calls cut off. */
  cut_off_stops: Record<string, number>;
  /** Records with no readable call (not counted as calls). */
  broken_records: number;
  examples: ReportExample[];
}

/** Tools by name, and how calls to them are checked. */
export class Toolset {
  /** Tools from schemas in memory: `{ toolName: jsonSchema }` (or its JSON text). A broken schema throws, naming the tool. */
  constructor(schemas: Record<string, Json> | string, options?: Options);
  /** Tools from a directory of `<tool>.json` schemas (or one tool-list file); each is compiled when first needed. */
  static fromDir(path: string, options?: Options): Toolset;
  /** Tools from a provider's tool list: OpenAI `tools`, Anthropic tools, Gemini `functionDeclarations`, MCP `tools/list`. */
  static fromTools(tools: Json | string, options?: Options): Toolset;
  /** The tool names, sorted. */
  names(): string[];
  /** Whether `name` is one of the tools. */
  has(name: string): boolean;
  /** Checks one call: `args` as the JSON text the model wrote, or a value (serialised with `JSON.stringify`). */
  check(name: string, args: string | Json): CheckResult;
  /**
   * Checks every call in one record (any envelope the CLI reads): one result per call.
   * `source` names it in messages about a broken record (default `<record>`); `index`
   * numbers it (record `index` of a JSON Lines file, on line `index + 1`; default 0).
   */
  checkRecord(record: string | Json, options?: { source?: string; index?: number }): CheckResult[];
  /**
   * A summary of every call in `records`: the object `callfix report --format json --label LABEL`
   * writes for a file of them. `records`: a log whole (string or bytes, any form the CLI reads),
   * an array or iterable of records (objects or their text, one line each), or one record.
   * Calls whose record names no `model` count under `label` (default `<records>`).
   */
  report(records: string | Uint8Array | Iterable<string | Uint8Array | Json> | { [key: string]: Json }, options?: { label?: string }): Report;
  /** A conversation: the same checks, plus repeated-failure escalation after `loopLimit` (default 3; 0: never). */
  session(options?: { loopLimit?: number }): Session;
}

/** One conversation's checks. */
export class Session {
  private constructor();
  check(name: string, args: string | Json): CheckResult;
  checkRecord(record: string | Json): CheckResult[];
}

/** Renders a description template: `<NAME>` placeholders from `vars` over the built-ins (`PLATFORM`, `DATE`, …). */
export function render(template: string, vars?: Record<string, string | number>): string;

/** The provider payload for every tool: `callfix tools --provider PROVIDER`. */
export function tools(
  toolset: Toolset,
  provider?: string,
  options?: { descriptions?: string; vars?: Record<string, string | number>; openaiStrict?: boolean },
): Json[];

export interface Healed {
  /** The healed request body. */
  request: Json;
  /** Its JSON text, numbers as sent. */
  requestJson: string;
  /** One result per assistant tool call of the history, in order. */
  results: CheckResult[];
  /** How many calls were neutralised. */
  neutralised: number;
  /** With `to`: each piece of content the other provider has no place for, and what became of it. */
  notCarried: string[];
  /** Whether none was. */
  ok: boolean;
}

/** A conversation (OpenAI chat or Anthropic messages request body) made acceptable again, as `callfix heal`. */
export function heal(request: string | Json, toolset?: Toolset | null, options?: { to?: 'openai' | 'anthropic' }): Healed;

export const version: string;

declare const callfix: {
  Toolset: typeof Toolset;
  Session: typeof Session;
  render: typeof render;
  tools: typeof tools;
  heal: typeof heal;
  version: string;
};
export default callfix;
