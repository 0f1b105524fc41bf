// int64 in the server kit and the sandbox (DESIGN item 11): JSON is read and written losslessly (src/json, the
// package's one int64 decision), so an integer beyond 2^53 is a bigint in a parsed body and in an
// answer, and the store keeps every id as a bigint (toId). Ajv's `integer` refuses a bigint, so
// the validators get a copy with Numbers instead: forValidator for request bodies, validatorCopy
// for answers, toNumberCopy for fixtures and callback payloads. A Number copy may round an id
// above 2^53, which is harmless for validation (the rules are "integer", "minimum 1", "format
// int64"); the exact value travels beside it.
//
// Fast paths (the hot path of every request, measured in docs/performance.md): most bodies hold no
// integer that a double cannot carry, and for those the engine's JSON.parse and JSON.stringify
// give exactly what the lossless functions give, several times faster. The lossless functions
// stay the reference; test/sandbox/fast-paths.test.ts checks the two agree.
import { randomUUID } from "node:crypto";
import { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../json/index.js";

export const INT64_MAX = 2n ** 63n - 1n;

/** Parses JSON text; integers beyond 2^53 become bigint (src/json has the fast path). */
export function parseExactJson(text: string): unknown {
  return parseJsonLossless(text);
}

// A bigint is handed to JSON.stringify as a string of this per-process random mark and its
// digits; the quoted, escaped mark is then cut back to the bare digits. A string of the value
// cannot carry the mark by chance, and the count of replacements is checked anyway.
const MARK_ID = randomUUID();
const BIGINT_MARK = `\u0000${MARK_ID}:`;
const BIGINT_MARKED = new RegExp(`"\\\\u0000${MARK_ID}:(-?[0-9]+)"`, "g");

// Answers validatorCopy has just looked through, or made, and found to hold no bigint: the writer
// need not look again. Nothing but the validator (which adds no bigint) sees them in between.
const withoutBigInt = new WeakSet<object>();

/** Writes compact JSON with every bigint as its exact digits. */
export function stringifyExactJson(value: unknown): string {
  // A BigInt.prototype.toJSON (someone's polyfill) would change what JSON.stringify writes.
  if (typeof (BigInt.prototype as { toJSON?: unknown }).toJSON === "function") return stringifyJson(value) ?? "null";
  // Without a bigint, JSON.stringify's own text. Looking first is cheaper than letting it throw
  // a TypeError on the first bigint (most answers carry bigint ids); it still throws on one
  // that a toJSON() returns, and the marked pass below handles that too.
  if ((typeof value === "object" && value !== null && withoutBigInt.has(value)) || !containsBigInt(value)) {
    try {
      return (JSON.stringify(value) as string | undefined) ?? "null";
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
  }
  let bigints = 0;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "bigint") return item;
    bigints++;
    return `${BIGINT_MARK}${item}`;
  }) as string | undefined;
  if (text === undefined) return "null";
  let replaced = 0;
  const exact = text.replace(BIGINT_MARKED, (_match, digits: string) => {
    replaced++;
    return digits;
  });
  return replaced === bigints ? exact : (stringifyJson(value) ?? "null");
}

/** True when a bigint is anywhere in the value (then the validator needs a Number copy). */
export function containsBigInt(value: unknown): boolean {
  if (typeof value === "bigint") return true;
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (containsBigInt(item)) return true;
    return false;
  }
  for (const key in value) if (Object.hasOwn(value, key) && containsBigInt((value as Record<string, unknown>)[key])) return true;
  return false;
}

/** A deep copy in which every bigint is a Number: what the validator gets. */
export function toNumberCopy(value: unknown): unknown {
  return withBigIntsAsNumbers(value);
}

/** The value itself when it holds no bigint, else a Number copy. */
export function forValidator(value: unknown): unknown {
  return containsBigInt(value) ? withBigIntsAsNumbers(value) : value;
}

export interface ValidatorCopy {
  /** What the validator gets: the value itself when it holds no bigint, else a copy with Numbers. */
  value: unknown;
  /** True when a bigint beyond 2^53 was rounded in the copy: then only the original writes the exact JSON. */
  rounded: boolean;
}

/**
 * forValidator for an answer, which also tells whether the copy still writes the exact JSON:
 * a bigint within ±(2^53 - 1) becomes the same Number, written with the same digits.
 */
export function validatorCopy(value: unknown): ValidatorCopy {
  if (!containsBigInt(value)) {
    if (typeof value === "object" && value !== null) withoutBigInt.add(value);
    return { value, rounded: false };
  }
  let rounded = false;
  const copy = (item: unknown): unknown => {
    if (typeof item === "bigint") {
      const number = Number(item);
      if (!Number.isSafeInteger(number)) rounded = true;
      return number;
    }
    if (typeof item !== "object" || item === null) return item;
    if (Array.isArray(item)) return item.map(copy);
    // Anything but a plain object (a Date, a class instance) is copied as a plain object, as
    // withBigIntsAsNumbers does; the copy then no longer writes the same JSON.
    const prototype: unknown = Object.getPrototypeOf(item);
    if (prototype !== Object.prototype && prototype !== null) rounded = true;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(item)) {
      // defineProperty keeps a "__proto__" key an ordinary property, as in the original.
      if (key === "__proto__") Object.defineProperty(out, key, { value: copy(child), enumerable: true, writable: true, configurable: true });
      else out[key] = copy(child);
    }
    return out;
  };
  const result = copy(value);
  // Every bigint became a Number: a copy that rounded nothing is written as it is.
  if (!rounded && typeof result === "object" && result !== null) withoutBigInt.add(result);
  return { value: result, rounded };
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
  if (!/^[0-9]+$/.test(text)) return "must be a positive decimal integer (digits only)";
  // All digits but too long for int64: say so, without parsing thousands of digits.
  if (text.replace(/^0+/, "").length > 19) return `must be <= ${INT64_MAX} (int64); got ${text.length} digits`;
  const value = BigInt(text);
  if (value < 1n) return "must be >= 1";
  if (value > INT64_MAX) return `must be <= ${INT64_MAX} (int64)`;
  return value;
}
