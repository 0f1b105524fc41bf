// Helpers for ids that the kit exported before its request step gave handlers exact ids
// (int64 fields as bigint). Kept so that servers written against them still compile; new code
// needs none of them (docs/server.md, "Ids").
import { inexactIntegers, parseJsonLossless, toId, withBigIntsAsNumbers } from "../json/index.js";

export { parseIdText, stringifyExactJson, toId } from "../json/index.js";

/** @deprecated Handlers receive int64 ids as bigint already. An optional id (number or bigint) as bigint. */
export function toOptionalId(value: unknown): bigint | undefined {
  return value === undefined || value === null ? undefined : toId(value);
}

/** @deprecated Use parseJsonLossless (merchant-open-platform). Parses JSON text; integers beyond 2^53 become bigint. */
export function parseExactJson(text: string): unknown {
  return parseJsonLossless(text);
}

/** @deprecated The kit converts answers itself. A deep copy in which every bigint is a number. */
export function toNumberCopy(value: unknown): unknown {
  return withBigIntsAsNumbers(value);
}

/** @deprecated Paths ("items[0].itemId") of integers outside the int64 range. */
export function int64Overflows(value: unknown, path = ""): string[] {
  return inexactIntegers(value, path)
    .filter((problem) => problem.overflow)
    .map((problem) => problem.path);
}
