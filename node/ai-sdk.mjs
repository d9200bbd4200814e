// callfix/ai-sdk: callfix as the Vercel AI SDK's tool-call repair hook and as
// the validation of `jsonSchema` tools. A thin layer over `Toolset.check`: it
// decides nothing the library does not; it only moves results in and out of
// the shapes the AI SDK (`ai` 7) hands and expects.
//
// - callfixRepair(options) -> the function for `repairToolCall`
//   (`experimental_repairToolCall`) of generateText/streamText.
// - callfixSchema(schema, options) -> `jsonSchema(schema, { validate })` whose
//   validation is callfix's.

import { jsonSchema, NoSuchToolError } from 'ai';
import { Toolset } from 'callfix';

// Compiled Toolsets kept per hook, keyed by the JSON text of what they were
// built from; the least recently used goes first once there are this many.
const CACHE_SIZE = 64;

class ToolsetCache {
  #map = new Map();
  #options;

  constructor(options) {
    this.#options = options;
  }

  get(schemas) {
    const key = JSON.stringify(schemas);
    let ts = this.#map.get(key);
    if (ts !== undefined) {
      this.#map.delete(key);
    } else {
      ts = this.#options === undefined ? new Toolset(schemas) : new Toolset(schemas, this.#options);
      if (this.#map.size >= CACHE_SIZE) {
        this.#map.delete(this.#map.keys().next().value);
      }
    }
    this.#map.set(key, ts);
    return ts;
  }
}

const own = (object, key) => object != null && Object.prototype.hasOwnProperty.call(object, key);

/**
 * The function to pass as `repairToolCall` (or the deprecated
 * `experimental_repairToolCall`) to `generateText` / `streamText`.
 *
 * The SDK calls it only when its own parsing or validation of a call failed.
 * It checks `toolCall.input` (the text the model sent) with callfix:
 * - repaired: resolves to `{ ...toolCall, toolName, input: argsJson }`;
 * - rejected: calls `onReject`, gives the SDK's error callfix's instruction
 *   line as its message (unless `sdkMessage`), and resolves to `null`, so the
 *   SDK reports its tool error to the model in callfix's words;
 * - valid by callfix's reading (the SDK's schema asked more than its JSON
 *   Schema says): resolves to `null`, the SDK's error left as it is.
 * A tool name the SDK does not know (NoSuchToolError) is checked against all
 * declared tools: repaired when exactly one of them is meant.
 */
export function callfixRepair(options = {}) {
  const { onReject, onRepair, sdkMessage = false, toolsetOptions } = options;
  const cache = new ToolsetCache(toolsetOptions);

  return async function callfixRepairToolCall({ toolCall, tools, inputSchema, error }) {
    const name = toolCall.toolName;
    const unknown = NoSuchToolError.isInstance(error) || !own(tools, name);
    const schemas = {};
    if (unknown) {
      // The hook's inputSchema for an unknown name is a placeholder: the
      // declared tools are the keys of `tools`.
      for (const declared of Object.keys(tools ?? {})) {
        schemas[declared] = await inputSchema({ toolName: declared });
      }
    } else {
      schemas[name] = await inputSchema({ toolName: name });
    }
    const result = cache.get(schemas).check(name, toolCall.input);

    if (result.status === 'repaired') {
      if (onRepair) await onRepair({ toolCall, result });
      return { ...toolCall, toolName: result.tool, input: result.argsJson };
    }
    if (result.status === 'rejected') {
      if (onReject) await onReject({ toolCall, message: result.message, result, error });
      if (!sdkMessage && error instanceof Error) error.message = result.message;
    }
    return null;
  };
}

/**
 * `jsonSchema(schema, { validate })` whose validation is callfix's: a valid
 * value is passed on as it is, a repairable one as callfix repaired it, and a
 * rejected one fails with an Error whose message is callfix's instruction line.
 * The schema is compiled here, once: a broken one throws now.
 */
export function callfixSchema(schema, options = {}) {
  const { name = 'input', onReject, onRepair, toolsetOptions } = options;
  const schemas = { [name]: schema };
  const ts = toolsetOptions === undefined ? new Toolset(schemas) : new Toolset(schemas, toolsetOptions);

  return jsonSchema(schema, {
    validate: async (value) => {
      const result = ts.check(name, value);
      if (result.status === 'valid') return { success: true, value };
      if (result.status === 'repaired') {
        if (onRepair) await onRepair({ value, result });
        return { success: true, value: result.args };
      }
      if (onReject) await onReject({ value, message: result.message, result });
      return { success: false, error: new Error(result.message) };
    },
  });
}
