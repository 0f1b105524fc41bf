// int64-safe JSON (DESIGN item 11). The platform's ids are 64-bit integers; JSON.parse would
// silently round every id above 2^53 - 1 to a neighbouring one. The TypeScript types show an
// Int64Id as `number | bigint`, and these two functions are where that choice is made:
//
//   parse:      an integer that fits a double exactly stays a `number`; a larger one becomes
//               a `bigint`; anything with a fraction or exponent is a `number` as in JSON.parse.
//   stringify:  a `bigint` is written as its exact decimal digits, never quoted.
//
// Both keep JSON.parse / JSON.stringify semantics otherwise (`__proto__` is an ordinary key,
// undefined and functions are skipped, toJSON is used), so a body can be swapped between the two
// without surprises, with two refusals JSON.parse does not make (structure.ts says why): a
// duplicate key and nesting deeper than MAX_JSON_DEPTH throw a JsonStructureError. Output is
// compact: the signed open interface signs the exact body text, and the compact form is what
// the source specifies.
import { isInteger, parse, stringify } from "lossless-json";
import { JsonValueError } from "./errors.js";
import { countKeyEnds, DEPTH_PRESCAN_CHARS, findStructureProblem, findTooDeep, JsonStructureError, MAX_JSON_DEPTH, measureParsed } from "./structure.js";

const SIXTEEN_DIGITS = /[0-9]{16}/;

/** Parses one JSON number token: number when exact, bigint for an integer beyond ±(2^53 - 1). */
function parseNumberToken(token: string): number | bigint {
  if (isInteger(token)) {
    const value = Number(token);
    return Number.isSafeInteger(value) ? value : BigInt(token);
  }
  return Number(token);
}

export interface ParseJsonOptions {
  /** Deepest nesting accepted (default MAX_JSON_DEPTH, 64). */
  maxDepth?: number;
}

/**
 * JSON.parse, except that integers outside ±(2^53 - 1) are returned as `bigint` so no id
 * loses precision, and that a duplicate object key or nesting beyond maxDepth throws a
 * JsonStructureError (a SyntaxError naming the problem and its position). Throws a SyntaxError
 * for text that is not JSON.
 */
export function parseJsonLossless(text: string, options: ParseJsonOptions = {}): unknown {
  if (typeof text !== "string") {
    throw new JsonValueError(`parseJsonLossless expects JSON text (a string), got ${text === null ? "null" : typeof text}`);
  }
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  // Fast path: an integer beyond 2^53 (9007199254740992) is written with at least 16 digits, so
  // text without such a run is read exactly by the engine's parser, several times faster.
  // JSON.parse keeps the last of duplicate keys and accepts any depth, so its result is only
  // kept when a bounded walk finds no level too deep and as many members as the text has key
  // ends (structure.ts); anything else, and text JSON.parse refuses, goes on to the exact path,
  // which names the problem and its position.
  if (text.length > DEPTH_PRESCAN_CHARS) {
    const tooDeep = findTooDeep(text, maxDepth);
    if (tooDeep !== -1) throw new JsonStructureError("too-deep", tooDeep, { limit: maxDepth });
  }
  if (!SIXTEEN_DIGITS.test(text)) {
    let value: unknown;
    let parsed = true;
    try {
      value = JSON.parse(text);
    } catch {
      parsed = false;
    }
    if (parsed) {
      if (typeof value !== "object" || value === null) return value;
      const shape = measureParsed(value, maxDepth);
      if (!shape.tooDeep && shape.members === countKeyEnds(text)) return value;
    }
  }
  // lossless-json recurses once per level, and only reports a duplicate whose values differ:
  // the structure is checked before it runs.
  const problem = findStructureProblem(text, maxDepth);
  if (problem) throw problem;
  return parse(text, null, { parseNumber: parseNumberToken });
}

/**
 * JSON.stringify without spaces, except that a `bigint` (anywhere in the value) is written as
 * its exact digits. Returns undefined where JSON.stringify does (undefined, a function or a
 * symbol at the top level). Throws a JsonValueError (a TypeError) for a circular structure, as JSON.stringify
 * throws a TypeError.
 */
export function stringifyJson(value: unknown): string | undefined {
  assertAcyclic(value);
  return stringify(value);
}

/**
 * lossless-json recurses without cycle detection and would overflow the stack; JSON.stringify
 * reports a circular structure as a TypeError, and so do we.
 */
function assertAcyclic(root: unknown): void {
  const ancestors = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== "object" || value === null) return;
    if (ancestors.has(value)) throw new JsonValueError("Converting circular structure to JSON");
    ancestors.add(value);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (!Array.isArray(value) && typeof toJSON === "function") visit(toJSON.call(value));
    else for (const child of Array.isArray(value) ? value : Object.values(value)) visit(child);
    ancestors.delete(value);
  };
  visit(root);
}

/**
 * A deep copy in which every `bigint` is replaced by the nearest `number`. For JSON Schema
 * validators (Ajv), which know no bigint; the copy is for checking only, never for use.
 */
export function withBigIntsAsNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(withBigIntsAsNumbers);
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      // defineProperty keeps a "__proto__" key an ordinary property, as in the parsed input.
      Object.defineProperty(copy, key, { value: withBigIntsAsNumbers(child), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}
