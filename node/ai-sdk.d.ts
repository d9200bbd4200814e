// Types of callfix/ai-sdk: callfix as the AI SDK's (`ai` 7) tool-call repair
// hook and as the validation of `jsonSchema` tools.

import type { JSONSchema7, NoSuchToolError, InvalidToolInputError, Schema, ToolCallRepairFunction, ToolSet } from 'ai';
import type { Toolset } from 'callfix';

/** The result of `Toolset.check`. */
type CheckResult = ReturnType<Toolset['check']>;
/** The options of `new Toolset(schemas, options)`. */
type ToolsetOptions = NonNullable<ConstructorParameters<typeof Toolset>[1]>;
/** The call the SDK hands the repair hook (its LanguageModelV4ToolCall). */
type ToolCall = Parameters<ToolCallRepairFunction<ToolSet>>[0]['toolCall'];

export interface CallfixRepairOptions {
  /** Called when callfix rejects the call, with its instruction line for the model. */
  onReject?: (info: {
    toolCall: ToolCall;
    message: string;
    result: CheckResult;
    error: NoSuchToolError | InvalidToolInputError;
  }) => void | Promise<void>;
  /** Called when callfix repairs the call, before the repaired call is handed back. */
  onRepair?: (info: { toolCall: ToolCall; result: CheckResult }) => void | Promise<void>;
  /**
   * Keep the SDK's error message for a rejected call. By default the SDK's
   * error (the one it reports as the tool error the model reads) gets
   * callfix's instruction line as its message.
   */
  sdkMessage?: boolean;
  /** Options for the Toolsets built from the tools' schemas (as `new Toolset(schemas, options)`). */
  toolsetOptions?: ToolsetOptions;
}

/**
 * A function for `repairToolCall` (`experimental_repairToolCall`) of
 * `generateText` / `streamText`: repaired → the call with callfix's arguments
 * (and tool name, for an unknown name meaning exactly one declared tool);
 * rejected → `null`, the SDK's tool error carrying callfix's instruction.
 */
export declare function callfixRepair<TOOLS extends ToolSet = ToolSet>(options?: CallfixRepairOptions): ToolCallRepairFunction<TOOLS>;

export interface CallfixSchemaOptions {
  /** The tool name callfix checks under (default `"input"`); it names the tool in a schema error. */
  name?: string;
  /** Called when callfix rejects a value, with its instruction line. */
  onReject?: (info: { value: unknown; message: string; result: CheckResult }) => void | Promise<void>;
  /** Called when callfix repairs a value. */
  onRepair?: (info: { value: unknown; result: CheckResult }) => void | Promise<void>;
  /** Options for the Toolset (as `new Toolset(schemas, options)`). */
  toolsetOptions?: ToolsetOptions;
}

/**
 * `jsonSchema(schema, { validate })` whose validation is callfix's: valid →
 * the value, repaired → the repaired value, rejected → an Error whose message
 * is callfix's instruction line. Throws at once if the schema is broken.
 */
export declare function callfixSchema<OBJECT = unknown>(schema: JSONSchema7, options?: CallfixSchemaOptions): Schema<OBJECT>;
