// Types of the stand-in for `callfix` (ai-sdk-fake-callfix.mjs): the fixed
// shape of the addon's Toolset, as far as callfix/ai-sdk uses it.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface Options {
  repair?: string | string[];
  maxErrors?: number;
  maxChars?: number;
  prefix?: string;
  maxRounds?: number;
}

export interface CheckResult {
  status: 'valid' | 'repaired' | 'rejected';
  tool: string | null;
  args: Json | null;
  argsJson: string | null;
  repairs: { path: string; kind: string; from: Json; to: Json }[];
  errors: { path: string; message: string }[];
  message: string | null;
}

export class Toolset {
  constructor(schemas: Record<string, Json> | string, options?: Options);
  names(): string[];
  check(name: string, args: string | Json): CheckResult;
}
