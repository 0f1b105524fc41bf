// int64 in the sandbox (DESIGN item 11): ids are bigint inside, JSON is read and written
// losslessly (src/json, the package's one int64 decision), and only the validator ever sees
// Numbers (Ajv's `integer` refuses bigint). A Number copy may round an id above 2^53, which is
// harmless for validation (the rules are "integer", "minimum 1", "format int64"); the exact
// value travels beside it.
import { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../json/index.js";

export const INT64_MAX = 2n ** 63n - 1n;

/** Parses JSON text; integers beyond 2^53 become bigint. Throws SyntaxError naming the position. */
export function parseExactJson(text: string): unknown {
  return parseJsonLossless(text);
}

/** Writes compact JSON with every bigint as its exact digits. */
export function stringifyExactJson(value: unknown): string {
  return stringifyJson(value) ?? "null";
}

/** A deep copy in which every bigint is a Number: what the validator gets. */
export function toNumberCopy(value: unknown): unknown {
  return withBigIntsAsNumbers(value);
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty keeps a "__proto__" key an ordinary property.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The validated copy (with the validator's defaults) with the exact bigints put back where the
 * original had them. Keys the validator added (defaults) are kept; values it saw are replaced
 * by the exact originals when those were bigint.
 */
export function mergeExact(validated: unknown, exact: unknown): unknown {
  if (typeof exact === "bigint") return exact;
  if (Array.isArray(validated) && Array.isArray(exact)) return validated.map((item, i) => mergeExact(item, exact[i]));
  if (isPlainObject(validated) && isPlainObject(exact)) {
    const merged: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(validated)) setOwn(merged, key, mergeExact(item, Object.hasOwn(exact, key) ? exact[key] : undefined));
    return merged;
  }
  return validated;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** JSON-pointer-like paths ("items[0].itemId") of integers outside the int64 range. */
export function int64Overflows(value: unknown, path = ""): string[] {
  return inexactIntegers(value, path).filter((problem) => problem.overflow).map((problem) => problem.path);
}

export interface InexactInteger {
  /** Where, e.g. "items[0].itemId". */
  path: string;
  /** True when beyond int64; false when within it but not exact (a number in exponent notation above 2^53). */
  overflow: boolean;
}

/**
 * Integers that cannot be ids: beyond the int64 range, or above 2^53 yet written so that they
 * were read as a double (1e+18, 9007199254740993.0), which may have rounded them.
 */
export function inexactIntegers(value: unknown, path = ""): InexactInteger[] {
  if (typeof value === "bigint") return value > INT64_MAX || value < -INT64_MAX - 1n ? [{ path, overflow: true }] : [];
  if (typeof value === "number") {
    if (!Number.isInteger(value) || Number.isSafeInteger(value)) return [];
    return [{ path, overflow: Math.abs(value) >= 2 ** 63 }];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => inexactIntegers(item, `${path}[${i}]`));
  if (isPlainObject(value)) {
    return Object.entries(value).flatMap(([key, item]) => inexactIntegers(item, path ? `${path}.${key}` : key));
  }
  return [];
}

/** An id from a parsed body (number or bigint) as bigint. */
export function toId(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  throw new TypeError(`not an id: ${String(value)}`);
}

/** An optional id from a parsed body. */
export function toOptionalId(value: unknown): bigint | undefined {
  return value === undefined || value === null ? undefined : toId(value);
}

/**
 * Reads an id from raw URL text (path or query), never from the validator's coerced Number.
 * Returns the reason when the text is not a decimal int64 of at least 1.
 */
export function parseIdText(text: string): bigint | string {
  if (!/^[0-9]{1,19}$/.test(text)) return "must be a positive decimal integer (digits only)";
  const value = BigInt(text);
  if (value < 1n) return "must be >= 1";
  if (value > INT64_MAX) return `must be <= ${INT64_MAX} (int64)`;
  return value;
}
