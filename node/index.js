'use strict';
// callfix for Node: a thin layer over the native addon (native.js loads the
// `.node` built for this platform, from this directory or from the
// per-platform package `callfix-<platform>`, napi-rs's loader).
// Values cross as JSON text: arguments and records given as objects are
// serialised here with JSON.stringify (faster than walking them through
// napi), and each result is the object `callfix --format json` writes for
// the same call, plus `argsJson` (the arguments' JSON text, numbers as sent),
// parsed here with one JSON.parse; a call valid as sent comes back in short,
// and its object is built here (`result`).

const native = require('./native.js');

const { NativeToolset, NativeSession, nativeRender, nativeTools, nativeHeal } = native;

// JSON text of a value given as text or as a JSON-able value.
function jsonText(value, what) {
  if (typeof value === 'string') return value;
  const text = JSON.stringify(value);
  if (text === undefined) {
    throw new TypeError(`${what}: expected JSON text or a JSON value, got ${typeof value}`);
  }
  return text;
}

function optionsText(options) {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('options: expected an object');
  }
  return JSON.stringify(options);
}

function toolName(name) {
  if (typeof name !== 'string') {
    throw new TypeError(`name: expected a string, got ${typeof name}`);
  }
  return name;
}

// A result from the addon: the JSON text of the whole object, or (a call
// valid as sent, no id, an ASCII tool name) `v` (its arguments' JSON text is
// `text`, the text sent, byte for byte) or `V` and the arguments' JSON text,
// from which the object `callfix --format json` writes is built here
// without parsing it (test/api.test.mjs pins the forms together). `args` is
// then parsed from `argsJson` when first read (a caller that wants only the
// status or the text pays no JSON.parse): an own, enumerable accessor that
// makes itself a plain data property when read or written.
function result(out, name, text) {
  const code = out.charCodeAt(0);
  if (code === 118 /* v */ && out.length === 1) return valid(name, text);
  if (code === 86 /* V */) return valid(name, out.slice(1));
  return JSON.parse(out);
}

function settle(object, value) {
  try {
    Object.defineProperty(object, 'args', { value, writable: true, enumerable: true, configurable: true });
  } catch {
    // A frozen result: each read parses again.
  }
  return value;
}

// One descriptor for every result: V8 then gives them all one shape (an
// accessor made per result, or a getter in the literal, costs half a µs).
const LAZY_ARGS = {
  get() {
    return settle(this, JSON.parse(this.argsJson));
  },
  set(value) {
    settle(this, value);
  },
  enumerable: true,
  configurable: true,
};

function valid(name, argsJson) {
  // The members in the order of the whole object (argsJson, then the
  // `--format json` line's).
  const r = { argsJson, index: 0, call: 0, id: null, tool: name, status: 'valid' };
  Object.defineProperty(r, 'args', LAZY_ARGS);
  r.repairs = [];
  r.errors = [];
  r.message = null;
  r.loop = false;
  return r;
}

// The bytes of one log: a string or bytes as they are; an iterable's items
// (not a string's characters) one line each, an object as its JSON text.
function logBytes(records) {
  if (typeof records === 'string') return Buffer.from(records, 'utf8');
  if (records instanceof Uint8Array) {
    return Buffer.from(records.buffer, records.byteOffset, records.byteLength);
  }
  if (records !== null && typeof records === 'object' && typeof records[Symbol.iterator] === 'function') {
    const parts = [];
    for (const record of records) {
      const part = record instanceof Uint8Array ? Buffer.from(record) : Buffer.from(jsonText(record, 'record'), 'utf8');
      parts.push(part);
      if (part.length === 0 || part[part.length - 1] !== 10) parts.push(NEWLINE);
    }
    return Buffer.concat(parts);
  }
  if (records !== null && typeof records === 'object') return Buffer.from(jsonText(records, 'records'), 'utf8');
  throw new TypeError(`records: expected a log (string or bytes), records or a record, got ${records === null ? 'null' : typeof records}`);
}

const NEWLINE = Buffer.from('\n');

// `_native` is the addon's toolset; `_check` its `check` as a function of
// its own (`checker`), which a call reaches without the receiver checks a
// method pays.
function hold(ts, inner) {
  Object.defineProperty(ts, '_native', { value: inner });
  Object.defineProperty(ts, '_check', { value: inner.checker() });
  return ts;
}

function wrapToolset(inner) {
  return hold(Object.create(Toolset.prototype), inner);
}

class Toolset {
  /** Tools from schemas in memory: `{ toolName: jsonSchema }` (or its JSON text). */
  constructor(schemas, options) {
    hold(this, NativeToolset.fromSchemas(jsonText(schemas, 'schemas'), optionsText(options)));
  }

  /** Tools from a directory of `<tool>.json` schemas (or one tool-list file). */
  static fromDir(path, options) {
    if (typeof path !== 'string') throw new TypeError('path: expected a string');
    return wrapToolset(NativeToolset.fromDir(path, optionsText(options)));
  }

  /** Tools from a provider's tool list: OpenAI, Anthropic, Gemini or MCP `tools/list`. */
  static fromTools(tools, options) {
    return wrapToolset(NativeToolset.fromTools(jsonText(tools, 'tools'), optionsText(options)));
  }

  /** The tool names, sorted. */
  names() {
    return this._native.names();
  }

  /** Whether `name` is one of the tools. */
  has(name) {
    return this._native.has(toolName(name));
  }

  /** Checks one call: `args` as the JSON text the model wrote, or a value. */
  check(name, args) {
    const text = jsonText(args, 'args');
    return result(this._check(toolName(name), text), name, text);
  }

  /**
   * Checks every call in one record, in any envelope the CLI reads. `source`
   * names it in messages about a broken record, `index` numbers it (as record
   * `index` of a JSON Lines file, on line `index + 1`).
   */
  checkRecord(record, options) {
    const { source, index } = options || {};
    if (index !== undefined && !(Number.isSafeInteger(index) && index >= 0)) {
      throw new RangeError(`index: expected an integer from 0, got ${index}`);
    }
    return JSON.parse(
      this._native.checkRecord(
        jsonText(record, 'record'),
        source === undefined ? undefined : String(source),
        index,
      ),
    );
  }

  /**
   * A summary of every call in `records`: the object `callfix report
   * --format json --label LABEL` writes for a file of them (version 1).
   * `records` is a log whole (a string, or bytes: a Buffer or Uint8Array) in
   * any form the CLI reads, or an array or other iterable of records (each an
   * object, or its text: one line each), or one record (an object).
   */
  report(records, options) {
    const { label } = options || {};
    if (label !== undefined && typeof label !== 'string') {
      throw new TypeError(`label: expected a string, got ${typeof label}`);
    }
    return JSON.parse(this._native.report(logBytes(records), label));
  }

  /** A conversation: the same checks, plus repeated-failure escalation. */
  session(options) {
    const loopLimit = options && options.loopLimit !== undefined ? options.loopLimit : 3;
    if (!Number.isInteger(loopLimit) || loopLimit < 0 || loopLimit > 0xffffffff) {
      throw new RangeError(`loopLimit: expected an integer from 0, got ${loopLimit}`);
    }
    return new Session(this._native.session(loopLimit));
  }

  toString() {
    return `Toolset(${this._native.names().length} tools)`;
  }
}

class Session {
  constructor(inner) {
    if (!(inner instanceof NativeSession)) {
      throw new TypeError('a Session comes from toolset.session()');
    }
    Object.defineProperty(this, '_native', { value: inner });
  }

  /** As `Toolset.check`, counting repeated rejections. */
  check(name, args) {
    const text = jsonText(args, 'args');
    return result(this._native.check(toolName(name), text), name, text);
  }

  /** As `Toolset.checkRecord`, counting repeated rejections. */
  checkRecord(record) {
    return JSON.parse(this._native.checkRecord(jsonText(record, 'record')));
  }
}

function nativeOf(toolset) {
  if (!(toolset instanceof Toolset)) throw new TypeError('expected a Toolset');
  return toolset._native;
}

/** Renders a description template: `<NAME>` placeholders from `vars` over the built-ins. */
function render(template, vars) {
  if (typeof template !== 'string') throw new TypeError('template: expected a string');
  return nativeRender(template, vars === undefined ? undefined : optionsText(vars));
}

/** The provider payload for every tool, as `callfix tools --provider PROVIDER`. */
function tools(toolset, provider = 'openai', options = {}) {
  const { descriptions, vars, openaiStrict = false } = options || {};
  return JSON.parse(
    nativeTools(
      nativeOf(toolset),
      String(provider),
      descriptions === undefined ? undefined : String(descriptions),
      vars === undefined ? undefined : optionsText(vars),
      Boolean(openaiStrict),
    ),
  );
}

/** A conversation (OpenAI chat or Anthropic messages request) made acceptable again, as `callfix heal`. */
function heal(request, toolset, options = {}) {
  const { to } = options || {};
  const out = JSON.parse(
    nativeHeal(
      jsonText(request, 'request'),
      toolset === undefined || toolset === null ? undefined : nativeOf(toolset),
      to === undefined ? undefined : String(to),
    ),
  );
  return {
    request: JSON.parse(out.requestJson),
    requestJson: out.requestJson,
    results: out.results,
    neutralised: out.neutralised,
    notCarried: out.notCarried,
    ok: out.neutralised === 0,
  };
}

const version = require('./package.json').version;

module.exports = { Toolset, Session, render, tools, heal, version };
// `import callfix from 'callfix'` under TypeScript's CommonJS interop.
module.exports.default = module.exports;
