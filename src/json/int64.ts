// int64 ids guided by a schema (DESIGN item 11; stripe-node's V2 int64 handling is the model):
// where a JSON Schema says `format: int64`, and only there, a value is converted, once each way.
//
//   int64FieldsOf        reads a schema once into the tree of its int64 fields (Int64Fields)
//   readInt64Fields      in:  a validated value's int64 fields become bigint in place, refusing
//                             an integer beyond int64 or one written so that it was read rounded
//   int64AsNumbers       out: an answer's bigint int64 fields become numbers in place, for a
//                             validator that knows no bigint; restoreInt64 puts them back
//   exactJsonText        out: the answer's text, exact where a number would have rounded an id
//
// Nothing else of a value is visited: an answer is never copied for its validator, and the
// writer makes one JSON.stringify. Converting in place is safe because a caller does all of it
// (swap, validate, write, put back) in one synchronous turn: no other code sees the numbers.
import { randomUUID } from "node:crypto";
import { JsonValueError } from "./errors.js";
import { stringifyJson } from "./lossless.js";

export const INT64_MAX = 2n ** 63n - 1n;
export const INT64_MIN = -INT64_MAX - 1n;

/** Where a value's int64 fields are, as its schema says; branches of allOf/oneOf/anyOf are merged. */
export interface Int64Fields {
  /** The value itself is an int64. */
  readonly int64: boolean;
  /** Named properties with int64 fields at or below them. */
  readonly properties?: ReadonlyMap<string, Int64Fields>;
  /** Other properties (additionalProperties) with int64 fields at or below them. */
  readonly otherProperties?: Int64Fields;
  /** Array items with int64 fields at or below them. */
  readonly items?: Int64Fields;
}

interface Building {
  int64: boolean;
  properties?: Map<string, Building>;
  otherProperties?: Building;
  items?: Building;
}

type Schema = Record<string, unknown>;

const isSchema = (node: unknown): node is Schema => typeof node === "object" && node !== null && !Array.isArray(node);

function merge(into: Building, from: Building | undefined): void {
  if (!from) return;
  into.int64 ||= from.int64;
  if (from.properties) {
    into.properties ??= new Map();
    for (const [key, fields] of from.properties) {
      const existing = into.properties.get(key);
      if (existing) merge(existing, fields);
      else into.properties.set(key, fields);
    }
  }
  if (from.items) merge((into.items ??= { int64: false }), from.items);
  if (from.otherProperties) merge((into.otherProperties ??= { int64: false }), from.otherProperties);
}

const isEmpty = (fields: Building): boolean => !fields.int64 && !fields.properties && !fields.items && !fields.otherProperties;

/**
 * The int64 fields of a JSON Schema, or undefined when it has none. `deref` follows a node's
 * `$ref` (the caller knows the document). A schema that refers back to itself is followed once:
 * the values the package exchanges nest no deeper than their schemas do.
 */
export function int64FieldsOf(schema: unknown, deref: (node: unknown) => unknown): Int64Fields | undefined {
  const visiting = new Set<object>();
  const read = (given: unknown): Building | undefined => {
    const node = isSchema(given) && typeof given.$ref === "string" ? deref(given) : given;
    if (!isSchema(node) || visiting.has(node)) return undefined;
    visiting.add(node);
    const fields: Building = { int64: false };
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (node.format === "int64" && (node.type === undefined || types.includes("integer") || types.includes("number"))) fields.int64 = true;
    if (isSchema(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) {
        const found = read(child);
        if (found) (fields.properties ??= new Map()).set(key, found);
      }
    }
    if (isSchema(node.additionalProperties)) fields.otherProperties = read(node.additionalProperties);
    if (isSchema(node.items)) fields.items = read(node.items);
    for (const keyword of ["allOf", "oneOf", "anyOf"]) {
      const branches = node[keyword];
      if (Array.isArray(branches)) for (const branch of branches) merge(fields, read(branch));
    }
    // OpenAPI 3.1 allows siblings of $ref: the referenced schema's fields count too.
    if (node !== given) merge(fields, read({ ...(given as Schema), $ref: undefined }));
    visiting.delete(node);
    return isEmpty(fields) ? undefined : fields;
  };
  return read(schema);
}

/** An integer of a request that cannot be an id. */
export interface InexactInteger {
  /** Where, e.g. "items[0].itemId". */
  path: string;
  /** True when beyond int64; false when within it but not exact (a number in exponent notation above 2^53). */
  overflow: boolean;
}

/** What readInt64Fields was told about bigints the parser produced and the validator saw as numbers. */
export type ExactIntegers = ReadonlyMap<object, ReadonlyMap<string | number, bigint>>;

/**
 * Every bigint of a parsed value turned into its nearest number, in place, for a validator (Ajv
 * knows no bigint); the exact values are returned by container and key for readInt64Fields. Only
 * for values whose text had an integer beyond 2^53 (a run of 16 digits): the others hold none.
 */
export function bigIntsToNumbers(value: unknown): ExactIntegers {
  const exact = new Map<object, Map<string | number, bigint>>();
  const visit = (container: Record<string | number, unknown>, key: string | number, item: unknown): void => {
    if (typeof item === "bigint") {
      let slots = exact.get(container);
      if (!slots) exact.set(container, (slots = new Map()));
      slots.set(key, item);
      container[key] = Number(item);
    } else if (typeof item === "object" && item !== null) {
      if (Array.isArray(item)) item.forEach((child, i) => visit(item as unknown as Record<number, unknown>, i, child));
      else for (const child of Object.keys(item)) visit(item as Record<string, unknown>, child, (item as Record<string, unknown>)[child]);
    }
  };
  visit({ root: value }, "root", value);
  return exact;
}

const pathText = (path: readonly (string | number)[]): string =>
  path.reduce<string>((text, key) => (typeof key === "number" ? `${text}[${key}]` : text ? `${text}.${key}` : key), "");

/**
 * In: the int64 fields of a validated value become bigint, in place (a top-level int64 is
 * returned converted). An integer beyond int64, or one above 2^53 that was written so that it
 * was read as a rounded number (1e+18, 9007199254740993.0), is listed in `problems` instead.
 * `exact` gives the original of a bigint the validator saw as a number (bigIntsToNumbers).
 */
export function readInt64Fields(value: unknown, fields: Int64Fields, problems: InexactInteger[], exact?: ExactIntegers): unknown {
  const path: (string | number)[] = [];
  const one = (item: unknown, container: object | undefined, key: string | number | undefined): unknown => {
    const original = container !== undefined && key !== undefined ? exact?.get(container)?.get(key) : undefined;
    const given = original ?? item;
    if (typeof given === "bigint") {
      if (given > INT64_MAX || given < INT64_MIN) problems.push({ path: pathText(path), overflow: true });
      return given;
    }
    if (typeof given !== "number" || !Number.isInteger(given)) return given;
    if (Number.isSafeInteger(given)) return BigInt(given);
    problems.push({ path: pathText(path), overflow: Math.abs(given) >= 2 ** 63 });
    return given;
  };
  const walk = (item: unknown, at: Int64Fields, container?: object, key?: string | number): unknown => {
    if (at.int64) return one(item, container, key);
    if (typeof item !== "object" || item === null) return item;
    if (Array.isArray(item)) {
      if (at.items) for (let i = 0; i < item.length; i++) (path.push(i), (item[i] = walk(item[i], at.items, item, i)), path.pop());
      return item;
    }
    const record = item as Record<string, unknown>;
    if (at.properties) {
      for (const [name, below] of at.properties) {
        if (Object.hasOwn(record, name)) (path.push(name), (record[name] = walk(record[name], below, record, name)), path.pop());
      }
    }
    if (at.otherProperties) {
      for (const name of Object.keys(record)) {
        if (!at.properties?.has(name)) (path.push(name), (record[name] = walk(record[name], at.otherProperties, record, name)), path.pop());
      }
    }
    return item;
  };
  return walk(value, fields);
}

/** The bigints an answer's int64 fields held, taken out for its validator: put them back with restoreInt64. */
export interface Int64Slots {
  readonly containers: Record<string | number, unknown>[];
  readonly keys: (string | number)[];
  readonly values: bigint[];
  /** How many of them a number does not hold exactly (beyond ±(2^53 - 1)). */
  unsafe: number;
}

/**
 * Out: the bigint int64 fields of an answer become numbers in place, for the validator. Throws a
 * TypeError where a field cannot be written (a frozen object), after putting back what it changed.
 */
export function int64AsNumbers(value: unknown, fields: Int64Fields): Int64Slots {
  const slots: Int64Slots = { containers: [], keys: [], values: [], unsafe: 0 };
  const take = (container: Record<string | number, unknown>, key: string | number, item: unknown): void => {
    if (typeof item !== "bigint") return;
    const number = Number(item);
    container[key] = number;
    slots.containers.push(container);
    slots.keys.push(key);
    slots.values.push(item);
    if (!Number.isSafeInteger(number)) slots.unsafe++;
  };
  const walk = (item: unknown, at: Int64Fields): void => {
    if (typeof item !== "object" || item === null) return;
    if (Array.isArray(item)) {
      const below = at.items;
      if (!below) return;
      for (let i = 0; i < item.length; i++) {
        if (below.int64) take(item as unknown as Record<number, unknown>, i, item[i]);
        else walk(item[i], below);
      }
      return;
    }
    const record = item as Record<string, unknown>;
    if (at.properties) {
      for (const [name, below] of at.properties) {
        if (!Object.hasOwn(record, name)) continue;
        if (below.int64) take(record, name, record[name]);
        else walk(record[name], below);
      }
    }
    const other = at.otherProperties;
    if (other) {
      for (const name of Object.keys(record)) {
        if (at.properties?.has(name)) continue;
        if (other.int64) take(record, name, record[name]);
        else walk(record[name], other);
      }
    }
  };
  try {
    walk(value, fields);
  } catch (error) {
    restoreInt64(slots);
    throw error;
  }
  return slots;
}

/** Puts back the bigints int64AsNumbers took out. */
export function restoreInt64(slots: Int64Slots): void {
  for (let i = 0; i < slots.values.length; i++) slots.containers[i]![slots.keys[i]!] = slots.values[i];
}

// A bigint a number cannot hold is handed to JSON.stringify as a string of this per-process
// random mark and its digits; the quoted, escaped mark is then cut back to the bare digits. A
// string of the value cannot carry the mark by chance, and the count of replacements is checked.
const MARK_ID = randomUUID();
const BIGINT_MARK = `\u0000${MARK_ID}:`;
const BIGINT_MARKED = new RegExp(`"\\\\u0000${MARK_ID}:(-?[0-9]+)"`, "g");

function unmark(text: string, expected: number): string | undefined {
  let replaced = 0;
  const exact = text.replace(BIGINT_MARKED, (_match, digits: string) => {
    replaced++;
    return digits;
  });
  return replaced === expected ? exact : undefined;
}

const polyfilledToJson = (): boolean => typeof (BigInt.prototype as { toJSON?: unknown }).toJSON === "function";

/**
 * The JSON text of an answer whose int64 fields int64AsNumbers turned into numbers: one
 * JSON.stringify, with the ids a number would round written from their bigints. Leaves the
 * answer as it found it (numbers in the slots); a bigint outside the int64 fields still comes
 * out exact (stringifyExactJson).
 */
export function exactJsonText(value: unknown, slots: Int64Slots): string {
  if (slots.unsafe === 0 && !polyfilledToJson()) {
    try {
      return (JSON.stringify(value) as string | undefined) ?? "null";
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
    }
  }
  // Some ids need their digits: mark them, write once, cut the marks back.
  const marked: number[] = [];
  for (let i = 0; i < slots.values.length; i++) {
    const number = slots.containers[i]![slots.keys[i]!] as number;
    if (!Number.isSafeInteger(number)) {
      slots.containers[i]![slots.keys[i]!] = `${BIGINT_MARK}${slots.values[i]}`;
      marked.push(i);
    }
  }
  try {
    const text = polyfilledToJson() ? undefined : tryStringify(value);
    const exact = text === undefined ? undefined : unmark(text, marked.length);
    if (exact !== undefined) return exact;
  } finally {
    for (const i of marked) slots.containers[i]![slots.keys[i]!] = Number(slots.values[i]);
  }
  // A bigint outside the int64 fields, or a polyfilled BigInt toJSON: the general writer.
  restoreInt64(slots);
  try {
    return stringifyExactJson(value);
  } finally {
    for (let i = 0; i < slots.values.length; i++) slots.containers[i]![slots.keys[i]!] = Number(slots.values[i]);
  }
}

function tryStringify(value: unknown): string | undefined {
  try {
    return (JSON.stringify(value) as string | undefined) ?? "null";
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
}

/**
 * Compact JSON with every bigint, wherever it is, written as its exact digits: for values no
 * schema guides (a stored delivery, an answer of no operation). JSON.stringify's own text when
 * the value holds no bigint (it throws on the first one, and the marked pass takes over).
 */
export function stringifyExactJson(value: unknown): string {
  // A BigInt.prototype.toJSON (someone's polyfill) would change what JSON.stringify writes.
  if (polyfilledToJson()) return stringifyJson(value) ?? "null";
  const plain = tryStringify(value);
  if (plain !== undefined) return plain;
  let bigints = 0;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "bigint") return item;
    bigints++;
    return `${BIGINT_MARK}${item}`;
  }) as string | undefined;
  if (text === undefined) return "null";
  return unmark(text, bigints) ?? stringifyJson(value) ?? "null";
}

/**
 * Reads an id from URL text (a path or query parameter), never from a validator's coerced
 * number. Returns the reason when the text is not a decimal int64 of at least 1.
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

/**
 * Integers of a value that no schema guides (fixtures) that cannot be ids: beyond int64, or
 * above 2^53 and read as a rounded number. Paths like "items[0].itemId".
 */
export function inexactIntegers(value: unknown, path = ""): InexactInteger[] {
  if (typeof value === "bigint") return value > INT64_MAX || value < INT64_MIN ? [{ path, overflow: true }] : [];
  if (typeof value === "number") {
    if (!Number.isInteger(value) || Number.isSafeInteger(value)) return [];
    return [{ path, overflow: Math.abs(value) >= 2 ** 63 }];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => inexactIntegers(item, `${path}[${i}]`));
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).flatMap(([key, item]) => inexactIntegers(item, path ? `${path}.${key}` : key));
  }
  return [];
}

/** An id given as a number or a bigint, as bigint; a TypeError for anything else. */
export function toId(value: unknown): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
  throw new JsonValueError(`not an id: ${String(value)}`);
}
