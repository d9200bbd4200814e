// callfix/ai-sdk for require(): the AI SDK (`ai` 7) is ESM-only and needs
// Node >= 22, whose require() loads ES modules (unflagged from 22.12), so this
// is the ES module itself, not a second copy of it.
'use strict';

try {
  module.exports = require('./ai-sdk.mjs');
} catch (error) {
  if (error && error.code === 'ERR_REQUIRE_ESM') {
    throw new Error(
      'callfix/ai-sdk: the AI SDK is ESM-only; use `import { callfixRepair } from "callfix/ai-sdk"`, or Node >= 22.12, whose require() loads ES modules',
      { cause: error },
    );
  }
  throw error;
}
