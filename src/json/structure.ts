// Structural limits on JSON text: no duplicate object keys, no nesting deeper than a limit.
//
// Why refuse duplicates: the signed interface signs the body text, so `{"totalAmount":1,
// "totalAmount":999}` carries a valid signature over both values; JSON.parse keeps the last one,
// other readers (a proxy, a log pipeline, another language's parser) may keep the first. A body
// whose meaning depends on the reader is refused rather than guessed.
//
// Why limit depth: the engine's JSON.parse is iterative and accepts any depth, but every
// recursive walker after it (the validator, the int64 helpers, lossless-json itself) would
// overflow the stack on a few thousand levels. No message of the platform nests beyond a handful
// of levels; MAX_JSON_DEPTH leaves ample room.
import { markAsPlatformError } from "../errors.js";

/** Deepest nesting accepted: `{}` and `[]` are depth 1, `{"a":[{}]}` is depth 3. */
export const MAX_JSON_DEPTH = 64;

export type JsonStructureProblem = "duplicate-key" | "too-deep";

/**
 * JSON text that is well-formed but refused for its structure. A SyntaxError, so every caller
 * that already treats unreadable JSON as bad input treats this the same way; marked as one of
 * the package's errors, so `instanceof MerchantOpenPlatformError` holds too.
 */
export class JsonStructureError extends SyntaxError {
  override readonly name = "JsonStructureError";
  /** Which rule was broken. */
  readonly problem: JsonStructureProblem;
  /** Zero-based character offset in the text: the duplicate key's opening quote, or the bracket one level too deep. */
  readonly position: number;
  /** The duplicated key (duplicate-key only). */
  readonly key: string | undefined;
  /** The depth limit that applied (too-deep only). */
  readonly limit: number | undefined;

  constructor(problem: JsonStructureProblem, position: number, detail: { key?: string; limit?: number }) {
    super(
      problem === "duplicate-key"
        ? `Duplicate key ${JSON.stringify(detail.key)} at position ${position} (a key may appear only once per object)`
        : `Nesting deeper than ${detail.limit} levels at position ${position}`,
    );
    this.problem = problem;
    this.position = position;
    this.key = detail.key;
    this.limit = detail.limit;
  }
}
markAsPlatformError(JsonStructureError);

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/**
 * The first structural problem in the text, or undefined: a `{` or `[` (outside strings)
 * opening a level beyond maxDepth, or a key written twice in one object (compared after
 * unescaping, so `"a"` and `"\u0061"` are the same key). One pass, no recursion, never throws:
 * it runs on any text, valid JSON or not, before a recursive parser sees it.
 */
export function findStructureProblem(text: string, maxDepth: number): JsonStructureError | undefined {
  // One frame per open container: the keys seen so far for an object, null for an array.
  const frames: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) {
          escaped = true;
          i++;
        } else if (d === QUOTE) break;
      }
      const keys = frames[frames.length - 1];
      if (expectKey && keys) {
        expectKey = false;
        const key = keyText(text.slice(start, i + 1), escaped);
        if (keys.has(key)) return new JsonStructureError("duplicate-key", start, { key });
        keys.add(key);
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (frames.length >= maxDepth) return new JsonStructureError("too-deep", i, { limit: maxDepth });
      frames.push(c === OPEN_BRACE ? new Set() : null);
      expectKey = c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop();
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = frames.length > 0 && frames[frames.length - 1] !== null;
    }
  }
  return undefined;
}

/**
 * The position of the first `{` or `[` (outside strings) beyond maxDepth, or -1: a depth-only
 * pass for long text, so that the engine's parser never builds hundreds of thousands of nested
 * arrays (it is iterative, but that still takes about 0.4 s per MiB) only to have them refused.
 */
export function findTooDeep(text: string, maxDepth: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return -1;
}

/** Text longer than this is scanned for depth before the engine's parser sees it. */
export const DEPTH_PRESCAN_CHARS = 16_384;

function keyText(quoted: string, escaped: boolean): string {
  if (!escaped) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted; // not a valid string: the parser that runs next refuses the text anyway
  }
}

/**
 * For a value JSON.parse produced: the number of object members it holds and whether it nests
 * beyond maxDepth (the walk stops there, so its cost is bounded by the limit, not the input).
 * Iterative: a stack of containers, never the call stack.
 */
export function measureParsed(root: unknown, maxDepth: number): { members: number; tooDeep: boolean } {
  if (typeof root !== "object" || root === null) return { members: 0, tooDeep: false };
  let members = 0;
  const values: object[] = [root];
  const depths: number[] = [1];
  while (values.length > 0) {
    const value = values.pop() as object;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return { members, tooDeep: true };
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === "object" && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      // for-in rather than Object.keys: no array per object, and JSON.parse's objects have only
      // own enumerable keys (an enumerable key added to Object.prototype would only raise the
      // count, which sends the text to the exact path: slower, never wrong).
      const record = value as Record<string, unknown>;
      for (const key in record) {
        members++;
        const item = record[key];
        if (typeof item === "object" && item !== null) {
          values.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return { members, tooDeep: false };
}

// A closing quote followed by a colon: every object key of the text ends this way, and so may
// an escaped quote inside a string (`"a\":b"`). So the count is never below the number of keys
// written, and equals the number of parsed members exactly when there is no duplicate and no
// such string; any difference sends the text to the exact (slower) check.
const KEY_END = /"[ \t\n\r]*:/g;
const SPACE_BEFORE_COLON = /[ \t\n\r]:/;

/** An upper bound on the number of object members written in the text (see KEY_END). */
export function countKeyEnds(text: string): number {
  // Most bodies put no space before a colon: count the plain two-character form without a
  // regex or any allocation; the regex only for text with a blank before some colon.
  if (SPACE_BEFORE_COLON.test(text)) {
    let count = 0;
    KEY_END.lastIndex = 0;
    while (KEY_END.exec(text) !== null) count++;
    return count;
  }
  let count = 0;
  for (let i = text.indexOf('":'); i !== -1; i = text.indexOf('":', i + 2)) count++;
  return count;
}
